/**
 * Wire format, the twin of gin/wire.py: msgpack messages decoded under hard limits
 * (protocol.md §6.1), and the sealed channel's frames (§4, §5).
 *
 * {@link unpack} accepts and refuses exactly the byte strings `gin.wire.unpack`
 * does, and its {@link Message} accessors check each field and name it in errors
 * with the same text as gin/.
 */

import { MalformedInput } from "../engine/errors.ts";
import * as msgpack from "./msgpack.ts";
import { Float, type MapKey, type Value } from "./msgpack.ts";

export const PROTOCOL_VERSION = 2;
export const FRAME_VERSION = 2;
export const SECRET_BYTES = 32;
export const EPOCH_BYTES = 32;
export const LINK_TAG_BYTES = 8;
export const EPOCH_ID_BYTES = 8;
export const MAC_BYTES = 16;
export const TAG_BYTES = 16;
export const PREFIX_BYTES = 3 + LINK_TAG_BYTES; // version, kind, direction, link tag
export const HEADER_BYTES = PREFIX_BYTES + EPOCH_ID_BYTES + 8; // ... epoch id, seq
export const OFFER_BYTES = PREFIX_BYTES + 2 * EPOCH_BYTES + MAC_BYTES;
export const ACK_BYTES = HEADER_BYTES + 9 + TAG_BYTES;
export const MAX_FRAME_BYTES = 65536;
export const MAX_PLAINTEXT_BYTES = MAX_FRAME_BYTES - HEADER_BYTES - TAG_BYTES;

// --- messages -------------------------------------------------------------------

/** A message that fails to decode or fails its schema; `field` names the culprit. */
export class MalformedMessage extends MalformedInput {
  readonly field: string;

  constructor(message: string, field = "") {
    super(message);
    this.field = field;
  }
}

/** The message size cap and msgpack limits of `gin.wire.Limits`. */
export interface Limits extends msgpack.Limits {
  maxMessageBytes: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  ...msgpack.DEFAULT_LIMITS, maxMessageBytes: MAX_PLAINTEXT_BYTES,
});

/** Python's name for the type of a decoded value, as gin/'s messages say it. */
function pyType(value: Value): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number" || typeof value === "bigint") return "int";
  if (value instanceof Float) return "float";
  if (typeof value === "string") return "str";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "list";
  return "dict";
}

/** Python's repr of a text (what gin/ shows around field names and values). */
function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = Array.from(text, (ch) => {
    if (ch === "\\") return "\\\\";
    if (ch === quote) return "\\" + ch;
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    if (ch === "\t") return "\\t";
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return "\\x" + code.toString(16).padStart(2, "0");
    return ch;
  });
  return quote + escaped.join("") + quote;
}

/** Encode a message: the map {t, v, ...fields}. MalformedInput for a bad type, reserved keys or oversize. */
export function pack(msgType: string, fields: ReadonlyMap<string, Value> | null = null,
  version: number = PROTOCOL_VERSION): Uint8Array {
  const length = Array.from(msgType).length;
  if (length < 1 || length > 64) throw new MalformedInput("message type must be 1..64 characters");
  const body = new Map<MapKey, Value>([["t", msgType], ["v", version]]);
  for (const [key, value] of fields ?? []) {
    if (body.has(key)) throw new MalformedInput(`field name ${pyRepr(key)} is reserved`);
    body.set(key, value);
  }
  const data = msgpack.encode(body);
  if (data.length > MAX_PLAINTEXT_BYTES) {
    throw new MalformedInput(`message ${pyRepr(msgType)} is ${data.length} bytes, over the frame limit`);
  }
  return data;
}

/** Decode one message under `limits`. MalformedMessage says what was wrong. */
export function unpack(data: Uint8Array, limits: Limits = DEFAULT_LIMITS,
  versions: readonly number[] = [PROTOCOL_VERSION]): Message {
  if (data.length > limits.maxMessageBytes) {
    throw new MalformedMessage(`message is ${data.length} bytes, limit ${limits.maxMessageBytes}`);
  }
  let body: Value;
  try {
    body = msgpack.decode(data, limits);
  } catch (exc) {
    if (!(exc instanceof msgpack.UndecodableData)) throw exc;
    throw new MalformedMessage(`undecodable message: ${exc.message}`);
  }
  if (!(body instanceof Map)) throw new MalformedMessage("message is not a map");
  for (const key of body.keys()) {
    if (typeof key !== "string") throw new MalformedMessage("message field names must be text");
  }
  const top = new Message("", 0, body, "");
  const msgType = top.text("t", 64);
  if (!msgType) throw new MalformedMessage("field 't': empty message type", "t");
  const version = top.integer("v", 0, 0xffff);
  if (!versions.includes(version)) {
    throw new MalformedMessage(`unsupported protocol version ${version}`, "v");
  }
  return new Message(msgType, version, body, "");
}

