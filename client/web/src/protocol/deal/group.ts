/**
 * ristretto255, the group of the fair deal (protocol.md §8.1), the twin of
 * gin/protocol/deal/group.py, on @noble/curves. Points are noble's ristretto255 points
 * (32-byte canonical encodings on the wire); scalars are bigints in [0, L), on the
 * wire 32 bytes little-endian. Secret scalars go through noble's constant-time
 * `multiply`, our constant-time `msmSecret`, or libsodium's WebAssembly (`mulBytes`,
 * once the online worker has loaded it); public ones may use the variable-time
 * `multiplyUnsafe` and `msm` (Pippenger).
 */

import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { bytesToHex, bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";

export type Point = InstanceType<typeof ristretto255.Point>;
export const RPoint = ristretto255.Point;
export const L = RPoint.Fn.ORDER;
/** The field of edwards25519: an encoding's value must be below it. */
export const P = 2n ** 255n - 19n;
export const POINT_BYTES = 32;
export const SCALAR_BYTES = 32;
export const DOMAIN = utf8ToBytes("gin/fairdeal/v3");
export const CARDS = 52;
export const G: Point = RPoint.BASE;

/** 32 bytes that are not the encoding of a ristretto255 element other than the identity. */
export class InvalidPoint extends MalformedInput {}
/** A scalar outside the range the caller requires. */
export class InvalidScalar extends MalformedInput {}

export const mod = (k: bigint): bigint => ((k % L) + L) % L;

export function scalarToBytes(k: bigint): Uint8Array {
  if (typeof k !== "bigint" || k < 0n || k >= L) throw new InvalidScalar("scalar must be in [0, L)");
  return numberToBytesLE(k, SCALAR_BYTES);
}

export function scalarFromBytes(data: Uint8Array): bigint {
  if (!(data instanceof Uint8Array) || data.length !== SCALAR_BYTES) {
    throw new InvalidScalar(`scalar must be ${SCALAR_BYTES} bytes`);
  }
  const k = bytesToNumberLE(data);
  if (k >= L) throw new InvalidScalar("scalar is not reduced modulo L");
  return k;
}

export function checkSecret(k: bigint): bigint {
  if (typeof k !== "bigint" || k < 1n || k >= L) throw new InvalidScalar("secret scalar must be in [1, L)");
  return k;
}

/** SHA-512 of the concatenated parts, little-endian, reduced modulo L. */
export function hashToScalar(...parts: Uint8Array[]): bigint {
  return bytesToNumberLE(sha512(concatBytes(...parts))) % L;
}

export const inv = (k: bigint): bigint => RPoint.Fn.inv(checkSecret(k));

// Encodings already decoded or produced here, and their points: a hand meets each of its
// points several times (a deck message checked on arrival, then proven or verified and
// audited; the proof's points parsed, then verified), and a decode costs a square root.
// Only canonical encodings of elements other than the identity get in; all are public.
const known = new Map<string, Point>();
const KNOWN_MAX = 4096;

function remember(key: string, p: Point): void {
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(key, p);
}

/**
 * The element 32 bytes encode, if they are its canonical encoding and it is not the
 * identity; InvalidPoint otherwise. RFC 9496's one-encoding rule (the 256 bits read
 * little-endian are below p and even) is checked here explicitly, as group.py does:
 * libsodium under the Python twin ignores the top bit, so neither twin leaves the
 * rule to its library.
 */
export function decode(data: Uint8Array): Point {
  if (!(data instanceof Uint8Array) || data.length !== POINT_BYTES) {
    throw new InvalidPoint(`a point must be ${POINT_BYTES} bytes`);
  }
  const key = bytesToHex(data);
  const seen = known.get(key);
  if (seen !== undefined) return seen;
  const s = bytesToNumberLE(data);
  if (s >= P || (s & 1n) === 1n) {
    throw new InvalidPoint("not a canonical encoding (RFC 9496: below 2^255 - 19 and even)");
  }
  let p: Point;
  try {
    p = RPoint.fromBytes(data);
  } catch {
    throw new InvalidPoint("not the encoding of a ristretto255 element");
  }
  if (p.is0()) throw new InvalidPoint("the identity is not allowed here");
  remember(key, p);
  return p;
}

export function encode(p: Point): Uint8Array {
  const bytes = p.toBytes();
  if (!p.is0()) remember(bytesToHex(bytes), p);
  return bytes;
}

/** k·P for a secret k in [1, L): noble's constant-time ladder. */
export const mul = (p: Point, k: bigint): Point => p.multiply(checkSecret(k));

/** What {@link mulBytes} needs of libsodium's WebAssembly build (libsodium-wrappers-sumo). */
export interface Sodium {
  crypto_scalarmult_ristretto255(scalar: Uint8Array, element: Uint8Array): Uint8Array;
}

let sodium: Sodium | null = null;

/**
 * Multiply through libsodium from now on (the online worker loads it), or through
 * noble again (null). Both give the same bytes; libsodium's constant-time ladder is
 * about twice as fast as noble's in a Chromium worker, encodings included (0.10 ms
 * against 0.19 ms, a decode and an encode).
 */
export function useSodium(library: Sodium | null): void {
  sodium = library;
}

/**
 * The encoding of k·P, for the encoding of P and a secret k in [1, L): constant time.
 * The canonical check (decode) stays in front of libsodium, whose versions differ on
 * the top bit (Debian's 1.0.18 under gin/ ignores it, this build's 1.0.22 refuses it
 * with a bare error); the decode is remembered, so a checked message costs nothing.
 */
export function mulBytes(data: Uint8Array, k: bigint): Uint8Array {
  const p = decode(data);
  if (sodium === null) return encode(mul(p, k));
  return sodium.crypto_scalarmult_ristretto255(scalarToBytes(checkSecret(k)), data);
}

/** k·P for a public k in [0, L): variable time. */
export const mulPublic = (p: Point, k: bigint): Point => p.multiplyUnsafe(k);
/** The digits of k in base 2^c, each in [−2^(c−1), 2^(c−1)), least significant first. */
function signedDigits(k: bigint, c: number, windows: number): Int16Array {
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
 * Σ k_i·P_i for public scalars in [0, L): Pippenger's buckets, variable time. Unlike
 * noble's `pippenger`, its windows cover only the scalars' actual length (the audit's
 * 128-bit weights take half as many) and its digits are signed (half the buckets).
 */
export function msm(points: readonly Point[], scalars: readonly bigint[]): Point {
  const n = points.length;
  if (n !== scalars.length) throw new MalformedInput("as many points as scalars");
  scalars.forEach((k) => {
    if (typeof k !== "bigint" || k < 0n || k >= L) throw new InvalidScalar("scalar must be in [0, L)");
  });
  const c = n < 100 ? 4 : n < 200 ? 5 : 6;
  const bits = scalars.reduce((most, k) => Math.max(most, k.toString(2).length), 0);
  const windows = Math.ceil(bits / c) + 1; // the last takes the top digit's carry
  const digits = scalars.map((k) => signedDigits(k, c, windows));
  const negated = points.map((p) => p.negate());
  const buckets: (Point | null)[] = new Array<Point | null>(1 << (c - 1));
  let acc = RPoint.ZERO;
  for (let w = windows - 1; w >= 0; w--) {
    for (let d = 0; d < c; d++) acc = acc.double();
    buckets.fill(null);
    for (let i = 0; i < n; i++) {
      const digit = digits[i]![w]!;
      if (digit === 0) continue;
      const p = digit > 0 ? points[i]! : negated[i]!;
      const slot = Math.abs(digit) - 1;
      const bucket = buckets[slot];
      buckets[slot] = bucket ? bucket.add(p) : p;
    }
    // Σ_j (j + 1)·bucket[j] as a sum of running sums, from the top bucket down.
    let running: Point | null = null;
    let sum: Point | null = null;
    for (let j = buckets.length - 1; j >= 0; j--) {
      const bucket = buckets[j];
      if (bucket) running = running ? running.add(bucket) : bucket;
      if (running) sum = sum ? sum.add(running) : running;
    }
    if (sum) acc = acc.add(sum);
  }
  return acc;
}

const WINDOW = 4;
const WINDOWS = Math.ceil(256 / WINDOW);

/**
 * Σ k_i·P_i for secret scalars k_i in [1, L), in constant time: Straus's method with
 * fixed 4-bit windows. All the points share one chain of 252 doublings, and each adds
 * one table entry per window, every entry of its table read whatever the digit (as
 * noble's own fixed-window multiply does): for the proof's 52-term sum about a quarter
 * of the cost of 52 separate multiplications.
 */
export function msmSecret(points: readonly Point[], scalars: readonly bigint[]): Point {
  if (points.length !== scalars.length) throw new MalformedInput("as many points as scalars");
  const digits = scalars.map((k) => {
    let rest = checkSecret(k);
    return Array.from({ length: WINDOWS }, () => {
      const digit = Number(rest & 15n);
      rest >>= 4n;
      return digit;
    });
  });
  const tables = points.map((p) => {
    const table = [RPoint.ZERO];
    for (let i = 1; i < 1 << WINDOW; i++) table.push(table[i - 1]!.add(p));
    return table;
  });
  let acc = RPoint.ZERO;
  for (let w = WINDOWS - 1; w >= 0; w--) {
    if (w !== WINDOWS - 1) for (let d = 0; d < WINDOW; d++) acc = acc.double();
    tables.forEach((table, i) => {
      const digit = digits[i]![w]!;
      let chosen = table[0]!;
      for (let j = 1; j < table.length; j++) chosen = j === digit ? table[j]! : chosen;
      acc = acc.add(chosen); // the identity when the digit is 0: the same work
    });
  }
  return acc;
}

/** RFC 9496 element derivation from SHA-512(DOMAIN ‖ 00 ‖ label). */
export function hashToPoint(label: Uint8Array): Point {
  return ristretto255_hasher.deriveToCurve!(sha512(concatBytes(DOMAIN, Uint8Array.of(0), label))) as Point;
}

let h: Point | undefined;
/**
 * H, the second Pedersen generator of the shuffle proof, with a window table (W = 6,
 * as noble gives G; built on its first multiplication, about 3 ms in node) that makes
 * multiplications by it about 4× faster, constant-time ones included.
 */
export function generatorH(): Point {
  return (h ??= hashToPoint(utf8ToBytes("generator H")).precompute(6, true));
}

let gTable: Point | undefined;
/**
 * G again, with its own window table (W = 6, built with H's, about 3 ms in node): in a
 * Chromium worker a constant-time multiplication through it takes 0.06 ms, through
 * noble's RPoint.BASE 0.09 ms, which made a Pedersen commitment 0.20 ms against 0.15 ms.
 */
function generatorG(): Point {
  return (gTable ??= RPoint.fromAffine(G.toAffine()).precompute(6, true));
}

/** x·H + y·G for secret x, y in [0, L): two fixed-base multiplications through the tables. */
export function pedersen(x: bigint, y: bigint): Point {
  const part = (p: Point, k: bigint): Point => (k === 0n ? RPoint.ZERO : mul(p, k)); // 0: probability 1/L
  return part(generatorH(), x).add(part(generatorG(), y));
}

let cards: Point[] | undefined;
let cardIndex: Map<string, number> | undefined;
/**
 * M_0 … M_51: hashToPoint("card-point" ‖ u8(c)). No window tables: building the 52
 * would cost a match's first hand about 100 ms of a desktop worker's CPU, and only
 * message 1 multiplies them each hand now (the audit checks them in one batch).
 */
export function cardPoints(): Point[] {
  return (cards ??= Array.from({ length: CARDS }, (_, c) => hashToPoint(concatBytes(utf8ToBytes("card-point"), Uint8Array.of(c)))));
}

/**
 * What every hand needs once, built ahead of the first: the card points and their
 * encodings, G's and H's window tables (about 10 ms of a desktop worker's CPU). The
 * online worker calls it as it starts, while its player waits for the friend.
 */
export function prepare(): void {
  cardBytes();
  G.multiply(1n);
  generatorG().multiply(1n);
  generatorH().multiply(1n);
}

let cardEncodings: Uint8Array[] | undefined;
/** The encodings of M_0 … M_51. */
export const cardBytes = (): Uint8Array[] => (cardEncodings ??= cardPoints().map(encode));

/** The card whose point's encoding is `data`, or null. */
export function cardOfBytes(data: Uint8Array): number | null {
  cardIndex ??= new Map(cardBytes().map((q, c) => [bytesToHex(q), c]));
  return cardIndex.get(bytesToHex(data)) ?? null;
}
