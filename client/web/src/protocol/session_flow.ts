/**
 * The match as one peer of an online session plays it (the twin of
 * gin/protocol/session_flow.py): the handshake, each hand's fair deal with its
 * shuffle proof, the moves checked on arrival, the keys sent and the hand's end with its
 * audit and signatures. It sends, emits, draws randomness and fails through its
 * {@link Outlet}, the session, which owns the channel, the log and the failure.
 * A message that breaks the protocol throws a {@link ProtocolFault}, one that
 * cheats a {@link CheatFault}; the session turns them into failures.
 */

import { type Action, BigGin, Discard, DrawStock, Knock, parseAction } from "../engine/actions.ts";
import { Card } from "../engine/cards.ts";
import { GinError, MalformedInput, PeerFault } from "../engine/errors.ts";
import { dealtPositions, type Hand, UPCARD_POSITION } from "../engine/hand.ts";
import { Match } from "../engine/match.ts";
import { type HandResult, type Observation, Phase } from "../engine/observation.ts";
import { pyRepr } from "../engine/pyrepr.ts";
import { Ruleset } from "../engine/rules.ts";
import { auditRecord } from "./audit.ts";
import { equalBytes } from "./bytes.ts";
import * as cosign from "./cosign.ts";
import type { DealEvidence } from "./evidence.ts";
import * as fd from "./fairdeal.ts";
import type { Value } from "./msgpack.ts";
import { HandRecord, Score, Step } from "./records.ts";
import * as deal from "./session_deal.ts";
import * as moves from "./session_moves.ts";
import {
  CardDrawn, CheatDetected, type Failure, HandDealt, HandScored, HandVerified, MatchOver, MatchStarted, Moved,
  ClaimedAbandoned, PeerAborted, RematchDeclined, RulesDeclined, RulesOffered, type SessionEvent,
} from "./session_events.ts";
import { coin, HandState, otherRole, rulesDigest } from "./session_hand.ts";
import { firstDealer, NOT_PLAYED, NOT_PLAYED_TOLD, PreviousMatch, prevFault } from "./session_rematch.ts";
import { MatchKeys, readRules } from "./session_handshake.ts";
import type { Identity } from "./identity.ts";
import * as wire from "./wire.ts";

export const SEATS = ["host", "guest"] as const;
export type SessionRole = (typeof SEATS)[number];
export const NONCE_BYTES = 32;
export const MAX_ACTION_CHARS = 256;
export const MAX_REASON_CHARS = 400;
export const MAX_FIELD_CHARS = 64;
export const HAND_KEYS = 11; // ten dealt cards and the upcard
export const ABORT_KINDS = ["cheat", "protocol", "tampered", "timeout", "declined", "abandoned"];

/** The peer's message is malformed or out of turn. */
export class ProtocolFault extends PeerFault {}
/** The peer's message is well formed but breaks the rules or the fair deal; `evidence`,
 * when the peer signed what proves it (a refused message 2). */
export class CheatFault extends PeerFault {
  constructor(message: string, who: string, field: string, readonly evidence: DealEvidence | null = null) {
    super(message, who, field);
  }
}

/** A message's fields, in the order they are packed. */
export type Fields = [string, Value][];

/** What the match flow needs of its session. */
export interface Outlet {
  /** The session's failure, if any (the flow stops with it). */
  readonly failure: Failure | null;
  send(msgType: string, fields: Fields): void;
  emit(event: SessionEvent): void;
  /** Fresh randomness, logged so that a restored session replays it. */
  random(n: number): Uint8Array;
  fail(failure: Failure): void;
}


/** One peer's match: handshake, hands, moves, checks. */
/** The message types {@link MatchFlow.handle} takes (the session refuses any other). */
export const MESSAGE_TYPES: ReadonlySet<string> = new Set([
  "hello", "welcome", "start", "commit", "deck", "deal", "move", "key", "show", "seed", "abort",
]);