/**
 * A decoded message and schema-checking accessors that name the field in errors.
 * Each accessor throws MalformedMessage whose `field` is the dotted path
 * (`deal.keys[3]`) and whose text says what was expected.
 */
export class Message {
  readonly fields: ReadonlyMap<MapKey, Value>;

  constructor(readonly type: string, readonly version: number, fields: ReadonlyMap<MapKey, Value>,
    private readonly path: string) {
    this.fields = new Map(fields);
  }

  private where(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  private failAt(where: string, why: string): never {
    const context = this.type ? `message ${pyRepr(this.type)}: ` : "";
    throw new MalformedMessage(`${context}field ${pyRepr(where)}: ${why}`, where);
  }

  private get(name: string): Value {
    if (!this.fields.has(name)) this.failAt(this.where(name), "missing");
    return this.fields.get(name)!;
  }

  has(name: string): boolean {
    return this.fields.has(name);
  }

  /** Reject any field other than t, v (at top level) and `names`. */
  only(...names: string[]): void {
    const allowed = new Set(this.path ? names : [...names, "t", "v"]);
    for (const key of this.fields.keys()) {
      if (typeof key !== "string" || !allowed.has(key)) {
        this.failAt(this.where(typeof key === "string" ? key : String(key)), "unexpected field");
      }
    }
  }

  integer(name: string, low: number, high: number): number {
    return this.int(this.get(name), this.where(name), low, high);
  }

  private int(value: Value, where: string, low: number, high: number): number {
    if (typeof value !== "number" && typeof value !== "bigint") {
      this.failAt(where, `expected an integer, got ${pyType(value)}`);
    }
    if (value < low || value > high) this.failAt(where, `${value} is outside ${low}..${high}`);
    return Number(value);
  }

  flag(name: string): boolean {
    const value = this.get(name);
    if (typeof value !== "boolean") this.failAt(this.where(name), `expected true or false, got ${pyType(value)}`);
    return value;
  }

  text(name: string, maxLen: number, choices: readonly string[] | null = null): string {
    const value = this.get(name);
    const where = this.where(name);
    if (typeof value !== "string") this.failAt(where, `expected text, got ${pyType(value)}`);
    if (Array.from(value).length > maxLen) this.failAt(where, `text longer than ${maxLen} characters`);
    if (choices !== null && !choices.includes(value)) {
      this.failAt(where, `${pyRepr(value)} is not one of the allowed values`);
    }
    return value;
  }

  blob(name: string, size: number | null = null, maxSize: number | null = null): Uint8Array {
    return this.bytes(this.get(name), this.where(name), size, maxSize);
  }

  private bytes(value: Value, where: string, size: number | null, maxSize: number | null): Uint8Array {
    if (!(value instanceof Uint8Array)) this.failAt(where, `expected bytes, got ${pyType(value)}`);
    if (size !== null && value.length !== size) this.failAt(where, `expected ${size} bytes, got ${value.length}`);
    if (maxSize !== null && value.length > maxSize) this.failAt(where, `more than ${maxSize} bytes`);
    return value;
  }

  array(name: string, maxLen: number, minLen = 0): Value[] {
    const value = this.get(name);
    const where = this.where(name);
    if (!Array.isArray(value)) this.failAt(where, `expected a list, got ${pyType(value)}`);
    if (value.length < minLen || value.length > maxLen) {
      this.failAt(where, `list of ${value.length} entries, expected ${minLen}..${maxLen}`);
    }
    return value;
  }

  /** A list of byte strings, each checked like {@link blob}. */
  blobs(name: string, maxLen: number, { minLen = 0, size = null, maxSize = null }:
    { minLen?: number; size?: number | null; maxSize?: number | null } = {}): Uint8Array[] {
    const where = this.where(name);
    return this.array(name, maxLen, minLen).map((v, i) => this.bytes(v, `${where}[${i}]`, size, maxSize));
  }

  /** A list of integers, each in low..high. */
  integers(name: string, maxLen: number, low: number, high: number, minLen = 0): number[] {
    const where = this.where(name);
    return this.array(name, maxLen, minLen).map((v, i) => this.int(v, `${where}[${i}]`, low, high));
  }

  /** A nested map, read with the same accessors; its keys must be text. */
  submap(name: string): Message {
    const value = this.get(name);
    const where = this.where(name);
    if (!(value instanceof Map)) this.failAt(where, `expected a map, got ${pyType(value)}`);
    for (const key of value.keys()) {
      if (typeof key !== "string") this.failAt(where, "map keys must be text");
    }
    return new Message(this.type, this.version, value, where);
  }
}
