/**
 * edwards25519 arithmetic on bigints for the fair deal's hot loops: the shuffle proof's
 * Pedersen commitments and 52-term sum, and the variable-time MSMs of verification and
 * the hand-end audit. TypeScript only: gin/ multiplies through libsodium.
 *
 * Why not noble's points: in a Chromium worker noble's ristretto255 addition costs about
 * 1.15 µs, most of it a frozen object and four range checks per step and ten field
 * multiplications; the same complete formulas (Hisil–Wong–Carter–Dawson 2008, a = −1)
 * on plain bigints with 2d·T kept from the start cost about 0.48 µs. Points come in and
 * go out as noble's ristretto255 points through its public API (`toAffine`, the
 * constructors), so decoding, encoding and equality stay noble's.
 *
 * A ristretto255 element is the class of its edwards25519 representatives; every
 * formula here maps representatives to representatives, as noble's own arithmetic does.
 */

import { ed25519, ristretto255 } from "@noble/curves/ed25519.js";
import { numberToBytesLE } from "@noble/curves/utils.js";

import { MalformedInput } from "../../engine/errors.ts";

const RPoint = ristretto255.Point;
type Point = InstanceType<typeof RPoint>;

const P = 2n ** 255n - 19n;
/** d = −121665/121666, the curve's constant, and 2d. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const D2 = (2n * D) % P;

/** √−1 and 1/√(a − d) (RFC 9496). */
const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
const INVSQRT_A_MINUS_D = 54469307008909316920995813868745141605393597292927456921205312896311721017578n;

/** Inputs are never negative: every difference below adds P or 2P first. */
const m = (x: bigint): bigint => x % P;

/** A point in extended coordinates: x = X/Z, y = Y/Z, x·y = T/Z, each in [0, p). */
export class Ext {
  constructor(readonly X: bigint, readonly Y: bigint, readonly Z: bigint, readonly T: bigint) {}
}

/** A point ready to be added to an {@link Ext}: (Y + X, Y − X, 2Z, 2d·T). */
export class Cached {
  constructor(readonly yPlusX: bigint, readonly yMinusX: bigint, readonly z2: bigint, readonly t2d: bigint) {}
}

export const IDENTITY = new Ext(0n, 1n, 1n, 0n);

export function fromPoint(p: Point): Ext {
  const { x, y } = p.toAffine(); // a decoded point has Z = 1, whose inverse costs nothing
  return new Ext(x, y, 1n, m(x * y));
}

export const toPoint = (e: Ext): Point => new RPoint(new ed25519.Point(e.X, e.Y, e.Z, e.T));

export const cached = (e: Ext): Cached => new Cached(m(e.Y + e.X), m(e.Y - e.X + P), m(e.Z + e.Z), m(e.T * D2));

/** −c: x ↦ −x swaps Y + X and Y − X and negates T. */
export const negate = (c: Cached): Cached => new Cached(c.yMinusX, c.yPlusX, c.z2, m(P - c.t2d));

/** e + c, complete (add-2008-hwcd-3): 8 multiplications. */
export function add(e: Ext, c: Cached): Ext {
  const a = m((e.Y - e.X + P) * c.yMinusX);
  const b = m((e.Y + e.X) * c.yPlusX);
  const t = m(e.T * c.t2d);
  const z = m(e.Z * c.z2);
  const ee = b - a + P;
  const f = z - t + P;
  const g = z + t;
  const h = b + a;
  return new Ext(m(ee * f), m(g * h), m(f * g), m(ee * h));
}

/** 2e (dbl-2008-hwcd, a = −1): 4 multiplications and 4 squarings. */
export function double(e: Ext): Ext {
  const a = m(e.X * e.X);
  const b = m(e.Y * e.Y);
  const c = m(2n * e.Z * e.Z);
  const sum = e.X + e.Y;
  const ee = m(sum * sum) - a - b + 2n * P;
  const g = b - a + P;
  const f = g - c + P;
  const h = 2n * P - a - b;
  return new Ext(m(ee * f), m(g * h), m(f * g), m(ee * h));
}

/**
 * The digits of a secret k in [0, L) in base 2^w, each in [−2^(w−1), 2^(w−1)], least
 * significant first, without a branch on k's bits: `windows` must cover them with one
 * to spare for the carry. MalformedInput for a k out of range (its digits would not fit).
 */
