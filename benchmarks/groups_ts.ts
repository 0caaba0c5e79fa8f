/**
 * Group primitives for protocol v3 in node, pure JS (@noble/curves): µs per
 * operation for P-256 (protocol v2's curve), secp256k1 and ristretto255. The
 * twin of benchmarks/groups.py; node is the proxy for the browser's worker.
 * Prints figures, asserts only the algebra it relies on. Fixed inputs; CPU time
 * (process.cpuUsage), median of several runs, each a loop of calls.
 *
 *     cd client/web && node --import tsx ../../benchmarks/groups_ts.ts [--runs 7]
 *
 * Columns: `k·P ct` noble's constant-time multiply on a fresh point; `k·P vt`
 * multiplyUnsafe (wNAF, variable time: public scalars only); `k·G` the base point's
 * precomputed windows; `P+Q`; `msm/pt` one point's share of a 52-point Pippenger
 * MSM (variable time); `msm3/pt` a 3-point Strauss–Shamir (mulAddUnsafe) per point;
 * `decode`, `encode` (32/33 bytes); `h2c` hash to curve (RFC 9380 for P-256 and
 * secp256k1, RFC 9496 element derivation from SHA-512 for ristretto255).
 */

import { mulAddUnsafe, pippenger } from "../client/web/node_modules/@noble/curves/abstract/curve.js";
import { ristretto255, ristretto255_hasher } from "../client/web/node_modules/@noble/curves/ed25519.js";
import { p256, p256_hasher } from "../client/web/node_modules/@noble/curves/nist.js";
import { secp256k1, secp256k1_hasher } from "../client/web/node_modules/@noble/curves/secp256k1.js";
import { sha256, sha512 } from "../client/web/node_modules/@noble/hashes/sha2.js";
import { parseArgs } from "node:util";

