/**
 * NIST P-256 arithmetic for the fair deal on x-coordinates only, the twin of
 * gin/protocol/ecc.py: points decoded by `@noble/curves`, multiplied by ecc_vartime.ts
 * (pure JS, so it works where WebCrypto does not, and synchronously).
 *
 * A point is named by its 32-byte big-endian x and the point used for it is the
 * one with even y (compressed prefix `02`). Because x(k·P) = x(k·(−P)), every
 * result is the same whichever of ±P was meant (protocol.md §8.1, §8.3).
 */

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../engine/errors.ts";
import { fromBigInt, toBigInt } from "./bytes.ts";
import * as vt from "./ecc_vartime.ts";

// Field prime and group order of P-256 (FIPS 186-4, D.1.2.3); cofactor 1.
export const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
export const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
export const COORD_BYTES = 32;
export const CARDS = 52;
const CARD_POINT_DOMAIN = utf8ToBytes("gin/fairdeal/v1/card-point");

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

/** The scalar that undoes `k`: mul(mul(x, k), inverse(k)) == x. */
export function inverse(k: bigint): bigint {
  return p256.Point.Fn.inv(checkScalar(k));
}

/** The scalar equal to applying all `scalars` in turn (multiplication commutes). */
export function product(...scalars: bigint[]): bigint {
  let out = 1n;
  for (const k of scalars) out = (out * checkScalar(k)) % N;
  return out;
}

function decode(x: Uint8Array): Point | null {
  try {
    return p256.Point.fromBytes(concatBytes(Uint8Array.of(2), x));
  } catch {
    return null;
  }
}

/** The hex of a 32-byte x below p; InvalidPoint otherwise (whether on the curve is not checked). */
function coordinate(x: Uint8Array): string {
  if (!(x instanceof Uint8Array) || x.length !== COORD_BYTES) {
    throw new InvalidPoint(`x-coordinate must be ${COORD_BYTES} bytes`);
  }
  if (toBigInt(x) >= P) throw new InvalidPoint("x-coordinate is not reduced modulo p");
  return bytesToHex(x);
}

/** Work done so far in this thread, for benchmarks/: multiplications by kind, square roots, tables. */
export interface Work {
  variable: number; // wNAF on a point known only by its x
  windowed: number; // through a card point's window table
  decoded: number; // square roots (points decoded from x)
  tables: number; // card window tables built
}

const work: Work = { variable: 0, windowed: 0, decoded: 0, tables: 0 };

export function workDone(): Work {
  return { ...work };
}

// A hand decodes each entry of its messages several times (validation, the next
// message, the proof, the audit): keep the recent ones, with the odd multiples of
// those multiplied (the second shuffler multiplies each message 1 entry five
// times). Bounded, oldest dropped first.
function remember<V>(memo: Map<string, V>, limit: number, key: string, value: V): V {
  if (memo.size >= limit) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
  return value;
}

interface Decoded {
  point: Point;
  affine: vt.Affine;
  odd?: vt.Affine[];
}

const decodedMemo = new Map<string, Decoded>();
const DECODED_LIMIT = 1024;

function decoded(hex: string): Decoded {
  const known = decodedMemo.get(hex);
  if (known !== undefined) return known;
  const pt = decode(hexToBytes(hex));
  work.decoded++;
  if (pt === null) throw new InvalidPoint("no point on P-256 has this x-coordinate");
  return remember(decodedMemo, DECODED_LIMIT, hex, { point: pt, affine: pt.toAffine() });
}

/** The point with x-coordinate `x` and even y; InvalidPoint if there is none. */
export function point(x: Uint8Array): Point {
  return decoded(coordinate(x)).point;
}

/** Whether `x` names a point on P-256. */
export function isValidX(x: Uint8Array): boolean {
  try {
    const hex = coordinate(x);
    if (!isKnownPoint(hex)) decoded(hex);
    return true;
  } catch (exc) {
    if (exc instanceof InvalidPoint) return false;
    throw exc;
  }
}

