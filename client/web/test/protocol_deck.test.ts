// The deck mathematics in TypeScript against protocol.md §13 (produced by gin/):
// card points, derivations, commitments, the three deck messages, opening.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MalformedInput, PeerFault } from "../src/engine/errors.ts";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { fromBigInt } from "../src/protocol/bytes.ts";
import * as ecc from "../src/protocol/ecc.ts";
import * as fd from "../src/protocol/fairdeal.ts";
import { numbers, range, vector } from "./protocol_vectors.ts";

const FIRST = fd.SeedMaterial.fromSeed(range(0, 32));
const SECOND = fd.SeedMaterial.fromSeed(range(32, 64));
const MATCH = utf8ToBytes("vector-match");
const bytes32 = (v: bigint): Uint8Array => fromBigInt(v, 32);
const hexKey = (k: bigint): string => k.toString(16).padStart(64, "0");

test("card points: the vectors' coordinates and counters, 52 distinct points", () => {
  for (const c of [0, 1, 13, 51]) {
    const [x, counter] = ecc.hashToX(c);
    assert.equal(bytesToHex(x), vector(`card_point_${c}`));
    assert.equal(counter, Number(vector(`card_counter_${c}`)));
    assert.equal(ecc.cardOf(x), c);
  }
  const points = ecc.cardPoints();
  assert.equal(new Set(points.map(bytesToHex)).size, 52);
  assert.throws(() => ecc.hashToX(52), MalformedInput);
});

test("derivations from the vector seeds: permutations and keys", () => {
  assert.deepEqual([...FIRST.permutation], numbers("first_permutation"));
  assert.deepEqual([...SECOND.permutation], numbers("second_permutation"));
  assert.equal(hexKey(FIRST.deckKey), vector("first_deck_key"));
  for (const k of [0, 1, 2]) {
    assert.equal(hexKey(FIRST.positionKeys[k]!), vector(`first_position_key_${k}`));
    assert.equal(hexKey(SECOND.positionKeys[k]!), vector(`second_position_key_${k}`));
  }
  assert.deepEqual(fd.deckOrder(FIRST.permutation, SECOND.permutation), numbers("deck"));
  assert.throws(() => fd.SeedMaterial.fromSeed(range(0, 31)), /seed must be 32 bytes/);
});

test("commitments bind match, hand and role", () => {
  const first = fd.commitment(FIRST.seed, MATCH, 1, "first");
  assert.equal(bytesToHex(first), vector("first_commitment"));
  assert.equal(bytesToHex(fd.commitment(SECOND.seed, MATCH, 1, "second")), vector("second_commitment"));
  assert.ok(fd.verifyCommitment(first, FIRST.seed, MATCH, 1, "first"));
  assert.ok(!fd.verifyCommitment(first, FIRST.seed, MATCH, 2, "first"));
  assert.ok(!fd.verifyCommitment(first, FIRST.seed, MATCH, 1, "second"));
  assert.ok(!fd.verifyCommitment(first, SECOND.seed, MATCH, 1, "first"));
  assert.throws(() => fd.commitment(FIRST.seed, new Uint8Array(0), 1, "first"), /match id/);
  assert.throws(() => fd.commitment(FIRST.seed, MATCH, 2 ** 32, "first"), /hand number/);
});

test("the three deck messages and opening every position", () => {
  const m1 = fd.buildMessage1(FIRST);
  const m2 = fd.buildMessage2(SECOND, fd.validateMessage(m1, "message1"));
  const m3 = fd.buildMessage3(FIRST, fd.validateMessage(m2, "message2"));
  fd.validateMessage(m3, "message3");
  assert.equal(bytesToHex(m1[0]!), vector("message1_0"));
  assert.equal(bytesToHex(m2[0]!), vector("message2_0"));
  assert.equal(bytesToHex(m3[0]!), vector("message3_0"));
  const deck = numbers("deck");
  for (let k = 0; k < 52; k++) {
    assert.equal(fd.openCard(m3, k, FIRST.positionKeys[k]!, SECOND.positionKeys[k]!, "second"), deck[k]);
  }
  // A key for another position opens to no card: the sender is at fault.
  assert.throws(
    () => fd.openCard(m3, 5, FIRST.positionKeys[5]!, SECOND.positionKeys[6]!, "second"),
    (exc: unknown) => exc instanceof PeerFault && exc.who === "second" && exc.field === "key[5]",
  );
  assert.throws(
    () => fd.openCard(m3, 5, FIRST.positionKeys[5]!, 0n, "second"),
    (exc: unknown) => exc instanceof PeerFault && /not a valid scalar/.test(exc.message),
  );
  assert.ok(fd.verifyKey(SECOND.seed, 3, SECOND.positionKeys[3]!));
  assert.ok(!fd.verifyKey(SECOND.seed, 3, SECOND.positionKeys[4]!));
});