const MSM_SIZE = 52;

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function perCallUs(fn: () => unknown, repeat: number, runs: number): number {
  for (let i = 0; i < Math.max(3, repeat / 10); i++) fn(); // warm-up: JIT, lazy tables
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = cpuUs();
    for (let i = 0; i < repeat; i++) fn();
    samples.push((cpuUs() - start) / repeat);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const text = (s: string) => new TextEncoder().encode(s);

function scalarOf(label: string, order: bigint): bigint {
  let v = 0n;
  for (const byte of sha512(text(label))) v = (v << 8n) | BigInt(byte);
  return (v % (order - 1n)) + 1n;
}

// The three groups behind one shape. Points of each are their library's objects.
interface Group<P> {
  name: string;
  order: bigint;
  base: P;
  hash(label: string): P;
  mul(p: P, k: bigint): P;
  mulUnsafe(p: P, k: bigint): P;
  add(p: P, q: P): P;
  equals(p: P, q: P): boolean;
  msm(points: P[], scalars: bigint[]): P;
  mulAdd(points: P[], scalars: bigint[]): P;
  encode(p: P): Uint8Array;
  decode(b: Uint8Array): P;
}

type WPoint = InstanceType<typeof p256.Point>;
type KPoint = InstanceType<typeof secp256k1.Point>;
type RPoint = InstanceType<typeof ristretto255.Point>;

const p256Group: Group<WPoint> = {
  name: "P-256",
  order: p256.Point.Fn.ORDER,
  base: p256.Point.BASE,
  hash: (label) => p256_hasher.hashToCurve(text(label)) as WPoint,
  mul: (p, k) => p.multiply(k),
  mulUnsafe: (p, k) => p.multiplyUnsafe(k),
  add: (p, q) => p.add(q),
  equals: (p, q) => p.equals(q),
  msm: (points, scalars) => pippenger(p256.Point, points, scalars),
  mulAdd: (points, scalars) => mulAddUnsafe(p256.Point, points, scalars),
  encode: (p) => p.toBytes(true),
  decode: (b) => p256.Point.fromBytes(b),
};

const k1Group: Group<KPoint> = {
  name: "secp256k1",
  order: secp256k1.Point.Fn.ORDER,
  base: secp256k1.Point.BASE,
  hash: (label) => secp256k1_hasher.hashToCurve(text(label)) as KPoint,
  mul: (p, k) => p.multiply(k),
  mulUnsafe: (p, k) => p.multiplyUnsafe(k),
  add: (p, q) => p.add(q),
  equals: (p, q) => p.equals(q),
  msm: (points, scalars) => pippenger(secp256k1.Point, points, scalars),
  mulAdd: (points, scalars) => mulAddUnsafe(secp256k1.Point, points, scalars),
  encode: (p) => p.toBytes(true),
  decode: (b) => secp256k1.Point.fromBytes(b),
};

const r255Group: Group<RPoint> = {
  name: "ristretto255",
  order: ristretto255.Point.Fn.ORDER,
  base: ristretto255.Point.BASE,
  hash: (label) => ristretto255_hasher.deriveToCurve!(sha512(text(label))) as RPoint,
  mul: (p, k) => p.multiply(k),
  mulUnsafe: (p, k) => p.multiplyUnsafe(k),
  add: (p, q) => p.add(q),
  equals: (p, q) => p.equals(q),
  msm: (points, scalars) => pippenger(ristretto255.Point, points, scalars),
  mulAdd: (points, scalars) => mulAddUnsafe(ristretto255.Point, points, scalars),
  encode: (p) => p.toBytes(),
  decode: (b) => ristretto255.Point.fromBytes(b),
};

function measure<P>(g: Group<P>, runs: number): Record<string, number> {
  const point = g.hash(`bench/${g.name}/point`);
  const other = g.hash(`bench/${g.name}/other`);
  const k = scalarOf(`${g.name}/k`, g.order);
  const points = Array.from({ length: MSM_SIZE }, (_, i) => g.hash(`bench/${g.name}/msm/${i}`));
  const scalars = Array.from({ length: MSM_SIZE }, (_, i) => scalarOf(`${g.name}/msm/${i}`, g.order));
  const encoded = g.encode(point);
  // Sanity: the MSM is the sum of the products, and (a+b)·P = a·P + b·P.
  let naive = g.mul(points[0]!, scalars[0]!);
  for (let i = 1; i < MSM_SIZE; i++) naive = g.add(naive, g.mul(points[i]!, scalars[i]!));
  if (!g.equals(naive, g.msm(points, scalars))) throw new Error(`${g.name}: msm mismatch`);
  const a = scalarOf(`${g.name}/a`, g.order);
  const b = scalarOf(`${g.name}/b`, g.order);
  if (!g.equals(g.mul(point, (a + b) % g.order), g.add(g.mul(point, a), g.mul(point, b)))) {
    throw new Error(`${g.name}: group law`);
  }
  let counter = 0;
  // A fresh point each call for the multiplications, so no per-point table is reused.
  const fresh = Array.from({ length: 64 }, (_, i) => g.hash(`bench/${g.name}/fresh/${i}`));
  const three = points.slice(0, 3);
  return {
    ct: perCallUs(() => g.mul(fresh[counter++ % 64]!, k), 200, runs),
    vt: perCallUs(() => g.mulUnsafe(fresh[counter++ % 64]!, k), 200, runs),
    fixed: perCallUs(() => g.mul(g.base, k), 400, runs),
    add: perCallUs(() => g.add(point, other), 5000, runs),
    msm: perCallUs(() => g.msm(points, scalars), 10, runs) / MSM_SIZE,
    msm3: perCallUs(() => g.mulAdd(three, scalars.slice(0, 3)), 100, runs) / 3,
    decode: perCallUs(() => g.decode(encoded), 1000, runs),
    encode: perCallUs(() => g.encode(fresh[counter++ % 64]!), 1000, runs),
    h2c: perCallUs(() => g.hash(`bench/${g.name}/h2c/${counter++}`), 200, runs),
  };
}

function main(): void {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
  const runs = Number(values.runs);
  console.log(`node ${process.version}, pure JS (@noble/curves), CPU µs per operation, ` +
    `median of ${runs} runs`);
  const columns = ["ct", "vt", "fixed", "add", "msm", "msm3", "decode", "encode", "h2c"];
  const heads = ["k·P ct", "k·P vt", "k·G", "P+Q", "msm/pt", "msm3/pt", "decode", "encode", "h2c"];
  console.log("group".padEnd(16) + heads.map((h) => h.padStart(9)).join(""));
  for (const g of [p256Group, k1Group, r255Group] as Group<unknown>[]) {
    const r = measure(g, runs);
    console.log(g.name.padEnd(16) + columns.map((c) => r[c]!.toFixed(1).padStart(9)).join(""));
  }
  void sha256; // (imported for parity with the Python twin's hashing; unused here)
}

main();