function signedDigits(k: bigint, w: number, windows: number): Int8Array {
  if (typeof k !== "bigint" || k < 0n || k >= RPoint.Fn.ORDER) throw new MalformedInput("secret scalar must be in [0, L)");
  const bytes = new Uint8Array(40);
  bytes.set(numberToBytesLE(k, 32));
  const out = new Int8Array(windows);
  const full = 1 << w;
  let carry = 0;
  for (let i = 0; i < windows; i++) {
    const at = i * w;
    const word = bytes[at >> 3]! | (bytes[(at >> 3) + 1]! << 8);
    const digit = ((word >> (at & 7)) & (full - 1)) + carry;
    carry = (digit + (full >> 1) - 1) >> w; // 1 when digit > 2^(w−1): then it borrows from the next
    out[i] = digit - (carry << w);
  }
  return out;
}

/** The entry |digit| of a row of 0·B … 2^(w−1)·B, negated if digit < 0: every entry read. */
function select(row: readonly Cached[], digit: number): Cached {
  const sign = digit >>> 31; // 1 when negative
  const magnitude = (digit ^ -sign) + sign;
  let chosen = row[0]!;
  for (let j = 1; j < row.length; j++) chosen = j === magnitude ? row[j]! : chosen;
  const negated = negate(chosen);
  return sign === 1 ? negated : chosen;
}

/** [0·p, 1·p, …, count·p]. */
function multiples(p: Ext, count: number): Ext[] {
  const step = cached(p);
  const out = [IDENTITY, p];
  while (out.length <= count) out.push(add(out[out.length - 1]!, step));
  return out;
}

const FIXED_WINDOW = 6;
const FIXED_WINDOWS = 43; // 258 bits: a scalar below L < 2^253 and its top carry

/**
 * A base point's table for constant-time fixed-base multiplication: row i holds
 * j·2^(6i)·B for j = 0 … 32, with Z = 1 (one inversion for them all), so a
 * multiplication is 43 additions and no doublings.
 */
export class FixedBase {
  readonly #rows: Cached[][];

  constructor(base: Point) {
    const rows: Ext[][] = [];
    let b = fromPoint(base);
    for (let i = 0; i < FIXED_WINDOWS; i++) {
      const row = multiples(b, 1 << (FIXED_WINDOW - 1));
      rows.push(row);
      b = double(row[row.length - 1]!); // 2^(w−1)·b doubled: 2^w·b
    }
    const flat = rows.flat();
    const inverses = invertAll(flat.map((e) => e.Z));
    let at = 0;
    this.#rows = rows.map((row) => row.map(() => {
      const e = flat[at]!;
      const iz = inverses[at++]!;
      const x = m(e.X * iz);
      const y = m(e.Y * iz);
      return new Cached(m(y + x), m(y - x + P), 2n, m(m(x * y) * D2));
    }));
  }

  /** acc + k·B for a secret k in [0, L): every table entry of every row read. */
  addTo(acc: Ext, k: bigint): Ext {
    const digits = signedDigits(k, FIXED_WINDOW, FIXED_WINDOWS);
    this.#rows.forEach((row, i) => { acc = add(acc, select(row, digits[i]!)); });
    return acc;
  }
}

/**
 * The ristretto255 encodings of 2·P for each P, with one field inversion for them all
 * (curve25519-dalek's `double_and_compress_batch`): a single encoding costs an inverse
 * square root, about 25 µs in a Chromium worker. The proof encodes its 104 chain
 * commitments so, computed at half their scalars. Null if some 2·P is the identity (then the batch
 * has no inverse; the caller encodes one by one).
 */
export function encodeDoubled(points: readonly Ext[]): Uint8Array[] | null {
  const states = points.map(({ X, Y, Z, T }) => {
    const xx = m(X * X);
    const yy = m(Y * Y);
    const zz = m(Z * Z);
    const dtt = m(m(T * T) * D);
    const e = m(2n * X * Y);
    const f = m(zz + dtt);
    const g = m(yy + xx);
    const h = m(zz - dtt + P);
    return { e, f, g, h, eg: m(e * g), fh: m(f * h) };
  });
  const products = states.map(({ eg, fh }) => m(eg * fh));
  if (products.some((v) => v === 0n)) return null;
  const inverses = invertAll(products);
  return states.map((state, i) => {
    const zInv = m(state.eg * inverses[i]!);
    const tInv = m(state.fh * inverses[i]!);
    const rotate = (m(state.eg * zInv) & 1n) === 1n;
    const e = rotate ? state.g : state.e;
    let g = rotate ? m(P - state.e) : state.g;
    const h = rotate ? m(state.f * SQRT_M1) : state.h;
    const magic = rotate ? SQRT_M1 : INVSQRT_A_MINUS_D;
    if ((m(m(h * e) * zInv) & 1n) === 1n) g = m(P - g);
    let sEnc = m(m(h - g + P) * m(magic * m(g * tInv)));
    if ((sEnc & 1n) === 1n) sEnc = P - sEnc;
    return numberToBytesLE(sEnc, 32);
  });
}

