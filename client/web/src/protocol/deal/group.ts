/**
 * ristretto255, the group of the fair deal (protocol.md §8.1), the twin of
 * gin/protocol/deal/group.py, on @noble/curves. Points are noble's ristretto255 points
 * (32-byte canonical encodings on the wire); scalars are bigints in [0, L), on the
 * wire 32 bytes little-endian. Secret scalars go through noble's constant-time
 * `multiply`, the constant-time `pedersen`, `mulBase` and `msmSecret` of edwards.ts,
 * or libsodium's WebAssembly (`mulBytes`, once the online worker has loaded it);
 * public ones may use the variable-time `multiplyUnsafe` and `msm` (Pippenger).
 */

import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { bytesToHex, bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import * as ed from "./edwards.ts";

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
/** Σ k_i·P_i for public scalars in [0, L): Pippenger's buckets, variable time (edwards.ts). */
export const msm = (points: readonly Point[], scalars: readonly bigint[]): Point => ed.msm(points, scalars);

/** Σ k_i·P_i for secret scalars in [0, L), in constant time: Straus's method (edwards.ts). */
export const msmSecret = (points: readonly Point[], scalars: readonly bigint[]): Point => ed.msmSecret(points, scalars);

/** RFC 9496 element derivation from SHA-512(DOMAIN ‖ 00 ‖ label). */
export function hashToPoint(label: Uint8Array): Point {
  return ristretto255_hasher.deriveToCurve!(sha512(concatBytes(DOMAIN, Uint8Array.of(0), label))) as Point;
}

let h: Point | undefined;
/** H, the second Pedersen generator of the shuffle proof. */
export function generatorH(): Point {
  return (h ??= hashToPoint(utf8ToBytes("generator H")));
}

let tables: { g: ed.FixedBase; h: ed.FixedBase } | undefined;
/** G's and H's tables for constant-time fixed-base multiplication (edwards.ts). */
const fixed = (): { g: ed.FixedBase; h: ed.FixedBase } =>
  (tables ??= { g: new ed.FixedBase(G), h: new ed.FixedBase(generatorH()) });

/** x·H + y·G for secret x, y in [0, L), unencoded: 86 additions through G's and H's tables. */
const commitment = (x: bigint, y: bigint): ed.Ext => fixed().g.addTo(fixed().h.addTo(ed.IDENTITY, x), y);

/** x·H + y·G for secret x, y in [0, L). */
export const pedersen = (x: bigint, y: bigint): Point => ed.toPoint(commitment(x, y));

const HALF = (L + 1n) / 2n;

/**
 * The encodings of x·H + y·G for each (x, y), secret in [0, L): each computed at half
 * its scalars and encoded doubled, all with one field inversion (edwards.ts
 * encodeDoubled) instead of an inverse square root each; one by one if one of them is
 * the identity (probability 1/L), whose batch has no inverse.
 */
export function encodePedersen(pairs: readonly (readonly [bigint, bigint])[]): Uint8Array[] {
  const halves = pairs.map(([x, y]) => commitment(mod(x * HALF), mod(y * HALF)));
  return ed.encodeDoubled(halves) ?? pairs.map(([x, y]) => encode(pedersen(x, y)));
}

/** k·G for a secret k in [0, L), through G's table. */
export const mulBase = (k: bigint): Point => ed.toPoint(fixed().g.addTo(ed.IDENTITY, k));

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
 * encodings, G's and H's tables for the proof (edwards.ts), and noble's two window
 * tables of G (of `multiply`, and of `multiplyUnsafe`, which every Ed25519 signature
 * check uses: about 10 ms the first time). The online worker calls it as it starts.
 */
export function prepare(): void {
  cardBytes();
  G.multiply(1n);
  G.multiplyUnsafe(3n);
  fixed();
}

let cardEncodings: Uint8Array[] | undefined;
/** The encodings of M_0 … M_51. */
export const cardBytes = (): Uint8Array[] => (cardEncodings ??= cardPoints().map(encode));

/** The card whose point's encoding is `data`, or null. */
export function cardOfBytes(data: Uint8Array): number | null {
  cardIndex ??= new Map(cardBytes().map((q, c) => [bytesToHex(q), c]));
  return cardIndex.get(bytesToHex(data)) ?? null;
}
