/**
 * Deal evidence: a second shuffler's signed message 2 whose shuffle proof fails, as
 * strict JSON that anyone can check with `gin audit` (gin/protocol/records/evidence.py,
 * protocol.md §10.2). The first shuffler keeps it when it refuses message 2: the
 * match ends there, before any card is dealt. The signature (cosign's
 * message2Digest) binds the message 1 it answered, so the first shuffler cannot
 * present another one to make an honest proof fail. audit.ts's auditEvidence checks it.
 */

import { bytesToHex } from "@noble/hashes/utils.js";

import * as abandonment from "./abandonment.ts";
import * as cosign from "./cosign.ts";
import { context, DECK_SIZE, type Deck, MAX_HAND_NUMBER } from "../deal/fairdeal.ts";
import { JsonSyntaxError, parsePyJson, type PyJson } from "./pyjson.ts";
import { bindingData, type HandRecord, MAX_RECORD_BYTES, parseRecord, SEATS, utf8 } from "./records.ts";
import { PROOF_BYTES } from "../deal/shuffle_proof.ts";
import { pyLen, StrictJson } from "./strict_json.ts";

const READ: StrictJson = new StrictJson("deal evidence");
function fail(path: string, why: string): never {
  READ.fail(path, why);
}
const [hex, object, integer] = [READ.hex.bind(READ), READ.fields.bind(READ), READ.integer.bind(READ)];

export const FORMAT = "gin-deal-evidence";
export const FORMAT_VERSION = 3;

/** The fields of a {@link DealEvidence}. */
export interface DealEvidenceFields {
  matchId: Uint8Array;
  handNumber: number;
  dealer: number;
  message1: Deck;
  /** As received: 52 entries of 32 bytes, maybe no points. */
  message2: Deck;
  /** As received. */
  proof: Uint8Array;
  signature: Uint8Array;
  linkId: Uint8Array;
  signingKeys: readonly [Uint8Array, Uint8Array];
  identities: readonly [Uint8Array, Uint8Array];
  vouches: readonly [Uint8Array, Uint8Array];
  previous: Uint8Array | null;
}

/** Message 2 of hand `handNumber` as the second shuffler (seat 1 − dealer) signed it,
 * with the message 1 it answered. */
export class DealEvidence implements Readonly<DealEvidenceFields> {
  readonly matchId: Uint8Array;
  readonly handNumber: number;
  readonly dealer: number;
  readonly message1: Deck;
  readonly message2: Deck;
  readonly proof: Uint8Array;
  readonly signature: Uint8Array;
  readonly linkId: Uint8Array;
  readonly signingKeys: readonly [Uint8Array, Uint8Array];
  readonly identities: readonly [Uint8Array, Uint8Array];
  readonly vouches: readonly [Uint8Array, Uint8Array];
  readonly previous: Uint8Array | null;

  constructor(fields: DealEvidenceFields) {
    this.matchId = fields.matchId;
    this.handNumber = fields.handNumber;
    this.dealer = fields.dealer;
    this.message1 = Object.freeze([...fields.message1]) as Deck;
    this.message2 = Object.freeze([...fields.message2]) as Deck;
    this.proof = fields.proof;
    this.signature = fields.signature;
    this.linkId = fields.linkId;
    this.signingKeys = Object.freeze([...fields.signingKeys] as [Uint8Array, Uint8Array]);
    this.identities = Object.freeze([...fields.identities] as [Uint8Array, Uint8Array]);
    this.vouches = Object.freeze([...fields.vouches] as [Uint8Array, Uint8Array]);
    this.previous = fields.previous;
    Object.freeze(this);
  }

  /** A copy with some fields changed. */
  with(changes: Partial<DealEvidenceFields>): DealEvidence {
    return new DealEvidence({ ...this, ...changes });
  }

  /** The seat of the second shuffler, who signed. */
  get second(): number {
    return 1 - this.dealer;
  }

  /** What the second shuffler signed. */
  digest(): Uint8Array {
    return cosign.message2Digest(this.second, context(this.matchId, this.handNumber), this.message1, this.message2,
      this.proof);
  }

  /** As gin's `to_dict`, keys in its order. */
  toDict(): Record<string, unknown> {
    return {
      format: FORMAT,
      version: FORMAT_VERSION,
      match_id: bytesToHex(this.matchId),
      hand: this.handNumber,
      seats: [...SEATS],
      dealer: this.dealer,
      link: bytesToHex(this.linkId),
      signing_keys: { host: bytesToHex(this.signingKeys[0]), guest: bytesToHex(this.signingKeys[1]) },
      messages: { message1: this.message1.map(bytesToHex), message2: this.message2.map(bytesToHex) },
      proof: bytesToHex(this.proof),
      signature: bytesToHex(this.signature),
      ...bindingData(this.identities, this.vouches, this.previous),
    };
  }

