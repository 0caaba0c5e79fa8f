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
import { PyFloat } from "../../engine/pyrepr.ts";
import { Ruleset, STANDARD } from "../../engine/rules.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { DECK_SIZE, type Deck, KEY_BYTES, keyBytes, keyFromBytes, MAX_HAND_NUMBER, type Role } from "../deal/fairdeal.ts";
import { JsonSyntaxError, parsePyJson, type PyJson } from "./pyjson.ts";
import { SEATS } from "./seats.ts";

export const FORMAT = "gin-hand-record";
export const FORMAT_VERSION = 4;
export { SEATS };
export type Seat = (typeof SEATS)[number];
export const MAX_RECORD_BYTES = 1 << 20;
export const MAX_STEPS = 512;
export const MAX_ACTION_CHARS = 256;
/** Arrays and objects open at once (a record needs 4); deeper text is not a record. */
export const MAX_NESTING = 64;
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
  toDict(): RecordData {
    const pair = <T>(values: readonly [T, T], f: (v: T) => string) => ({ host: f(values[0]), guest: f(values[1]) });
    return {
      format: FORMAT,
      version: FORMAT_VERSION,
      match_id: bytesToHex(this.matchId),
      hand: this.handNumber,
      seats: [...SEATS],
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
      link: bytesToHex(this.linkId),
      signing_keys: pair(this.signingKeys, bytesToHex),
      signatures: pair(this.signatures, bytesToHex),
      ...bindingData(this.identities, this.vouches, this.previous),
    };
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

/** A record as plain data (gin's `HandRecord.to_dict`). */
export interface RecordData {
  format: string;
  version: number;
  match_id: string;
  hand: number;
  seats: string[];
  dealer: number;
  rules: Record<string, string | number | boolean | null>;
  commitments: { first: string; second: string };
  seeds: { first: string; second: string };
  messages: { message1: string[]; message2: string[]; message3: string[] };
  proof: string;
  steps: StepData[];
  result: { kind: string; knocker: number | null; winner: number | null; points: number };
  scores: number[];
  link: string;
  signing_keys: { host: string; guest: string };
  signatures: { host: string; guest: string };
  identities: { host: string; guest: string };
  vouches: { host: string; guest: string };
  previous: string | null;
}

/** The identity fields of a record or deal evidence, as JSON (gin's `binding_dict`). */
export function bindingData(identities: readonly [Uint8Array, Uint8Array], vouches: readonly [Uint8Array, Uint8Array],
  previous: Uint8Array | null): Pick<RecordData, "identities" | "vouches" | "previous"> {
  return {
    identities: { host: bytesToHex(identities[0]), guest: bytesToHex(identities[1]) },
    vouches: { host: bytesToHex(vouches[0]), guest: bytesToHex(vouches[1]) },
    previous: previous === null ? null : bytesToHex(previous),
  };
}

const keyHex = (key: bigint): string => bytesToHex(keyBytes(key));

// --- strict parsing ---------------------------------------------------------------

function fail(path: string, why: string): never {
  throw new MalformedInput(`hand record: ${path}: ${why}`);
}

/** Python's type name of a loaded JSON value, as gin's `_kind` words it. */
function kind(value: PyJson | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

/** Python's `len` of a string: code points, not UTF-16 units. */
const pyLen = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

function integer(value: PyJson | undefined, path: string, low: number, high: number): number {
  if (typeof value !== "bigint") fail(path, `expected an integer, got ${kind(value)}`);
  if (value < BigInt(low) || value > BigInt(high)) fail(path, `${value} is outside ${low}..${high}`);
  return Number(value);
}

function hex(value: PyJson | undefined, path: string, size: number): Uint8Array {
  if (typeof value !== "string" || pyLen(value) !== 2 * size) fail(path, `expected ${2 * size} hex digits`);
  // Python's bytes.fromhex would also skip whitespace between pairs (and so make a
  // shorter field of a string of the right length); a record's hex has none.
  if (!/^[0-9a-fA-F]*$/.test(value)) fail(path, "not hexadecimal");
  return hexToBytes(value);
}

function array(value: PyJson | undefined, path: string, low: number, high: number): PyJson[] {
  if (!Array.isArray(value)) fail(path, `expected a list, got ${kind(value)}`);
  if (value.length < low || value.length > high) fail(path, `${value.length} entries, expected ${low}..${high}`);
  return value;
}

/** Python's `==` between a loaded JSON value and a list of strings. */
function isTextList(value: PyJson | undefined, want: readonly string[]): boolean {
  return Array.isArray(value) && value.length === want.length && value.every((v, i) => v === want[i]);
}

/** Typed access to one JSON object that names the path of whatever is wrong. */
class Reader {
  readonly value: Map<string, PyJson>;

  constructor(value: PyJson | undefined, readonly path: string) {
    if (!(value instanceof Map)) fail(path, `expected an object, got ${kind(value)}`);
    this.value = value;
  }

  at(name: string): string {
    return `${this.path}.${name}`;
  }

  only(required: readonly string[], optional: readonly string[] = []): void {
    for (const key of this.value.keys()) {
      if (!required.includes(key) && !optional.includes(key)) fail(this.at(key), "unexpected field");
    }
    for (const key of required) if (!this.value.has(key)) fail(this.at(key), "missing");
  }

  get(name: string): PyJson | undefined {
    return this.value.get(name);
  }

  integer(name: string, low: number, high: number): number {
    return integer(this.value.get(name), this.at(name), low, high);
  }

  seatOrNull(name: string): number | null {
    const value = this.value.get(name);
    return value === null || value === undefined ? null : integer(value, this.at(name), 0, 1);
  }

  hex(name: string, size: number): Uint8Array {
    return hex(this.value.get(name), this.at(name), size);
  }

  child(name: string): Reader {
    return new Reader(this.value.get(name), this.at(name));
  }

  array(name: string, low: number, high: number): PyJson[] {
    return array(this.value.get(name), this.at(name), low, high);
  }
}

function step(value: PyJson, path: string): Step {
  const r = new Reader(value, path);
  r.only(["seat"], ["action", "keys"]);
  const seat = r.integer("seat", 0, 1);
  let action: Action | null = null;
  if (r.value.has("action")) {
    const text = r.get("action");
    if (typeof text !== "string" || pyLen(text) > MAX_ACTION_CHARS) {
      fail(r.at("action"), `expected text of at most ${MAX_ACTION_CHARS} characters`);
    }
    try {
      action = parseAction(text);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      fail(r.at("action"), exc.message);
    }
  }
  const keys: RevealedKey[] = [];
  if (r.value.has("keys")) {
    r.array("keys", 1, DECK_SIZE).forEach((pair, i) => {
      const where = `${r.at("keys")}[${i}]`;
      const items = array(pair, where, 2, 2);
      const position = integer(items[0], `${where}[0]`, 0, DECK_SIZE - 1);
      keys.push([position, keyFromBytes(hex(items[1], `${where}[1]`, KEY_BYTES))]);
    });
  }
  if (action === null && !keys.length) fail(path, "a step needs an action or keys");
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

/** A record file's bytes as text; MalformedInput when they are not UTF-8. */
export function utf8(data: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    throw new MalformedInput("hand record: not JSON (not UTF-8 text)");
  }
}

/** gin's `too_deep`: why `text` nests too deep to read, before reading it — the
 * first bracket outside strings that opens more than MAX_NESTING arrays and
 * objects at once, whether or not the text is otherwise JSON. A string runs to its
 * closing quote or the end of the text; the place counts code points, as Python. */
export function tooDeep(text: string): string | null {
  let depth = 0;
  let at = 0;
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
    } else if (ch === "[" || ch === "{") {
      depth += 1;
      if (depth > MAX_NESTING) return `more than ${MAX_NESTING} arrays and objects nested at char ${at}`;
    } else if (ch === "]" || ch === "}") {
      depth = Math.max(depth - 1, 0);
    }
    at += 1;
  }
  return null;
}

