/**
 * The fair deal: a 52-card deck encrypted by two shufflers in ristretto255, the twin
 * of gin/protocol/deal/fairdeal.py (protocol.md §8).
 *
 * Each shuffler derives from a secret 32-byte seed a permutation of 52, one
 * whole-deck key, 52 per-position keys and its proof's nonce key. Message 1 (FIRST):
 * m1[i] = a·M_{πA[i]}; message 2 (SECOND): m2[j] = b_j·m1[πB[j]], with the shuffle
 * proof (shuffle_proof.ts) in the same signed message; message 3 (FIRST):
 * m3[k] = (a_k·a⁻¹)·m2[k]. Final position k holds card πA[πB[k]].
 */

import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";

import { DECK } from "../../engine/cards.ts";
import { MalformedInput, PeerFault } from "../../engine/errors.ts";
import { equalBytes, u16be, u32be } from "../bytes.ts";
import * as g from "./group.ts";
import * as sp from "./shuffle_proof.ts";

const DOMAIN = g.DOMAIN;
export const SEED_BYTES = 32;
export const KEY_BYTES = g.SCALAR_BYTES;
export const DECK_SIZE = g.CARDS;
const MAX_MATCH_ID_BYTES = 0xffff;
/** The largest hand number a commitment binds (four bytes). */
export const MAX_HAND_NUMBER = 0xffffffff;

export type Deck = Uint8Array[];

/** Which shuffler: "first" sends messages 1 and 3, "second" sends message 2. */
export type Role = "first" | "second";

/** The byte that stands for the role in a commitment. */
export const roleCode = (role: Role): number => (role === "first" ? 1 : 2);

/**
 * A deck message of the wrong shape: `field` and `position` say where (`where`:
 * "message2[3]"), `reason` what, and the message both ("message2[3]: repeats position
 * 0"). A finding that names its place takes `reason`, so the place is said once.
 */
export class MalformedDeck extends MalformedInput {
  readonly field: string;
  readonly position: number | null;
  readonly where: string;
  readonly reason: string;

  constructor(reason: string, field: string, position: number | null = null) {
    const where = position === null ? field : `${field}[${position}]`;
    super(`${where}: ${reason}`);
    this.field = field;
    this.position = position;
    this.where = where;
    this.reason = reason;
  }
}

/** What a deck entry, or a record's, that is not a point is refused as ({@link isPoint}). */
export const NOT_A_POINT = "not a ristretto255 element other than the identity";

/**
 * Whether 32 bytes are the one encoding of a ristretto255 element other than the
 * identity (group.ts `decode`): what every deck entry must be, wherever it arrives
 * from (a peer's message, a record, evidence).
 */
export function isPoint(entry: Uint8Array): boolean {
  try {
    g.decode(entry);
  } catch (exc) {
    if (!(exc instanceof g.InvalidPoint)) throw exc;
    return false;
  }
  return true;
}

// --- derivation from the seed -------------------------------------------------

function checkSeed(seed: Uint8Array): Uint8Array {
  if (!(seed instanceof Uint8Array) || seed.length !== SEED_BYTES) {
    throw new MalformedInput(`seed must be ${SEED_BYTES} bytes`);
  }
  return seed;
}

const prefix = (label: Uint8Array, seed: Uint8Array): Uint8Array =>
  concatBytes(DOMAIN, Uint8Array.of(0), label, Uint8Array.of(0), checkSeed(seed));

/** block(label, seed, i) = SHA-256(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i)), i = 0, 1, … */
function* blocks(label: Uint8Array, seed: Uint8Array): Generator<Uint8Array> {
  const head = prefix(label, seed);
  for (let counter = 0; ; counter++) yield sha256(concatBytes(head, u32be(counter)));
}

