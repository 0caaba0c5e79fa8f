/**
 * The hand in play as the stage table's handlers (protocol.md §7.3–§7.7,
 * session_table.ts): the peer's deal, its moves checked on arrival, the keys and cards
 * shown, the local player's moves with the keys that go with them, the hand's end with
 * its audit and signatures, and the peer's abort; the twin of
 * gin/protocol/session/moves.py.
 */

import { type Action, BigGin, Discard, DrawStock, Knock, parseAction } from "../../engine/actions.ts";
import { Card } from "../../engine/cards.ts";
import { MalformedInput, PeerFault } from "../../engine/errors.ts";
import { dealtPositions, type Hand, UPCARD_POSITION } from "../../engine/hand.ts";
import { auditRecord } from "../records/audit.ts";
import * as cosign from "../records/cosign.ts";
import * as fd from "../deal/fairdeal.ts";
import { Step } from "../records/records.ts";
import {
  abortFailure, CardDrawn, CheatDetected, HandDealt, HandScored, HandVerified, MatchOver,
} from "./events.ts";
import {
  HAND_KEYS, MAX_ACTION_CHARS, MAX_FIELD_CHARS, MAX_REASON_CHARS, type MatchFlow, OWES, SEATS, Stage,
} from "./flow.ts";
import { type HandState, otherRole } from "./hand.ts";
import { NOT_PLAYED_TOLD } from "./rematch.ts";
import { declined, startHand } from "./start.ts";
import type * as wire from "../wire/channel.ts";

export const ABORT_KINDS = ["cheat", "protocol", "tampered", "timeout", "declined", "abandoned"];

// -- the local player's moves ---------------------------------------------------------------

/** Play the local player's action (already checked legal). */
export function play(flow: MatchFlow, action: Action): Stage {
  const hs = flow.state();
  const hand = flow.engine();
  let pairs: (readonly [number, bigint])[] = [];
  if (action instanceof Discard) {
    const pos = flow.positionOf(action.card);
    pairs = hs.keysSent.has(pos) ? [] : [[pos, hs.mine.positionKeys[pos]!]];
  } else if (action instanceof Knock || action instanceof BigGin) {
    pairs = unrevealedKeys(flow);
  }
  for (const [p] of pairs) hs.keysSent.add(p);
  hs.steps.push(new Step(flow.seat, action, pairs));
  flow.send("move", [["h", hs.number], ["a", String(action)], ["pos", pairs.map(([p]) => p)],
    ["keys", pairs.map(([, k]) => fd.keyBytes(k))]]);
  if (action instanceof Knock || action instanceof BigGin) {
    hs.knockPending = action; // applied once the defender has shown its cards
    return Stage.SHOW;
  }
  if (action instanceof DrawStock) hs.drawPending = hand.nextStockPosition;
  flow.apply(flow.seat, action);
  const after = afterMove(flow);
  return after === Stage.PLAY && hs.drawPending !== null ? Stage.KEY : after;
}

/** Our keys for every card we hold that the peer cannot open yet. */
function unrevealedKeys(flow: MatchFlow): (readonly [number, bigint])[] {
  const hs = flow.state();
  const positions = flow.engine().cards(flow.seat).map((c) => flow.positionOf(c)).sort((a, b) => a - b);
  const pairs = positions.filter((p) => !hs.keysSent.has(p)).map((p) => [p, hs.mine.positionKeys[p]!] as const);
  for (const [p] of pairs) hs.keysSent.add(p);
  return pairs;
}

// -- the peer's deal and moves ------------------------------------------------------------------

export function onDeal(flow: MatchFlow, msg: wire.Message): Stage {
  flow.handFields(msg, "keys");
  const hs = flow.state();
  const keys = msg.blobs("keys", HAND_KEYS, { minLen: HAND_KEYS, size: fd.KEY_BYTES });
  const positions = [...dealtPositions(flow.seat === hs.dealer), UPCARD_POSITION];
  const deck: (Card | null)[] = new Array<Card | null>(fd.DECK_SIZE).fill(null);
  const pairs: (readonly [number, bigint])[] = [];
  positions.forEach((pos, i) => {
    deck[pos] = open(hs, pos, keys[i]!, `deal.keys[${i}]`, flow);
    pairs.push([pos, fd.keyFromBytes(keys[i]!)]);
  });
  let hand: Hand;
  try {
    hand = flow.match!.deal(deck);
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    throw flow.cheat(`the dealt cards are corrupt: ${exc.message}`, "deal.keys");
  }
  hs.dealt = true;
  for (const p of dealtPositions(flow.peer === hs.dealer)) hs.peerPositions.add(p);
  hs.steps.push(new Step(flow.peer, null, pairs));
  flow.emit(new HandDealt(hs.number, hs.dealer, hand.cards(flow.seat), hand.pile[hand.pile.length - 1]!));
  return flow.turn();
}

