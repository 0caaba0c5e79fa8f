/**
 * The fair deal: commutative encryption of a 52-card deck by two shufflers, the
 * twin of gin/protocol/fairdeal.py (protocol.md §8.4–§8.7).
 *
 * Each shuffler derives from a secret 32-byte seed a permutation of 52, one
 * whole-deck key and 52 per-position keys. Message 1 (FIRST): m1[i] = E_a(M_{πA[i]});
 * message 2 (SECOND): m2[j] = E_{b_j}(m1[πB[j]]); message 3 (FIRST):
 * m3[k] = E_{a_k}(D_a(m2[k])). Final position k holds card πA[πB[k]].
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { DECK } from "../engine/cards.ts";
import { MalformedInput, PeerFault } from "../engine/errors.ts";
import { equalBytes, toBigInt, u16be, u32be } from "./bytes.ts";
import * as ecc from "./ecc.ts";

const DOMAIN = utf8ToBytes("gin/fairdeal/v1");
export const SEED_BYTES = 32;
export const DECK_SIZE = 52;
const MAX_MATCH_ID_BYTES = 0xffff;
/** The largest hand number a commitment binds (four bytes). */
export const MAX_HAND_NUMBER = 0xffffffff;

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
  const prefix = concatBytes(DOMAIN, Uint8Array.of(0), label, Uint8Array.of(0), checkSeed(seed));
  for (let counter = 0; ; counter++) yield sha256(concatBytes(prefix, u32be(counter)));
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
    for (const block of blocks(utf8ToBytes("permutation"), seed)) yield* block;
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
  return scalar(utf8ToBytes("deck-key"), seed);
}

