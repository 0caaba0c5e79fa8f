/**
 * Hard's decisions timed inside the browser: bundled by benchmarks/board.py and
 * run in Chromium, which prints the figures. Hard plays Hard over whole matches
 * with decks from a fixed seed; every decision of either side is timed.
 */

import { shuffledDeck } from "../client/web/src/engine/hand.ts";
import { Match } from "../client/web/src/engine/match.ts";
import { Phase } from "../client/web/src/engine/observation.ts";
import * as players from "../client/web/src/players/index.ts";
import { Rand } from "../client/web/src/rand.ts";

/** Milliseconds of each of Hard's decisions over `hands` hands. */
function timeHard(hands: number, seed: number): number[] {
  const times: number[] = [];
  const hard = players.get("hard", seed);
  const decks = new Rand(seed);
  let played = 0;
  while (played < hands) {
    const match = new Match();
    while (!match.over && played < hands) {
      match.deal(shuffledDeck(decks));
      while (match.hand!.phase !== Phase.OVER) {
        const player = match.turn;
        const obs = match.observation(player);
        const legal = match.legalActions();
        const start = performance.now();
        const action = hard.choose(obs, legal);
        times.push(performance.now() - start);
        match.apply(player, action);
      }
      played += 1;
    }
  }
  return times;
}

(globalThis as unknown as { timeHard: typeof timeHard }).timeHard = timeHard;
