/**
 * Hand records: everything needed to re-verify one online hand, as strict JSON
 * (gin/protocol/records/records.py, protocol.md §10).
 *
 * A record holds the ruleset, the match id, the hand number, the dealer (the first
 * shuffler), both commitments, the three deck messages, the digest of message 2's
 * shuffle proof (the second shuffler's seed rebuilds the proof), every step of the hand in
 * the order the recording peer processed it (an action and/or the keys a seat
 * revealed with it), both seeds and the result. Bytes travel as lowercase hex.
 * {@link HandRecord.toJson} writes exactly gin's text; {@link parseRecord} is as
 * strict as gin's `parse_record` and words each refusal as it does (MalformedInput
 * naming the JSON path).
 */

import { type Action, parseAction } from "../../engine/actions.ts";
import { MalformedInput } from "../../engine/errors.ts";
import type { HandResult } from "../../engine/observation.ts";
import { Ruleset, STANDARD } from "../../engine/rules.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import { DECK_SIZE, type Deck, isPoint, KEY_BYTES, keyBytes, MAX_HAND_NUMBER, NOT_A_POINT, type Role } from "../deal/fairdeal.ts";
import * as g from "../deal/group.ts";
import {
  KEY_BYTES as SIGNING_KEY_BYTES, LINK_ID_BYTES, load, MATCH_ID_BYTES, pyLen, Reader, readHead, readSeats, SEATS, seatPair,
  SIGNATURE_BYTES, write,
} from "./envelope.ts";
import type { PyJson } from "./strict_json.ts";

export const FORMAT = "gin-hand-record";
export const FORMAT_VERSION = 4;
/** The fields of a record, in the order it is written and a missing one is named. */
export const FIELDS = ["format", "version", "match_id", "hand", "seats", "dealer", "rules", "commitments", "seeds",
  "messages", "proof", "steps", "result", "scores", "link", "signing_keys", "signatures", "identities", "vouches",
  "previous"] as const;
export { SEATS };
export type Seat = (typeof SEATS)[number];
export const MAX_STEPS = 512;
export const MAX_ACTION_CHARS = 256;
export const RESULT_KINDS = ["knock", "gin", "big_gin", "undercut", "dead"] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];

/** A revealed key: (deck position, the key as a scalar). */
export type RevealedKey = readonly [number, bigint];

/** One step of a hand: `seat` revealed `keys` and/or acted. */
export class Step {
  readonly keys: readonly RevealedKey[];

  constructor(readonly seat: number, readonly action: Action | null = null, keys: readonly RevealedKey[] = []) {
    this.keys = Object.freeze(keys.map(([p, k]) => Object.freeze([p, k] as const)));
    Object.freeze(this);
  }

  /** The step as gin writes it in a record. */
  toDict(): StepData {
    const out: StepData = { seat: this.seat };
    if (this.action !== null) out.action = String(this.action);
    if (this.keys.length) out.keys = this.keys.map(([p, k]) => [p, keyHex(k)]);
    return out;
  }
}

export interface StepData {
  seat: number;
  action?: string;
  keys?: [number, string][];
}

/** How the hand ended, as the recording peer's engine scored it. */
export class Score {
  constructor(
    readonly kind: ResultKind,
    readonly knocker: number | null,
    readonly winner: number | null,
    readonly points: number,
  ) {
    Object.freeze(this);
  }

  static of(result: HandResult): Score {
    return new Score(result.kind, result.knocker, result.winner, result.points);
  }

  equals(other: Score): boolean {
    return this.kind === other.kind && this.knocker === other.knocker && this.winner === other.winner
      && this.points === other.points;
  }
}

const EMPTY = new Uint8Array(0);

