/**
 * The envelope of the files `gin audit` reads (protocol.md §10): hand records, deal
 * evidence and abandonment records all carry a format and its version, the seats, the
 * match id, the invite link, each seat's signing key, identity and vouch, and the match
 * before. They are written and read here once, with the one strict reader each format
 * reads the rest of itself with (gin/protocol/records/envelope.py).
 *
 * Every refusal is a MalformedInput that names the file's kind and the JSON path of what
 * is wrong. Hand records, the first format, say what they found besides what they
 * expected ("got str", "5 is outside 0..1"); deal evidence and abandonment records say
 * only what they expected. Both wordings are in the corpus, so both stay.
 */

import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import { PyFloat } from "../../engine/pyrepr.ts";
import { JsonSyntaxError, parsePyJson, type PyJson } from "./strict_json.ts";
import { SEATS } from "./seats.ts";

export { SEATS };
export const LINK_ID_BYTES = 16;
export const MATCH_ID_BYTES = 16;
export const KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;
export const MAX_RECORD_BYTES = 1 << 20;
/** Arrays and objects open at once (a record needs 4); deeper text is not a record. */
export const MAX_NESTING = 64;
/** The envelope's objects of one value a seat (signing keys, identities, vouches). */
export const PAIRS = ["signing_keys", "identities", "vouches"] as const;

type Pair = readonly [Uint8Array, Uint8Array];

/** What a file names its match by: the envelope's fields but the format's own. */
export interface Bound {
  readonly matchId: Uint8Array;
  readonly linkId: Uint8Array;
  readonly signingKeys: Pair;
  readonly identities: Pair;
  readonly vouches: Pair;
  /** The match on this link that this one continues, or null. */
  readonly previous: Uint8Array | null;
}

/** The envelope's fields after the match id, as a file's constructor takes them. */
export interface Binding {
  linkId: Uint8Array;
  signingKeys: [Uint8Array, Uint8Array];
  identities: [Uint8Array, Uint8Array];
  vouches: [Uint8Array, Uint8Array];
  previous: Uint8Array | null;
}

// --- writing ----------------------------------------------------------------------

/** One value a seat, as JSON: `{"host": hex, "guest": hex}`. */
export function seatPair(values: Pair): { host: string; guest: string } {
  return { host: bytesToHex(values[0]), guest: bytesToHex(values[1]) };
}

/** A file as JSON: the envelope of `bound` and the format's `own` fields, in the
 * format's order `fields` (the order its reader names a missing field in). */
export function write(bound: Bound, format: string, version: number, fields: readonly string[],
  own: Record<string, unknown>): Record<string, unknown> {
  const every: Record<string, unknown> = {
    format,
    version,
    match_id: bytesToHex(bound.matchId),
    seats: [...SEATS],
    link: bytesToHex(bound.linkId),
    signing_keys: seatPair(bound.signingKeys),
    identities: seatPair(bound.identities),
    vouches: seatPair(bound.vouches),
    previous: bound.previous === null ? null : bytesToHex(bound.previous),
    ...own,
  };
  return Object.fromEntries(fields.map((name) => [name, every[name]]));
}

// --- reading ----------------------------------------------------------------------

/** Python's `len` of a string: code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
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

/** A file's JSON value under the limits (size, nesting, strict JSON); MalformedInput
 * headed `head` ("hand record") otherwise. Bytes are a hand record's. */
