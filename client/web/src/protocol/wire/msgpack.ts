/**
 * A small strict msgpack codec, the twin of gin/protocol/wire/msgpack.py (msgpack-python
 * with hard limits) and exactly as strict: the same byte strings decode, the same
 * are refused. Refused: extension types and the never-used byte c1; a map key
 * other than text or bytes; a key repeated in one map (two decoders could
 * disagree on its value); text that is not UTF-8 (surrogates and overlong forms
 * included); truncated input and trailing bytes; containers nested deeper than
 * 1024 (empty ones count); text or bytes over 4096 bytes, arrays over 256
 * entries, maps over 64 pairs. Non-canonical forms (5 as uint8, a float32) are
 * accepted, as msgpack-python accepts them.
 *
 * Decoded values: integers are `number` when safe, `bigint` beyond 2^53 (msgpack
 * carries −2^63 .. 2^64−1); floats are wrapped in {@link Float} so that a
 * `number` is always an integer; maps are `Map`s in wire order. The encoder
 * writes the same bytes as msgpack-python's `packb(use_bin_type=True)`: the
 * smallest form of each integer, floats as float64.
 */

import { MalformedInput } from "../../engine/errors.ts";
import { bytesToHex } from "@noble/hashes/utils.js";

/** A msgpack float (kept apart from integers, as Python keeps float from int). */
export class Float {
  constructor(readonly value: number) {
    Object.freeze(this);
  }
}

export type MapKey = string | Uint8Array;
export type Value =
  | null | boolean | number | bigint | Float | string | Uint8Array | Value[] | Map<MapKey, Value>;

/** An integer as a decoded {@link Value} holds it: a number when safe, else a bigint. */
export function intValue(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value) : value;
}

/** The hard caps of `gin.protocol.wire.msgpack.Limits`, applied while decoding before anything is built. */
export interface Limits {
  maxStrLen: number;
  maxBinLen: number;
  maxArrayLen: number;
  maxMapLen: number;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxStrLen: 4096, maxBinLen: 4096, maxArrayLen: 256, maxMapLen: 64,
});

/** msgpack-python's stack: at most this many containers open at once. */
export const MAX_DEPTH = 1024;

/** Bytes that are not one msgpack value within the limits. */
export class UndecodableData extends MalformedInput {}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

class Reader {
  at = 0;
  private readonly view: DataView;

  constructor(readonly data: Uint8Array, readonly limits: Limits) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  private need(n: number): number {
    if (this.at + n > this.data.length) throw new UndecodableData("incomplete input");
    const start = this.at;
    this.at += n;
    return start;
  }

  private u8(): number { return this.view.getUint8(this.need(1)); }
  private u16(): number { return this.view.getUint16(this.need(2)); }
  private u32(): number { return this.view.getUint32(this.need(4)); }

  private bytes(n: number): Uint8Array {
    const start = this.need(n);
    return this.data.slice(start, start + n);
  }

  private str(n: number): string {
    if (n > this.limits.maxStrLen) throw new UndecodableData(`${n} exceeds max_str_len(${this.limits.maxStrLen})`);
    try {
      return utf8.decode(this.bytes(n));
    } catch (exc) {
      if (exc instanceof UndecodableData) throw exc;
      throw new UndecodableData("text is not valid UTF-8");
    }
  }

  private bin(n: number): Uint8Array {
    if (n > this.limits.maxBinLen) throw new UndecodableData(`${n} exceeds max_bin_len(${this.limits.maxBinLen})`);
    return this.bytes(n);
  }

  private array(n: number, depth: number): Value[] {
    if (n > this.limits.maxArrayLen) throw new UndecodableData(`${n} exceeds max_array_len(${this.limits.maxArrayLen})`);
    this.enter(depth);
    const out: Value[] = [];
    for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
    return out;
  }

  private map(n: number, depth: number): Map<MapKey, Value> {
    if (n > this.limits.maxMapLen) throw new UndecodableData(`${n} exceeds max_map_len(${this.limits.maxMapLen})`);
    this.enter(depth);
    const out = new Map<MapKey, Value>();
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const key = this.value(depth + 1);
      let tagged: string;
      if (typeof key === "string") tagged = "s" + key;
      else if (key instanceof Uint8Array) tagged = "b" + bytesToHex(key);
      else throw new UndecodableData(`${describe(key)} is not allowed for map key`);
      const value = this.value(depth + 1);
      if (seen.has(tagged)) throw new UndecodableData("a map repeats a key");
      seen.add(tagged);
      out.set(key, value);
    }
    return out;
  }

  private enter(depth: number): void {
    if (depth >= MAX_DEPTH) throw new UndecodableData(`containers nested deeper than ${MAX_DEPTH}`);
  }

  /** One value; `depth` counts the containers already open around it. */
  value(depth: number): Value {
    const b = this.u8();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, depth);
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f, depth);
    if (b >= 0xa0 && b <= 0xbf) return this.str(b & 0x1f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return this.bin(this.u8());
      case 0xc5: return this.bin(this.u16());
      case 0xc6: return this.bin(this.u32());
      case 0xca: return new Float(this.view.getFloat32(this.need(4)));
      case 0xcb: return new Float(this.view.getFloat64(this.need(8)));
      case 0xcc: return this.u8();
      case 0xcd: return this.u16();
      case 0xce: return this.u32();
      case 0xcf: return intValue(this.view.getBigUint64(this.need(8)));
      case 0xd0: return this.view.getInt8(this.need(1));
      case 0xd1: return this.view.getInt16(this.need(2));
      case 0xd2: return this.view.getInt32(this.need(4));
      case 0xd3: return intValue(this.view.getBigInt64(this.need(8)));
      case 0xd9: return this.str(this.u8());
      case 0xda: return this.str(this.u16());
      case 0xdb: return this.str(this.u32());
      case 0xdc: return this.array(this.u16(), depth);
      case 0xdd: return this.array(this.u32(), depth);
      case 0xde: return this.map(this.u16(), depth);
      case 0xdf: return this.map(this.u32(), depth);
      default: // c1 (never used) and the extension types c7..c9, d4..d8
        throw new UndecodableData(`byte 0x${b.toString(16)} starts no allowed value`);
    }
  }
}

