/**
 * Hard's decision time, measured where it runs: node (benchmarks/players_ts.ts)
 * or Chromium (benchmarks/players_browser.py bundles this file into a page).
 * Hard plays Normal and itself over fixed deals; every Hard decision and every
 * hint (Hard's move with its reason) is timed, in milliseconds.
 */

import { DECK } from "../client/web/src/engine/cards.ts";
import { Hand } from "../client/web/src/engine/hand.ts";
import { Phase } from "../client/web/src/engine/observation.ts";
import { get, hint } from "../client/web/src/players/index.ts";
import { Rand } from "../client/web/src/rand.ts";

export interface Timing {
  hard: number[];
  hints: number[];
}

/** Every Hard decision and hint of `hands` fixed hands, timed (ms). */
export function measure(hands: number): Timing {
  const deals = new Rand(1);
  const timing: Timing = { hard: [], hints: [] };
  for (let i = 0; i < hands; i++) {
    const hand = new Hand(deals.shuffle([...DECK]), i % 2);
    const players = [get("hard", i), get(i % 2 ? "hard" : "normal", i + 1)];
    while (hand.phase !== Phase.OVER) {
      const obs = hand.observation(hand.turn);
      const legal = hand.legalActions();
      const player = players[hand.turn]!;
      let start = performance.now();
      const action = player.choose(obs, legal);
      if (player.name === "hard") timing.hard.push(performance.now() - start);
      start = performance.now();
      hint(obs, legal);
      timing.hints.push(performance.now() - start);
      hand.apply(hand.turn, action);
    }
  }
  return timing;
}

/** One line of figures: count, median, 95th and 99th percentiles, maximum. */
export function summary(label: string, times: number[]): string {
  const xs = [...times].sort((a, b) => a - b);
  const at = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  return `${label.padEnd(15)} ${String(xs.length).padStart(6)}: median ${at(0.5).toFixed(3)} ms, `
    + `p95 ${at(0.95).toFixed(3)} ms, p99 ${at(0.99).toFixed(2)} ms, max ${xs[xs.length - 1]!.toFixed(1)} ms`;
}
