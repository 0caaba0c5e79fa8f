/**
 * Decision time of the TypeScript computer players in node: prints figures,
 * asserts nothing. Hard plays Normal and itself over fixed deals; every Hard
 * decision (and the hint, which is Hard's with its reason) is timed.
 *
 *     cd client/web && npm run bench:players -- [--hands 300]
 */

import { parseArgs } from "node:util";

import { DECK } from "../client/web/src/engine/cards.ts";
import { Hand } from "../client/web/src/engine/hand.ts";
import { Phase } from "../client/web/src/engine/observation.ts";
import { get, hint } from "../client/web/src/players/index.ts";
import { Rand } from "../client/web/src/rand.ts";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function main(): void {
  const { values } = parseArgs({ options: { hands: { type: "string", default: "300" } } });
  const hands = Number(values.hands);
  const deals = new Rand(1);
  const times: number[] = [];
  const hintTimes: number[] = [];
  for (let i = 0; i < hands; i++) {
    const hand = new Hand(deals.shuffle([...DECK]), i % 2);
    const players = [get("hard", i), get(i % 2 ? "hard" : "normal", i + 1)];
    while (hand.phase !== Phase.OVER) {
      const obs = hand.observation(hand.turn);
      const legal = hand.legalActions();
      const player = players[hand.turn]!;
      let start = performance.now();
      const action = player.choose(obs, legal);
      if (player.name === "hard") times.push(performance.now() - start);
      start = performance.now();
      hint(obs, legal);
      hintTimes.push(performance.now() - start);
      hand.apply(hand.turn, action);
    }
  }
  console.log(`node ${process.version}: ${hands} hands, Hard against Normal and itself`);
  for (const [label, xs] of [["hard decisions", times], ["hints", hintTimes]] as const) {
    xs.sort((a, b) => a - b);
    console.log(`${label.padEnd(15)} ${String(xs.length).padStart(6)}: median ${percentile(xs, 0.5).toFixed(3)} ms, `
      + `p95 ${percentile(xs, 0.95).toFixed(3)} ms, p99 ${percentile(xs, 0.99).toFixed(2)} ms, `
      + `max ${xs[xs.length - 1]!.toFixed(1)} ms`);
  }
}

main();
