// The deck mathematics in TypeScript against protocol.md §13 (produced by gin/):
// the group, card points, derivations, commitments, the three deck messages with
// message 2's proof, opening, message 2's check and the hand-end audit.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { PeerFault } from "../src/engine/errors.ts";
import * as fd from "../src/protocol/deal/fairdeal.ts";
import * as g from "../src/protocol/deal/group.ts";
import { numbers, range, vector } from "./protocol_vectors.ts";

const FIRST = fd.SeedMaterial.fromSeed(range(0, 32));
const SECOND = fd.SeedMaterial.fromSeed(range(32, 64));
const MATCH = utf8ToBytes("vector-match");
const CTX = fd.context(MATCH, 1);
const hexKey = (k: bigint): string => bytesToHex(fd.keyBytes(k));

test("ristretto255: RFC 9496's multiples of the generator and refused encodings", () => {
  const multiples = [
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
  ];
  multiples.forEach((hex, i) => assert.equal(g.G.multiply(BigInt(i + 1)).toHex(), hex));
  for (const bad of ["00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0100000000000000000000000000000000000000000000000000000000000000", "00".repeat(32)]) {
    assert.throws(() => g.decode(hexToBytes(bad)), g.InvalidPoint);
  }
  const p = g.cardPoints()[9]!;
  const k = FIRST.deckKey;
  assert.ok(g.mul(g.mul(p, k), g.inv(k)).equals(p));
  assert.ok(g.mul(p, k).equals(g.mulPublic(p, k)));
  assert.throws(() => g.mul(p, 0n), g.InvalidScalar);
  assert.throws(() => g.mul(p, g.L), g.InvalidScalar);
  assert.throws(() => g.scalarFromBytes(fd.keyBytes(g.L)), /not reduced/);
});

test("card points and H: the vectors' points, 52 distinct", () => {
  for (const c of [0, 1, 13, 51]) {
    assert.equal(g.cardPoints()[c]!.toHex(), vector(`card_point_${c}`));
    assert.equal(g.cardOfBytes(g.cardPoints()[c]!.toBytes()), c);
  }
  assert.equal(g.generatorH().toHex(), vector("generator_h"));
  assert.equal(new Set(g.cardPoints().map((p) => p.toHex())).size, 52);
});