/** The key for `label`: LE(SHA-512(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i))) mod L, first nonzero. */
export function deriveScalar(label: Uint8Array, seed: Uint8Array): bigint {
  const head = prefix(label, seed);
  for (let counter = 0; ; counter++) {
    const value = g.hashToScalar(head, u32be(counter));
    if (value !== 0n) return value;
  }
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

/** The per-position key for final position `position` (label "position-key" ‖ u8). */
export function derivePositionKey(seed: Uint8Array, position: number): bigint {
  checkPosition(position);
  return deriveScalar(concatBytes(utf8ToBytes("position-key"), Uint8Array.of(position)), seed);
}

/** Everything one shuffler derives from its seed. Secret until the hand ends. */
export class SeedMaterial {
  private constructor(
    readonly seed: Uint8Array,
    readonly permutation: readonly number[],
    readonly deckKey: bigint,
    readonly positionKeys: readonly bigint[],
    readonly nonceKey: Uint8Array,
  ) {
    Object.freeze(this);
  }

  /** Derive permutation and keys; MalformedInput unless `seed` is 32 bytes. */
  static fromSeed(seed: Uint8Array): SeedMaterial {
    const own = checkSeed(seed).slice();
    return new SeedMaterial(
      own,
      Object.freeze(derivePermutation(own)),
      deriveScalar(utf8ToBytes("deck-key"), own),
      Object.freeze(Array.from({ length: DECK_SIZE }, (_, k) => derivePositionKey(own, k))),
      sha512(prefix(utf8ToBytes("shuffle-nonce-key"), own)),
    );
  }

  toString(): string {
    return "SeedMaterial(<secret>)";
  }
}

/** A key as it travels and is recorded: 32 bytes little-endian. */
export const keyBytes = (key: bigint): Uint8Array => numberToBytesLE(key, KEY_BYTES);

/** The integer a 32-byte key names (whether it is a key is checked where it is used). */
export const keyFromBytes = (data: Uint8Array): bigint => bytesToNumberLE(data);

// --- commitment and context ---------------------------------------------------

/** u16be(len id) ‖ id ‖ u32be(hand): what commitments and proofs are bound to. */
export function context(matchId: Uint8Array, handNumber: number): Uint8Array {
  if (!(matchId instanceof Uint8Array) || matchId.length < 1 || matchId.length > MAX_MATCH_ID_BYTES) {
    throw new MalformedInput("match id must be 1..65535 bytes");
  }
  if (!Number.isInteger(handNumber) || handNumber < 0 || handNumber > MAX_HAND_NUMBER) {
    throw new MalformedInput(`hand number must be 0..${MAX_HAND_NUMBER}, got ${handNumber}`);
  }
  return concatBytes(u16be(matchId.length), matchId, u32be(handNumber));
}

/** SHA-256(DOMAIN ‖ 00 ‖ "commitment" ‖ 00 ‖ u16be(len id) ‖ id ‖ u32be(hand) ‖ role ‖ seed). */
export function commitment(seed: Uint8Array, matchId: Uint8Array, handNumber: number, role: Role): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("\x00commitment\x00"), context(matchId, handNumber),
    Uint8Array.of(roleCode(role)), checkSeed(seed)));
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
  const cards = g.cardBytes();
  return first.permutation.map((c) => g.mulBytes(cards[c]!, first.deckKey));
}

/** Message 2 and its shuffle proof's bytes for the hand `ctx`; `message1` MUST have been validated. */
export function buildMessage2(second: SeedMaterial, message1: readonly Uint8Array[], ctx: Uint8Array): [Deck, Uint8Array] {
  const m2 = reencrypt(second, message1);
  return [m2, sp.proofToBytes(sp.prove(ctx, [...message1], m2, second.permutation, second.positionKeys, second.nonceKey))];
}

/** Message 2's entries alone, m2[j] = b_j·m1[πB[j]] (what the hand-end audit recomputes). */
export function reencrypt(second: SeedMaterial, message1: readonly Uint8Array[]): Deck {
  return second.permutation.map((source, j) => g.mulBytes(message1[source]!, second.positionKeys[j]!));
}

/** Message 3: m3[k] = (a_k·a⁻¹)·m2[k], one multiplication per position. */
export function buildMessage3(first: SeedMaterial, message2: readonly Uint8Array[]): Deck {
  const undo = g.inv(first.deckKey);
  return first.positionKeys.map((key, k) => g.mulBytes(message2[k]!, g.mod(undo * key)));
}

/**
 * Check a received deck message: 52 distinct ristretto255 elements, none the identity.
 * `field` names it in errors ("message2"); MalformedDeck names the first bad position.
 */