// Every result of `mul` is remembered as x(s·R) for a root R: a card point, whose
// window table makes a multiplication several times cheaper, or else the input.
// Whoever built message 1 knows its entries as multiples of card points, so the
// shuffle proof's rebuilt shadows and the audit's message 2 are card-point
// multiplications; and once the audit has rebuilt message 1, the second shuffler's
// message 2 entries resolve to card points too. The x-coordinates are the same
// either way: x(k·(±s·R)) = x(k·s·R), whichever sign of each point was meant.
interface Relation {
  root: string | number; // an x in hex, or a card index
  scalar: bigint;
}

const relations = new Map<string, Relation>();
const RELATION_LIMIT = 4096;
const MAX_CHAIN = 8;

/** Whether `hex` is known to be a point without decoding it: a card's or a result's. */
function isKnownPoint(hex: string): boolean {
  return relations.has(hex) || cardPointCache().cardOf.has(hex);
}

function resolve(hex: string): Relation {
  let root: string | number = hex;
  let scalar = 1n;
  for (let step = 0; step < MAX_CHAIN && typeof root === "string"; step++) {
    const card = cardPointCache().cardOf.get(root);
    if (card !== undefined) return { root: card, scalar };
    const known = relations.get(root);
    if (known === undefined) break;
    root = known.root;
    scalar = (scalar * known.scalar) % N;
  }
  return { root, scalar };
}

// Built on a card's first use: 520 points each, about 4 MB for all 52 (node heap).
const windowTables = new Map<number, vt.Affine[]>();

function mulRoot(root: string | number, k: bigint): bigint {
  if (typeof root === "number") {
    let table = windowTables.get(root);
    if (table === undefined) {
      table = vt.windowTable(cardPointCache().affine[root]!);
      windowTables.set(root, table);
      work.tables++;
    }
    work.windowed++;
    return vt.mulWindowed(table, k);
  }
  work.variable++;
  const entry = decoded(root);
  entry.odd ??= vt.oddMultiples(entry.affine);
  return vt.mulOdd(entry.odd, k);
}

/**
 * x(k·P) for the point P named by `x`: encrypt with k (decrypt with its inverse).
 * InvalidPoint, else InvalidScalar. Variable time (see ecc_vartime.ts).
 */
export function mul(x: Uint8Array, k: bigint): Uint8Array {
  const hex = coordinate(x);
  if (!isKnownPoint(hex)) decoded(hex);
  checkScalar(k);
  const { root, scalar } = resolve(hex);
  const total = (scalar * k) % N;
  const out = fromBigInt(mulRoot(root, total), COORD_BYTES);
  const outHex = bytesToHex(out);
  if (outHex !== root && !isKnownPoint(outHex)) {
    remember(relations, RELATION_LIMIT, outHex, { root, scalar: total });
  }
  return out;
}

/** Hash-to-curve by try-and-increment (§8.2): [x, counter] of card point M_card. */
export function hashToX(card: number): [Uint8Array, number] {
  if (!Number.isInteger(card) || card < 0 || card >= CARDS) {
    throw new MalformedInput(`card index must be 0..51, got ${card}`);
  }
  for (let counter = 0; counter < 256; counter++) {
    const digest = sha256(concatBytes(CARD_POINT_DOMAIN, Uint8Array.of(card, counter)));
    const x = fromBigInt(toBigInt(digest) % P, COORD_BYTES);
    if (decode(x) !== null) return [x, counter];
  }
  // Each try succeeds with probability about 1/2; 256 failures do not happen.
  throw new Error("hash-to-curve exhausted its counter");
}

interface CardPoints {
  xs: Uint8Array[];
  affine: vt.Affine[];
  cardOf: Map<string, number>;
}

let cache: CardPoints | undefined;

// Every hand's first message multiplies all 52 card points: keep them decoded.
function cardPointCache(): CardPoints {
  if (cache === undefined) {
    const xs = Array.from({ length: CARDS }, (_, c) => hashToX(c)[0]);
    cache = {
      xs,
      affine: xs.map((x) => decode(x)!.toAffine()),
      cardOf: new Map(xs.map((x, c) => [bytesToHex(x), c])),
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
  return cardPointCache().cardOf.get(bytesToHex(x)) ?? null;
}
