/**
 * The fair deal: commutative encryption of a 52-card deck by two shufflers, the
 * twin of gin/fairdeal.py (protocol.md §8.4–§8.7).
 *
 * Each shuffler derives from a secret 32-byte seed a permutation of 52, one
 * whole-deck key and 52 per-position keys. Message 1 (FIRST): m1[i] = E_a(M_{πA[i]});
 * message 2 (SECOND): m2[j] = E_{b_j}(m1[πB[j]]); message 3 (FIRST):
 * m3[k] = E_{a_k}(D_a(m2[k])). Final position k holds card πA[πB[k]].
 */

import { sha256 } from "@noble/hashes/sha2.js";

import { MalformedInput, PeerFault } from "../engine/errors.ts";
import { ascii, concat, equalBytes, toBigInt, toHex, u16be, u32be } from "./bytes.ts";
import * as ecc from "./ecc.ts";

const DOMAIN = ascii("gin/fairdeal/v1");
export const SEED_BYTES = 32;
export const DECK_SIZE = 52;
const MAX_MATCH_ID_BYTES = 0xffff;
const MAX_HAND_NUMBER = 0xffffffff;

export type Deck = Uint8Array[];

/** Which shuffler: "first" sends messages 1 and 3, "second" sends message 2. */
export type Role = "first" | "second";

/** The byte that stands for the role in a commitment. */
export const roleCode = (role: Role): number => (role === "first" ? 1 : 2);

/** A deck message of the wrong shape; `field` and `position` say where. */
export class MalformedDeck extends MalformedInput {
  readonly field: string;
  readonly position: number | null;

  constructor(message: string, field: string, position: number | null = null) {
    super(message);
    this.field = field;
    this.position = position;
  }
}

// --- derivation from the seed -------------------------------------------------

function checkSeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== SEED_BYTES) {
    throw new MalformedInput(`seed must be ${SEED_BYTES} bytes`);
  }
  return seed;
}

/** block(label, seed, i) = SHA-256(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i)), i = 0, 1, … */
function* blocks(label: Uint8Array, seed: Uint8Array): Generator<Uint8Array> {
  const prefix = concat(DOMAIN, Uint8Array.of(0), label, Uint8Array.of(0), checkSeed(seed));
  for (let counter = 0; ; counter++) yield sha256(concat(prefix, u32be(counter)));
}

/** 32 bytes for `label`: the first block of its stream. */
export function deriveBytes(label: Uint8Array, seed: Uint8Array): Uint8Array {
  return blocks(label, seed).next().value as Uint8Array;
}

function scalar(label: Uint8Array, seed: Uint8Array): bigint {
  // Rejection sampling keeps the key uniform in [1, n-1] (a reject has odds ~2^-32).
  for (const block of blocks(label, seed)) {
    const value = toBigInt(block);
    if (value >= 1n && value < ecc.N) return value;
  }
  throw new Error("unreachable");
}

