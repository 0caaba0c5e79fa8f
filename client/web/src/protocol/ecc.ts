/**
 * NIST P-256 arithmetic for the fair deal on x-coordinates only, the twin of
 * gin/ecc.py, via `@noble/curves` (pure JS; it works where WebCrypto does not).
 *
 * A point is named by its 32-byte big-endian x and the point used for it is the
 * one with even y (compressed prefix `02`). Because x(k·P) = x(k·(−P)), every
 * result is the same whichever of ±P was meant (protocol.md §8.1, §8.3).
 */

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";

import { MalformedInput } from "../engine/errors.ts";
import { ascii, concat, fromBigInt, toBigInt, toHex } from "./bytes.ts";

// Field prime and group order of P-256 (FIPS 186-4, D.1.2.3); cofactor 1.
export const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
export const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
export const COORD_BYTES = 32;
export const CARDS = 52;
const CARD_POINT_DOMAIN = ascii("gin/fairdeal/v1/card-point");

type Point = InstanceType<typeof p256.Point>;

/** 32 bytes that are not the x-coordinate of a point on P-256. */
export class InvalidPoint extends MalformedInput {}

/** A scalar outside [1, N-1]. */
export class InvalidScalar extends MalformedInput {}

/** `k` if it is a usable secret scalar, else InvalidScalar (the value is not shown). */
export function checkScalar(k: bigint): bigint {
  if (typeof k !== "bigint" || k < 1n || k >= N) {
    throw new InvalidScalar(`scalar must be an integer in [1, n-1], got ${typeof k}`);
  }
  return k;
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}

/** The scalar that undoes `k`: mul(mul(x, k), inverse(k)) == x (n is prime: Fermat). */
export function inverse(k: bigint): bigint {
  return modPow(checkScalar(k), N - 2n, N);
}

/** The scalar equal to applying all `scalars` in turn (multiplication commutes). */
export function product(...scalars: bigint[]): bigint {
  let out = 1n;
  for (const k of scalars) out = (out * checkScalar(k)) % N;
  return out;
}

function decode(x: Uint8Array): Point | null {
  try {
    return p256.Point.fromBytes(concat(Uint8Array.of(2), x));
  } catch {
    return null;
  }
}

/** The point with x-coordinate `x` and even y; InvalidPoint if there is none. */
export function point(x: Uint8Array): Point {
  if (!(x instanceof Uint8Array) || x.length !== COORD_BYTES) {
    throw new InvalidPoint(`x-coordinate must be ${COORD_BYTES} bytes`);
  }
  if (toBigInt(x) >= P) throw new InvalidPoint("x-coordinate is not reduced modulo p");
  const pinned = cardPointCache().decoded.get(toHex(x));
  if (pinned !== undefined) return pinned;
  const pt = decode(x);
  if (pt === null) throw new InvalidPoint("no point on P-256 has this x-coordinate");
  return pt;
}

/** Whether `x` names a point on P-256. */
export function isValidX(x: Uint8Array): boolean {
  try {
    point(x);
    return true;
  } catch (exc) {
    if (exc instanceof InvalidPoint) return false;
    throw exc;
  }
}

function xOf(pt: Point): Uint8Array {
  return pt.toBytes(true).subarray(1);
}

/** x(k·P) for the point P named by `x`: encrypt with k (decrypt with its inverse). */
export function mul(x: Uint8Array, k: bigint): Uint8Array {
  const pt = point(x);
  return xOf(pt.multiply(checkScalar(k)));
}

/** Hash-to-curve by try-and-increment (§8.2): [x, counter] of card point M_card. */
export function hashToX(card: number): [Uint8Array, number] {
  if (!Number.isInteger(card) || card < 0 || card >= CARDS) {
    throw new MalformedInput(`card index must be 0..51, got ${card}`);
  }
  for (let counter = 0; counter < 256; counter++) {
    const digest = sha256(concat(CARD_POINT_DOMAIN, Uint8Array.of(card, counter)));
    const x = fromBigInt(toBigInt(digest) % P, COORD_BYTES);
    if (decode(x) !== null) return [x, counter];
  }
  // Each try succeeds with probability about 1/2; 256 failures do not happen.
  throw new Error("hash-to-curve exhausted its counter");
}

interface CardPoints {
  xs: Uint8Array[];
  decoded: Map<string, Point>;
  cardOf: Map<string, number>;
}

let cache: CardPoints | undefined;

// Every hand's first message multiplies all 52 card points: keep them decoded.
function cardPointCache(): CardPoints {
  if (cache === undefined) {
    const xs = Array.from({ length: CARDS }, (_, c) => hashToX(c)[0]);
    cache = {
      xs,
      decoded: new Map(xs.map((x) => [toHex(x), decode(x)!])),
      cardOf: new Map(xs.map((x, c) => [toHex(x), c])),
    };
  }
  return cache;
}

/** x of M_0 .. M_51, in card-index order (copies: callers cannot alter the cache). */
export function cardPoints(): Uint8Array[] {
  return cardPointCache().xs.map((x) => x.slice());
}

/** The card index whose point has x-coordinate `x`, or null if it is no card. */
export function cardOf(x: Uint8Array): number | null {
  return cardPointCache().cardOf.get(toHex(x)) ?? null;
}
