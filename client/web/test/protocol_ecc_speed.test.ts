// The fast scalar multiplications (ecc_vartime.ts, and ecc.ts's memo of results
// as multiples of card points) against @noble/curves' own constant-time multiply.
import assert from "node:assert/strict";
import { test } from "node:test";

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";

import { fromBigInt, toBigInt } from "../src/protocol/bytes.ts";
import * as ecc from "../src/protocol/ecc.ts";
import * as vt from "../src/protocol/ecc_vartime.ts";

const N = ecc.N;

/** Scalars in [1, n-1] from a fixed seed: a test is the same every run. */
function scalars(label: string, count: number): bigint[] {
  return Array.from({ length: count }, (_, i) =>
    (toBigInt(sha256(concatBytes(new TextEncoder().encode(label), Uint8Array.of(i)))) % (N - 1n)) + 1n);
}

const EDGES = [1n, 2n, 3n, 7n, 8n, 9n, 15n, 16n, 17n, 2n ** 128n, 2n ** 255n, N - 2n, N - 1n,
  (N - 1n) / 2n, (N + 1n) / 2n];

/** noble's x(k·P): the reference. */
function reference(x: Uint8Array, k: bigint): string {
  return bytesToHex(ecc.point(x).multiply(k).toBytes(true).subarray(1));
}

const hex = (v: bigint): string => bytesToHex(fromBigInt(v, 32));

test("window tables and wNAF give noble's x(k·P), edge scalars included", () => {
  const cards = ecc.cardPoints().slice(0, 3);
  const other = ecc.mul(cards[0]!, 12345n); // a point that is no card
  for (const x of [...cards, other]) {
    const affine = ecc.point(x).toAffine();
    const windowed = vt.windowTable(affine);
    const odd = vt.oddMultiples(affine);
    for (const k of [...EDGES, ...scalars(bytesToHex(x), 20)]) {
      const want = reference(x, k);
      assert.equal(hex(vt.mulWindowed(windowed, k)), want, `windowed, k = ${k}`);
      assert.equal(hex(vt.mulOdd(odd, k)), want, `wNAF, k = ${k}`);
    }
  }
});

test("k = 1 and k = n-1 give back the point's own x (P and -P share it)", () => {
  const x = ecc.cardPoints()[9]!;
  const affine = ecc.point(x).toAffine();
  for (const k of [1n, N - 1n]) {
    assert.equal(hex(vt.mulWindowed(vt.windowTable(affine), k)), bytesToHex(x));
    assert.equal(hex(vt.mulOdd(vt.oddMultiples(affine), k)), bytesToHex(x));
    assert.equal(bytesToHex(ecc.mul(x, k)), bytesToHex(x));
  }
});

test("results remembered as multiples of card points multiply like fresh points", () => {
  // A hand's chain: card → message 1 → message 2 → message 3 → opened, and the
  // shuffle proof's shadows from message 1; each step against noble directly.
  const [a, b, c, d] = scalars("chain", 4) as [bigint, bigint, bigint, bigint];
  const card = ecc.cardPoints()[30]!;
  const m1 = ecc.mul(card, a);
  assert.equal(bytesToHex(m1), reference(card, a));
  const m2 = ecc.mul(m1, b);
  assert.equal(bytesToHex(m2), reference(m1, b));
  const shadow = ecc.mul(m1, c);
  assert.equal(bytesToHex(shadow), reference(m1, c));
  const m3 = ecc.mul(m2, d);
  assert.equal(bytesToHex(m3), reference(m2, d));
  const opened = ecc.mul(m3, ecc.inverse(ecc.product(a, b, d)));
  assert.equal(ecc.cardOf(opened), 30);
  for (const k of EDGES) assert.equal(bytesToHex(ecc.mul(m3, k)), reference(m3, k), `k = ${k}`);
});

test("a point learnt later as a card's multiple: results built on it still agree", () => {
  // The second shuffler multiplies message 1 entries before it knows them as card
  // multiples (the audit rebuilds message 1 at hand end); the order must not matter.
  const [a, b, c] = scalars("late", 3) as [bigint, bigint, bigint];
  const card = ecc.cardPoints()[44]!;
  const entry = p256.Point.fromBytes(concatBytes(Uint8Array.of(2), card)).multiply(a).toBytes(true).subarray(1);
  const before = ecc.mul(entry, b); // entry is a root of its own here
  assert.equal(bytesToHex(before), reference(entry, b));
  assert.deepEqual(ecc.mul(card, a), entry); // now entry resolves to the card
  assert.equal(bytesToHex(ecc.mul(before, c)), reference(before, c));
  assert.equal(bytesToHex(ecc.mul(entry, c)), reference(entry, c));
});

test("checks are unchanged: a bad point before a bad scalar, a known result still checks its scalar", () => {
  const known = ecc.mul(ecc.cardPoints()[1]!, 99n);
  assert.throws(() => ecc.mul(known, 0n), ecc.InvalidScalar);
  assert.throws(() => ecc.mul(known, N), ecc.InvalidScalar);
  let x = 5n;
  while (ecc.isValidX(fromBigInt(x, 32))) x += 1n;
  assert.throws(() => ecc.mul(fromBigInt(x, 32), 0n), ecc.InvalidPoint);
  assert.throws(() => ecc.mul(fromBigInt(ecc.P, 32), 5n), ecc.InvalidPoint);
  assert.throws(() => ecc.mul(known.subarray(1), 5n), ecc.InvalidPoint);
  assert.equal(ecc.inverse(N - 1n), N - 1n);
  assert.throws(() => ecc.inverse(0n), ecc.InvalidScalar);
});