export function validateMessage(value: unknown, field: string): Deck {
  if (!Array.isArray(value)) {
    throw new MalformedDeck(`expected a list of ${DECK_SIZE} entries`, field);
  }
  if (value.length !== DECK_SIZE) {
    throw new MalformedDeck(`expected ${DECK_SIZE} entries, got ${value.length}`, field);
  }
  const seen = new Map<string, number>();
  value.forEach((entry: unknown, position) => {
    if (!(entry instanceof Uint8Array) || entry.length !== g.POINT_BYTES) {
      throw new MalformedDeck(`expected ${g.POINT_BYTES} bytes`, field, position);
    }
    const key = bytesToHex(entry);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new MalformedDeck(`repeats position ${earlier}`, field, position);
    }
    if (!isPoint(entry)) throw new MalformedDeck(NOT_A_POINT, field, position);
    seen.set(key, position);
  });
  return value.slice() as Deck;
}

/** SHA-256 of a shuffle proof's bytes: what records and the hand digest keep of it. */
export const proofDigest = (proof: Uint8Array): Uint8Array => sha256(proof);

/**
 * Why a message 2 (any 52 entries of 32 bytes) and its proof's bytes do not show a
 * shuffle of the valid `message1` for the hand `ctx`: [where, why] — `message2[k]` for
 * a bad entry, `proof` for a proof that is malformed or fails — or null. `why` does not
 * repeat `where` (a finding shows both).
 */
export function message2Refusal(ctx: Uint8Array, message1: readonly Uint8Array[], message2: readonly Uint8Array[],
  proof: Uint8Array): [string, string] | null {
  let m2: Deck;
  try {
    m2 = validateMessage([...message2], "message2");
  } catch (exc) {
    if (!(exc instanceof MalformedDeck)) throw exc;
    return [exc.where, exc.reason];
  }
  let parsed: sp.ShuffleProof;
  try {
    parsed = sp.proofFromBytes(proof);
  } catch (exc) {
    if (!(exc instanceof sp.ProofMalformed)) throw exc;
    return ["proof", `message 2's shuffle proof is malformed: ${exc.message}`];
  }
  const why = sp.verify(ctx, [...message1], m2, parsed);
  return why === null ? null : ["proof", `message 2 is not proven a shuffle of message 1: ${why}`];
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
  g.checkSecret(ownKey);
  let undo: bigint;
  try {
    undo = g.inv(g.mod(ownKey * g.checkSecret(theirKey)));
  } catch (exc) {
    if (!(exc instanceof g.InvalidScalar)) throw exc;
    throw new PeerFault(`key for position ${position} is not a valid scalar`, theirRole, `key[${position}]`);
  }
  const card = g.cardOfBytes(g.mulBytes(final[position]!, undo));
  if (card === null) {
    throw new PeerFault(`key for position ${position} does not open it to a card`, theirRole, `key[${position}]`);
  }
  return card;
}

/** Card index at each final position: deck[k] = πA[πB[k]]. */
export function deckOrder(firstPermutation: readonly number[], secondPermutation: readonly number[]): number[] {
  return Array.from({ length: DECK_SIZE }, (_, k) => firstPermutation[secondPermutation[k]!]!);
}

// --- hand-end audit -----------------------------------------------------------

/** The field a deviation is in: a commitment, a deck message, the proof or a revealed key. */
export type DeviationField = "commitment" | "message1" | "message2" | "proof" | "message3" | "key";

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
}

const DECK_ORDER = Array.from({ length: DECK_SIZE }, (_, k) => k);

const cardText = (card: number): string => String(DECK[card]!);

function indexOf(deck: readonly Uint8Array[], x: Uint8Array): number {
  return deck.findIndex((entry) => equalBytes(entry, x));
}

function explain1(first: SeedMaterial, got: Uint8Array, position: number): string {
  const card = g.cardOfBytes(g.mulBytes(got, g.inv(first.deckKey)));
  const expected = cardText(first.permutation[position]!);
  if (card === null) return `not a card under the deck key (expected ${expected})`;
  const home = first.permutation.indexOf(card);
  return `holds ${cardText(card)} instead of ${expected} (that card belongs at ${home})`;
}