/** Uniform permutation π of 0..51 (Fisher–Yates from the top, rejection of biased bytes). */
export function derivePermutation(seed: Uint8Array): number[] {
  const stream = (function* () {
    for (const block of blocks(ascii("permutation"), seed)) yield* block;
  })();
  const order = Array.from({ length: DECK_SIZE }, (_, i) => i);
  for (let i = DECK_SIZE - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = 256 - (256 % bound);
    let byte = stream.next().value as number;
    while (byte >= limit) byte = stream.next().value as number;
    const j = byte % bound;
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The first shuffler's whole-deck key (label "deck-key"). */
export function deriveDeckKey(seed: Uint8Array): bigint {
  return scalar(ascii("deck-key"), seed);
}

/** The per-position key for final position `position` (label "position-key" ‖ u8). */
export function derivePositionKey(seed: Uint8Array, position: number): bigint {
  checkPosition(position);
  return scalar(concat(ascii("position-key"), Uint8Array.of(position)), seed);
}

/** Everything one shuffler derives from its seed. Secret until the hand ends. */
export class SeedMaterial {
  private constructor(
    readonly seed: Uint8Array,
    readonly permutation: readonly number[],
    readonly deckKey: bigint,
    readonly positionKeys: readonly bigint[],
  ) {
    Object.freeze(this);
  }

  /** Derive permutation and keys; MalformedInput unless `seed` is 32 bytes. */
  static fromSeed(seed: Uint8Array): SeedMaterial {
    const own = checkSeed(seed).slice();
    return new SeedMaterial(
      own,
      Object.freeze(derivePermutation(own)),
      deriveDeckKey(own),
      Object.freeze(Array.from({ length: DECK_SIZE }, (_, k) => derivePositionKey(own, k))),
    );
  }

  toString(): string {
    return "SeedMaterial(<secret>)";
  }
}

// --- commitment ---------------------------------------------------------------

/** SHA-256(DOMAIN ‖ 00 ‖ "commitment" ‖ 00 ‖ u16be(len id) ‖ id ‖ u32be(hand) ‖ role ‖ seed). */
export function commitment(seed: Uint8Array, matchId: Uint8Array, handNumber: number, role: Role): Uint8Array {
  if (!(matchId instanceof Uint8Array) || matchId.length < 1 || matchId.length > MAX_MATCH_ID_BYTES) {
    throw new MalformedInput("match id must be 1..65535 bytes");
  }
  if (!Number.isInteger(handNumber) || handNumber < 0 || handNumber > MAX_HAND_NUMBER) {
    throw new MalformedInput(`hand number must be 0..${MAX_HAND_NUMBER}, got ${handNumber}`);
  }
  return sha256(concat(
    DOMAIN, ascii("\x00commitment\x00"), u16be(matchId.length), matchId,
    u32be(handNumber), Uint8Array.of(roleCode(role)), checkSeed(seed),
  ));
}

/** Whether `seed` opens `commit` for this match, hand and role. */
export function verifyCommitment(
  commit: Uint8Array, seed: Uint8Array, matchId: Uint8Array, handNumber: number, role: Role,
): boolean {
  if (!(seed instanceof Uint8Array) || seed.length !== SEED_BYTES || !(commit instanceof Uint8Array)) {
    return false;
  }
  return equalBytes(commit, commitment(seed, matchId, handNumber, role));
}

// --- the three deck messages --------------------------------------------------

/** Message 1: every card point under the whole-deck key, in the order πA. */
export function buildMessage1(first: SeedMaterial): Deck {
  const points = ecc.cardPoints();
  return first.permutation.map((c) => ecc.mul(points[c]!, first.deckKey));
}

/** Message 2: m2[j] = E_{b_j}(m1[πB[j]]). InvalidPoint on a bad entry. */
export function buildMessage2(second: SeedMaterial, message1: readonly Uint8Array[]): Deck {
  return second.permutation.map((source, j) => ecc.mul(message1[source]!, second.positionKeys[j]!));
}

/** Message 3: m3[k] = E_{a_k}(D_a(m2[k])), one multiplication by a_k·a⁻¹. */
export function buildMessage3(first: SeedMaterial, message2: readonly Uint8Array[]): Deck {
  const undo = ecc.inverse(first.deckKey);
  return first.positionKeys.map((key, k) => ecc.mul(message2[k]!, ecc.product(undo, key)));
}

/**
 * Check a received deck message: 52 distinct x-coordinates of points on P-256.
 * `field` names it in errors ("message2"); MalformedDeck names the first bad position.
 */
export function validateMessage(value: unknown, field: string): Deck {
  if (!Array.isArray(value)) {
    throw new MalformedDeck(`${field}: expected a list of ${DECK_SIZE} entries`, field);
  }
  if (value.length !== DECK_SIZE) {
    throw new MalformedDeck(`${field}: expected ${DECK_SIZE} entries, got ${value.length}`, field);
  }
  const seen = new Map<string, number>();
  value.forEach((entry: unknown, position) => {
    const where = `${field}[${position}]`;
    if (!(entry instanceof Uint8Array) || entry.length !== ecc.COORD_BYTES) {
      throw new MalformedDeck(`${where}: expected ${ecc.COORD_BYTES} bytes`, field, position);
    }
    const key = toHex(entry);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new MalformedDeck(`${where}: repeats position ${earlier}`, field, position);
    }
    if (!ecc.isValidX(entry)) {
      throw new MalformedDeck(`${where}: not a point on P-256`, field, position);
    }
    seen.set(key, position);
  });
  return value.slice() as Deck;
}

// --- opening positions --------------------------------------------------------

function checkPosition(position: number): number {
  if (!Number.isInteger(position)) {
    throw new MalformedInput(`deck position must be an int, got ${position}`);
  }
  if (position < 0 || position >= DECK_SIZE) {
    throw new MalformedInput(`deck position must be 0..51, got ${position}`);
  }
  return position;
}

/**
 * The card at `position` of message 3, opened with both players' keys for it.
 * `ownKey` is the caller's own (trusted) key; if the result is no card, the other
 * side's key or message is wrong: PeerFault(who = theirRole, field = "key[position]").
 * MalformedInput for a bad position or own scalar.
 */
export function openCard(
  final: readonly Uint8Array[], position: number, ownKey: bigint, theirKey: bigint, theirRole: Role,
): number {
  checkPosition(position);
  ecc.checkScalar(ownKey);
  let undo: bigint;
  try {
    undo = ecc.inverse(ecc.product(ownKey, theirKey));
  } catch (exc) {
    if (!(exc instanceof ecc.InvalidScalar)) throw exc;
    throw new PeerFault(`key for position ${position} is not a valid scalar`, theirRole, `key[${position}]`);
  }
  const card = ecc.cardOf(ecc.mul(final[position]!, undo));
  if (card === null) {
    throw new PeerFault(`key for position ${position} does not open it to a card`, theirRole, `key[${position}]`);
  }
  return card;
}

/** Whether `key` is the per-position key that `seed` derives for `position`. */
export function verifyKey(seed: Uint8Array, position: number, key: bigint): boolean {
  return key === derivePositionKey(seed, position);
}

/** Card index at each final position: deck[k] = πA[πB[k]]. */
export function deckOrder(firstPermutation: readonly number[], secondPermutation: readonly number[]): number[] {
  return Array.from({ length: DECK_SIZE }, (_, k) => firstPermutation[secondPermutation[k]!]!);
}
