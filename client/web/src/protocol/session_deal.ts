/**
 * One hand's fair deal before play (protocol.md §7.2, §7.3): the commitments,
 * the three deck messages, the shuffle proof and this side's deal — the twin of
 * gin/protocol/session_deal.py. Each handler takes the hand's
 * {@link HandState}, the peer's message and what it needs of the match flow.
 */

import { dealtPositions, UPCARD_POSITION } from "../engine/hand.ts";
import { fromBigInt, toBigInt } from "./bytes.ts";
import * as ecc from "./ecc.ts";
import * as fd from "./fairdeal.ts";
import type { Value } from "./msgpack.ts";
import { Step } from "./records.ts";
import { type HandState, otherRole } from "./session_hand.ts";
import * as sp from "./shuffle_proof.ts";
import type * as wire from "./wire.ts";

export const KEY_BYTES = 32;

/** A 32-byte key as it travels. */
export const keyBytes = (key: bigint): Uint8Array => fromBigInt(key, KEY_BYTES);

/** What the deal's handlers need of the match flow. */
export interface DealIo {
  readonly seat: number;
  readonly peer: number;
  send(msgType: string, fields: [string, Value][]): void;
  random(n: number): Uint8Array;
  /** Schema of a hand message: only `h` and `names`, and `h` the hand in play. */
  handFields(msg: wire.Message, ...names: string[]): void;
  protocol(message: string, field: string): Error;
  cheat(message: string, field: string): Error;
}

/** The peer's commitment; the first shuffler then sends message 1. */
export function onCommit(hs: HandState, msg: wire.Message, io: DealIo): void {
  io.handFields(msg, "c");
  hs.commits.set(otherRole(hs.role), msg.blob("c", 32));
  if (hs.role === "first") { // commitments exchanged: the first shuffle may go
    const message1 = fd.buildMessage1(hs.mine);
    hs.messages[0] = message1;
    io.send("deck", [["h", hs.number], ["n", 1], ["deck", [...message1]]]);
  }
}

/** A deck message, checked (§8.6); the second answers message 1 with message 2 and its shadows, and deals on message 3. */
export function onDeck(hs: HandState, msg: wire.Message, io: DealIo): void {
  io.handFields(msg, "n", "deck");
  const n = msg.integer("n", 1, 3);
  if (n !== hs.expectedDeck()) {
    throw io.protocol(`deck message ${n} while waiting for message ${hs.expectedDeck() ?? "None"}`, "deck.n");
  }
  const entries = msg.blobs("deck", fd.DECK_SIZE, { minLen: fd.DECK_SIZE, size: 32 });
  let deck: fd.Deck;
  try {
    deck = fd.validateMessage(entries, `message${n}`);
  } catch (exc) {
    if (!(exc instanceof fd.MalformedDeck)) throw exc;
    throw io.cheat(exc.message, exc.position === null ? exc.field : `${exc.field}[${exc.position}]`);
  }
  hs.messages[n - 1] = deck;
  if (n === 1) { // the second shuffle, and the shadows that prove it (§8.9)
    const message2 = fd.buildMessage2(hs.mine, deck);
    hs.messages[1] = message2;
    io.send("deck", [["h", hs.number], ["n", 2], ["deck", [...message2]]]);
    const shadows = sp.shadows(hs.mine, deck);
    io.send("shuffle", [["h", hs.number], ["s", shadows.flat()]]);
  } else if (n === 3) {
    sendDeal(hs, io);
  }
}

/** The second's shadows: the first draws its challenge and sends message 3. */
export function onShuffle(hs: HandState, msg: wire.Message, io: DealIo): void {
  io.handFields(msg, "s");
  const size = sp.ROUNDS * fd.DECK_SIZE;
  const flat = msg.blobs("s", size, { minLen: size, size: ecc.COORD_BYTES });
  hs.shadows = Array.from({ length: sp.ROUNDS }, (_, r) => flat.slice(r * fd.DECK_SIZE, (r + 1) * fd.DECK_SIZE));
  hs.challenge = io.random(1)[0]! % (1 << sp.ROUNDS);
  io.send("challenge", [["h", hs.number], ["c", hs.challenge]]);
  const message3 = fd.buildMessage3(hs.mine, hs.messages[1]!);
  hs.messages[2] = message3;
  io.send("deck", [["h", hs.number], ["n", 3], ["deck", [...message3]]]);
}

/** The first's challenge: the second opens the rounds it names. */
export function onChallenge(hs: HandState, msg: wire.Message, io: DealIo): void {
  io.handFields(msg, "c");
  hs.challenge = msg.integer("c", 0, (1 << sp.ROUNDS) - 1);
  const openings = sp.openRounds(hs.mine, hs.challenge);
  io.send("proof", [
    ["h", hs.number],
    ["seeds", openings.filter((o) => o.seed !== null).map((o) => o.seed!)],
    ["tau", openings.flatMap((o) => [...o.tau])],
    ["keys", openings.flatMap((o) => o.keys.map(keyBytes))],
  ]);
}

/** The second's openings, checked round by round (§8.9); then the first deals. */
export function onProof(hs: HandState, msg: wire.Message, io: DealIo): void {
  io.handFields(msg, "seeds", "tau", "keys");
  const challenge = hs.challenge!;
  let ones = 0;
  for (let r = 0; r < sp.ROUNDS; r++) ones += (challenge >> r) & 1;
  const seeds = msg.blobs("seeds", sp.ROUNDS - ones, { minLen: sp.ROUNDS - ones, size: fd.SEED_BYTES });
  const size = ones * fd.DECK_SIZE;
  const taus = msg.integers("tau", size, 0, fd.DECK_SIZE - 1, size);
  const keys = msg.blobs("keys", size, { minLen: size, size: KEY_BYTES });
  const [m1, m2] = hs.messages;
  let opened = 0;
  let seedAt = 0;
  for (let r = 0; r < sp.ROUNDS; r++) {
    const bit = (challenge >> r) & 1;
    let opening: sp.Opening;
    if (bit) {
      const part = [opened * fd.DECK_SIZE, (opened + 1) * fd.DECK_SIZE] as const;
      opening = { seed: null, tau: taus.slice(...part), keys: keys.slice(...part).map(toBigInt) };
      opened += 1;
    } else {
      opening = { seed: seeds[seedAt++]!, tau: [], keys: [] };
    }
    const why = sp.checkRound(m1!, m2!, hs.shadows![r]!, bit, opening);
    if (why !== null) {
      throw io.cheat(`proof[${r}]: message 2 is not proven a shuffle of message 1: ${why}`, `proof[${r}]`);
    }
  }
  hs.shuffleProven = true;
  sendDeal(hs, io);
}

/** Our keys for the peer's ten dealt positions and the upcard (§7.3). */
function sendDeal(hs: HandState, io: DealIo): void {
  const positions = [...dealtPositions(io.peer === hs.dealer), UPCARD_POSITION];
  const keys = positions.map((p) => hs.mine.positionKeys[p]!);
  for (const p of positions) hs.keysSent.add(p);
  hs.steps.push(new Step(io.seat, null, positions.map((p, i) => [p, keys[i]!] as const)));
  io.send("deal", [["h", hs.number], ["keys", keys.map(keyBytes)]]);
}
