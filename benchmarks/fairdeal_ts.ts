/**
 * Speed of the TypeScript fair deal in node, pure JS: the cost a browser peer
 * pays per hand (benchmarks/fairdeal_browser.py measures the same in Chromium).
 * Prints figures, asserts nothing. The twin of benchmarks/fairdeal.py.
 *
 * The kernels (noble's constant-time and variable-time multiplications, a Pedersen
 * commitment through G's and H's tables, an encoding's multiplication, a whole proof
 * and its verification), then each role's
 * crypto for one hand of an online match (benchmarks/fairdeal_hand.ts), in a fresh
 * process per role fed with the other side's messages: the first hand (which compiles
 * the code; the tables are built before, as the board's worker does as it starts) and
 * the median of the following ones. Fixed seeds; all timed by
 * CPU (process.cpuUsage), so a loaded machine stretches them less. `--sodium`
 * multiplies the deck messages through libsodium's WebAssembly, as the online worker
 * does (loaded before any timing).
 *
 *     cd client/web && npm run bench:fairdeal -- [--runs 7] [--sodium]
 */

import { fork } from "node:child_process";
import { parseArgs } from "node:util";

import { prepare } from "../client/web/src/protocol/deal/group.ts";
import { loadSodium } from "../client/web/src/protocol/deal/sodium.ts";
import { KERNEL_CALLS, type KernelName, kernelsLine, median, prepareKernels, type Role,
  roleLine, runKernel, timeHand, transcripts, type Transcript } from "./fairdeal_hand.ts";

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU ms per call of each kernel, the median of `runs` timings after a warm-up. */
function kernels(runs: number): Record<KernelName, number> {
  prepareKernels();
  const names = Object.keys(KERNEL_CALLS) as KernelName[];
  return Object.fromEntries(names.map((name) => {
    const times: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const start = cpuMs();
      runKernel(name, KERNEL_CALLS[name]);
      if (run > 0) times.push((cpuMs() - start) / KERNEL_CALLS[name]);
    }
    return [name, median(times)];
  })) as Record<KernelName, number>;
}

/** Every hand played as `role` in a fresh process (this script again), fed `hands`. */
function playFresh(role: Role, hands: Transcript[], sodium: boolean): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1]!, ["--play", ...(sodium ? ["--sodium"] : [])], { serialization: "advanced" });
    child.once("message", (result) => {
      resolve(result as number[]);
      child.disconnect();
    });
    child.once("error", reject);
    child.send({ role, hands });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, sodium: { type: "boolean" } } });
  const runs = Number(values.runs);
  const sodium = values.sodium === true;
  const hands = transcripts(runs + 1);
  if (sodium && !(await loadSodium())) throw new Error("libsodium's WebAssembly did not load");
  console.log(`node ${process.version}, ${sodium ? "libsodium's WebAssembly for the deck messages'" +
    " multiplications, the rest" : "pure JS"} (@noble/curves ristretto255), ` +
    `median of ${runs} runs; CPU ms (per hand: of a fresh process playing the role)`);
  console.log(kernelsLine(kernels(runs)));
  for (const role of ["first", "second"] as const) console.log(roleLine(role, await playFresh(role, hands, sodium)));
}

if (process.argv.includes("--play")) {
  const ready = process.argv.includes("--sodium") ? loadSodium() : Promise.resolve(false);
  prepare();
  process.once("message", (message) => {
    const { role, hands } = message as { role: Role; hands: Transcript[] };
    void ready.then(() => process.send!(hands.map((t) => timeHand(role, t, cpuMs))));
  });
} else {
  void main();
}