export class MatchFlow {
  readonly seat: number;
  readonly peer: number;
  agreed: Ruleset | null;
  offered: Ruleset | null = null; // custom rules awaiting the local player
  finished = false;
  declined = false; // a rematch the guest declined: a normal end (RematchDeclined)
  private nonce: Uint8Array | null = null;
  keys: MatchKeys | null = null; // drawn by begin()
  private peerCoin: Uint8Array | null = null;
  private match: Match | null = null;
  private hand: HandState | null = null;
  private readonly io: deal.DealIo;

  constructor(readonly role: SessionRole, readonly linkId: Uint8Array, readonly proposed: Ruleset | null,
    readonly identity: Identity, private readonly out: Outlet, readonly rematch: PreviousMatch | null = null) {
    this.seat = SEATS.indexOf(role);
    this.peer = 1 - this.seat;
    this.agreed = proposed;
    this.io = {
      seat: this.seat,
      peer: this.peer,
      send: (msgType, fields) => out.send(msgType, fields),
      sign: (digest) => this.keys!.signer.sign(digest),
      binding: () => this.keys!.binding(),
      handFields: (msg, ...names) => this.handFields(msg, ...names),
      protocol: (message, field) => this.protocol(message, field),
      cheat: (message, field, evidence) => new CheatFault(message, SEATS[this.peer], field, evidence ?? null),
    };
  }

  /** Draw the signing key; the host proposes its rules and commits to its coin. */
  begin(): void {
    this.keys = new MatchKeys(this.seat, this.linkId, this.identity, this.out.random(cosign.KEY_SEED_BYTES),
      this.rematch === null ? new Uint8Array(0) : this.rematch.matchId);
    if (this.role === "host") {
      this.nonce = this.out.random(NONCE_BYTES);
      this.out.send("hello", [["rules", rulesValue(this.agreed!)], ["coin", coin(this.linkId, this.nonce)],
        ...this.keys.fields()]);
    }
  }

  /** The match id, once both sides' keys are known. */
  get matchId(): Uint8Array | null {
    return this.keys?.matchId ?? null;
  }

  /** Finished normally (a rematch declined too) or by a failure. */
  get over(): boolean {
    return this.finished || this.declined || this.out.failure !== null;
  }

  /** What the local player sees, or null before the first deal. */
  observation(): Observation | null {
    if (this.match === null || this.match.hand === null) return null;
    return this.match.observation(this.seat);
  }

  /** Every finished hand of the match, in order. */
  results(): readonly HandResult[] {
    return this.match === null ? [] : this.match.results;
  }

  /** What a rematch of this match needs, once it has ended normally (§7.1). */
  asPrevious(): PreviousMatch | null {
    const totals = this.match === null || !this.finished ? null : this.match.totals;
    return totals === null ? null : new PreviousMatch(this.matchId!, 1 - totals.winner);
  }

  /** The local player's legal actions; empty unless it is its move now. */
  legalActions(): Action[] {
    if (this.localRefusal() !== null) return [];
    return this.match!.legalActions();
  }

  /** Why the local player may not play `action` now, or null. */
  refusal(action: Action): string | null {
    return this.localRefusal() ?? this.engine().refusal(this.seat, action);
  }

  /** The message type the peer owes now, or null (our move, or the match is over). */
  waitingFor(): string | null {
    if (this.over) return null;
    if (this.match === null) {
      if (this.role === "host") return "welcome";
      if (this.offered !== null) return null; // the local player is deciding on the rules
      return this.peerCoin === null ? "hello" : "start";
    }
    const hs = this.state();
    if (!hs.commits.has(otherRole(hs.role))) return "commit";
    if (hs.expectedDeck() !== null) return "deck";
    if (!hs.dealt) return "deal";
    const hand = this.engine();
    if (hand.phase === Phase.OVER) return "seed";
    if (hs.drawPending !== null) return "key";
    if (hs.knockPending !== null) return "show";
    return hand.turn === this.peer ? "move" : null;
  }

  /** The local player declines the offered rules or rematch: tell the host, stop. */
  decline(reason: string | null): void {
    this.offered = null;
    if (this.rematch !== null) { // a normal end of the series, not a failure
      this.out.send("abort", [["why", "declined"], ["field", "hello.prev"], ["reason", "the guest declined the rematch"]]);
      this.endDeclined(reason ?? "you declined the rematch");
    } else {
      this.refuse("hello.rules", reason ?? "you declined the host's custom rules",
        "the guest declined the host's custom rules");
    }
  }

