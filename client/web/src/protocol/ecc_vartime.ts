/**
 * Variable-time P-256 scalar multiplication for ecc.ts, returning only the
 * x-coordinate. `@noble/curves` decodes and validates points; the arithmetic here
 * is the faster, non-complete kind noble leaves out: Jacobian coordinates with the
 * a = −3 doubling (3M + 5S) and mixed additions (7M + 4S) against affine tables,
 * every exceptional case (doubling, opposite points, infinity) handled explicitly.
 *
 * Variable time is acceptable for the fair deal: every key is one hand's and is
 * revealed at its end (protocol.md §2). Callers validate points and scalars.
 */

import { p256 } from "@noble/curves/nist.js";

const P = p256.Point.Fp.ORDER;
const invertField = (a: bigint): bigint => p256.Point.Fp.inv(a);

/** A point in affine coordinates (never infinity here). */
export interface Affine {
  readonly x: bigint;
  readonly y: bigint;
}

/** (X/Z², Y/Z³); Z = 0 is the point at infinity. */
interface Jacobian {
  X: bigint;
  Y: bigint;
  Z: bigint;
}

const INFINITY: Jacobian = { X: 1n, Y: 1n, Z: 0n };

// Operands of add/sub are reduced; products are reduced by the caller with one `%`.
const add = (a: bigint, b: bigint): bigint => (a + b >= P ? a + b - P : a + b);
const sub = (a: bigint, b: bigint): bigint => (a >= b ? a - b : a - b + P);

function double(p: Jacobian): Jacobian {
  if (p.Z === 0n || p.Y === 0n) return INFINITY;
  const delta = (p.Z * p.Z) % P;
  const gamma = (p.Y * p.Y) % P;
  const beta = (p.X * gamma) % P;
  const alpha = (3n * sub(p.X, delta) * add(p.X, delta)) % P; // a = −3 (dbl-2001-b)
  const X = (alpha * alpha + 8n * (P - beta)) % P;
  const Z = ((p.Y + p.Z) ** 2n + 2n * P - gamma - delta) % P;
  const gamma2 = (gamma * gamma) % P;
  const Y = (alpha * (4n * beta + P - X) + 8n * (P - gamma2)) % P;
  return { X, Y, Z };
}

/** p + q for affine q (madd-2007-bl), falling back to doubling when p = q. */
function addMixed(p: Jacobian, q: Affine): Jacobian {
  if (p.Z === 0n) return { X: q.x, Y: q.y, Z: 1n };
  const zz = (p.Z * p.Z) % P;
  const u2 = (q.x * zz) % P;
  const s2 = (q.y * p.Z * zz) % P;
  const h = sub(u2, p.X);
  const r = (2n * sub(s2, p.Y)) % P;
  if (h === 0n) return r === 0n ? double(p) : INFINITY;
  const hh = (h * h) % P;
  const i = 4n * hh;
  const j = (h * i) % P;
  const v = (p.X * i) % P;
  const X = (r * r + 3n * P - j - 2n * v) % P;
  const Y = (r * (v + P - X) + 2n * (P - ((p.Y * j) % P))) % P;
  const Z = ((p.Z + h) ** 2n + 2n * P - zz - hh) % P;
  return { X, Y, Z };
}

const negate = (q: Affine): Affine => ({ x: q.x, y: q.y === 0n ? 0n : P - q.y });

/** Affine forms of finite points with one shared inversion (Montgomery's trick). */
function normalize(points: readonly Jacobian[]): Affine[] {
  const prefix: bigint[] = [];
  let acc = 1n;
  for (const p of points) {
    if (p.Z === 0n) throw new Error("cannot normalize the point at infinity");
    prefix.push(acc);
    acc = (acc * p.Z) % P;
  }
  let inv = invertField(acc);
  const out = new Array<Affine>(points.length);
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i]!;
    const zInv = (inv * prefix[i]!) % P;
    inv = (inv * p.Z) % P;
    const zInv2 = (zInv * zInv) % P;
    out[i] = { x: (p.X * zInv2) % P, y: (p.Y * zInv2 * zInv) % P };
  }
  return out;
}