function describe(value: Value): string {
  if (value === null) return "nil";
  if (value instanceof Float) return "float";
  if (Array.isArray(value)) return "array";
  if (value instanceof Map) return "map";
  if (typeof value === "number" || typeof value === "bigint") return "int";
  return typeof value;
}

/** Decode exactly one value filling `data`; UndecodableData says why not. */
export function decode(data: Uint8Array, limits: Limits = DEFAULT_LIMITS): Value {
  const reader = new Reader(data, limits);
  const value = reader.value(0);
  if (reader.at !== data.length) throw new UndecodableData("extra data after the value");
  return value;
}

// --- encoding ------------------------------------------------------------------

class Writer {
  // A growing byte buffer: the online peer encodes its whole saved state (a match's
  // log, ~100 KB) after every input, so bytes are copied in blocks, not pushed one by one.
  private buf = new Uint8Array(1024);
  private size = 0;

  private room(n: number): void {
    if (this.size + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.size + n));
    grown.set(this.buf.subarray(0, this.size));
    this.buf = grown;
  }

  byte(...bytes: number[]): void {
    this.room(bytes.length);
    for (const b of bytes) this.buf[this.size++] = b & 0xff;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.size);
    this.size += bytes.length;
  }

  big(value: bigint, size: number): void {
    this.room(size);
    for (let i = size - 1; i >= 0; i--) this.buf[this.size++] = Number((value >> BigInt(8 * i)) & 0xffn);
  }

  /** A length header: the fix form below `fixLimit`, else the 8-, 16- or 32-bit form. */
  header(fix: number | null, fixLimit: number, c8: number | null, c16: number, c32: number, n: number): void {
    if (fix !== null && n < fixLimit) this.byte(fix | n);
    else if (c8 !== null && n < 0x100) this.byte(c8, n);
    else if (n < 0x10000) this.byte(c16, n >> 8, n);
    else this.byte(c32, n >>> 24, n >>> 16, n >>> 8, n);
  }

  int(v: bigint): void {
    if (v >= 0n) {
      if (v < 0x80n) this.byte(Number(v));
      else if (v < 0x100n) this.byte(0xcc, Number(v));
      else if (v < 0x10000n) { this.byte(0xcd); this.big(v, 2); }
      else if (v < 0x100000000n) { this.byte(0xce); this.big(v, 4); }
      else if (v < 1n << 64n) { this.byte(0xcf); this.big(v, 8); }
      else throw new MalformedInput("integer too large for msgpack");
    } else {
      const two = (size: number) => this.big(BigInt.asUintN(8 * size, v), size);
      if (v >= -32n) this.byte(Number(v));
      else if (v >= -0x80n) { this.byte(0xd0); two(1); }
      else if (v >= -0x8000n) { this.byte(0xd1); two(2); }
      else if (v >= -0x80000000n) { this.byte(0xd2); two(4); }
      else if (v >= -(1n << 63n)) { this.byte(0xd3); two(8); }
      else throw new MalformedInput("integer too small for msgpack");
    }
  }

  value(v: Value): void {
    if (v === null) this.byte(0xc0);
    else if (v === false) this.byte(0xc2);
    else if (v === true) this.byte(0xc3);
    else if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) throw new MalformedInput(`not an integer: ${v} (wrap floats in Float)`);
      if (v >= 0 && v < 0x80) this.byte(v); // the common case, without a BigInt
      else this.int(BigInt(v));
    } else if (typeof v === "bigint") this.int(v);
    else if (v instanceof Float) {
      const buf = new DataView(new ArrayBuffer(8));
      buf.setFloat64(0, v.value);
      this.byte(0xcb);
      this.raw(new Uint8Array(buf.buffer));
    } else if (typeof v === "string") {
      const bytes = utf8Encoder.encode(v);
      this.header(0xa0, 32, 0xd9, 0xda, 0xdb, bytes.length);
      this.raw(bytes);
    } else if (v instanceof Uint8Array) {
      this.header(null, 0, 0xc4, 0xc5, 0xc6, v.length);
      this.raw(v);
    } else if (Array.isArray(v)) {
      this.header(0x90, 16, null, 0xdc, 0xdd, v.length);
      for (const item of v) this.value(item);
    } else {
      this.header(0x80, 16, null, 0xde, 0xdf, v.size);
      for (const [key, item] of v) {
        this.value(key);
        this.value(item);
      }
    }
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.size);
  }
}

/** Encode `value` as msgpack-python's packb(use_bin_type=True) does (maps in insertion order). */
export function encode(value: Value): Uint8Array {
  const writer = new Writer();
  writer.value(value);
  return writer.result();
}