export function onMove(flow: MatchFlow, msg: wire.Message): Stage {
  flow.handFields(msg, "a", "pos", "keys");
  const hs = flow.state();
  const hand = flow.engine();
  const peer = SEATS[flow.peer];
  const text = msg.text("a", MAX_ACTION_CHARS);
  let action: Action;
  try {
    action = parseAction(text);
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    throw flow.protocol(exc.message, "move.a");
  }
  const allowed = action instanceof Knock || action instanceof BigGin ? HAND_KEYS : action instanceof Discard ? 1 : 0;
  const pairs = revealAll(hs, hand, msg, "move", allowed, flow);
  if (action instanceof Discard && pairs.length) {
    const shown = hand.cardAt(pairs[0]![0]);
    if (shown !== action.card) {
      throw flow.cheat(`move.keys[0]: opens ${shown}, not the discarded ${action.card}`, "move.keys[0]");
    }
  }
  const why = hand.refusal(flow.peer, action);
  if (why !== null) throw flow.cheat(`${peer} cannot ${action}: ${why}`, "move.a");
  hs.steps.push(new Step(flow.peer, action, pairs));
  const drawn = hand.nextStockPosition;
  flow.apply(flow.peer, action);
  if (action instanceof DrawStock) { // announced: only now may the key go (§7.4)
    hs.peerPositions.add(drawn);
    const key = hs.mine.positionKeys[drawn]!;
    hs.keysSent.add(drawn);
    hs.steps.push(new Step(flow.seat, null, [[drawn, key]]));
    flow.send("key", [["h", hs.number], ["pos", drawn], ["key", fd.keyBytes(key)]]);
  } else if (action instanceof Knock || action instanceof BigGin) {
    const shown = unrevealedKeys(flow);
    hs.steps.push(new Step(flow.seat, null, shown));
    flow.send("show", [["h", hs.number], ["pos", shown.map(([p]) => p)], ["keys", shown.map(([, k]) => fd.keyBytes(k))]]);
  }
  return afterMove(flow);
}

export function onKey(flow: MatchFlow, msg: wire.Message): Stage {
  flow.handFields(msg, "pos", "key");
  const hs = flow.state();
  const pos = msg.integer("pos", 0, fd.DECK_SIZE - 1);
  if (pos !== hs.drawPending) {
    throw flow.protocol(`key for position ${pos}, but the card drawn is at ${hs.drawPending ?? "None"}`, "key.pos");
  }
  const key = msg.blob("key", fd.KEY_BYTES);
  const card = open(hs, pos, key, "key.key", flow);
  try {
    flow.engine().reveal(pos, card);
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    throw flow.cheat(`key.key: ${exc.message}`, "key.key");
  }
  hs.drawPending = null;
  hs.steps.push(new Step(flow.peer, null, [[pos, fd.keyFromBytes(key)]]));
  flow.emit(new CardDrawn(card));
  return Stage.PLAY;
}

export function onShow(flow: MatchFlow, msg: wire.Message): Stage {
  flow.handFields(msg, "pos", "keys");
  const hs = flow.state();
  const pairs = revealAll(hs, flow.engine(), msg, "show", HAND_KEYS, flow);
  const hidden = flow.engine().hiddenCount(flow.peer);
  if (hidden) throw flow.cheat(`show: ${hidden} of ${SEATS[flow.peer]}'s cards are still hidden`, "show.pos");
  hs.steps.push(new Step(flow.peer, null, pairs));
  const action = hs.knockPending!;
  hs.knockPending = null;
  flow.apply(flow.seat, action);
  return afterMove(flow);
}

/** The next stage after a move; when it ended the hand, sign it and send our seed. */
function afterMove(flow: MatchFlow): Stage {
  const hand = flow.engine();
  if (hand.result === null) return flow.turn();
  const hs = flow.state();
  const scores = flow.match!.scores;
  flow.emit(new HandScored(hs.number, hand.result, [scores[0], scores[1]]));
  hs.mySignature = flow.keys!.signer.sign(cosign.seedSigned(cosign.handDigest(flow.record()), hs.mine.seed));
  flow.send("seed", [["h", hs.number], ["seed", hs.mine.seed], ["sig", hs.mySignature]]);
  return Stage.SEED;
}