function explain2(second: SeedMaterial, message1: Deck, got: Uint8Array, position: number): string {
  const source = indexOf(message1, g.mulBytes(got, g.inv(second.positionKeys[position]!)));
  const expected = second.permutation[position]!;
  return source >= 0
    ? `re-encrypts message1[${source}] instead of message1[${expected}]`
    : `not a re-encryption of any message1 entry (expected message1[${expected}])`;
}

function explain3(first: SeedMaterial, message2: Deck, got: Uint8Array, position: number): string {
  const undo = g.mod(first.deckKey * g.inv(first.positionKeys[position]!));
  const source = indexOf(message2, g.mulBytes(got, undo));
  return source >= 0
    ? `re-keys message2[${source}] instead of message2[${position}]`
    : "not a re-keying of any message2 entry";
}

/**
 * Whether got[k] = keys[k]·bases[k] at every k, checked at once: Σ z_k·got[k] = Σ (z_k·keys[k])·bases[k]
 * with 128-bit weights z_k from SHA-512 of got, the keys and `basis` (the bytes that fix the
 * bases), so nobody chooses them; a false equation survives with probability about 2^-128.
 * Two variable-time MSMs instead of 52 multiplications and encodings: the audit runs on
 * revealed seeds, so its keys are public. False sends the caller to the entry-by-entry check.
 */
function batchHolds(got: Deck, bases: readonly g.Point[], keys: readonly bigint[], basis: readonly Uint8Array[]): boolean {
  const z = weights(got, keys, basis);
  const left = g.msm(got.map(g.decode), z);
  // One key for all (message 1's): Σ (z_k·a)·B_k = a·Σ z_k·B_k, both sums of 128-bit weights.
  return keys.every((key) => key === keys[0])
    ? left.equals(g.mulPublic(g.msm(bases, z), keys[0]!))
    : left.equals(g.msm(bases, keys.map((key, k) => g.mod(key * z[k]!))));
}

/** The 128-bit weights of a batch check, from SHA-512 of got, the keys and the basis bytes. */
function weights(got: Deck, keys: readonly bigint[], basis: readonly Uint8Array[]): bigint[] {
  const seed = sha512(concatBytes(DOMAIN, utf8ToBytes("\x00audit/batch\x00"), ...got, ...keys.map(keyBytes), ...basis));
  return got.map((_, k) => bytesToNumberLE(sha512(concatBytes(seed, u16be(k))).subarray(0, 16)));
}

/**
 * Whether two card batches ({@link cardBatch}: decks of card indices) both hold, in one
 * MSM: Σ z_k·got[k] + Σ z'_k·got'[k] − Σ_c w_c·M_c with each card point once, w_c
 * gathering both sides' (key·weight) for card c; the same weights as the two
 * {@link batchHolds} checks, so it holds when both do, and a false equation survives
 * the sum with probability about 2^-128. False sends the caller to the two checks.
 */
function cardBatchesHold(batches: readonly [Deck, readonly number[], readonly bigint[]][]): boolean {
  const points: g.Point[] = [];
  const scalars: bigint[] = [];
  const cardWeights = new Array<bigint>(DECK_SIZE).fill(0n);
  for (const [got, deck, keys] of batches) {
    const z = weights(got, keys, [Uint8Array.from(deck)]);
    got.forEach((entry, k) => {
      points.push(g.decode(entry));
      scalars.push(z[k]!);
      cardWeights[deck[k]!] = cardWeights[deck[k]!]! + keys[k]! * z[k]!;
    });
  }
  points.push(...g.cardPoints());
  scalars.push(...cardWeights.map((w) => g.mod(-w)));
  return g.msm(points, scalars).is0();
}

/**
 * A deviation, attributed to `role`, at every position where `got` differs from `want()`,
 * which is computed only when the batch check of got[k] = keys[k]·bases[k] fails.
 */
function differences(role: Role, field: DeviationField, got: Deck, [bases, keys, basis]: Batch, want: () => Deck,
  explain: (position: number, entry: Uint8Array) => string): Deviation[] {
  if (batchHolds(got, bases, keys, basis)) return [];
  const wanted = want();
  return got.flatMap((x, k) => (equalBytes(x, wanted[k]!) ? [] : [new Deviation(role, field, k, explain(k, x))]));
}