  private endDeclined(reason: string): void {
    this.declined = true;
    this.out.emit(new RematchDeclined("guest", reason));
  }

  /** End the match unplayed: `told` is what the host reads, `reason` ours. */
  private refuse(field: string, reason: string, told: string): void {
    this.out.send("abort", [["why", "declined"], ["field", field], ["reason", told]]);
    this.out.fail(new RulesDeclined("guest", field, reason));
  }

  /** The engine's hand in play. */
  engine(): Hand {
    return this.match!.hand!;
  }

  /** The fair-deal state of the hand in play. */
  state(): HandState {
    return this.hand!;
  }

  /** Why the local player may not move now, or null. */
  localRefusal(): string | null {
    if (this.over) return "the match is over";
    if (this.hand === null || !this.hand.dealt) return "the hand is not dealt yet";
    const owed = this.waitingFor();
    if (owed !== null) return `waiting for ${SEATS[this.peer]}'s ${owed}`;
    return null;
  }

  positionOf(card: Card): number {
    const hand = this.engine();
    for (let p = 0; p < fd.DECK_SIZE; p++) if (hand.cardAt(p) === card) return p;
    throw new GinError(`${card} is at no known position`);
  }

  private protocol(message: string, field: string): ProtocolFault {
    return new ProtocolFault(message, SEATS[this.peer], field);
  }

  private cheat(message: string, field: string): CheatFault {
    return new CheatFault(message, SEATS[this.peer], field);
  }

  /** One message the peer owes now (the session checked its type), applied. */
  handle(msg: wire.Message): void {
    switch (msg.type) {
      case "hello": return this.onHello(msg);
      case "welcome": return this.onWelcome(msg);
      case "start": return this.onStart(msg);
      case "commit": return deal.onCommit(this.state(), msg, this.io);
      case "deck": return deal.onDeck(this.state(), msg, this.io);
      case "deal": return this.onDeal(msg);
      case "move": return this.onMove(msg);
      case "key": return this.onKey(msg);
      case "show": return this.onShow(msg);
      case "seed": return this.onSeed(msg);
      case "abort": return this.onAbort(msg);
      default: throw new Error(`no handler for message type ${msg.type}: MESSAGE_TYPES and handle() disagree`);
    }
  }

  send(msgType: string, fields: Fields): void {
    this.out.send(msgType, fields);
  }

  private handFields(msg: wire.Message, ...names: string[]): void {
    msg.only("h", ...names);
    const number = msg.integer("h", 0, fd.MAX_HAND_NUMBER);
    const hs = this.state();
    if (number !== hs.number) {
      throw this.protocol(`${msg.type}: hand ${number}, but hand ${hs.number} is in play`, `${msg.type}.h`);
    }
  }

  private onHello(msg: wire.Message): void {
    msg.only("rules", "coin", "key", "id", "prev", "vouch");
    const rules = readRules(msg);
    if (this.proposed !== null && !rules.equals(this.proposed)) {
      throw this.protocol(`the host proposes the ${rules.name} rules ${pyRepr(rules.toDict())}, which `
        + "this guest did not agree to", "hello.rules");
    }
    this.peerCoin = msg.blob("coin", 32);
    this.keys!.read(msg, (message, field) => this.protocol(message, field));
    const prev = this.keys!.previous;
    const wrong = prevFault(prev, this.rematch);
    if (prev.length && this.rematch === null) {
      this.refuse("hello.prev", NOT_PLAYED, NOT_PLAYED_TOLD);
    } else if (wrong !== null) {
      throw this.protocol(wrong, "hello.prev");
    } else if (prev.length || (this.proposed === null && !rules.isPreset)) { // shown first (§7.1)
      this.offered = rules;
      this.out.emit(new RulesOffered(rules, prev.length > 0));
    } else {
      this.welcome(rules);
    }
  }

  /** The local player accepted the offered rules. */
  accept(): void {
    const rules = this.offered!;
    this.offered = null;
    this.welcome(rules);
  }

