/**
 * The session's state as one storage string: msgpack (as client/net/store.py saves it
 * with msgpack-python) in standard base64. Decoding allows a whole match's log,
 * far beyond a single message's limits; Session.fromState checks the contents.
 */

import { MalformedInput } from "../engine/errors.ts";
import { decode, encode, type MapKey, type Value } from "../protocol/wire/msgpack.ts";

const STATE_LIMITS = Object.freeze({
  maxStrLen: 1 << 20, maxBinLen: 1 << 20, maxArrayLen: 1 << 22, maxMapLen: 1 << 12,
});
const ALPHABET = new TextEncoder().encode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
const ascii = new TextDecoder("latin1");

/** Standard base64 with padding: the browser's own when it has one, else a table loop
 * (the state is encoded after every input; building it through strings cost more than
 * the session's crypto). */
export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === "function") return native.call(bytes);
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ALPHABET[n >> 18]!;
    out[o++] = ALPHABET[(n >> 12) & 63]!;
    out[o++] = ALPHABET[(n >> 6) & 63]!;
    out[o++] = ALPHABET[n & 63]!;
  }
  if (i < bytes.length) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8);
    out[o++] = ALPHABET[n >> 18]!;
    out[o++] = ALPHABET[(n >> 12) & 63]!;
    out[o++] = i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : 61; // "="
    out[o++] = 61;
  }
  return ascii.decode(out);
}

export function encodeState(state: Map<string, Value>): string {
  return toBase64(encode(state));
}

/** The stored state; MalformedInput when the text is not one (a damaged entry). */
export function decodeState(text: string): Map<MapKey, Value> {
  let raw: string;
  try {
    raw = atob(text);
  } catch {
    throw new MalformedInput("the stored match is not base64");
  }
  const value = decode(Uint8Array.from(raw, (ch) => ch.charCodeAt(0)), STATE_LIMITS);
  if (!(value instanceof Map)) throw new MalformedInput("the stored match is not a map");
  return value;
}