/** The fields of a {@link HandRecord}; the co-signing ones default to empty (unsigned). */
export interface HandRecordFields {
  rules: Ruleset;
  matchId: Uint8Array;
  handNumber: number;
  dealer: number;
  /** (the first shuffler's, the second's) */
  commitments: readonly [Uint8Array, Uint8Array];
  messages: readonly [Deck, Deck, Deck];
  /** SHA-256 of message 2's shuffle proof (fairdeal's proofDigest). */
  proof: Uint8Array;
  steps: readonly Step[];
  /** (the first shuffler's, the second's) */
  seeds: readonly [Uint8Array, Uint8Array];
  score: Score;
  /** The match scores after this hand. */
  scores: readonly [number, number];
  /** The invite link's id (protocol.md §10). */
  linkId?: Uint8Array;
  /** Each seat's per-match Ed25519 public key, which the match id is derived from. */
  signingKeys?: readonly [Uint8Array, Uint8Array];
  /** Each seat's signature of cosign's handDigest. */
  signatures?: readonly [Uint8Array, Uint8Array];
  /** Who played (protocol.md §4, §7.1): each seat's long-term identity key, its vouch
   * for its signing key, and the match on this link that this one continues. */
  identities?: readonly [Uint8Array, Uint8Array];
  vouches?: readonly [Uint8Array, Uint8Array];
  previous?: Uint8Array | null;
}

/** One finished online hand. Seat 0 is the host; the dealer is the first shuffler. */
export class HandRecord implements Readonly<Required<HandRecordFields>> {
  readonly rules: Ruleset;
  readonly matchId: Uint8Array;
  readonly handNumber: number;
  readonly dealer: number;
  readonly commitments: readonly [Uint8Array, Uint8Array];
  readonly messages: readonly [Deck, Deck, Deck];
  readonly proof: Uint8Array;
  readonly steps: readonly Step[];
  readonly seeds: readonly [Uint8Array, Uint8Array];
  readonly score: Score;
  readonly scores: readonly [number, number];
  readonly linkId: Uint8Array;
  readonly signingKeys: readonly [Uint8Array, Uint8Array];
  readonly signatures: readonly [Uint8Array, Uint8Array];
  readonly identities: readonly [Uint8Array, Uint8Array];
  readonly vouches: readonly [Uint8Array, Uint8Array];
  readonly previous: Uint8Array | null;

  constructor(fields: HandRecordFields) {
    this.rules = fields.rules;
    this.matchId = fields.matchId;
    this.handNumber = fields.handNumber;
    this.dealer = fields.dealer;
    this.commitments = Object.freeze([...fields.commitments] as [Uint8Array, Uint8Array]);
    this.messages = Object.freeze(fields.messages.map((m) => Object.freeze([...m])) as [Deck, Deck, Deck]);
    this.proof = fields.proof;
    this.steps = Object.freeze([...fields.steps]);
    this.seeds = Object.freeze([...fields.seeds] as [Uint8Array, Uint8Array]);
    this.score = fields.score;
    this.scores = Object.freeze([...fields.scores] as [number, number]);
    this.linkId = fields.linkId ?? EMPTY;
    this.signingKeys = Object.freeze([...fields.signingKeys ?? [EMPTY, EMPTY]] as [Uint8Array, Uint8Array]);
    this.signatures = Object.freeze([...fields.signatures ?? [EMPTY, EMPTY]] as [Uint8Array, Uint8Array]);
    this.identities = Object.freeze([...fields.identities ?? [EMPTY, EMPTY]] as [Uint8Array, Uint8Array]);
    this.vouches = Object.freeze([...fields.vouches ?? [EMPTY, EMPTY]] as [Uint8Array, Uint8Array]);
    this.previous = fields.previous ?? null;
    Object.freeze(this);
  }

  /** A copy with some fields changed (Python's `dataclasses.replace`). */
  with(changes: Partial<HandRecordFields>): HandRecord {
    return new HandRecord({ ...this, ...changes });
  }

  roleOf(seat: number): Role {
    return seat === this.dealer ? "first" : "second";
  }

