// Your record (src/board/record.ts): the same numbers as client/record.py on the
// shared fixture, a match recorded when a local match ends, a damaged record set aside.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Game } from "../src/board/game.ts";
import { parse, RECORD_KEY, RecordBook, summarize, type TextStore } from "../src/board/record.ts";
import { STANDARD } from "../src/engine/rules.ts";
import * as players from "../src/players/index.ts";

class MemoryStore implements TextStore {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null { return this.items.get(key) ?? null; }
  setItem(key: string, value: string): void { this.items.set(key, value); }
  removeItem(key: string): void { this.items.delete(key); }
}

test("the shared fixture summarizes as client/record.py does", () => {
  const data = JSON.parse(readFileSync(new URL("../../../tests/fixtures/record.json", import.meta.url), "utf8"));
  assert.deepEqual(summarize(parse(data)), data.summary);
});

test("a finished local match is added to the record", () => {
  const store = new MemoryStore();
  const me = players.get("normal", 7);
  for (const seed of [1, 2]) {
    const game = new Game(STANDARD.withOptions({ target: 10 }), "hard", store, seed);
    while (!game.match.over) {
      if (game.match.hand?.phase === "over") game.nextHand();
      else if (game.opponentToMove) game.applyOpponent(game.opponentMove());
      else game.play(me.choose(game.observation(), game.legal()));
    }
    assert.deepEqual(game.takeWarnings(), []);
  }
  const { matches, problem } = new RecordBook(store).load();
  assert.equal(problem, "");
  assert.equal(matches.length, 2);
  assert.deepEqual(summarize(matches).opponents.map((o) => [o.opponent, o.matches]), [["computer:hard", 2]]);
});

test("a damaged record is set aside and said", () => {
  const store = new MemoryStore();
  store.setItem(RECORD_KEY, "{not json");
  const { matches, problem } = new RecordBook(store).load();
  assert.deepEqual(matches, []);
  assert.match(problem, /Your record in this browser was damaged .*set aside/);
  assert.equal(store.getItem(`${RECORD_KEY}.damaged`), "{not json");
  assert.equal(store.getItem(RECORD_KEY), null);
});
