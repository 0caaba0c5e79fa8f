/**
 * The deal's own edwards25519 arithmetic (src/protocol/deal/edwards.ts) against noble's:
 * the same elements for fixed-base multiplications, both MSMs and the Pedersen
 * commitments, at the scalars whose digits are edge cases (0, 1, L − 1, every window
 * at its carry boundary) and at pseudo-random ones.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { sha512 } from "@noble/hashes/sha2.js";

import * as ed from "../src/protocol/deal/edwards.ts";
import * as g from "../src/protocol/deal/group.ts";

const scalar = (i: number): bigint => g.hashToScalar(Uint8Array.of(i, 7));
/** Every 6-bit and 4-bit window at 2^(w−1) (the signed digit that does not borrow) or just above. */
const repeated = (pattern: bigint, width: number): bigint => {
  let k = 0n;
  for (let at = 0; at < 252; at += width) k |= pattern << BigInt(at);
  return k % g.L;
};
const EDGES = [0n, 1n, 2n, 31n, 32n, 33n, 63n, 64n, g.L - 1n, g.L - 2n, 2n ** 252n,
  repeated(32n, 6), repeated(33n, 6), repeated(31n, 6), repeated(8n, 4), repeated(9n, 4), repeated(15n, 4)];

const times = (p: g.Point, k: bigint): g.Point => (k === 0n ? g.RPoint.ZERO : p.multiplyUnsafe(k));

test("the fixed-base tables multiply as noble does, edge scalars included", () => {
  const base = g.hashToPoint(Uint8Array.of(1)); // Z ≠ 1 in noble's representative
  const table = new ed.FixedBase(base);
  for (const k of [...EDGES, scalar(1), scalar(2), scalar(3)]) {
    assert.ok(ed.toPoint(table.addTo(ed.IDENTITY, k)).equals(times(base, k)), `k = ${k}`);
  }
  const sum = ed.toPoint(table.addTo(ed.fromPoint(g.G), 5n));
  assert.ok(sum.equals(g.G.add(base.multiply(5n))), "added to a point, not the identity");
});

test("a Pedersen commitment and k·G are noble's x·H + y·G and k·G; encoded in a batch, its encoding", () => {
  const pairs = [[1n, 0n], [0n, 1n], [g.L - 1n, g.L - 1n], [scalar(4), scalar(5)], [2n, 3n]] as const;
  for (const [x, y] of [[0n, 0n], ...pairs]) {
    assert.ok(g.pedersen(x, y).equals(times(g.generatorH(), x).add(times(g.G, y))), `${x}, ${y}`);
    assert.ok(g.mulBase(y).equals(times(g.G, y)));
  }
  assert.deepEqual(g.encodePedersen(pairs), pairs.map(([x, y]) => g.encode(g.pedersen(x, y))));
  // One commitment to 0 (the identity: no batch inverse): each encoded alone, the same bytes.
  const withZero = [...pairs, [0n, 0n]] as const;
  assert.deepEqual(g.encodePedersen(withZero), withZero.map(([x, y]) => g.pedersen(x, y).toBytes()));
});

test("both MSMs sum as noble's separate multiplications do", () => {
  const points = Array.from({ length: 52 }, (_, i) => g.decode(g.encode(g.hashToPoint(Uint8Array.of(2, i)))));
  points[5] = points[4]!; // a point twice
  points[6] = points[4]!.negate(); // and its negation: their sum cancels
  const scalars = points.map((_, i) => (i < EDGES.length ? EDGES[i]! : scalar(10 + i)));
  const want = points.reduce((acc, p, i) => acc.add(times(p, scalars[i]!)), g.RPoint.ZERO);
  assert.ok(g.msm(points, scalars).equals(want));
  assert.ok(g.msmSecret(points, scalars).equals(want));
  // 128-bit weights (fewer windows) and Pippenger's wider windows over 100 and 200 points.
  for (const n of [3, 120, 210]) {
    const some = Array.from({ length: n }, (_, i) => points[i % points.length]!);
    const weights = some.map((_, i) => BigInt("0x" + Buffer.from(sha512(Uint8Array.of(n, i))).subarray(0, 16).toString("hex")));
    const expected = some.reduce((acc, p, i) => acc.add(times(p, weights[i]!)), g.RPoint.ZERO);
    assert.ok(g.msm(some, weights).equals(expected), `${n} points`);
  }
  assert.ok(g.msm([points[4]!, points[6]!], [9n, 9n]).is0(), "a sum that is the identity");
  assert.ok(g.msm([], []).is0());
  assert.throws(() => g.msm([g.G], [g.L]), /scalar/);
  assert.throws(() => g.msmSecret([g.G], [g.L]), /secret scalar must be in \[0, L\)/);
  assert.throws(() => g.pedersen(-1n, 1n), /secret scalar must be in \[0, L\)/);
  assert.throws(() => g.msmSecret([g.G], []), /as many/);
});

test("the batch encoding of doubled points is noble's encoding of each 2·P", () => {
  const points = Array.from({ length: 40 }, (_, i) => ed.add(ed.fromPoint(g.hashToPoint(Uint8Array.of(3, i))),
    ed.cached(ed.fromPoint(g.G)))); // Z ≠ 1: the sums' representatives, as the proof's
  points.push(ed.fromPoint(g.G), ed.double(ed.fromPoint(g.generatorH())));
  const got = ed.encodeDoubled(points)!;
  points.forEach((p, i) => assert.deepEqual(got[i], ed.toPoint(ed.double(p)).toBytes(), `point ${i}`));
  assert.equal(ed.encodeDoubled([ed.fromPoint(g.G), ed.IDENTITY]), null, "2·O is the identity: no batch");
});