  private welcome(rules: Ruleset): void {
    this.agreed = rules;
    this.nonce = this.out.random(NONCE_BYTES);
    this.out.send("welcome", [["rules", rulesDigest(rules)], ["nonce", this.nonce], ...this.keys!.fields()]);
  }

  private onWelcome(msg: wire.Message): void {
    msg.only("rules", "nonce", "key", "id", "vouch");
    if (!equalBytes(msg.blob("rules", 32), rulesDigest(this.agreed!))) {
      throw this.protocol("the guest agreed to another ruleset", "welcome.rules");
    }
    const guestNonce = msg.blob("nonce", NONCE_BYTES);
    this.keys!.read(msg, (message, field) => this.protocol(message, field));
    this.out.send("start", [["nonce", this.nonce!]]);
    this.startMatch(firstDealer(this.matchId!, this.nonce!, guestNonce, this.rematch));
  }

  private onStart(msg: wire.Message): void {
    msg.only("nonce");
    const hostNonce = msg.blob("nonce", NONCE_BYTES);
    if (!equalBytes(coin(this.linkId, hostNonce), this.peerCoin!)) {
      throw this.cheat("the host's nonce does not open its coin commitment", "start.nonce");
    }
    this.startMatch(firstDealer(this.matchId!, hostNonce, this.nonce!, this.rematch));
  }

  private startMatch(firstDealer: number): void {
    this.match = new Match(this.agreed!, firstDealer);
    this.out.emit(new MatchStarted(this.agreed!, this.seat, firstDealer, this.matchId!));
    this.startHand();
  }

  private startHand(): void {
    const number = this.hand === null ? 1 : this.hand.number + 1;
    const hs = new HandState(number, this.match!.dealer, this.seat, this.out.random(fd.SEED_BYTES), this.matchId!);
    this.hand = hs;
    this.out.send("commit", [["h", number], ["c", hs.commits.get(hs.role)!]]);
  }

  private onDeal(msg: wire.Message): void {
    this.handFields(msg, "keys");
    const hs = this.state();
    const keys = msg.blobs("keys", HAND_KEYS, { minLen: HAND_KEYS, size: fd.KEY_BYTES });
    const positions = [...dealtPositions(this.seat === hs.dealer), UPCARD_POSITION];
    const deck: (Card | null)[] = new Array<Card | null>(fd.DECK_SIZE).fill(null);
    const pairs: (readonly [number, bigint])[] = [];
    positions.forEach((pos, i) => {
      deck[pos] = this.open(pos, keys[i]!, `deal.keys[${i}]`);
      pairs.push([pos, fd.keyFromBytes(keys[i]!)]);
    });
    let hand: Hand;
    try {
      hand = this.match!.deal(deck);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.cheat(`the dealt cards are corrupt: ${exc.message}`, "deal.keys");
    }
    hs.dealt = true;
    for (const p of dealtPositions(this.peer === hs.dealer)) hs.peerPositions.add(p);
    hs.steps.push(new Step(this.peer, null, pairs));
    this.out.emit(new HandDealt(hs.number, hs.dealer, hand.cards(this.seat), hand.pile[hand.pile.length - 1]!));
  }

  /** The card at `position`, opened with our key and the peer's; a cheat if not. */
  private open(position: number, key: Uint8Array, field: string): Card {
    const hs = this.state();
    let index: number;
    try {
      index = fd.openCard(hs.messages[2]!, position, hs.mine.positionKeys[position]!, fd.keyFromBytes(key),
        otherRole(hs.role));
    } catch (exc) {
      if (!(exc instanceof PeerFault)) throw exc;
      throw this.cheat(`${field}: ${exc.message}`, field);
    }
    return Card.fromIndex(index);
  }