test("derivations from the vector seeds: permutations, keys, the nonce key", () => {
  assert.deepEqual([...FIRST.permutation], numbers("first_permutation"));
  assert.deepEqual([...SECOND.permutation], numbers("second_permutation"));
  assert.equal(hexKey(FIRST.deckKey), vector("first_deck_key"));
  for (const k of [0, 1, 2]) {
    assert.equal(hexKey(FIRST.positionKeys[k]!), vector(`first_position_key_${k}`));
    assert.equal(hexKey(SECOND.positionKeys[k]!), vector(`second_position_key_${k}`));
  }
  assert.equal(bytesToHex(SECOND.nonceKey), vector("second_nonce_key"));
  assert.deepEqual(fd.deckOrder(FIRST.permutation, SECOND.permutation), numbers("deck"));
  assert.throws(() => fd.SeedMaterial.fromSeed(range(0, 31)), /seed must be 32 bytes/);
  assert.equal(fd.keyFromBytes(fd.keyBytes(12345n)), 12345n);
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

test("the three deck messages, message 2's proof, and opening every position", () => {
  const m1 = fd.buildMessage1(FIRST);
  const [m2, proof] = fd.buildMessage2(SECOND, fd.validateMessage(m1, "message1"), CTX);
  const m3 = fd.buildMessage3(FIRST, fd.validateMessage(m2, "message2"));
  fd.validateMessage(m3, "message3");
  assert.equal(bytesToHex(m1[0]!), vector("message1_0"));
  assert.equal(bytesToHex(m2[0]!), vector("message2_0"));
  assert.equal(bytesToHex(m3[0]!), vector("message3_0"));
  assert.equal(proof.length, 6784);
  assert.equal(bytesToHex(proof.subarray(0, 32)), vector("proof_k"));
  assert.equal(bytesToHex(proof.subarray(6752)), vector("proof_s_d"));
  assert.equal(bytesToHex(fd.proofDigest(proof)), vector("proof_sha256"));
  assert.equal(fd.message2Refusal(CTX, m1, m2, proof), null);
  const deck = numbers("deck");
  for (let k = 0; k < 52; k++) {
    assert.equal(fd.openCard(m3, k, FIRST.positionKeys[k]!, SECOND.positionKeys[k]!, "second"), deck[k]);
  }
  // A key for another position opens to no card: the sender is at fault.
  assert.throws(
    () => fd.openCard(m3, 5, FIRST.positionKeys[5]!, SECOND.positionKeys[6]!, "second"),
    (exc: unknown) => exc instanceof PeerFault && exc.who === "second" && exc.field === "key[5]",
  );
  for (const bad of [0n, g.L + 1n]) {
    assert.throws(
      () => fd.openCard(m3, 5, FIRST.positionKeys[5]!, bad, "second"),
      (exc: unknown) => exc instanceof PeerFault && /not a valid scalar/.test(exc.message),
    );
  }
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
  const element = /message1\[20\]: not a ristretto255 element other than the identity/;
  bad([...m1.slice(0, 20), new Uint8Array(32).fill(0xff), ...m1.slice(21)], element, 20);
  bad([...m1.slice(0, 20), new Uint8Array(32), ...m1.slice(21)], element, 20);
});

test("the hand-end audit: an honest hand passes, a swapped message 1 blames the first shuffler", () => {
  const m1 = fd.buildMessage1(FIRST);
  const [m2, proof] = fd.buildMessage2(SECOND, m1, CTX);
  const evidence = {
    matchId: MATCH, handNumber: 1, firstSeed: FIRST.seed, secondSeed: SECOND.seed,
    firstCommitment: fd.commitment(FIRST.seed, MATCH, 1, "first"),
    secondCommitment: fd.commitment(SECOND.seed, MATCH, 1, "second"),
    message1: m1, message2: m2, message3: fd.buildMessage3(FIRST, m2),
  };
  const honest = fd.auditHand({ ...evidence, trust: "second" });
  assert.ok(honest.ok);
  assert.deepEqual(honest.deck, numbers("deck"));
  assert.ok(fd.auditHand({ ...evidence, proof: fd.proofDigest(proof) }).ok);
  assert.deepEqual(fd.auditHand({ ...evidence, proof: new Uint8Array(32) }).deviations.map(String), [
    "second shuffler, proof: not the shuffle proof the seed makes",
  ]);
  const swapped = [m1[1]!, m1[0]!, ...m1.slice(2)];
  const m2s = fd.reencrypt(SECOND, swapped);
  const report = fd.auditHand({ ...evidence, message1: swapped, message2: m2s, message3: fd.buildMessage3(FIRST, m2s) });
  assert.deepEqual(report.deviations.map((d) => [d.role, d.where]), [["first", "message1[0]"], ["first", "message1[1]"]]);
  assert.match(String(report.deviations[0]), /^first shuffler, message1\[0\]: holds \w\w instead of \w\w \(that card belongs at 1\)$/);
  const wrongSeed = fd.auditHand({ ...evidence, secondSeed: FIRST.seed, revealedKeys: [["first", 3, 5n]] });
  assert.deepEqual(wrongSeed.deviations.map(String), [
    "second shuffler, commitment: seed does not open the commitment",
    "first shuffler, key[3]: revealed key differs from the seed's",
  ]);
  assert.equal(wrongSeed.deck, null);
});

test("one byte string per element: a point's encoding is checked canonical explicitly, as gin/ does", () => {
  const withTopBit = (point: Uint8Array) => Uint8Array.from(point, (b, i) => (i === 31 ? b | 0x80 : b));
  const card = g.encode(g.cardPoints()[7]!);
  const topBit = withTopBit(card);
  const odd = card.slice();
  odd[0]! |= 1;
  const numberBytes = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
  for (const data of [topBit, odd, numberBytes(g.P), numberBytes(g.P + 1n)]) {
    assert.throws(() => g.decode(data), (exc: unknown) => exc instanceof g.InvalidPoint && /not a canonical encoding/.test(exc.message));
  }
  const m1 = fd.buildMessage1(FIRST);
  assert.throws(() => fd.validateMessage([m1[0]!, withTopBit(m1[0]!), ...m1.slice(2)], "message1"),
    (exc: unknown) => exc instanceof fd.MalformedDeck && exc.position === 1);
  assert.ok(g.decode(card).equals(g.cardPoints()[7]!));
});
