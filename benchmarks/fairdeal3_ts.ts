/**
 * Protocol v3's fair deal (prototype, ristretto255 on @noble/curves) per player per
 * hand in node, pure JS: the twin of benchmarks/fairdeal3.py, the same simulated
 * hand (deck messages, the proof, 41 openings, the hand-end audit of the other's
 * messages from the card points). CPU ms (process.cpuUsage), median of the runs
 * after one warm-up hand; prints figures, asserts only that checks pass.
 *
 *     cd client/web && node --import tsx ../../benchmarks/fairdeal3_ts.ts [--runs 7]
 *
 * Secret multiplications use noble's constant-time `multiply`; the verifier's MSM
 * and the audit (seeds revealed) are variable time, on public data only.
 */

import { parseArgs } from "node:util";

import { sha256 } from "../client/web/node_modules/@noble/hashes/sha2.js";
import { equalBytes } from "../client/web/src/protocol/bytes.ts";
import * as d from "../client/web/src/protocol/deck3.ts";
import * as g from "../client/web/src/protocol/group3.ts";
import * as sp from "../client/web/src/protocol/shuffle_proof3.ts";

const FIRST_HAND = [...Array(10).keys()];
const SECOND_HAND = FIRST_HAND.map((k) => k + 10);
const UPCARD = 20;
const FIRST_DRAWS = Array.from({ length: 10 }, (_, i) => 21 + 2 * i);
const SECOND_DRAWS = FIRST_DRAWS.map((k) => k + 1);

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const seed = (label: string): Uint8Array => sha256(new TextEncoder().encode(label));

interface Hand { first: d.SeedMaterial; second: d.SeedMaterial; ctx: Uint8Array; m1: Uint8Array[]; m2: Uint8Array[]; proof: Uint8Array; m3: Uint8Array[] }

function prepare(run: number): Hand {
  const first = d.SeedMaterial.fromSeed(seed(`first/${run}`));
  const second = d.SeedMaterial.fromSeed(seed(`second/${run}`));
  const ctx = d.context(new TextEncoder().encode("benchmark-match"), run);
  const m1 = d.buildMessage1(first);
  const [m2, proof] = d.buildMessage2(second, m1, ctx);
  return { first, second, ctx, m1, m2, proof: sp.proofToBytes(proof), m3: d.buildMessage3(first, m2) };
}

function play(hand: Hand, role: "first" | "second"): void {
  const mine = d.SeedMaterial.fromSeed(role === "first" ? hand.first.seed : hand.second.seed);
  const other = role === "first" ? hand.second : hand.first;
  if (role === "first") {
    d.buildMessage1(mine);
    hand.m2.forEach(g.decode);
    if (sp.verify(hand.ctx, hand.m1, hand.m2, sp.proofFromBytes(hand.proof)) !== null) throw new Error("proof");
    d.buildMessage3(mine, hand.m2);
  } else {
    hand.m1.forEach(g.decode);
    d.buildMessage2(mine, hand.m1, hand.ctx);
    hand.m3.forEach(g.decode);
  }
  const deck = d.deckOrder(hand.first.permutation, hand.second.permutation);
  const opened = role === "first"
    ? [...FIRST_HAND, UPCARD, ...FIRST_DRAWS, ...SECOND_DRAWS, ...SECOND_HAND]
    : [...SECOND_HAND, UPCARD, ...SECOND_DRAWS, ...FIRST_DRAWS, ...FIRST_HAND];
  for (const k of opened) {
    if (d.openCard(hand.m3, k, mine.positionKeys[k]!, other.positionKeys[k]!) !== deck[k]) throw new Error("open");
  }
  // Hand end: the other's messages from its revealed seed and the card points.
  const theirs = d.SeedMaterial.fromSeed(other.seed);
  const points = g.cardPoints();
  const a = hand.first.deckKey;
  const same = (p: g.Point, x: Uint8Array) => equalBytes(g.encode(p), x);
  if (role === "first") {
    for (let j = 0; j < 52; j++) {
      if (!same(g.mulPublic(points[deck[j]!]!, g.mod(a * theirs.positionKeys[j]!)), hand.m2[j]!)) throw new Error("audit m2");
    }
  } else {
    for (let i = 0; i < 52; i++) {
      if (!same(g.mulPublic(points[theirs.permutation[i]!]!, theirs.deckKey), hand.m1[i]!)) throw new Error("audit m1");
    }
    for (let k = 0; k < 52; k++) {
      const key = g.mod(theirs.positionKeys[k]! * hand.second.positionKeys[k]!);
      if (!same(g.mulPublic(points[deck[k]!]!, key), hand.m3[k]!)) throw new Error("audit m3");
    }
  }
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
  const runs = Number(values.runs);
  const hands = Array.from({ length: runs + 1 }, (_, run) => prepare(run));
  const times: Record<string, number[]> = { first: [], second: [], prove: [], verify: [] };
  hands.forEach((hand, run) => {
    for (const role of ["first", "second"] as const) {
      const start = cpuMs();
      play(hand, role);
      if (run > 0) times[role]!.push(cpuMs() - start);
    }
    const second = d.SeedMaterial.fromSeed(hand.second.seed);
    let start = cpuMs();
    sp.prove(hand.ctx, hand.m1, hand.m2, second.permutation, second.positionKeys, second.nonceKey);
    if (run > 0) times.prove!.push(cpuMs() - start);
    start = cpuMs();
    sp.verify(hand.ctx, hand.m1, hand.m2, sp.proofFromBytes(hand.proof));
    if (run > 0) times.verify!.push(cpuMs() - start);
  });
  console.log(`node ${process.version}, pure JS (@noble/curves ristretto255), CPU ms, median of ${runs} runs after a warm-up hand`);
  for (const role of ["first", "second"]) {
    const t = times[role]!;
    console.log(`  v3 ${role.padStart(6)} shuffler, one hand: ${median(t).toFixed(0)} ms (${Math.min(...t).toFixed(0)}–${Math.max(...t).toFixed(0)})`);
  }
  console.log(`  proof alone: prove ${median(times.prove!).toFixed(0)} ms, verify ${median(times.verify!).toFixed(0)} ms`);
}

main();