  /** Open and reveal the peer's hidden positions listed in `pos`/`keys`. */
  private revealAll(msg: wire.Message, name: string, maxKeys: number): (readonly [number, bigint])[] {
    const hs = this.state();
    const hand = this.engine();
    const positions = msg.integers("pos", maxKeys, 0, fd.DECK_SIZE - 1);
    const keys = msg.blobs("keys", maxKeys, { size: fd.KEY_BYTES });
    if (positions.length !== keys.length) {
      throw this.protocol(`${name}: ${positions.length} positions but ${keys.length} keys`, `${name}.keys`);
    }
    const pairs: (readonly [number, bigint])[] = [];
    positions.forEach((pos, i) => {
      const field = `${name}.pos[${i}]`;
      if (!hs.peerPositions.has(pos) || hand.cardAt(pos) !== null) {
        throw this.cheat(`${field}: position ${pos} is not a hidden card of ${SEATS[this.peer]}`, field);
      }
      const card = this.open(pos, keys[i]!, `${name}.keys[${i}]`);
      try {
        hand.reveal(pos, card);
      } catch (exc) {
        if (!(exc instanceof MalformedInput)) throw exc;
        throw this.cheat(`${field}: ${exc.message}`, field);
      }
      pairs.push([pos, fd.keyFromBytes(keys[i]!)]);
    });
    return pairs;
  }

  private onMove(msg: wire.Message): void {
    this.handFields(msg, "a", "pos", "keys");
    const hs = this.state();
    const hand = this.engine();
    const peer = SEATS[this.peer];
    const text = msg.text("a", MAX_ACTION_CHARS);
    let action: Action;
    try {
      action = parseAction(text);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.protocol(exc.message, "move.a");
    }
    const allowed = action instanceof Knock || action instanceof BigGin ? HAND_KEYS : action instanceof Discard ? 1 : 0;
    const pairs = this.revealAll(msg, "move", allowed);
    if (action instanceof Discard && pairs.length) {
      const shown = hand.cardAt(pairs[0]![0]);
      if (shown !== action.card) {
        throw this.cheat(`move.keys[0]: opens ${shown}, not the discarded ${action.card}`, "move.keys[0]");
      }
    }
    const why = hand.refusal(this.peer, action);
    if (why !== null) throw this.cheat(`${peer} cannot ${action}: ${why}`, "move.a");
    hs.steps.push(new Step(this.peer, action, pairs));
    const drawn = hand.nextStockPosition;
    this.apply(this.peer, action);
    if (action instanceof DrawStock) { // announced: only now may the key go (§7.4)
      hs.peerPositions.add(drawn);
      const key = hs.mine.positionKeys[drawn]!;
      hs.keysSent.add(drawn);
      hs.steps.push(new Step(this.seat, null, [[drawn, key]]));
      this.out.send("key", [["h", hs.number], ["pos", drawn], ["key", fd.keyBytes(key)]]);
    } else if (action instanceof Knock || action instanceof BigGin) {
      const shown = moves.unrevealedKeys(this);
      hs.steps.push(new Step(this.seat, null, shown));
      this.out.send("show", [["h", hs.number], ["pos", shown.map(([p]) => p)], ["keys", shown.map(([, k]) => fd.keyBytes(k))]]);
    }
    this.afterMove();
  }

  private onKey(msg: wire.Message): void {
    this.handFields(msg, "pos", "key");
    const hs = this.state();
    const pos = msg.integer("pos", 0, fd.DECK_SIZE - 1);
    if (pos !== hs.drawPending) {
      throw this.protocol(`key for position ${pos}, but the card drawn is at ${hs.drawPending ?? "None"}`, "key.pos");
    }
    const key = msg.blob("key", fd.KEY_BYTES);
    const card = this.open(pos, key, "key.key");
    try {
      this.engine().reveal(pos, card);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.cheat(`key.key: ${exc.message}`, "key.key");
    }
    hs.drawPending = null;
    hs.steps.push(new Step(this.peer, null, [[pos, fd.keyFromBytes(key)]]));
    this.out.emit(new CardDrawn(card));
  }

  private onShow(msg: wire.Message): void {
    this.handFields(msg, "pos", "keys");
    const hs = this.state();
    const pairs = this.revealAll(msg, "show", HAND_KEYS);
    const hidden = this.engine().hiddenCount(this.peer);
    if (hidden) throw this.cheat(`show: ${hidden} of ${SEATS[this.peer]}'s cards are still hidden`, "show.pos");
    hs.steps.push(new Step(this.peer, null, pairs));
    const action = hs.knockPending!;
    hs.knockPending = null;
    this.apply(this.seat, action);
    this.afterMove();
  }

