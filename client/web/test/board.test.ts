// The board's logic without a page: the controller (a match kept in a store and
// continued exactly), how cards are grouped and ordered, and the board's words.
// The page itself is tested in Chromium by tests/web (pytest + Playwright).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Discard, DrawPile, DrawStock, Pass } from "../src/engine/actions.ts";
import { Card, parseCards } from "../src/engine/cards.ts";
import { MalformedInput } from "../src/engine/errors.ts";
import { stackedDeck } from "../src/engine/hand.ts";
import { Match } from "../src/engine/match.ts";
import { Phase } from "../src/engine/observation.ts";
import { CLASSIC, STANDARD } from "../src/engine/rules.ts";
import { Game, knockChoice, knockCounts, knockLayouts, SAVE_KEY, type Store } from "../src/board/game.ts";
import { grouped, moved, movedBefore, opponentGroups, ownOrder } from "../src/board/layout.ts";
import { describe, explainResult, howToPlay, lastMove, prompt } from "../src/board/words.ts";

class MemoryStore implements Store {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null { return this.items.get(key) ?? null; }
  setItem(key: string, value: string): void { this.items.set(key, value); }
  removeItem(key: string): void { this.items.delete(key); }
}

const cards = (text: string): Card[] => parseCards(text);

/** Play the computer's moves until it is the player's turn or the hand ends. */
function computerMoves(game: Game): void {
  while (game.opponentToMove) game.applyOpponent(game.opponentMove());
}

test("a resumed match is the same match, and its next deck is the one it would have dealt", () => {
  const store = new MemoryStore();
  const game = new Game(STANDARD, "hard", store, 12345);
  game.play(new Pass());
  computerMoves(game);
  const resumed = Game.resume(store)!;
  assert.deepEqual(resumed.observation().toDict(), game.observation().toDict());
  assert.equal(resumed.vs, "hard");
  // Both play the same moves to the end of the hand; then both deal the next.
  for (const g of [game, resumed]) {
    while (g.observation().phase !== Phase.OVER) {
      if (g.opponentToMove) g.applyOpponent(g.opponentMove());
      else g.play(g.hint().action);
    }
  }
  assert.deepEqual(resumed.observation().toDict(), game.observation().toDict());
  if (!game.match.over) {
    game.nextHand();
    resumed.nextHand();
    assert.deepEqual(resumed.observation().hand, game.observation().hand);
  }
});

test("a damaged save is set aside under another key, and says why", () => {
  const store = new MemoryStore();
  store.setItem(SAVE_KEY, '{"format": 1, "vs": "easy", "seed": 1, "match": {"hands": 3}}');
  assert.throws(() => Game.resume(store), (exc: Error) =>
    exc instanceof MalformedInput && /could not be continued/.test(exc.message));
  assert.equal(store.getItem(SAVE_KEY), null);
  assert.match(store.getItem(`${SAVE_KEY}.damaged`)!, /"hands": 3/);
  assert.equal(Game.resume(store), null);
});

test("the knock: counts per card, the selected card on a tie, layouts least deadwood first", () => {
  // After the draw of the Q♣: throw it and lay down the fours or the 2-3-4♥ run.
  const match = new Match(STANDARD, 1);
  match.deal(stackedDeck(cards("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad"),
    cards("5h 4d 9c 9d 9s 6c 7d 8s Ts Jh"), Card.parse("Jd"), cards("Qc")));
  match.apply(0, new Pass());
  match.apply(1, new Pass());
  match.apply(0, new DrawStock());
  const obs = match.observation(0);
  const counts = knockCounts(obs, match.legalActions());
  assert.deepEqual([...counts].map(([c, n]) => `${c}=${n}`), ["Qc=6"]);
  assert.deepEqual(knockChoice(counts, null), [Card.parse("Qc"), 6]);
  assert.deepEqual(knockLayouts(obs, Card.parse("Qc")).map((a) => a.deadwood), [6, 9]);
  assert.equal(prompt(obs, true), "Throw a card, or knock");
});