export function onSeed(flow: MatchFlow, msg: wire.Message): Stage {
  flow.handFields(msg, "seed", "sig");
  const hs = flow.state();
  const peer = SEATS[flow.peer];
  hs.theirSeed = msg.blob("seed", fd.SEED_BYTES);
  const signature = msg.blob("sig", cosign.SIGNATURE_BYTES);
  const record = flow.record();
  const signed = cosign.verify(flow.keys!.signingKeys[flow.peer], cosign.seatSigned(record, flow.peer), signature);
  const report = auditRecord(record, flow.seat);
  if (!report.ok) {
    // Evidence a third party can check: the record with both signatures of the transcript
    // (the cheater's when it signed the hand as played here).
    const theirs = signed ? signature : new Uint8Array(0);
    const mine = hs.mySignature ?? new Uint8Array(0);
    const first = report.findings[0]!;
    return flow.fail(new CheatDetected(first.who, first.where, String(first),
      record.with({ signatures: flow.seat === 0 ? [mine, theirs] : [theirs, mine] })));
  }
  if (!signed) {
    throw flow.protocol(`the ${peer}'s signature does not sign this hand as played`, "seed.sig");
  }
  const signatures: [Uint8Array, Uint8Array] = flow.seat === 0
    ? [hs.mySignature!, signature] : [signature, hs.mySignature!];
  flow.emit(new HandVerified(hs.number, record.with({ signatures })));
  const totals = flow.match!.totals;
  if (totals === null) return startHand(flow);
  flow.emit(new MatchOver(totals.winner, totals, null));
  return Stage.OVER;
}

export function onAbort(flow: MatchFlow, msg: wire.Message): Stage {
  msg.only("why", "field", "reason");
  const why = msg.text("why", 16, ABORT_KINDS);
  const field = msg.text("field", MAX_FIELD_CHARS);
  const reason = msg.text("reason", MAX_REASON_CHARS);
  if (why === "declined" && flow.role === "host" && flow.rematch !== null && flow.match === null && reason !== NOT_PLAYED_TOLD) {
    return declined(flow, reason); // the guest's answer to the offer: no fault, the end
  }
  return flow.fail(abortFailure(SEATS[flow.peer], OWES[flow.stage], why, field, reason, flow.unacknowledged() === 0));
}

// -- opening the peer's cards -------------------------------------------------------------------

/** The card at `position`, opened with our key and the peer's; a cheat if not. */
function open(hs: HandState, position: number, key: Uint8Array, field: string, flow: MatchFlow): Card {
  let index: number;
  try {
    index = fd.openCard(hs.messages[2]!, position, hs.mine.positionKeys[position]!, fd.keyFromBytes(key),
      otherRole(hs.role));
  } catch (exc) {
    if (!(exc instanceof PeerFault)) throw exc;
    throw flow.cheat(`${field}: ${exc.message}`, field);
  }
  return Card.fromIndex(index);
}

/** Open and reveal the peer's hidden positions listed in `pos`/`keys`. */
function revealAll(hs: HandState, hand: Hand, msg: wire.Message, name: string, maxKeys: number,
  flow: MatchFlow): (readonly [number, bigint])[] {
  const positions = msg.integers("pos", maxKeys, 0, fd.DECK_SIZE - 1);
  const keys = msg.blobs("keys", maxKeys, { size: fd.KEY_BYTES });
  if (positions.length !== keys.length) {
    throw flow.protocol(`${name}: ${positions.length} positions but ${keys.length} keys`, `${name}.keys`);
  }
  const pairs: (readonly [number, bigint])[] = [];
  positions.forEach((pos, i) => {
    const field = `${name}.pos[${i}]`;
    if (!hs.peerPositions.has(pos) || hand.cardAt(pos) !== null) {
      throw flow.cheat(`${field}: position ${pos} is not a hidden card of ${SEATS[flow.peer]}`, field);
    }
    const card = open(hs, pos, keys[i]!, `${name}.keys[${i}]`, flow);
    try {
      hand.reveal(pos, card);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw flow.cheat(`${field}: ${exc.message}`, field);
    }
    pairs.push([pos, fd.keyFromBytes(keys[i]!)]);
  });
  return pairs;
}