/** The bases, keys and basis bytes of a batch check. */
type Batch = [readonly g.Point[], readonly bigint[], readonly Uint8Array[]];

/** The card points in `deck`'s order under `keys`: what an honest message is when its input was honest. */
const cardBatch = (deck: readonly number[], keys: readonly bigint[]): Batch => {
  const points = g.cardPoints();
  return [deck.map((c) => points[c]!), keys, [Uint8Array.from(deck)]];
};

/** The entries of a checked message, reordered by `order`, under `keys`. */
const entryBatch = (entries: Deck, order: readonly number[], keys: readonly bigint[]): Batch => {
  const bases = order.map((i) => entries[i]!);
  return [bases.map(g.decode), keys, bases];
};

function shape(value: readonly Uint8Array[], name: DeviationField, role: Role, out: Deviation[]): Deck | null {
  try {
    return validateMessage(value, name);
  } catch (exc) {
    if (!(exc instanceof MalformedDeck)) throw exc;
    out.push(new Deviation(role, name, exc.position, exc.reason));
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
  /** The digest of message 2's proof, to rebuild from the second's seed (an auditor's); null: not checked. */
  proof?: Uint8Array | null;
  /** The caller's own role when it is a player: its own messages are not re-checked. */
  trust?: Role | null;
}

/**
 * Recompute the hand's deck messages from both seeds and attribute any deviation,
 * as gin.protocol.deal.fairdeal.audit_hand does: each message is recomputed from its sender's
 * seed and the predecessor message as actually received, so a deviation is pinned
 * on the side that sent it; when message 2 is honest and `proof` is given, the proof
 * the second's seed makes must have that digest. Never throws for a deviation (it
 * is reported); MalformedInput for a bad match id or hand number.
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
  // The second shuffler's own messages were honest: message 1 and message 3 are both checked
  // against the card points, in one MSM; only if it fails, one by one below (same verdicts).
  const quick = trust === "second" && first && second && deck && m1 && m3 && cardBatchesHold([
    [m1, first.permutation, first.permutation.map(() => first.deckKey)],
    [m3, deck, first.positionKeys.map((a, k) => g.mod(a * second.positionKeys[k]!))],
  ]);
  if (first && trust !== "first" && m1 && !quick) {
    deviations.push(...differences("first", "message1", m1, cardBatch(first.permutation, first.permutation.map(() => first.deckKey)),
      () => buildMessage1(first), (k, got) => explain1(first, got, k)));
  }
  if (second && trust !== "second" && m1 && m2) {
    // Our own honest m1[πB[j]] = a·M_deck[j]: the card points stand in for m1's entries.
    const batch = trust === "first" && first && deck
      ? cardBatch(deck, second.positionKeys.map((b) => g.mod(first.deckKey * b)))
      : entryBatch(m1, second.permutation, second.positionKeys);
    const found = differences("second", "message2", m2, batch, () => reencrypt(second, m1),
      (k, got) => explain2(second, m1, got, k));
    deviations.push(...found);
    const proof = evidence.proof ?? null;
    if (proof !== null && !found.length && !equalBytes(proof, proofDigest(sp.proofToBytes(sp.prove(
      context(evidence.matchId, evidence.handNumber), m1, m2, second.permutation, second.positionKeys, second.nonceKey))))) {
      deviations.push(new Deviation("second", "proof", null, "not the shuffle proof the seed makes"));
    }
  }
  if (first && trust !== "first" && m2 && m3 && !quick) {
    const m1Honest = !deviations.some((d) => d.field === "message1");
    // Likewise our own honest m2[k] = b_k·a·M_deck[k], when m1 was honest too.
    const undo = g.inv(first.deckKey);
    const batch = trust === "second" && second && deck && m1Honest
      ? cardBatch(deck, first.positionKeys.map((a, k) => g.mod(a * second.positionKeys[k]!)))
      : entryBatch(m2, DECK_ORDER, first.positionKeys.map((a) => g.mod(a * undo)));
    deviations.push(...differences("first", "message3", m3, batch, () => buildMessage3(first, m2),
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