test("grouping: melds first, loose cards by rank; your own order keeps new cards last", () => {
  const hand = cards("Kd 5h 7s 6h 7h 2c 7c");
  const groups = grouped(hand);
  // The 7♥ can finish the run or the set: the set leaves less (23 against 26).
  assert.deepEqual(groups.map((g) => [g.meld, g.cards.join(" ")]),
    [[true, "7c 7h 7s"], [false, "2c 5h 6h Kd"]]);
  const order = ownOrder(cards("7h 2c"), [...hand, Card.parse("9d")].filter((c) => String(c) !== "2c"));
  assert.deepEqual(order.map(String), ["7h", "5h", "6h", "7c", "7s", "9d", "Kd"]);
  assert.deepEqual(moved(cards("2c 3c 4c"), Card.parse("2c"), 5).map(String), ["3c", "4c", "2c"]);
  assert.deepEqual(movedBefore(cards("2c 3c 4c"), Card.parse("4c"), Card.parse("2c")).map(String),
    ["4c", "2c", "3c"]);
});

test("the computer's row: backs, with what it took from the pile face up", () => {
  const game = new Game(STANDARD, "easy", null, 99);
  const obs = game.observation();
  const row = opponentGroups(obs);
  assert.equal(row.flatMap((g) => g.cards).length, 10);
  assert.ok(row.flatMap((g) => g.cards).every((c) => c === null));
});

test("the words: a hand's arithmetic, and How to play with the ruleset's numbers", () => {
  const store = new MemoryStore();
  const game = new Game(STANDARD, "easy", store, 5);
  while (game.observation().phase !== Phase.OVER) {
    if (game.opponentToMove) game.applyOpponent(game.opponentMove());
    else game.play(game.hint().action);
  }
  const text = explainResult(game.observation());
  assert.match(text, /^(You|The computer) (knocked with \d+|went gin)|^Dead hand/);
  assert.ok(!/ The computer was/.test(text), text); // lower case mid-sentence
  const classic = howToPlay(CLASSIC).flatMap((s) => [...s.paragraphs, ...(s.table ?? []).flat()]).join("\n");
  assert.match(classic, /their deadwood \+ 20/);
  assert.match(classic, /the difference \+ 10/);
  assert.match(classic, /8 − 5 \+ 10 = 13/);
  assert.match(classic, /104 \+ 100 \+ 4 × 20 = 284/);
});

test("the log says the computer laid off only when it laid off a card", () => {
  const layoff = { player: 1, kind: "layoff", card: null } as const;
  assert.equal(describe(layoff, 0), "The computer had nothing to lay off.");
  assert.equal(describe(layoff, 0, "The computer", parseCards("4d 5h")),
    "The computer laid off 4♦ 5♥ onto your melds.");
  assert.equal(describe(layoff, 1), null); // your own lay-off is not in the log
});

test("the other player's last move is at the stock or the pile until the player moves", () => {
  const match = new Match(STANDARD, 1);
  match.deal(stackedDeck(cards("2h 5h 8h Js 4c Kc 7d Qs 9h Ad"), cards("5s 6c 7c 8s 9c 9d Ts Jh 2c 3d"),
    Card.parse("Jd"), cards("Qc 3s")));
  const seen = (): ReturnType<typeof lastMove> => lastMove(match.observation(0), "Your friend");
  assert.equal(seen(), null); // nothing yet
  match.apply(0, new Pass());
  assert.equal(seen(), null); // the player's own move
  match.apply(1, new Pass());
  assert.deepEqual(seen(), { slot: "discard", card: Card.parse("Jd"), badge: "Friend passed",
    words: "Your friend passed on the first card." });
  match.apply(0, new DrawStock());
  assert.equal(seen(), null);
  match.apply(0, new Discard(Card.parse("Qc")));
  match.apply(1, new DrawPile());
  assert.deepEqual(seen(), { slot: "discard", card: null, badge: "Friend took Q♣",
    words: "Your friend took the Q♣." });
  match.apply(1, new Discard(Card.parse("2c")));
  assert.deepEqual(seen(), { slot: "discard", card: Card.parse("2c"), badge: "Friend threw",
    words: "Your friend threw the 2♣." });
  match.apply(0, new DrawStock());
  assert.equal(seen(), null);
  match.apply(0, new Discard(Card.parse("3s")));
  match.apply(1, new DrawStock());
  assert.deepEqual(seen(), { slot: "stock", card: null, badge: "Friend drew",
    words: "Your friend drew from the stock." });
});
