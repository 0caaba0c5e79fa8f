// The conformance checker itself: a case gin/ wrote passes, the same case with a
// wrong answer fails with a sentence saying what differs, and a line that is not a
// case is refused (the full corpus is checked by CI with npm run conformance).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MalformedInput } from "../src/engine/errors.ts";
import { checkCase } from "../scripts/checks.ts";

const ELEVEN = ["2d", "3c", "3s", "4d", "4s", "5c", "5d", "5s", "6c", "6d", "6s"];

test("an arrangement case: right passes, wrong says what differs", () => {
  assert.equal(checkCase({ kind: "arrange", cards: ELEVEN, deadwood: 10, discard: "6c" }), null);
  assert.equal(checkCase({ kind: "arrange", cards: ELEVEN.slice(0, 10), deadwood: 16 }), null);
  assert.equal(checkCase({ kind: "arrange", cards: ELEVEN, deadwood: 9 }),
    "deadwood: expected 9, the TS engine gives 10");
  assert.match(checkCase({ kind: "arrange", cards: ELEVEN, deadwood: 10, discard: "6s" })!, /^discard: /);
});

test("action and rules cases: the canonical text, gin's exact messages", () => {
  assert.equal(checkCase({ kind: "action", text: "knock 10h / 8h 9h 10h", canonical: "knock Th / 8h9hTh" }), null);
  assert.equal(checkCase({ kind: "action", text: "discard 7x",
    error: "action 'discard 7x': card '7x': unknown suit 'x' (use c d h s or ♣♦♥♠)" }), null);
  assert.match(checkCase({ kind: "action", text: "pass", error: "no" })!, /expected the error/);
  assert.equal(checkCase({ kind: "rules", data: { name: "house", dead_stock: 11 },
    error: "the stock left at a dead hand must be a whole number from 0 to 10, not 11" }), null);
});

test("what is not a case is refused, naming why", () => {
  assert.throws(() => checkCase([1, 2]), MalformedInput);
  assert.throws(() => checkCase({ kind: "perft" }), /unknown kind "perft"/);
  assert.throws(() => checkCase({ kind: "arrange", cards: ["2d"], deadwood: 2 }), /10 or 11 cards/);
  assert.throws(() => checkCase({ kind: "arrange", deadwood: 2 }), /no field 'cards'/);
});