/** The inverses of nonzero field elements, with one inversion (Montgomery's trick). */
function invertAll(values: readonly bigint[]): bigint[] {
  const prefix: bigint[] = [];
  let product = 1n;
  for (const v of values) {
    prefix.push(product);
    product = m(product * v);
  }
  let inverse = RPoint.Fp.inv(product);
  const out = new Array<bigint>(values.length);
  for (let i = values.length - 1; i >= 0; i--) {
    out[i] = m(inverse * prefix[i]!);
    inverse = m(inverse * values[i]!);
  }
  return out;
}

const SECRET_WINDOW = 4;
const SECRET_WINDOWS = 64; // 256 bits: the top digit of a scalar below L takes its carry

/**
 * Σ k_i·P_i for secret scalars in [0, L), in constant time: Straus's method with signed
 * 4-bit windows. All the points share one chain of 252 doublings, and each adds one
 * entry of its table 0·P … 8·P per window, every entry read whatever the digit.
 */
export function msmSecret(points: readonly Point[], scalars: readonly bigint[]): Point {
  if (points.length !== scalars.length) throw new MalformedInput("as many points as scalars");
  const digits = scalars.map((k) => signedDigits(k, SECRET_WINDOW, SECRET_WINDOWS));
  const tables = points.map((p) => multiples(fromPoint(p), 1 << (SECRET_WINDOW - 1)).map(cached));
  let acc = IDENTITY;
  for (let w = SECRET_WINDOWS - 1; w >= 0; w--) {
    if (w !== SECRET_WINDOWS - 1) for (let d = 0; d < SECRET_WINDOW; d++) acc = double(acc);
    tables.forEach((table, i) => { acc = add(acc, select(table, digits[i]![w]!)); });
  }
  return toPoint(acc);
}

/** The digits of k in base 2^c, each in [−2^(c−1), 2^(c−1)), least significant first (public k). */
function publicDigits(k: bigint, c: number, windows: number): Int16Array {
  const full = 1 << c;
  const mask = BigInt(full - 1);
  const out = new Int16Array(windows);
  let carry = 0;
  for (let w = 0; w < windows; w++) {
    const digit = Number(k & mask) + carry;
    k >>= BigInt(c);
    carry = digit >= full >> 1 ? 1 : 0;
    out[w] = digit - carry * full;
  }
  return out;
}

/**
 * Σ k_i·P_i for public scalars in [0, L): Pippenger's buckets, variable time. Its
 * windows cover only the scalars' actual length (the audit's 128-bit weights take half
 * as many) and its digits are signed (half the buckets).
 */
export function msm(points: readonly Point[], scalars: readonly bigint[]): Point {
  const n = points.length;
  if (n !== scalars.length) throw new MalformedInput("as many points as scalars");
  scalars.forEach((k) => {
    if (typeof k !== "bigint" || k < 0n || k >= RPoint.Fn.ORDER) throw new MalformedInput("scalar must be in [0, L)");
  });
  const c = n < 100 ? 4 : n < 200 ? 5 : 6;
  const bits = scalars.reduce((most, k) => Math.max(most, k.toString(2).length), 0);
  const windows = Math.ceil(bits / c) + 1; // the last takes the top digit's carry
  const digits = scalars.map((k) => publicDigits(k, c, windows));
  const exts = points.map(fromPoint);
  const negated = exts.map((e) => new Ext(m(P - e.X), e.Y, e.Z, m(P - e.T)));
  const plus = exts.map(cached);
  const minus = plus.map(negate);
  const buckets: (Ext | null)[] = new Array<Ext | null>(1 << (c - 1));
  let acc = IDENTITY;
  for (let w = windows - 1; w >= 0; w--) {
    for (let d = 0; d < c; d++) acc = double(acc);
    buckets.fill(null);
    for (let i = 0; i < n; i++) {
      const digit = digits[i]![w]!;
      if (digit === 0) continue;
      const slot = Math.abs(digit) - 1;
      const bucket = buckets[slot];
      if (bucket) buckets[slot] = add(bucket, digit > 0 ? plus[i]! : minus[i]!);
      else buckets[slot] = digit > 0 ? exts[i]! : negated[i]!;
    }
    // Σ_j (j + 1)·bucket[j] as a sum of running sums, from the top bucket down.
    let running: Ext | null = null;
    let sum: Ext | null = null;
    for (let j = buckets.length - 1; j >= 0; j--) {
      const bucket = buckets[j];
      if (bucket) running = running ? add(running, cached(bucket)) : bucket;
      if (running) sum = sum ? add(sum, cached(running)) : running;
    }
    if (sum) acc = add(acc, cached(sum));
  }
  return toPoint(acc);
}
