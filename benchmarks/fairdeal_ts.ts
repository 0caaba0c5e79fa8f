/**
 * Speed of the TypeScript deck mathematics in node, pure JS (`@noble/curves`): the
 * cost a browser peer pays per hand. Prints figures, asserts nothing. The twin of
 * benchmarks/fairdeal.py.
 *
 * One scalar multiplication (x-only, decompressing the point as the protocol
 * does), and one hand's three deck messages (52 multiplications each: message 1
 * by the first shuffler, 2 by the second, 3 by the first) plus opening all 52
 * positions. Fixed seeds; each figure is the median of several runs after a
 * warm-up run (node compiles hot code on the fly).
 *
 *     cd client/web && npm run bench:fairdeal -- [--runs 7]
 */

import { parseArgs } from "node:util";

import * as ecc from "../client/web/src/protocol/ecc.ts";
import * as fd from "../client/web/src/protocol/fairdeal.ts";

const seed = (first: number): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => first + i);

function medianMs(fn: () => unknown, runs: number): number {
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) { // run 0 warms up
    const start = performance.now();
    fn();
    if (run > 0) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
  const runs = Number(values.runs);
  const first = fd.SeedMaterial.fromSeed(seed(0));
  const second = fd.SeedMaterial.fromSeed(seed(32));
  const m1 = fd.buildMessage1(first);
  const m2 = fd.buildMessage2(second, m1);
  const m3 = fd.buildMessage3(first, m2);
  const batch = 52;
  const mul = medianMs(() => {
    for (let i = 0; i < batch; i++) ecc.mul(m2[i]!, first.positionKeys[i]!);
  }, runs) / batch;
  const message = (build: () => unknown) => medianMs(build, runs);
  const t1 = message(() => fd.buildMessage1(first));
  const t2 = message(() => fd.buildMessage2(second, m1));
  const t3 = message(() => fd.buildMessage3(first, m2));
  const open = message(() => {
    for (let k = 0; k < 52; k++) fd.openCard(m3, k, first.positionKeys[k]!, second.positionKeys[k]!, "second");
  });
  const derive = message(() => fd.SeedMaterial.fromSeed(seed(64)));
  console.log(`node ${process.version}, @noble/curves pure JS: median of ${runs} runs`);
  console.log(`one scalar multiplication (x-only)   ${mul.toFixed(2)} ms`);
  console.log(`seed derivation (53 keys, π)          ${derive.toFixed(2)} ms`);
  console.log(`message 1 (first shuffler)            ${t1.toFixed(1)} ms`);
  console.log(`message 2 (second shuffler)           ${t2.toFixed(1)} ms`);
  console.log(`message 3 (first shuffler)            ${t3.toFixed(1)} ms`);
  console.log(`opening all 52 positions              ${open.toFixed(1)} ms`);
  console.log(`one hand's deck messages (1 + 2 + 3)  ${(t1 + t2 + t3).toFixed(1)} ms`);
}

main();
