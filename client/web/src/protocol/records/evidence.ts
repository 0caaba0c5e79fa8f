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
import {
  type Bound, load, MAX_RECORD_BYTES, openEnvelope, pyLen, readBinding, Reader, utf8, write,
} from "./envelope.ts";
import { JsonSyntaxError, parsePyJson, type PyJson } from "./strict_json.ts";
import { type HandRecord, parseRecord } from "./records.ts";
import { PROOF_BYTES } from "../deal/shuffle_proof.ts";

export const FORMAT = "gin-deal-evidence";
export const FORMAT_VERSION = 3;
/** The fields of deal evidence, in the order it is written and a missing one is named. */
export const FIELDS = ["format", "version", "match_id", "hand", "seats", "dealer", "link", "signing_keys", "messages",
  "proof", "signature", "identities", "vouches", "previous"] as const;

/** The fields of a {@link DealEvidence}: its envelope's and its own. */
export interface DealEvidenceFields extends Bound {
  handNumber: number;
  dealer: number;
  message1: Deck;
  /** As received: 52 entries of 32 bytes, maybe no points. */
  message2: Deck;
  /** As received. */
  proof: Uint8Array;
  signature: Uint8Array;
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
    return write(this, FORMAT, FORMAT_VERSION, FIELDS, {
      hand: this.handNumber,
      dealer: this.dealer,
      messages: { message1: this.message1.map(bytesToHex), message2: this.message2.map(bytesToHex) },
      proof: bytesToHex(this.proof),
      signature: bytesToHex(this.signature),
    });
  }

  /** Byte for byte gin's `to_json()`. */
  toJson(): string {
    return JSON.stringify(this.toDict(), null, 1) + "\n";
  }
}

/** Deal evidence from its JSON value; MalformedInput names the path of what is wrong, as gin does. */
export function parseEvidence(value: PyJson): DealEvidence {
  const r: Reader = new Reader(value, "evidence", "deal evidence");
  const pairs = openEnvelope(r, FORMAT, FORMAT_VERSION, FIELDS);
  const messages = r.child("messages").only(["message1", "message2"]);
  const hand = r.integer("hand", 0, MAX_HAND_NUMBER);
  if (hand < 1) r.fail(r.at("hand"), `expected an integer 1..${MAX_HAND_NUMBER}`);
  // The remaining fields in gin's order of checking them.
  const matchId = r.hex("match_id", cosign.MATCH_ID_BYTES);
  const dealer = r.integer("dealer", 0, 1);
  const message1 = messages.hexList("message1", DECK_SIZE, 32);
  const message2 = messages.hexList("message2", DECK_SIZE, 32);
  const proof = r.hex("proof", PROOF_BYTES);
  const signature = r.hex("signature", cosign.SIGNATURE_BYTES);
  return new DealEvidence({ matchId, handNumber: hand, dealer, message1, message2, proof, signature,
    ...readBinding(r, pairs) });
}

/** Deal evidence from a file's text under the hand records' limits (size, nesting). */
export function parse(data: string | Uint8Array): DealEvidence {
  return parseEvidence(load(data, "deal evidence"));
}

/** A hand record, deal evidence or an abandonment record from a file's text or bytes,
 * told apart by its `format` and read by that kind's own reader, which refuses it in its
 * own words (a repeated key too: the kind is told with the last value kept); a text that
 * is not JSON, or names no other kind, as parseRecord words it. */
export function parseFile(data: string | Uint8Array): HandRecord | DealEvidence | abandonment.AbandonmentRecord {
  if ((typeof data === "string" ? pyLen(data) : data.length) <= MAX_RECORD_BYTES) {
    const text = typeof data === "string" ? data : utf8(data);
    let value: PyJson | null = null;
    try {
      value = parsePyJson(text, { repeats: true });
    } catch (exc) {
      if (!(exc instanceof JsonSyntaxError)) throw exc;
    }
    if (value instanceof Map && value.get("format") === FORMAT) return parse(data);
    if (value instanceof Map && value.get("format") === abandonment.FORMAT) return abandonment.parse(text);
  }
  return parseRecord(data);
}