  seatOf(role: Role): number {
    return role === "first" ? this.dealer : 1 - this.dealer;
  }

  /** The record as gin's `to_dict`: plain data, keys in gin's order. */
  toDict(): Record<string, unknown> {
    return write(this, FORMAT, FORMAT_VERSION, FIELDS, {
      hand: this.handNumber,
      dealer: this.dealer,
      rules: this.rules.toDict(),
      commitments: { first: bytesToHex(this.commitments[0]), second: bytesToHex(this.commitments[1]) },
      seeds: { first: bytesToHex(this.seeds[0]), second: bytesToHex(this.seeds[1]) },
      messages: {
        message1: this.messages[0].map(bytesToHex),
        message2: this.messages[1].map(bytesToHex),
        message3: this.messages[2].map(bytesToHex),
      },
      proof: bytesToHex(this.proof),
      steps: this.steps.map((s) => s.toDict()),
      result: { kind: this.score.kind, knocker: this.score.knocker, winner: this.score.winner, points: this.score.points },
      scores: [...this.scores],
      signatures: seatPair(this.signatures),
    });
  }

  /** The record's text, byte for byte gin's `to_json()` (`json.dumps(indent=1)` and a newline). */
  toJson(): string {
    // Every string in a record is ASCII (hex, action texts, a ruleset name), so
    // JSON.stringify escapes nothing Python's ensure_ascii would write otherwise.
    return JSON.stringify(this.toDict(), null, 1) + "\n";
  }

  /** Whether two records hold the same hand, field for field (Python's `==`). */
  equals(other: HandRecord): boolean {
    return this.toJson() === other.toJson();
  }
}

const keyHex = (key: bigint): string => bytesToHex(keyBytes(key));

// --- strict parsing ---------------------------------------------------------------

/** A key as its one encoding, reduced modulo L (whether it is the revealer's key is
 * the audit's question). */
function scalar(r: Reader, data: Uint8Array, path: string): bigint {
  try {
    return g.scalarFromBytes(data);
  } catch (exc) {
    if (!(exc instanceof g.InvalidScalar)) throw exc;
    return r.fail(path, exc.message);
  }
}

/** A deck message: 52 entries, each the one encoding of a point (whether they are the
 * shuffle its sender's seed makes, with no entry twice, is the audit's question). */
function deck(r: Reader, name: string): Deck {
  const entries = r.hexList(name, DECK_SIZE, g.POINT_BYTES);
  entries.forEach((entry, i) => {
    if (!isPoint(entry)) r.fail(`${r.at(name)}[${i}]`, NOT_A_POINT);
  });
  return entries;
}

function step(top: Reader, value: PyJson, path: string): Step {
  const r: Reader = top.objectAt(value, path).only(["seat"], ["action", "keys"]);
  const seat = r.integer("seat", 0, 1);
  let action: Action | null = null;
  if (r.value.has("action")) {
    const text = r.get("action");
    if (typeof text !== "string" || pyLen(text) > MAX_ACTION_CHARS) {
      r.fail(r.at("action"), `expected text of at most ${MAX_ACTION_CHARS} characters`);
    }
    try {
      action = parseAction(text);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      r.fail(r.at("action"), exc.message);
    }
  }
  const keys: RevealedKey[] = [];
  if (r.value.has("keys")) {
    r.array("keys", 1, DECK_SIZE).forEach((pair, i) => {
      const where = `${r.at("keys")}[${i}]`;
      const items = r.arrayAt(pair, where, 2, 2);
      const position = r.integerAt(items[0], `${where}[0]`, 0, DECK_SIZE - 1);
      keys.push([position, scalar(r, r.hexAt(items[1], `${where}[1]`, KEY_BYTES), `${where}[1]`)]);
    });
  }
  if (action === null && !keys.length) r.fail(path, "a step needs an action or keys");
  return new Step(seat, action, keys);
}

/** A loaded JSON value as the plain data Ruleset.fromDict reads: small integers
 * as numbers, floats kept apart (they are refused, as in Python). */
