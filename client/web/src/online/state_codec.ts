/**
 * The session's state as one storage string: msgpack (as client/online.py saves it
 * with msgpack-python) in standard base64. Decoding allows a whole match's log,
 * far beyond a single message's limits; Session.fromState checks the contents.
 */

import { MalformedInput } from "../engine/errors.ts";
import { decode, encode, type MapKey, type Value } from "../protocol/msgpack.ts";

const STATE_LIMITS = Object.freeze({
  maxStrLen: 1 << 20, maxBinLen: 1 << 20, maxArrayLen: 1 << 22, maxMapLen: 1 << 12,
});
const CHUNK = 0x8000;

export function encodeState(state: Map<string, Value>): string {
  const bytes = encode(state);
  let text = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    text += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(text);
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
