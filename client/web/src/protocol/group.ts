/**
 * ristretto255, the group of the fair deal (protocol.md §8.1), the twin of
 * gin/protocol/group.py, on @noble/curves. Points are noble's ristretto255 points
 * (32-byte canonical encodings on the wire); scalars are bigints in [0, L), on the
 * wire 32 bytes little-endian. Secret scalars go through noble's constant-time
 * `multiply` (its cost here is 1.0–1.4× the variable-time one's); public ones may use
 * the variable-time `multiplyUnsafe` and Pippenger.
 */

import { pippenger } from "@noble/curves/abstract/curve.js";
import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../engine/errors.ts";

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
  return p;
}

export const encode = (p: Point): Uint8Array => p.toBytes();

/** k·P for a secret k in [1, L): noble's constant-time ladder. */
export const mul = (p: Point, k: bigint): Point => p.multiply(checkSecret(k));
/** k·P for a public k in [0, L): variable time. */
export const mulPublic = (p: Point, k: bigint): Point => p.multiplyUnsafe(k);
/** Σ k_i·P_i for public scalars: Pippenger, variable time. */
export const msm = (points: Point[], scalars: bigint[]): Point => pippenger(RPoint, points, scalars);

/** RFC 9496 element derivation from SHA-512(DOMAIN ‖ 00 ‖ label). */
export function hashToPoint(label: Uint8Array): Point {
  return ristretto255_hasher.deriveToCurve!(sha512(concatBytes(DOMAIN, Uint8Array.of(0), label))) as Point;
}

let h: Point | undefined;
/** H, the second Pedersen generator of the shuffle proof. */
export function generatorH(): Point {
  return (h ??= hashToPoint(utf8ToBytes("generator H")));
}

let cards: Point[] | undefined;
let cardIndex: Map<string, number> | undefined;
/**
 * M_0 … M_51: hashToPoint("card-point" ‖ u8(c)). Each gets a window table (W = 5,
 * built on its first multiplication, ~2 ms unloaded) that makes later multiplications
 * about 5× faster, constant-time ones included: message 1 and the audits multiply
 * every card point each hand.
 */
export function cardPoints(): Point[] {
  return (cards ??= Array.from({ length: CARDS }, (_, c) => hashToPoint(concatBytes(utf8ToBytes("card-point"), Uint8Array.of(c))).precompute(5, true)));
}

/** The card whose point is p, or null. */
export function cardOf(p: Point): number | null {
  cardIndex ??= new Map(cardPoints().map((q, c) => [q.toHex(), c]));
  return cardIndex.get(p.toHex()) ?? null;
}
