/** Byte helpers shared by the protocol modules: concatenation, hex, big-endian integers. */

import { MalformedInput } from "../engine/errors.ts";

/** `a ‖ b ‖ …` as one new array. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lower- or upper-case hex of even length; MalformedInput otherwise. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new MalformedInput(`not hex of whole bytes: ${JSON.stringify(hex.slice(0, 40))}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The unsigned big-endian integer in `bytes`. */
export function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length ? BigInt("0x" + toHex(bytes)) : 0n;
}

/** `value` as `size` unsigned big-endian bytes (the caller keeps it in range). */
export function fromBigInt(value: bigint, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let v = value;
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** u8 / u16be / u32be as bytes. */
export function u8(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff);
}
export function u16be(value: number): Uint8Array {
  return Uint8Array.of((value >>> 8) & 0xff, value & 0xff);
}
export function u32be(value: number): Uint8Array {
  return Uint8Array.of((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

/** ASCII text as bytes (domain strings and labels). */
export function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}
