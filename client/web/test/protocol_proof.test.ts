// The shuffle proof in TypeScript: the same bytes as gin/'s (tests/gin/protocol/
// test_shuffle_proof.py pins the same digests), an honest proof verifies, and issue
// 19's duplicating second shuffler or a tampered proof is refused, every time.
import assert from "node:assert/strict";
import { test } from "node:test";

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex as toHex, concatBytes as concat, utf8ToBytes as ascii } from "@noble/hashes/utils.js";

import * as d from "../src/protocol/deal/fairdeal.ts";
import * as g from "../src/protocol/deal/group.ts";
import * as sp from "../src/protocol/deal/shuffle_proof.ts";
import { range } from "./protocol_vectors.ts";

const VECTORS = {
  card0: "42da1e832e27642a2db8ceee4c2badc3c3775219f272d4f83f9d722766ed4818",
  h: "68653b95d38e514c0204f095f363f06e13e9e16490178a99c15a203ff0f4d724",
  m1_0: "86e9795524e809752652137e1736ff8471d2dc609eec5e202037430b7d11122d",
  m2_0: "40c6509c4308b7e7d050036d62650e7d01971510864ef8515856a90e3d461212",
  m3_0: "8073665826bb05d2f8d182e60ca69d19c2f643173588a17c2c63596612fbe306",
  proofSha256: "8276d48feb36d54dfc41571e0075173b0de549794d419f5b20acf8cd4b5fcdef",
};

const first = d.SeedMaterial.fromSeed(range(0, 32));
const second = d.SeedMaterial.fromSeed(range(32, 64));
const ctx = d.context(ascii("vector-match"), 1);
const m1 = d.buildMessage1(first);
const [m2, proofBytes] = d.buildMessage2(second, m1, ctx);
const proof = sp.proofFromBytes(proofBytes);

test("the same points, messages and proof bytes as gin/", () => {
  assert.equal(g.cardPoints()[0]!.toHex(), VECTORS.card0);
  assert.equal(g.generatorH().toHex(), VECTORS.h);
  assert.equal(toHex(m1[0]!), VECTORS.m1_0);
  assert.equal(toHex(m2[0]!), VECTORS.m2_0);
  const m3 = d.buildMessage3(first, m2);
  assert.equal(toHex(m3[0]!), VECTORS.m3_0);
  const raw = sp.proofToBytes(proof);
  assert.equal(raw.length, 6784);
  assert.equal(toHex(sha256(raw)), VECTORS.proofSha256);
  const deck = d.deckOrder(first.permutation, second.permutation);
  for (const k of [0, 17, 51]) {
    assert.equal(d.openCard(m3, k, first.positionKeys[k]!, second.positionKeys[k]!, "second"), deck[k]);
  }
  assert.deepEqual(concat(...sp.words(proofBytes)), proofBytes);
});

test("an honest proof verifies from its bytes; another hand's does not", () => {
  assert.equal(sp.verify(ctx, m1, m2, sp.proofFromBytes(sp.proofToBytes(proof))), null);
  assert.notEqual(sp.verify(d.context(ascii("vector-match"), 2), m1, m2, proof), null);
});

/** Issue 19's cheat: the second shuffler's own positions re-key the dealer's message-1 entries. */
function duplicating(s: d.SeedMaterial, message1: Uint8Array[], own: number[], dealer: number[]): [number[], Uint8Array[]] {
  const source = [...s.permutation];
  own.forEach((p, i) => { source[p] = source[dealer[i]!]!; });
  return [source, source.map((src, j) => g.encode(g.mul(g.decode(message1[src]!), s.positionKeys[j]!)))];
}

test("a duplicating message 2 is never proven", () => {
  const dealer = Array.from({ length: 10 }, (_, k) => k);
  const [source, cheat] = duplicating(second, m1, dealer.map((k) => 10 + k), dealer);
  assert.throws(() => sp.prove(ctx, m1, cheat, source, second.positionKeys, second.nonceKey), /permutation/);
  const forged = sp.prove(ctx, m1, cheat, second.permutation, second.positionKeys, second.nonceKey);
  // The same cheating message and forged proof, byte for byte, as gin/'s test builds and rejects.
  assert.equal(toHex(sha256(concat(...cheat))), "87fbc4fea392caac49f64d6bbb460a10ed01fc7c02c076f09c28bf358f76debf");
  assert.equal(toHex(sha256(sp.proofToBytes(forged))), "90e3e441d1ac96301e24584876c3cfaabb691b36cb4dc13451d92dd44573499e");
  assert.deepEqual(d.message2Refusal(ctx, m1, cheat, sp.proofToBytes(forged)), ["proof",
    "message 2 is not proven a shuffle of message 1: the outputs are not the inputs' re-keyed permutation (sum check)"]);
});

test("a duplicating second shuffler is refused every time, whatever the seeds and the hand", () => {
  // The session's cheat (its ten dealt positions, the even ones, copy the dealer's
  // odd ones), over fresh seeds and hands: the TS verifier refuses every one.
  for (let run = 0; run < 3; run++) {
    const a = d.SeedMaterial.fromSeed(sha256(ascii(`first/${run}`)));
    const b = d.SeedMaterial.fromSeed(sha256(ascii(`second/${run}`)));
    const c = d.context(sha256(ascii(`match/${run}`)).slice(0, 16), run + 1);
    const x = d.buildMessage1(a);
    const own = Array.from({ length: 10 }, (_, k) => 2 * k);
    const [, cheat] = duplicating(b, x, own, own.map((p) => p + 1));
    const claimed = sp.proofToBytes(sp.prove(c, x, cheat, b.permutation, b.positionKeys, b.nonceKey));
    assert.equal(d.message2Refusal(c, x, cheat, claimed)?.[0], "proof", `run ${run}`);
    const [honest, proofOk] = d.buildMessage2(b, x, c);
    assert.equal(d.message2Refusal(c, x, honest, proofOk), null);
  }
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