export function load(data: string | Uint8Array, head: string): PyJson {
  const size = typeof data === "string" ? pyLen(data) : data.length;
  if (size > MAX_RECORD_BYTES) throw new MalformedInput(`${head}: ${size} bytes, more than ${MAX_RECORD_BYTES}`);
  const text = typeof data === "string" ? data : utf8(data);
  const deep = tooDeep(text);
  if (deep !== null) throw new MalformedInput(`${head}: not JSON (${deep})`);
  try {
    return parsePyJson(text);
  } catch (exc) {
    if (!(exc instanceof JsonSyntaxError)) throw exc;
    throw new MalformedInput(`${head}: not JSON (${exc.message})`);
  }
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

/** Typed access to one JSON object of a `what` file ("hand record") at `path` that
 * names the path of whatever is wrong; `found`: a refusal also says what it found
 * (hand records' words). */
export class Reader {
  readonly value: Map<string, PyJson>;

  constructor(value: PyJson | undefined, readonly path: string, readonly what: string, readonly found = false) {
    if (!(value instanceof Map)) this.fail(path, found ? `expected an object, got ${kind(value)}` : "expected an object");
    this.value = value;
  }

  fail(path: string, why: string): never {
    throw new MalformedInput(`${this.what}: ${path}: ${why}`);
  }

  at(name: string): string {
    return `${this.path}.${name}`;
  }

  /** This object, if it has every field `required` and no other but `optional`. */
  only(required: readonly string[], optional: readonly string[] = []): this {
    for (const key of this.value.keys()) {
      if (!required.includes(key) && !optional.includes(key)) this.fail(this.at(key), "unexpected field");
    }
    for (const key of required) if (!this.value.has(key)) this.fail(this.at(key), "missing");
    return this;
  }

  get(name: string): PyJson | undefined {
    return this.value.get(name);
  }

  objectAt(value: PyJson | undefined, path: string): Reader {
    return new Reader(value, path, this.what, this.found);
  }

  child(name: string): Reader {
    return this.objectAt(this.value.get(name), this.at(name));
  }

  /** A whole number `low`..`high` (not a boolean, not a float). */
  integerAt(value: PyJson | undefined, path: string, low: number, high: number): number {
    if (typeof value !== "bigint") {
      this.fail(path, this.found ? `expected an integer, got ${kind(value)}` : `expected an integer ${low}..${high}`);
    }
    if (value < BigInt(low) || value > BigInt(high)) {
      this.fail(path, this.found ? `${value} is outside ${low}..${high}` : `expected an integer ${low}..${high}`);
    }
    return Number(value);
  }

  integer(name: string, low: number, high: number): number {
    return this.integerAt(this.value.get(name), this.at(name), low, high);
  }

  seatOrNull(name: string): number | null {
    const value = this.value.get(name);
    return value === null || value === undefined ? null : this.integerAt(value, this.at(name), 0, 1);
  }

  /** `size` bytes as hex digits (either case). */
  hexAt(value: PyJson | undefined, path: string, size: number): Uint8Array {
    if (typeof value !== "string" || pyLen(value) !== 2 * size) this.fail(path, `expected ${2 * size} hex digits`);
    // Python's bytes.fromhex would also skip whitespace between pairs (and so make a
    // shorter field of a string of the right length); a record's hex has none.
    if (!/^[0-9a-fA-F]*$/.test(value)) this.fail(path, this.found ? "not hexadecimal" : `expected ${2 * size} hex digits`);
    return hexToBytes(value);
  }

  hex(name: string, size: number): Uint8Array {
    return this.hexAt(this.value.get(name), this.at(name), size);
  }

  hexOrNull(name: string, size: number): Uint8Array | null {
    return this.value.get(name) === null ? null : this.hex(name, size);
  }

  /** This object's two values of `size` bytes, one a seat (or `names`). */
  pair(size: number, names: readonly [string, string] = SEATS): [Uint8Array, Uint8Array] {
    return [this.hex(names[0], size), this.hex(names[1], size)];
  }

  arrayAt(value: PyJson | undefined, path: string, low: number, high: number): PyJson[] {
    // The later formats read only lists of one length (`low`), and word them so.
    if (!Array.isArray(value)) {
      this.fail(path, this.found ? `expected a list, got ${kind(value)}` : `expected a list of ${low} entries`);
    }
    if (value.length < low || value.length > high) {
      this.fail(path, this.found ? `${value.length} entries, expected ${low}..${high}` : `expected a list of ${low} entries`);
    }
    return value;
  }

  array(name: string, low: number, high: number): PyJson[] {
    return this.arrayAt(this.value.get(name), this.at(name), low, high);
  }

  /** A list of `count` values of `size` bytes (a deck message). */
  hexList(name: string, count: number, size: number): Uint8Array[] {
    return this.array(name, count, count).map((x, i) => this.hexAt(x, `${this.at(name)}[${i}]`, size));
  }
}

/** The format and its version. `older`: name a version before `version` as one gin no
 * longer reads (hand records, which had three); otherwise expect `version`. */
export function readHead(r: Reader, format: string, version: number, { older = false } = {}): void {
  if (r.get("format") !== format) r.fail(r.at("format"), `expected '${format}'`);
  if (older) {
    const given = r.integer("version", 1, version);
    if (given < version) {
      r.fail(r.at("version"), `${given} is an older format that gin no longer reads (this gin reads version ${version})`);
    }
  } else if (r.integer("version", 0, 1 << 16) !== version) {
    r.fail(r.at("version"), `expected ${version}`);
  }
}

export function readSeats(r: Reader): void {
  const seats = r.get("seats");
  // Python's `==` between the loaded value and the list of seats.
  if (!Array.isArray(seats) || seats.length !== SEATS.length || seats.some((s, i) => s !== SEATS[i])) {
    r.fail(r.at("seats"), "expected ['host', 'guest']");
  }
}

export type Pairs = [Reader, Reader, Reader];

/** Reads the top object `r` of deal evidence or an abandonment record: exactly `fields`,
 * `format` at `version`, the seats; then opens the signing keys, identities and vouches,
 * each an object of host and guest, whose values {@link readBinding} reads after the
 * format's own objects. */
export function openEnvelope(r: Reader, format: string, version: number, fields: readonly string[]): Pairs {
  r.only(fields);
  readHead(r, format, version);
  readSeats(r);
  const [keys, ids, vouches] = PAIRS.map((name) => r.child(name).only(SEATS));
  return [keys!, ids!, vouches!];
}

/** The link, signing keys, identities, vouches and previous match, read in that order
 * (`pairs`: {@link openEnvelope}). */
export function readBinding(r: Reader, pairs: Pairs): Binding {
  const [keys, ids, vouches] = pairs;
  return {
    linkId: r.hex("link", LINK_ID_BYTES),
    signingKeys: keys.pair(KEY_BYTES),
    identities: ids.pair(KEY_BYTES),
    vouches: vouches.pair(SIGNATURE_BYTES),
    previous: r.hexOrNull("previous", MATCH_ID_BYTES),
  };
}