  private onSeed(msg: wire.Message): void {
    this.handFields(msg, "seed", "sig");
    const hs = this.state();
    const peer = SEATS[this.peer];
    hs.theirSeed = msg.blob("seed", fd.SEED_BYTES);
    const signature = msg.blob("sig", cosign.SIGNATURE_BYTES);
    const record = this.record();
    const report = auditRecord(record, this.seat);
    if (!report.ok) {
      const first = report.findings[0]!;
      this.out.fail(new CheatDetected(first.who, first.where, String(first), record));
      return;
    }
    if (!cosign.verify(this.keys!.signingKeys[this.peer], cosign.handDigest(record), signature)) {
      throw this.protocol(`the ${peer}'s signature does not sign this hand as played`, "seed.sig");
    }
    const signatures: [Uint8Array, Uint8Array] = this.seat === 0
      ? [hs.mySignature!, signature] : [signature, hs.mySignature!];
    this.out.emit(new HandVerified(hs.number, record.with({ signatures })));
    const totals = this.match!.totals;
    if (totals !== null) {
      this.finished = true;
      this.out.emit(new MatchOver(totals.winner, totals, null));
    } else {
      this.startHand();
    }
  }

  private onAbort(msg: wire.Message): void {
    msg.only("why", "field", "reason");
    const why = msg.text("why", 16, ABORT_KINDS);
    const field = msg.text("field", MAX_FIELD_CHARS);
    const reason = msg.text("reason", MAX_REASON_CHARS);
    const peer = SEATS[this.peer];
    if (why === "declined" && this.role === "host" && this.rematch !== null && this.match === null
        && reason !== NOT_PLAYED_TOLD) {
      this.endDeclined(reason); // the guest's answer to the offer: no fault, the end
    } else if (this.waitingFor() === "seed" && why !== "tampered") {
      this.out.fail(new CheatDetected(peer, "seed", `the ${peer} refused to reveal its seed (a failed audit); it said: ${reason}`));
    } else {
      const kind = why === "abandoned" ? ClaimedAbandoned : PeerAborted;
      this.out.fail(new kind(peer, field, `the ${peer} ended the match (${why}), saying: ${reason}`));
    }
  }

  // -- internals: local moves (session_moves.ts) and the hand's end -------------------------------------

  /** Play the local player's action (already checked legal). */
  doAct(action: Action): void {
    moves.play(this, action);
  }

  apply(seat: number, action: Action): void {
    this.match!.apply(seat, action);
    this.out.emit(new Moved(seat, action));
  }

  afterMove(): void {
    const hand = this.engine();
    if (hand.result === null) return;
    const hs = this.state();
    const scores = this.match!.scores;
    this.out.emit(new HandScored(hs.number, hand.result, [scores[0], scores[1]]));
    hs.mySignature = this.keys!.signer.sign(cosign.handDigest(this.record()));
    this.out.send("seed", [["h", hs.number], ["seed", hs.mine.seed], ["sig", hs.mySignature]]);
  }

  private record(): HandRecord {
    const hs = this.state();
    const hand = this.engine();
    const [m1, m2, m3] = hs.messages;
    // Before the peer's seed arrives the record is only signed: its digest leaves
    // the seeds out (their commitments bind them).
    const theirs = hs.theirSeed ?? new Uint8Array(fd.SEED_BYTES);
    const seeds: [Uint8Array, Uint8Array] = hs.role === "first" ? [hs.mine.seed, theirs] : [theirs, hs.mine.seed];
    return new HandRecord({
      rules: this.match!.rules,
      matchId: this.matchId!,
      handNumber: hs.number,
      dealer: hs.dealer,
      commitments: [hs.commits.get("first")!, hs.commits.get("second")!],
      messages: [m1!, m2!, m3!],
      proof: hs.proof!,
      steps: [...hs.steps],
      seeds,
      score: Score.of(hand.result!),
      scores: [this.match!.scores[0], this.match!.scores[1]],
      ...this.keys!.binding(),
    });
  }
}

/** A ruleset as a message (or a saved session) carries it: its fields, in gin's order. */
export function rulesValue(rules: Ruleset): Map<string, Value> {
  return new Map(Object.entries(rules.toDict()));
}