function xOf(p: Jacobian): bigint {
  if (p.Z === 0n) throw new Error("a scalar in [1, n-1] cannot give the point at infinity");
  const zInv = invertField(p.Z);
  return (p.X * zInv * zInv) % P;
}

// --- variable points: width-5 wNAF --------------------------------------------

const WNAF_WIDTH = 5;
const ODD_MULTIPLES = 1 << (WNAF_WIDTH - 2); // P, 3P, …, 15P

/** [P, 3P, 5P, …]: a variable point's table, worth keeping if the point recurs. */
export function oddMultiples(q: Affine): Affine[] {
  const twice = normalize([double({ X: q.x, Y: q.y, Z: 1n })])[0]!;
  const table: Jacobian[] = [{ X: q.x, Y: q.y, Z: 1n }];
  for (let i = 1; i < ODD_MULTIPLES; i++) table.push(addMixed(table[i - 1]!, twice));
  return normalize(table);
}

/** Width-w NAF digits of k, least significant first. */
function wnaf(k: bigint): Int8Array {
  const digits = new Int8Array(258);
  const full = 1 << WNAF_WIDTH;
  let n = k;
  for (let i = 0; n > 0n; i++, n >>= 1n) {
    if (n & 1n) {
      let d = Number(n & BigInt(full - 1));
      if (d >= full / 2) d -= full;
      digits[i] = d;
      n -= BigInt(d);
    }
  }
  return digits;
}

/** x(k·Q) given Q's odd multiples. */
export function mulOdd(table: readonly Affine[], k: bigint): bigint {
  const digits = wnaf(k);
  let top = digits.length - 1;
  while (top > 0 && digits[top] === 0) top--;
  let acc = INFINITY;
  for (let i = top; i >= 0; i--) {
    acc = double(acc);
    const d = digits[i]!;
    if (d > 0) acc = addMixed(acc, table[(d - 1) >> 1]!);
    else if (d < 0) acc = addMixed(acc, negate(table[(-d - 1) >> 1]!));
  }
  return xOf(acc);
}

// --- fixed points: signed windows with every doubling baked in ----------------

const WINDOW = 4;
const HALF = 1 << (WINDOW - 1); // digits −7..8: entries 1·B … 8·B per window
const WINDOWS = Math.ceil(256 / WINDOW) + 1; // the extra window takes the last carry

/**
 * For window w and d in 1..8, d·16^w·Q (flattened): 520 points, after which a
 * multiplication is 65 mixed additions and no doubling.
 */
export function windowTable(q: Affine): Affine[] {
  const bases: Jacobian[] = [{ X: q.x, Y: q.y, Z: 1n }];
  for (let w = 1; w < WINDOWS; w++) {
    let b = bases[w - 1]!;
    for (let i = 0; i < WINDOW; i++) b = double(b);
    bases.push(b);
  }
  const entries: Jacobian[] = [];
  for (const base of normalize(bases)) {
    let acc: Jacobian = { X: base.x, Y: base.y, Z: 1n };
    entries.push(acc);
    for (let d = 2; d <= HALF; d++) {
      acc = addMixed(acc, base);
      entries.push(acc);
    }
  }
  return normalize(entries);
}

/** x(k·Q) given Q's window table. */
export function mulWindowed(table: readonly Affine[], k: bigint): bigint {
  let acc = INFINITY;
  let n = k;
  let carry = 0;
  for (let w = 0; w < WINDOWS; w++, n >>= BigInt(WINDOW)) {
    let d = Number(n & BigInt((1 << WINDOW) - 1)) + carry;
    carry = d > HALF ? 1 : 0;
    if (carry) d -= 1 << WINDOW;
    if (d > 0) acc = addMixed(acc, table[w * HALF + d - 1]!);
    else if (d < 0) acc = addMixed(acc, negate(table[w * HALF - d - 1]!));
  }
  return xOf(acc);
}
