/**
 * Byte helpers shared by the protocol modules that @noble/hashes/utils.js lacks:
 * comparison and big-endian integers. Concatenation, hex and text as bytes are
 * noble's (concatBytes, bytesToHex, hexToBytes, utf8ToBytes).
 */

import { bytesToHex } from "@noble/hashes/utils.js";

/** Whether `a` and `b` hold the same bytes, in time that does not depend on where they differ. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The unsigned big-endian integer in `bytes`. */
export function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length ? BigInt("0x" + bytesToHex(bytes)) : 0n;
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

/** u16be / u32be as bytes. */
export function u16be(value: number): Uint8Array {
  return Uint8Array.of((value >>> 8) & 0xff, value & 0xff);
}
export function u32be(value: number): Uint8Array {
  return Uint8Array.of((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}