/** Parse a record's JSON text under the limits; MalformedInput names what is wrong. */
export function parseRecord(data: string | Uint8Array): HandRecord {
  const size = typeof data === "string" ? pyLen(data) : data.length;
  if (size > MAX_RECORD_BYTES) throw new MalformedInput(`hand record: ${size} bytes, more than ${MAX_RECORD_BYTES}`);
  const text = typeof data === "string" ? data : utf8(data);
  const deep = tooDeep(text);
  if (deep !== null) throw new MalformedInput(`hand record: not JSON (${deep})`);
  let value: PyJson;
  try {
    value = parsePyJson(text);
  } catch (exc) {
    if (!(exc instanceof JsonSyntaxError)) throw exc;
    throw new MalformedInput(`hand record: not JSON (${exc.message})`);
  }
  const r = new Reader(value, "record");
  r.only(["format", "version", "match_id", "hand", "seats", "dealer", "rules", "commitments", "seeds",
    "messages", "proof", "steps", "result", "scores", "link", "signing_keys", "signatures", "identities", "vouches",
    "previous"]);
  if (r.get("format") !== FORMAT) fail(r.at("format"), `expected '${FORMAT}'`);
  const version = r.integer("version", 1, FORMAT_VERSION);
  if (version < FORMAT_VERSION) { // 3: seeds unsigned; 2: P-256; 1: unsigned
    fail(r.at("version"), `${version} is an older format that gin no longer reads `
      + `(this gin reads version ${FORMAT_VERSION})`);
  }
  const matchId = r.get("match_id");
  if (typeof matchId !== "string" || pyLen(matchId) < 2 || pyLen(matchId) > 128) {
    fail(r.at("match_id"), "expected 1..64 bytes as hex");
  }
  const matchBytes = hex(matchId, r.at("match_id"), Math.floor(pyLen(matchId) / 2));
  if (!isTextList(r.get("seats"), SEATS)) fail(r.at("seats"), `expected ['host', 'guest']`);
  // Every rule is written out: a rule left out would be filled with today's default
  // before the digest, so a record could be signed under one ruleset and read as another.
  const given = r.get("rules");
  const missing = Object.keys(STANDARD.toDict()).find((name) => given instanceof Map && !given.has(name));
  if (missing !== undefined) fail(`${r.at("rules")}.${missing}`, "missing");
  let rules: Ruleset;
  try {
    rules = Ruleset.fromDict(plain(given ?? null));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    fail(r.at("rules"), exc.message);
  }
  const pairs = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [name, names, size] of [
    ["commitments", ["first", "second"], 32], ["seeds", ["first", "second"], 32],
    ["signing_keys", SEATS, 32], ["signatures", SEATS, 64], ["identities", SEATS, 32], ["vouches", SEATS, 64],
  ] as const) {
    const sub = r.child(name);
    sub.only(names);
    pairs.set(name, [sub.hex(names[0], size), sub.hex(names[1], size)]);
  }
  const msgs = r.child("messages");
  msgs.only(["message1", "message2", "message3"]);
  const messages = (["message1", "message2", "message3"] as const).map((name) =>
    msgs.array(name, DECK_SIZE, DECK_SIZE).map((x, i) => hex(x, `${msgs.at(name)}[${i}]`, 32)));
  const steps = r.array("steps", 0, MAX_STEPS).map((s, i) => step(s, `${r.at("steps")}[${i}]`));
  const res = r.child("result");
  res.only(["kind", "knocker", "winner", "points"]);
  const resultKind = res.get("kind");
  if (typeof resultKind !== "string" || !(RESULT_KINDS as readonly string[]).includes(resultKind)) {
    fail(res.at("kind"), `expected one of ${RESULT_KINDS.join(", ")}`);
  }
  const score = new Score(resultKind as ResultKind, res.seatOrNull("knocker"), res.seatOrNull("winner"),
    res.integer("points", 0, 10_000));
  const scores = r.array("scores", 2, 2);
  // The remaining fields in gin's order of checking them.
  const handNumber = r.integer("hand", 1, MAX_HAND_NUMBER);
  const dealer = r.integer("dealer", 0, 1);
  const proof = r.hex("proof", 32);
  const after: [number, number] = [
    integer(scores[0], r.at("scores[0]"), 0, 1_000_000), integer(scores[1], r.at("scores[1]"), 0, 1_000_000),
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
    linkId: r.hex("link", 16),
    signingKeys: pairs.get("signing_keys")!,
    signatures: pairs.get("signatures")!,
    identities: pairs.get("identities")!,
    vouches: pairs.get("vouches")!,
    previous: r.get("previous") === null ? null : r.hex("previous", 16),
  });
}
