// When a newer build of the board may start (board/install.ts), and its words: never
// mid-hand against the computer, never during an online match.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Phase } from "../src/engine/observation.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { Game } from "../src/board/game.ts";
import { whenFree } from "../src/board/install.ts";
import type { Play } from "../src/board/play.ts";
import { updateWords } from "../src/board/words.ts";

test("against the computer a new build waits for the hand's end", () => {
  const game = new Game(STANDARD, "normal", null, 7);
  assert.equal(whenFree(game), "hand");
  while (game.observation()!.phase !== Phase.OVER) {
    const auto = game.automatic();
    if (auto !== null) auto.run();
    else game.play(game.legal().at(-1)!); // the player's last legal action: the hand moves on
  }
  assert.equal(whenFree(game), "now");
});

test("online a new build waits for the match's end, or its failure", () => {
  const online = (totals: unknown, stopped: string | null): Play =>
    ({ online: true, totals, stopped: () => stopped, observation: () => null }) as unknown as Play;
  assert.equal(whenFree(online(null, null)), "match"); // between hands too: one build a match
  assert.equal(whenFree(online({ winner: 0 }, null)), "now");
  assert.equal(whenFree(online(null, "the friend's deck failed its check")), "now");
});

test("the announcement names the build and when it starts", () => {
  const build = "3f9c0a7d21e4b5c6" + "0".repeat(48);
  assert.equal(updateWords.ready(build), "A new version of the board is ready (build 3f9c0a7d21e4b5c6).");
  assert.equal(updateWords.button("hand"), "Use it after this hand");
  assert.equal(updateWords.button("match"), "Use it after this match");
  assert.equal(updateWords.when("match", true), "It starts as soon as the online match is over.");
  assert.equal(updateWords.when("now", false), "It starts when you choose, or the next time the board opens.");
});
