// Protocol v3's shuffle proof prototype in TypeScript: the same bytes as gin/'s
// (tests/gin/protocol/test_shuffle_proof3.py pins the same digests), an honest
// proof verifies, a duplicating message 2 or a tampered proof does not.
import assert from "node:assert/strict";
import { test } from "node:test";

import { sha256 } from "@noble/hashes/sha2.js";

import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import * as d from "../src/protocol/deck3.ts";
import * as g from "../src/protocol/group3.ts";
import * as sp from "../src/protocol/shuffle_proof3.ts";
import { range } from "./protocol_vectors.ts";

const VECTORS = {
  card0: "42da1e832e27642a2db8ceee4c2badc3c3775219f272d4f83f9d722766ed4818",
  h: "68653b95d38e514c0204f095f363f06e13e9e16490178a99c15a203ff0f4d724",
  m1_0: "988ce544e301a207016e60a8af57488129c86b165ff5a697a3de605a8be46647",
  m2_0: "80908c9fc730fa98e5b287beefdb9ff4c13c010377e782c1fbf71456ea6b5d20",
  m3_0: "54074b1dc9856572d0a158184b2cefd635f846708584d4cd8fe7b50593d9fb6f",
  proofSha256: "94f7bcac0b8202e80778077daf016b4456f14fee6bf79324e6d1e63ea7e042af",
};

const first = d.SeedMaterial.fromSeed(range(0, 32));
const second = d.SeedMaterial.fromSeed(range(32, 64));
const ctx = d.context(utf8ToBytes("vector-match"), 1);
const m1 = d.buildMessage1(first);
const [m2, proof] = d.buildMessage2(second, m1, ctx);

test("the same points, messages and proof bytes as gin/", () => {
  assert.equal(g.cardPoints()[0]!.toHex(), VECTORS.card0);
  assert.equal(g.generatorH().toHex(), VECTORS.h);
  assert.equal(bytesToHex(m1[0]!), VECTORS.m1_0);
  assert.equal(bytesToHex(m2[0]!), VECTORS.m2_0);
  const m3 = d.buildMessage3(first, m2);
  assert.equal(bytesToHex(m3[0]!), VECTORS.m3_0);
  const raw = sp.proofToBytes(proof);
  assert.equal(raw.length, 6784);
  assert.equal(bytesToHex(sha256(raw)), VECTORS.proofSha256);
  const deck = d.deckOrder(first.permutation, second.permutation);
  for (const k of [0, 17, 51]) assert.equal(d.openCard(m3, k, first.positionKeys[k]!, second.positionKeys[k]!), deck[k]);
});

test("an honest proof verifies from its bytes; another hand's does not", () => {
  assert.equal(sp.verify(ctx, m1, m2, sp.proofFromBytes(sp.proofToBytes(proof))), null);
  assert.notEqual(sp.verify(d.context(utf8ToBytes("vector-match"), 2), m1, m2, proof), null);
});

test("a duplicating message 2 is never proven", () => {
  const source = [...second.permutation];
  for (let k = 0; k < 10; k++) source[10 + k] = source[k]!; // own positions copy the dealer's
  const cheat = source.map((src, j) => g.encode(g.mul(g.decode(m1[src]!), second.positionKeys[j]!)));
  assert.throws(() => sp.prove(ctx, m1, cheat, source, second.positionKeys, second.nonceKey), /permutation/);
  const forged = sp.prove(ctx, m1, cheat, second.permutation, second.positionKeys, second.nonceKey);
  // The same cheating message and forged proof, byte for byte, as gin/'s test builds and rejects.
  assert.equal(bytesToHex(sha256(concatBytes(...cheat))), "7f8c9c392e24d35a40c17a18d67279bdf725c9cf5fbacfc5703c9b7ab0390043");
  assert.equal(bytesToHex(sha256(sp.proofToBytes(forged))), "64b8bc5c20ff2c8a58838222907e8bf6ec7c8a9d8edd7937721372519098aa13");
  assert.notEqual(sp.verify(ctx, m1, cheat, forged), null);
});

test("a tampered proof fails", () => {
  const raw = sp.proofToBytes(proof);
  for (const offset of [0, 32 * 60, 32 * 107, 32 * 150, 32 * 211]) {
    const bad = raw.slice();
    bad[offset]! ^= 1;
    let parsed: sp.ShuffleProof;
    try {
      parsed = sp.proofFromBytes(bad);
    } catch (e) {
      assert.ok(e instanceof sp.ProofMalformed);
      continue;
    }
    assert.notEqual(sp.verify(ctx, m1, m2, parsed), null, `offset ${offset}`);
  }
  const swapped = m2.slice();
  [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
  assert.notEqual(sp.verify(ctx, m1, swapped, proof), null);
});
