/**
 * Speed of the TypeScript engine's exact meld search in node: prints figures,
 * asserts nothing. The twin of benchmarks/melds.py.
 *
 * Mean µs per call of arrangeMask / bestArrangement (10 cards) and discardMask /
 * bestDiscard (11 cards) on hands of three kinds: random, dense (ranks 4..8 only,
 * where sets and runs fight over cards) and hands met in play (a greedy player
 * drawing from the stock). Fixed seeds; each figure is the median of several runs,
 * after a warm-up run (node compiles hot code on the fly).
 *
 *     cd client/web && npm run bench -- [--hands 20000] [--runs 7]
 */

import { parseArgs } from "node:util";

import { type Card, cardsMask, DECK, maskCards } from "../client/web/src/engine/cards.ts";
import type { Mask } from "../client/web/src/engine/mask.ts";
import { arrangeMask, bestArrangement, bestDiscard, discardMask } from "../client/web/src/engine/melds.ts";
import { Rand } from "../client/web/src/rand.ts";

function sample(rng: Rand, pool: readonly number[], size: number): Mask {
  return cardsMask(rng.shuffle([...pool]).slice(0, size).map((i) => DECK[i]!));
}

function randomHands(rng: Rand, n: number, size: number): Mask[] {
  const every = DECK.map((c) => c.index);
  return Array.from({ length: n }, () => sample(rng, every, size));
}

function denseHands(rng: Rand, n: number, size: number): Mask[] {
  const pool = DECK.filter((c) => c.rank >= 4 && c.rank <= 8).map((c) => c.index);
  return Array.from({ length: n }, () => sample(rng, pool, size));
}

/** Distinct hands from greedy play: draw from the stock, throw the best discard. */
function playedHands(rng: Rand, n: number, size: number): Mask[] {
  const out: Mask[] = [];
  const seen = new Set<Mask>();
  while (out.length < n) {
    const deck = rng.shuffle([...DECK]);
    let hand = cardsMask(deck.slice(0, 10));
    for (const card of deck.slice(10, 40)) {
      hand += card.mask;
      if (size === 11 && !seen.has(hand)) {
        seen.add(hand);
        out.push(hand);
      }
      hand -= discardMask(hand)[0];
      if (size === 10 && !seen.has(hand)) {
        seen.add(hand);
        out.push(hand);
      }
    }
  }
  return out.slice(0, n);
}

function meanUs<T>(fn: (x: T) => unknown, inputs: readonly T[], runs: number): number {
  const samples: number[] = [];
  let sink = 0;
  for (let run = 0; run <= runs; run++) { // run 0 warms up
    const start = process.hrtime.bigint();
    for (const x of inputs) sink += fn(x) === undefined ? 1 : 0;
    const ns = Number(process.hrtime.bigint() - start);
    if (run > 0) samples.push(ns / inputs.length / 1000);
  }
  if (sink) throw new Error("unreachable");
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

function main(): void {
  const { values } = parseArgs({
    options: { hands: { type: "string", default: "20000" }, runs: { type: "string", default: "7" } },
  });
  const hands = Number(values.hands);
  const runs = Number(values.runs);
  console.log(`node ${process.version}: mean µs per call, ${hands} hands, median of ${runs} runs`);
  console.log(`${"hands".padEnd(8)} ${"10: mask API".padStart(13)} ${"10: cards API".padStart(14)} `
    + `${"11: mask API".padStart(13)} ${"11: cards API".padStart(14)}`);
  const cards = (masks: Mask[]): Card[][] => masks.map(maskCards);
  for (const [label, make] of [["random", randomHands], ["dense", denseHands], ["played", playedHands]] as const) {
    const ten = make(new Rand(1), hands, 10);
    const eleven = make(new Rand(2), hands, 11);
    const figures = [
      meanUs(arrangeMask, ten, runs),
      meanUs(bestArrangement, cards(ten), runs),
      meanUs(discardMask, eleven, runs),
      meanUs(bestDiscard, cards(eleven), runs),
    ];
    console.log(`${label.padEnd(8)} ${figures.map((f, i) => f.toFixed(2).padStart(i % 2 ? 14 : 13)).join(" ")}`);
  }
}

main();
