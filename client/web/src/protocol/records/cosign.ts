/**
 * Signatures: each side's per-match Ed25519 key, the match id it is bound to, the
 * digest of message 2 that the second shuffler signs with its proof, and the digest
 * of a hand that both sides sign at hand end (gin/protocol/records/cosign.py, protocol.md §4,
 * §7.2, §10).
 *
 * A side draws 32 random bytes for its signing key when the match starts and sends
 * the public key in the handshake, vouched for by its long-term identity (identity.ts);
 * the match id is derived from the invite link, both public keys and both identities,
 * so a record names exactly one pair of keys and of players. At hand end each
 * side signs {@link handDigest} of the hand as it played it followed by its own seed
 * ({@link seedSigned}), so the seed it reveals is its signed word. The digest does not
 * depend on the order in which the two sides processed the deal's keys. Pure.
 *
 * Ed25519 signing is RFC 8032's (deterministic: the same bytes as gin's
 * `cryptography`). Verification follows OpenSSL's, which gin uses: S must be below
 * the group order, A may be any encoding of a point, and s·B − k·A must encode to
 * exactly the R given (the cofactorless equation), so the two sides accept and
 * refuse the same signatures.
 */

import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import { equalBytes } from "../bytes.ts";
import { keyBytes } from "../deal/fairdeal.ts";
import { KEY_BYTES, LINK_ID_BYTES, MATCH_ID_BYTES, SIGNATURE_BYTES } from "./envelope.ts";
import type { HandRecord } from "./records.ts";

/** The sizes of the envelope's fields. */
export { KEY_BYTES, LINK_ID_BYTES, MATCH_ID_BYTES, SIGNATURE_BYTES };
export const DOMAIN = utf8ToBytes("gin/session/v2/");
export const KEY_SEED_BYTES = 32;

/** The order of Ed25519's base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The id of an invite link: names its saved match; the relay never sees it. */
export function linkIdFor(secret: Uint8Array): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("link-id\x00"), secret)).slice(0, LINK_ID_BYTES);
}

/** The match id (§4): the link, both sides' fresh signing keys and long-term identities
 * (host's first), and the match on this link it continues (empty: none). */
export function matchIdFor(linkId: Uint8Array, signingKeys: readonly [Uint8Array, Uint8Array],
  identities: readonly [Uint8Array, Uint8Array], previous: Uint8Array): Uint8Array {
  if (linkId.length !== LINK_ID_BYTES || [...signingKeys, ...identities].some((k) => k.length !== KEY_BYTES)
      || (previous.length !== 0 && previous.length !== MATCH_ID_BYTES)) {
    throw new MalformedInput("match id inputs have the wrong lengths");
  }
  return sha256(concatBytes(utf8ToBytes("gin/session/v3/match-id\x00"), linkId, ...signingKeys, ...identities,
    Uint8Array.of(previous.length), previous)).slice(0, MATCH_ID_BYTES);
}

/** One side's per-match signing key, from 32 secret random bytes. */
export class Signer {
  readonly public: Uint8Array;
  readonly #seed: Uint8Array;

  constructor(seed: Uint8Array) {
    if (!(seed instanceof Uint8Array) || seed.length !== KEY_SEED_BYTES) {
      throw new MalformedInput(`a signing key seed is ${KEY_SEED_BYTES} bytes`);
    }
    this.#seed = seed.slice();
    this.public = ed25519.getPublicKey(this.#seed);
    Object.freeze(this);
  }

  sign(digest: Uint8Array): Uint8Array {
    return ed25519.sign(digest, this.#seed);
  }

  toString(): string {
    return "Signer(<secret>)";
  }
}

const littleEndian = (bytes: Uint8Array): bigint => {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
};

/** Whether `signature` is `publicKey`'s Ed25519 signature of `digest`; false, never a throw, on garbage. */
export function verify(publicKey: Uint8Array, digest: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(signature instanceof Uint8Array) || !(digest instanceof Uint8Array)
      || publicKey.length !== KEY_BYTES || signature.length !== SIGNATURE_BYTES) {
    return false;
  }
  const r = signature.subarray(0, 32);
  const s = littleEndian(signature.subarray(32));
  if (s >= L) return false;
  let a;
  try {
    a = ed25519.Point.fromBytes(publicKey, true); // any encoding of y below 2^255, as OpenSSL
  } catch {
    return false;
  }
  const k = littleEndian(sha512(concatBytes(r, publicKey, digest))) % L;
  const check = ed25519.Point.BASE.multiplyUnsafe(s).subtract(a.multiplyUnsafe(k));
  return equalBytes(check.toBytes(), r);
}

/** SHA-256("gin/session/v2/deck2" ‖ 00 ‖ u8(seat) ‖ ctx ‖ m1 ‖ m2 ‖ proof): what the second
 * shuffler (`seat`) signs with message 2, binding the message 1 it answered. */
export function message2Digest(seat: number, ctx: Uint8Array, message1: readonly Uint8Array[],
  message2: readonly Uint8Array[], proof: Uint8Array): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("deck2\x00"), Uint8Array.of(seat), ctx, ...message1, ...message2, proof));
}

/** What both sides sign, as plain data: the hand without its seeds (their
 * commitments bind them) and with the revealed keys in a canonical order. */
export function transcript(record: HandRecord): Record<string, unknown> {
  const keys = record.steps.flatMap((step) => step.keys.map(([pos, key]) => [step.seat, pos, key] as const));
  keys.sort((x, y) => x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0));
  return {
    match_id: bytesToHex(record.matchId),
    hand: record.handNumber,
    dealer: record.dealer,
    rules: record.rules.toDict(),
    commitments: record.commitments.map(bytesToHex),
    messages: record.messages.map((m) => bytesToHex(sha256(concatBytes(...m)))),
    proof: bytesToHex(record.proof),
    actions: record.steps.filter((s) => s.action !== null).map((s) => [s.seat, String(s.action)]),
    keys: keys.map(([seat, pos, key]) => [seat, pos, bytesToHex(keyBytes(key))]),
    result: { kind: record.score.kind, knocker: record.score.knocker, winner: record.score.winner,
      points: record.score.points },
    scores: [...record.scores],
  };
}

/** JSON with every object's keys sorted and no spaces: Python's
 * `json.dumps(value, sort_keys=True, separators=(",", ":"))` of ASCII data. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256("gin/session/v2/hand" ‖ 00 ‖ canonical JSON of {@link transcript}). */
export function handDigest(record: HandRecord): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("hand\x00"), utf8ToBytes(canonicalJson(transcript(record)))));
}

/**
 * What a side signs at hand end (§7.7): the hand digest, then its own seed. Both
 * sides still sign one digest, each before it sees the other's seed, and a seed that
 * does not open its commitment is the signed word of its side, not of the file.
 */
export function seedSigned(digest: Uint8Array, seed: Uint8Array): Uint8Array {
  return concatBytes(digest, seed);
}

/** What `seat` signed of `record`: its digest and that seat's seed. */
export function seatSigned(record: HandRecord, seat: number): Uint8Array {
  return seedSigned(handDigest(record), record.seeds[seat === record.dealer ? 0 : 1]);
}