test("a received deck message is checked entry by entry, naming the first bad position", () => {
  const m1 = fd.buildMessage1(FIRST);
  const bad = (value: unknown, pattern: RegExp, position: number | null) =>
    assert.throws(() => fd.validateMessage(value, "message1"),
      (exc: unknown) => exc instanceof fd.MalformedDeck && pattern.test(exc.message) && exc.position === position);
  bad("no", /expected a list of 52/, null);
  bad(m1.slice(1), /expected 52 entries, got 51/, null);
  bad([...m1.slice(0, 9), m1[9]!.slice(1), ...m1.slice(10)], /message1\[9\]: expected 32 bytes/, 9);
  bad([...m1.slice(0, 17), m1[3]!, ...m1.slice(18)], /message1\[17\]: repeats position 3/, 17);
  // About half of all x name no point: take the first from 5 up.
  let x = 5n;
  while (ecc.isValidX(bytes32(x))) x += 1n;
  bad([...m1.slice(0, 20), bytes32(x), ...m1.slice(21)], /message1\[20\]: not a point on P-256/, 20);
  bad([...m1.slice(0, 2), bytes32(ecc.P), ...m1.slice(3)], /message1\[2\]: not a point/, 2);
});

test("scalars: range checked, inverse undoes, products compose", () => {
  const x = ecc.cardPoints()[7]!;
  const k = FIRST.deckKey;
  assert.deepEqual(ecc.mul(ecc.mul(x, k), ecc.inverse(k)), x);
  const b = SECOND.positionKeys[0]!;
  assert.deepEqual(ecc.mul(ecc.mul(x, k), b), ecc.mul(x, ecc.product(k, b)));
  assert.throws(() => ecc.mul(x, 0n), ecc.InvalidScalar);
  assert.throws(() => ecc.mul(x, ecc.N), ecc.InvalidScalar);
  assert.throws(() => ecc.point(bytes32(ecc.P)), /not reduced modulo p/);
});

test("the hand-end audit: an honest hand passes, a swapped message 1 blames the first shuffler", () => {
  const m1 = fd.buildMessage1(FIRST);
  const m2 = fd.buildMessage2(SECOND, m1);
  const evidence = {
    matchId: MATCH, handNumber: 1, firstSeed: FIRST.seed, secondSeed: SECOND.seed,
    firstCommitment: fd.commitment(FIRST.seed, MATCH, 1, "first"),
    secondCommitment: fd.commitment(SECOND.seed, MATCH, 1, "second"),
    message1: m1, message2: m2, message3: fd.buildMessage3(FIRST, m2),
  };
  const honest = fd.auditHand({ ...evidence, trust: "second" });
  assert.ok(honest.ok);
  assert.deepEqual(honest.deck, numbers("deck"));
  // Positions 0 and 1 hold cards 29 (4h) and 11 (Qc): swap them.
  const swapped = [m1[1]!, m1[0]!, ...m1.slice(2)];
  const m2s = fd.buildMessage2(SECOND, swapped);
  const report = fd.auditHand({ ...evidence, message1: swapped, message2: m2s, message3: fd.buildMessage3(FIRST, m2s) });
  assert.deepEqual(report.deviations.map(String), [
    "first shuffler, message1[0]: holds Qc instead of 4h (that card belongs at 1)",
    "first shuffler, message1[1]: holds 4h instead of Qc (that card belongs at 0)",
  ]);
  assert.deepEqual([...report.atFault], ["first"]);
  assert.throws(() => report.raiseForFault(),
    (exc: unknown) => exc instanceof PeerFault && exc.who === "first" && exc.field === "message1[0]");
  const wrongSeed = fd.auditHand({ ...evidence, secondSeed: FIRST.seed, revealedKeys: [["first", 3, 5n]] });
  assert.deepEqual(wrongSeed.deviations.map(String), [
    "second shuffler, commitment: seed does not open the commitment",
    "first shuffler, key[3]: revealed key differs from the seed's",
  ]);
  assert.equal(wrongSeed.deck, null);
});
