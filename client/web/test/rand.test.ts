// Known answers of gin/rand.py (computed there by an independent C implementation
// of splitmix32 and xoshiro128**): the TS stream must give the same numbers.
import assert from "node:assert/strict";
import { test } from "node:test";

import { derive, Rand } from "../src/rand.ts";

test("the first outputs match the reference", () => {
  const cases: [number, number[]][] = [
    [0, [0xe308dc58, 0x4392d0e4, 0x03318f97]],
    [1, [0x9190299e, 0xc1017b27, 0xe3af522f]],
    [0xdeadbeef, [0x897ad89d, 0x998f30df, 0x4a8bba06]],
  ];
  for (const [seed, first] of cases) {
    const r = new Rand(seed);
    assert.deepEqual([r.nextU32(), r.nextU32(), r.nextU32()], first);
  }
});

test("below, random, shuffle, choice and derive follow the written algorithm", () => {
  let r = new Rand(7);
  assert.deepEqual(Array.from({ length: 10 }, () => r.below(10)), [0, 7, 9, 8, 7, 9, 7, 4, 8, 0]);
  r = new Rand(7);
  assert.deepEqual([r.random(), r.random()], [0.2338277214186818, 0.44891458133395923]);
  assert.deepEqual(new Rand(7).shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), [3, 9, 6, 5, 4, 7, 2, 1, 8, 0]);
  r = new Rand(7);
  assert.equal(r.choice([..."abcdefg"]), "c");
  assert.equal(r.below(2 ** 32), 2200021487);
  assert.equal(r.below(1), 0);
  assert.equal(derive(0, 1, 2), 0x965dda89);
});

test("seeds and ranges outside 32 bits are refused", () => {
  for (const seed of [-1, 2 ** 32, 1.5]) {
    assert.throws(() => new Rand(seed), RangeError);
    assert.throws(() => derive(seed), RangeError);
  }
  assert.throws(() => new Rand(0).below(0), RangeError);
  assert.throws(() => new Rand(0).below(2 ** 32 + 1), RangeError);
  assert.throws(() => new Rand(0).choice([]), RangeError);
});