/** The per-position key for final position `position` (label "position-key" ‖ u8). */
export function derivePositionKey(seed: Uint8Array, position: number): bigint {
  checkPosition(position);
  return scalar(concatBytes(utf8ToBytes("position-key"), Uint8Array.of(position)), seed);
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
  return sha256(concatBytes(
    DOMAIN, utf8ToBytes("\x00commitment\x00"), u16be(matchId.length), matchId,
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
    const key = bytesToHex(entry);
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

// --- hand-end audit -----------------------------------------------------------

/** The field a deviation is in: a commitment, a deck message or a revealed key. */
export type DeviationField = "commitment" | "message1" | "message2" | "message3" | "key";

/** One way a side departed from what its seed dictates. */
export class Deviation {
  constructor(
    readonly role: Role,
    readonly field: DeviationField,
    readonly position: number | null,
    readonly detail: string,
  ) {
    Object.freeze(this);
  }

  /** `field` or `field[position]`. */
  get where(): string {
    return this.position === null ? this.field : `${this.field}[${this.position}]`;
  }

  toString(): string {
    return `${this.role} shuffler, ${this.where}: ${this.detail}`;
  }
}

/**
 * The outcome of {@link auditHand}: `deck` is the card at each final position as
 * the two seeds define it (null if a seed failed its commitment); when there are
 * deviations, the hand played may have differed from it and the deviating side
 * is at fault.
 */
export class AuditReport {
  constructor(readonly deviations: readonly Deviation[], readonly deck: readonly number[] | null) {
    Object.freeze(this);
  }

  get ok(): boolean {
    return this.deviations.length === 0;
  }

  get atFault(): Set<Role> {
    return new Set(this.deviations.map((d) => d.role));
  }

  /** Throw PeerFault for the first deviation, if any. */
  raiseForFault(): void {
    const first = this.deviations[0];
    if (first !== undefined) throw new PeerFault(String(first), first.role, first.where);
  }
}

const cardText = (card: number): string => String(DECK[card]!);

function indexOf(deck: readonly Uint8Array[], x: Uint8Array): number {
  return deck.findIndex((entry) => equalBytes(entry, x));
}

function explain1(first: SeedMaterial, got: Uint8Array, position: number): string {
  const card = ecc.cardOf(ecc.mul(got, ecc.inverse(first.deckKey)));
  const expected = cardText(first.permutation[position]!);
  if (card === null) return `not a card under the deck key (expected ${expected})`;
  const home = first.permutation.indexOf(card);
  return `holds ${cardText(card)} instead of ${expected} (that card belongs at ${home})`;
}

function explain2(second: SeedMaterial, message1: Deck, got: Uint8Array, position: number): string {
  const source = indexOf(message1, ecc.mul(got, ecc.inverse(second.positionKeys[position]!)));
  const expected = second.permutation[position]!;
  return source >= 0
    ? `re-encrypts message1[${source}] instead of message1[${expected}]`
    : `not a re-encryption of any message1 entry (expected message1[${expected}])`;
}

function explain3(first: SeedMaterial, message2: Deck, got: Uint8Array, position: number): string {
  const undo = ecc.product(first.deckKey, ecc.inverse(first.positionKeys[position]!));
  const source = indexOf(message2, ecc.mul(got, undo));
  return source >= 0
    ? `re-keys message2[${source}] instead of message2[${position}]`
    : "not a re-keying of any message2 entry";
}

/** A deviation, attributed to `role`, at every position where `got` differs from `want`. */
function differences(role: Role, field: DeviationField, got: Deck, want: Deck,
  explain: (position: number, entry: Uint8Array) => string): Deviation[] {
  return got.flatMap((g, k) => (equalBytes(g, want[k]!) ? [] : [new Deviation(role, field, k, explain(k, g))]));
}

function shape(value: readonly Uint8Array[], name: DeviationField, role: Role, out: Deviation[]): Deck | null {
  try {
    return validateMessage(value, name);
  } catch (exc) {
    if (!(exc instanceof MalformedDeck)) throw exc;
    out.push(new Deviation(role, name, exc.position, exc.message));
    return null;
  }
}

/** What {@link auditHand} examines: the hand's public record and both seeds. */
export interface HandEvidence {
  matchId: Uint8Array;
  handNumber: number;
  firstSeed: Uint8Array;
  secondSeed: Uint8Array;
  firstCommitment: Uint8Array;
  secondCommitment: Uint8Array;
  message1: readonly Uint8Array[];
  message2: readonly Uint8Array[];
  message3: readonly Uint8Array[];
  /** [revealer, position, key] for every key sent during the hand. */
  revealedKeys?: readonly [Role, number, bigint][];
  /** The caller's own role when it is a player: its own messages are not re-checked. */
  trust?: Role | null;
}

/**
 * Recompute the hand's deck messages from both seeds and attribute any deviation,
 * as gin.protocol.fairdeal.audit_hand does: each message is recomputed from its sender's
 * seed and the predecessor message as actually received, so a deviation is pinned
 * on the side that sent it. Never throws for a deviation (it is reported);
 * MalformedInput for a bad match id or hand number.
 */
export function auditHand(evidence: HandEvidence): AuditReport {
  const trust = evidence.trust ?? null;
  const deviations: Deviation[] = [];
  const material = new Map<Role, SeedMaterial>();
  for (const [role, seed, commit] of [
    ["first", evidence.firstSeed, evidence.firstCommitment],
    ["second", evidence.secondSeed, evidence.secondCommitment],
  ] as const) {
    if (verifyCommitment(commit, seed, evidence.matchId, evidence.handNumber, role)) {
      material.set(role, SeedMaterial.fromSeed(seed));
    } else {
      deviations.push(new Deviation(role, "commitment", null, "seed does not open the commitment"));
    }
  }
  const first = material.get("first");
  const second = material.get("second");
  const deck = first && second ? deckOrder(first.permutation, second.permutation) : null;
  // The trusted side's messages are the caller's own output: no need to re-check them.
  const m1 = trust === "first" ? [...evidence.message1] : shape(evidence.message1, "message1", "first", deviations);
  const m2 = trust === "second" ? [...evidence.message2] : shape(evidence.message2, "message2", "second", deviations);
  const m3 = trust === "first" ? [...evidence.message3] : shape(evidence.message3, "message3", "first", deviations);
  if (first && trust !== "first" && m1) {
    deviations.push(...differences("first", "message1", m1, buildMessage1(first),
      (k, got) => explain1(first, got, k)));
  }
  if (second && trust !== "second" && m1 && m2) {
    deviations.push(...differences("second", "message2", m2, buildMessage2(second, m1),
      (k, got) => explain2(second, m1, got, k)));
  }
  if (first && trust !== "first" && m2 && m3) {
    deviations.push(...differences("first", "message3", m3, buildMessage3(first, m2),
      (k, got) => explain3(first, m2, got, k)));
  }
  for (const [role, position, key] of evidence.revealedKeys ?? []) {
    const own = material.get(role);
    if (own === undefined) continue; // its seed is already condemned by the commitment check
    if (!Number.isInteger(position) || position < 0 || position >= DECK_SIZE) {
      deviations.push(new Deviation(role, "key", null, `no such position ${position}`));
    } else if (key !== own.positionKeys[position]) {
      deviations.push(new Deviation(role, "key", position, "revealed key differs from the seed's"));
    }
  }
  return new AuditReport(deviations, deck);
}