function plain(value: PyJson): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of value) out[k] = plain(v);
    return out;
  }
  return value;
}

/** Parse a record's JSON text under the limits; MalformedInput names what is wrong. */
export function parseRecord(data: string | Uint8Array): HandRecord {
  const r: Reader = new Reader(load(data, "hand record"), "record", "hand record", true).only(FIELDS);
  readHead(r, FORMAT, FORMAT_VERSION, { older: true }); // 3: seeds unsigned; 2: P-256; 1: unsigned
  const matchId = r.get("match_id");
  if (typeof matchId !== "string" || pyLen(matchId) < 2 || pyLen(matchId) > 128) {
    r.fail(r.at("match_id"), "expected 1..64 bytes as hex");
  }
  const matchBytes = r.hexAt(matchId, r.at("match_id"), Math.floor(pyLen(matchId) / 2));
  readSeats(r);
  // Every rule is written out: a rule left out would be filled with today's default
  // before the digest, so a record could be signed under one ruleset and read as another.
  const given = r.get("rules");
  const missing = Object.keys(STANDARD.toDict()).find((name) => given instanceof Map && !given.has(name));
  if (missing !== undefined) r.fail(`${r.at("rules")}.${missing}`, "missing");
  let rules: Ruleset;
  try {
    rules = Ruleset.fromDict(plain(given ?? null));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    r.fail(r.at("rules"), exc.message);
  }
  const pairs = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [name, names, size] of [
    ["commitments", ["first", "second"], 32], ["seeds", ["first", "second"], 32],
    ["signing_keys", SEATS, SIGNING_KEY_BYTES], ["signatures", SEATS, SIGNATURE_BYTES],
    ["identities", SEATS, SIGNING_KEY_BYTES], ["vouches", SEATS, SIGNATURE_BYTES],
  ] as const) {
    pairs.set(name, r.child(name).only(names).pair(size, names));
  }
  const msgs = r.child("messages").only(["message1", "message2", "message3"]);
  const messages = (["message1", "message2", "message3"] as const).map((name) => deck(msgs, name));
  const steps = r.array("steps", 0, MAX_STEPS).map((s, i) => step(r, s, `${r.at("steps")}[${i}]`));
  const res: Reader = r.child("result").only(["kind", "knocker", "winner", "points"]);
  const resultKind = res.get("kind");
  if (typeof resultKind !== "string" || !(RESULT_KINDS as readonly string[]).includes(resultKind)) {
    res.fail(res.at("kind"), `expected one of ${RESULT_KINDS.join(", ")}`);
  }
  const score = new Score(resultKind as ResultKind, res.seatOrNull("knocker"), res.seatOrNull("winner"),
    res.integer("points", 0, 10_000));
  const scores = r.array("scores", 2, 2);
  // The remaining fields in gin's order of checking them.
  const handNumber = r.integer("hand", 1, MAX_HAND_NUMBER);
  const dealer = r.integer("dealer", 0, 1);
  const proof = r.hex("proof", 32);
  const after: [number, number] = [
    r.integerAt(scores[0], r.at("scores[0]"), 0, 1_000_000), r.integerAt(scores[1], r.at("scores[1]"), 0, 1_000_000),
  ];
  return new HandRecord({
    rules: rules!,
    matchId: matchBytes,
    handNumber,
    dealer,
    commitments: pairs.get("commitments")!,
    messages: messages as [Deck, Deck, Deck],
    proof,
    steps,
    seeds: pairs.get("seeds")!,
    score,
    scores: after,
    linkId: r.hex("link", LINK_ID_BYTES),
    signingKeys: pairs.get("signing_keys")!,
    signatures: pairs.get("signatures")!,
    identities: pairs.get("identities")!,
    vouches: pairs.get("vouches")!,
    previous: r.hexOrNull("previous", MATCH_ID_BYTES),
  });
}
