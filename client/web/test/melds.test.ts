import assert from "node:assert/strict";
import { test } from "node:test";

import { parseCards } from "../src/engine/cards.ts";
import { allArrangements, bestArrangement, bestDiscard } from "../src/engine/melds.ts";
import { cardsMask } from "../src/engine/cards.ts";

const text = (melds: { toString(): string }[][]) => melds.map((m) => m.join(" "));

test("the set wins 5-6-7 of hearts with two more sevens", () => {
  const a = bestArrangement(parseCards("5h 6h 7h 7s 7d Kc"));
  assert.deepEqual(text(a.melds), ["7d 7h 7s"]);
  assert.equal(a.deadwood, 5 + 6 + 10);
});

test("the run wins 2-3-4 of hearts with two more deuces", () => {
  const hand = parseCards("2h 3h 4h 2s 2d Kc");
  const a = bestArrangement(hand);
  assert.deepEqual(text(a.melds), ["2h 3h 4h"]);
  assert.equal(a.deadwood, 14);
  assert.deepEqual(allArrangements(cardsMask(hand)).map((x) => x.deadwood).sort(), [14, 17]);
});

test("the ace is low only", () => {
  assert.equal(bestArrangement(parseCards("Ah 2h 3h")).deadwood, 0);
  assert.equal(bestArrangement(parseCards("Qh Kh Ah")).deadwood, 21);
  assert.equal(bestArrangement(parseCards("Kh Ah 2h")).deadwood, 13);
});

test("eleven cards: the exact minimum over discards", () => {
  const [discard, a] = bestDiscard(parseCards("2d 3c 3s 4d 4s 5c 5d 5s 6c 6d 6s"));
  assert.equal(a.deadwood, 10);
  assert.equal(discard.rank, 6);
});

test("tie-break: a run before a set, and a block of six is one run", () => {
  let a = bestArrangement(parseCards("3h 4h 5h 4s 4d"));
  assert.deepEqual([a.deadwood, text(a.melds)], [8, ["3h 4h 5h"]]);
  a = bestArrangement(parseCards("Ac 2c 3c 4c 5c 6c 9d 9h 9s Kd"));
  assert.deepEqual(text(a.melds), ["Ac 2c 3c 4c 5c 6c", "9d 9h 9s"]);
  assert.equal(a.deadwood, 10);
});

test("a run across suits is two runs", () => {
  const a = bestArrangement(parseCards("Jc Qc Kc Ad 2d 3d"));
  assert.deepEqual(text(a.melds), ["Jc Qc Kc", "Ad 2d 3d"]);
});

test("hands of spades and hearts (the high half of the mask)", () => {
  const a = bestArrangement(parseCards("Ts Js Qs Ks 9h 9s 9d 2h 3h 4h"));
  // The nine of spades goes to the set: a run of four and three nines meld all ten.
  assert.deepEqual(text(a.melds), ["2h 3h 4h", "Ts Js Qs Ks", "9d 9h 9s"]);
  assert.equal(a.deadwood, 0);
});
