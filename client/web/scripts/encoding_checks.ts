/**
 * Conformance checks for the encodings that arrive (cases written by
 * gin/conformance/encoding_cases.py, kind `encoding`): each deck message, the shuffle
 * proof's points and scalars and a key, given the edge encodings RFC 9496 and
 * protocol.md §8.1 refuse, must be refused word for word as gin/ refuses them
 * (libsodium under gin/ and @noble/curves here disagree on some of those bytes, so
 * each twin checks them itself); and message 2 with an entry under the top bit and a
 * proof made over those bytes must be refused with the same finding.
 */

import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

import { MalformedInput, PeerFault } from "../src/engine/errors.ts";
import * as fd from "../src/protocol/fairdeal.ts";
import { proofFromBytes } from "../src/protocol/shuffle_proof.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };
type Check = [string, string, number, string, Json];

const show = (x: unknown): string => JSON.stringify(x);
const same = (name: string, expected: unknown, actual: unknown): string | null =>
  show(expected) === show(actual) ? null : `${name}: expected ${show(expected)}, the TS side gives ${show(actual)}`;

/** null when accepted; [who, field, text] for a peer's fault; [null, null, text] for a refusal. */
function verdict(check: () => unknown): Json {
  try {
    check();
  } catch (exc) {
    if (exc instanceof PeerFault) return [exc.who, exc.field, exc.message];
    if (exc instanceof MalformedInput) return [null, null, exc.message];
    throw exc;
  }
  return null;
}

function replaced<T>(items: readonly T[], at: number, value: T): T[] {
  const out = items.slice();
  out[at] = value;
  return out;
}

function checkEncoding(c: CaseObject): string | null {
  const first = fd.SeedMaterial.fromSeed(hexToBytes(c.first_seed as string));
  const second = fd.SeedMaterial.fromSeed(hexToBytes(c.second_seed as string));
  const ctx = hexToBytes(c.context as string);
  const m1 = fd.buildMessage1(first);
  const [m2, proof] = fd.buildMessage2(second, m1, ctx);
  const messages: Record<string, Uint8Array[]> = { message1: m1, message2: m2, message3: fd.buildMessage3(first, m2) };
  const words = Array.from({ length: proof.length / 32 }, (_, i) => proof.slice(32 * i, 32 * i + 32));
  for (const [label, field, at, hex, expected] of c.checks as Check[]) {
    const data = hexToBytes(hex);
    let got: Json;
    if (field in messages) {
      got = verdict(() => fd.validateMessage(replaced(messages[field]!, at, data), field));
    } else if (field === "proof") {
      const changed = new Uint8Array(proof);
      changed.set(data, 32 * at);
      got = verdict(() => proofFromBytes(changed));
      if (bytesToHex(words[at]!) === hex) return `${label}: the case leaves the proof unchanged`;
    } else if (field === "key") {
      got = verdict(() => fd.openCard(messages.message3!, at, first.positionKeys[at]!, fd.keyFromBytes(data), "second"));
    } else {
      return `${label}: unknown field ${show(field)}`;
    }
    const differ = same(label, expected, got);
    if (differ) return differ;
  }
  const cheat = c.message2_top_bit as { deck: string[]; proof: string; refusal: Json };
  return same("message 2 with an entry under the top bit", cheat.refusal,
    fd.message2Refusal(ctx, m1, cheat.deck.map(hexToBytes), hexToBytes(cheat.proof)));
}

export const ENCODING_CHECKS: Record<string, (c: CaseObject) => string | null> = { encoding: checkEncoding };