  /** Byte for byte gin's `to_json()`. */
  toJson(): string {
    return JSON.stringify(this.toDict(), null, 1) + "\n";
  }
}

function deck(value: PyJson | undefined, path: string): Deck {
  if (!Array.isArray(value) || value.length !== DECK_SIZE) fail(path, `expected a list of ${DECK_SIZE} entries`);
  return value.map((x, i) => hex(x, `${path}[${i}]`, 32));
}

/** Deal evidence from its JSON value; MalformedInput names the path of what is wrong, as gin does. */
export function parseEvidence(value: PyJson): DealEvidence {
  const top = object(value, "evidence", ["format", "version", "match_id", "hand", "seats", "dealer", "link",
    "signing_keys", "messages", "proof", "signature", "identities", "vouches", "previous"]);
  if (top.get("format") !== FORMAT) fail("evidence.format", `expected '${FORMAT}'`);
  if (integer(top.get("version"), "evidence.version", 1 << 16) !== FORMAT_VERSION) {
    fail("evidence.version", `expected ${FORMAT_VERSION}`);
  }
  const seats = top.get("seats");
  if (!Array.isArray(seats) || seats.length !== 2 || seats[0] !== SEATS[0] || seats[1] !== SEATS[1]) {
    fail("evidence.seats", "expected ['host', 'guest']");
  }
  const keys = object(top.get("signing_keys"), "evidence.signing_keys", SEATS);
  const ids = object(top.get("identities"), "evidence.identities", SEATS);
  const vouches = object(top.get("vouches"), "evidence.vouches", SEATS);
  const messages = object(top.get("messages"), "evidence.messages", ["message1", "message2"]);
  const hand = integer(top.get("hand"), "evidence.hand", MAX_HAND_NUMBER);
  if (hand < 1) fail("evidence.hand", `expected an integer 1..${MAX_HAND_NUMBER}`);
  // The remaining fields in gin's order of checking them.
  const matchId = hex(top.get("match_id"), "evidence.match_id", cosign.MATCH_ID_BYTES);
  const dealer = integer(top.get("dealer"), "evidence.dealer", 1);
  const message1 = deck(messages.get("message1"), "evidence.messages.message1");
  const message2 = deck(messages.get("message2"), "evidence.messages.message2");
  const proof = hex(top.get("proof"), "evidence.proof", PROOF_BYTES);
  const signature = hex(top.get("signature"), "evidence.signature", cosign.SIGNATURE_BYTES);
  const linkId = hex(top.get("link"), "evidence.link", cosign.LINK_ID_BYTES);
  const host = hex(keys.get("host"), "evidence.signing_keys.host", cosign.KEY_BYTES);
  const guest = hex(keys.get("guest"), "evidence.signing_keys.guest", cosign.KEY_BYTES);
  const identities: [Uint8Array, Uint8Array] = [hex(ids.get("host"), "evidence.identities.host", cosign.KEY_BYTES),
    hex(ids.get("guest"), "evidence.identities.guest", cosign.KEY_BYTES)];
  const vouched: [Uint8Array, Uint8Array] = [
    hex(vouches.get("host"), "evidence.vouches.host", cosign.SIGNATURE_BYTES),
    hex(vouches.get("guest"), "evidence.vouches.guest", cosign.SIGNATURE_BYTES)];
  const before = top.get("previous");
  const previous = before === null ? null : hex(before, "evidence.previous", cosign.MATCH_ID_BYTES);
  return new DealEvidence({ matchId, handNumber: hand, dealer, message1, message2, proof, signature, linkId,
    signingKeys: [host, guest], identities, vouches: vouched, previous });
}

/** A hand record, deal evidence or an abandonment record from a file's text or bytes,
 * told apart by its `format`; MalformedInput (as parseRecord words it) otherwise. */
export function parseFile(data: string | Uint8Array): HandRecord | DealEvidence | abandonment.AbandonmentRecord {
  if ((typeof data === "string" ? pyLen(data) : data.length) <= MAX_RECORD_BYTES) {
    const text = typeof data === "string" ? data : utf8(data);
    let value: PyJson | null = null;
    try {
      value = parsePyJson(text);
    } catch (exc) {
      if (!(exc instanceof JsonSyntaxError)) throw exc;
    }
    if (value instanceof Map && value.get("format") === FORMAT) return parseEvidence(value);
    if (value instanceof Map && value.get("format") === abandonment.FORMAT) return abandonment.parse(text);
  }
  return parseRecord(data);
}
