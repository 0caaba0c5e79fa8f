/**
 * Abandonment records: a player's signed word that its peer fell silent while it owed
 * something, as strict JSON that `gin audit` reads (gin/protocol/records/abandonment.py,
 * protocol.md §10.3).
 *
 * When what the peer owes has not come within the grace period, the waiting side may
 * end the match as *abandoned by* the silent seat (`Session.abandon`). Silence is not
 * a verdict: the peer may have withheld it or the relay dropped it, so the record
 * proves only who claims it, about which match, what was owed and since when. It is
 * signed with the claimant's per-match key over every field but the signature, so a
 * field added to `toDict` (and read in {@link parseValue}) is signed with no other change.
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { equalBytes } from "../bytes.ts";
import * as cosign from "./cosign.ts";
import { MAX_HAND_NUMBER } from "../deal/fairdeal.ts";
import type { Owed } from "../wire/messages.ts";
import { type Bound, load, openEnvelope, readBinding, Reader, SEATS, write } from "./envelope.ts";
import type { PyJson } from "./strict_json.ts";
import { bindingRefusal } from "./identity.ts";
import type { HandRecord } from "./records.ts";

export const FORMAT = "gin-abandonment";
export const FORMAT_VERSION = 3;
/** The fields of a record, in the order it is written and a missing one is named. */
export const FIELDS = ["format", "version", "match_id", "link", "seats", "signing_keys", "identities", "vouches",
  "previous", "hand", "owed", "since", "claimed", "received", "scores", "claimant", "signature"] as const;
const DOMAIN = utf8ToBytes("gin/session/v3/abandon\x00");
/** 9999-12-31T23:59:59Z: times are UTC seconds from 1970 to the end of year 9999. */
export const MAX_TIME = 253_402_300_799;
export const MAX_SCORE = 1_000_000;
/** What a peer can owe (`Session.waitingFor`), in words. */
export const OWED: ReadonlyMap<string, string> = new Map<Owed, string>([
  ["hello", "its hello"], ["welcome", "its welcome"], ["start", "its start of the match"],
  ["commit", "its commitment"], ["deck", "its deck message"], ["deal", "its keys of the deal"],
  ["key", "the key of the card drawn"], ["show", "its cards shown after the knock"],
  ["move", "its move"], ["seed", "its seed"],
]);

/** The fields of an {@link AbandonmentRecord}: its envelope's and its own. */
export interface AbandonmentFields extends Bound {
  /** The hand in play; 0 before the first deal. */
  handNumber: number;
  owedSeat: number;
  /** The message type owed. */
  owed: string;
  /** UTC seconds. */
  since: number;
  claimed: number;
  /** Messages delivered from the peer, and their hash chain (§5). */
  received: number;
  receivedDigest: Uint8Array;
  scores: readonly [number, number];
  claimant: number;
  signature?: Uint8Array;
}

/** Seat `claimant` says seat `owedSeat` owed `owed` since `since` and ended the match at `claimed`. */
export class AbandonmentRecord implements Readonly<Required<AbandonmentFields>> {
  readonly matchId: Uint8Array;
  readonly linkId: Uint8Array;
  readonly signingKeys: readonly [Uint8Array, Uint8Array];
  readonly identities: readonly [Uint8Array, Uint8Array];
  readonly vouches: readonly [Uint8Array, Uint8Array];
  readonly previous: Uint8Array | null;
  readonly handNumber: number;
  readonly owedSeat: number;
  readonly owed: string;
  readonly since: number;
  readonly claimed: number;
  readonly received: number;
  readonly receivedDigest: Uint8Array;
  readonly scores: readonly [number, number];
  readonly claimant: number;
  readonly signature: Uint8Array;

  constructor(f: AbandonmentFields) {
    this.matchId = f.matchId;
    this.linkId = f.linkId;
    this.signingKeys = Object.freeze([f.signingKeys[0], f.signingKeys[1]] as [Uint8Array, Uint8Array]);
    this.identities = Object.freeze([f.identities[0], f.identities[1]] as [Uint8Array, Uint8Array]);
    this.vouches = Object.freeze([f.vouches[0], f.vouches[1]] as [Uint8Array, Uint8Array]);
    this.previous = f.previous;
    this.handNumber = f.handNumber;
    this.owedSeat = f.owedSeat;
    this.owed = f.owed;
    this.since = f.since;
    this.claimed = f.claimed;
    this.received = f.received;
    this.receivedDigest = f.receivedDigest;
    this.scores = Object.freeze([f.scores[0], f.scores[1]] as [number, number]);
    this.claimant = f.claimant;
    this.signature = f.signature ?? new Uint8Array(0);
    Object.freeze(this);
  }

  /** A copy with some fields changed. */
  with(changes: Partial<AbandonmentFields>): AbandonmentRecord {
    return new AbandonmentRecord({ ...this, ...changes });
  }

  /** As gin's `to_dict`, keys in its order. */
  toDict(): Record<string, unknown> {
    return write(this, FORMAT, FORMAT_VERSION, FIELDS, {
      hand: this.handNumber,
      owed: { seat: this.owedSeat, what: this.owed },
      since: isoTime(this.since),
      claimed: isoTime(this.claimed),
      received: { messages: this.received, digest: bytesToHex(this.receivedDigest) },
      scores: [...this.scores],
      claimant: this.claimant,
      signature: bytesToHex(this.signature),
    });
  }

  /** Byte for byte gin's `to_json()`. */
  toJson(): string {
    return JSON.stringify(this.toDict(), null, 1) + "\n";
  }

  /** SHA-256("gin/session/v3/abandon" ‖ 00 ‖ canonical JSON of every field but `signature`). */
  digest(): Uint8Array {
    const fields = this.toDict();
    delete fields.signature;
    return sha256(concatBytes(DOMAIN, utf8ToBytes(cosign.canonicalJson(fields))));
  }

  signed(sign: (digest: Uint8Array) => Uint8Array): AbandonmentRecord {
    return this.with({ signature: sign(this.digest()) });
  }

  /** The record told as plain words: whose claim, what was owed, since when (gin's words). */
  words(): string {
    const [owed, claimant] = [SEATS[this.owedSeat]!, SEATS[this.claimant]!];
    const hand = this.handNumber === 0 ? "before the first hand" : `for hand ${this.handNumber}`;
    const [since, claimed] = [shown(this.since), shown(this.claimed)];
    const at = since.slice(0, 10) === claimed.slice(0, 10) ? claimed.slice(11, 19) : `${claimed} UTC`;
    return `abandoned by the ${owed}: it owed ${OWED.get(this.owed)} ${hand} since ${since} UTC; `
      + `the ${claimant} ended the match at ${at} (after ${this.claimed - this.since} s). `
      + `This is the ${claimant}'s signed word: not a cheat, and not proven (the `
      + `${owed} may have withheld it, or the relay dropped it)`;
  }
}

/** UTC seconds as ISO 8601, whole seconds: `2026-12-02T08:00:00Z`. */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19) + "Z";
}

const shown = (seconds: number): string => isoTime(seconds).slice(0, 19).replace("T", " ");

/** What is wrong with `record` as [field, detail]: its match id and signature; without
 * both it proves nothing, not even its claimant's word. */
export function check(record: AbandonmentRecord): [string, string][] {
  const unbound = bindingRefusal(record.matchId, record.linkId, record.signingKeys, record.identities,
    record.vouches, record.previous);
  if (unbound !== null) return [unbound];
  if (!cosign.verify(record.signingKeys[record.claimant]!, record.digest(), record.signature)) {
    return [["signature", `the ${SEATS[record.claimant]!}'s signature does not sign this record`]];
  }
  return [];
}

function lastOf(record: AbandonmentRecord, hands: readonly HandRecord[]): HandRecord | null {
  const mine = hands.filter((h) => equalBytes(h.matchId, record.matchId));
  return mine.length ? mine.reduce((a, b) => (b.handNumber > a.handNumber ? b : a)) : null;
}

/**
 * Where and why the verified `hands` of the record's match prove its claim false, or null.
 * Both are the claimant's signatures: a hand record carries its signature of the hand's whole
 * transcript (every move, key and card shown, the scores after it), so the claimant had all of
 * that hand, the match went on from those scores, and the silent seat owed nothing in it but
 * its seed (whose arrival no signature proves); and after a hand that ended the match nothing
 * more was owed.
 */
export function contradiction(record: AbandonmentRecord, hands: readonly HandRecord[]): [string, string] | null {
  const last = lastOf(record, hands);
  if (last === null) return null;
  const claimant = SEATS[record.claimant]!;
  const owed = SEATS[record.owedSeat]!;
  const n = last.handNumber;
  const falseClaim = "a false claim, signed by the claimant";
  if (record.handNumber < n) {
    return ["hand", `the ${claimant} signed hand ${n} as complete, so the match was not left in hand `
      + `${record.handNumber}: ${falseClaim}`];
  }
  if (record.handNumber <= n + 1 && (record.scores[0] !== last.scores[0] || record.scores[1] !== last.scores[1])) {
    return ["scores", `the ${claimant} signed hand ${n} ending at host ${last.scores[0]}, guest ${last.scores[1]}; `
      + `this record says host ${record.scores[0]}, guest ${record.scores[1]}: ${falseClaim}`];
  }
  if (record.handNumber === n && record.owed !== "seed") {
    return ["owed", `the ${claimant} signed hand ${n} as complete (its transcript holds every move, key and card `
      + `shown), so the ${owed} owed nothing of that hand but its seed; this record says it owed `
      + `${OWED.get(record.owed)}: ${falseClaim}`];
  }
  if (record.handNumber === n + 1 && Math.max(...last.scores) >= last.rules.target) {
    return ["owed", `the ${claimant} signed hand ${n}, which ended the match (host ${last.scores[0]}, guest `
      + `${last.scores[1]}, playing to ${last.rules.target}); this record says the ${owed} owed `
      + `${OWED.get(record.owed)} in hand ${n + 1}: ${falseClaim}`];
  }
  return null;
}

/** The hands between the last record given and the claim's hand, if any: what the records
 * given cannot say (a dead hand leaves the scores as they were). */
export function missingHands(record: AbandonmentRecord, hands: readonly HandRecord[]): string | null {
  const last = lastOf(record, hands);
  if (last === null || record.handNumber <= last.handNumber + 1) return null;
  const first = last.handNumber + 1;
  const end = record.handNumber - 1;
  const which = first === end ? `hand ${first}` : `hands ${first} to ${end}`;
  return `what happened in ${which}: the records given end with hand ${last.handNumber}, and the claim is of `
    + `hand ${record.handNumber}`;
}

// --- strict parsing ---------------------------------------------------------------

const TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z$/;

/** A time as Python's datetime reads it (years 1..9999, no leap second), in UTC seconds. */
function time(r: Reader, name: string): number {
  const value = r.get(name);
  const parts = typeof value === "string" ? TIME.exec(value) : null;
  const [y, mo, d, h, mi, s] = (parts ?? []).slice(1).map(Number) as number[];
  const when = new Date(0);
  if (parts !== null) {
    when.setUTCFullYear(y!, mo! - 1, d!); // not Date.UTC: it reads years 0..99 as 1900..1999
    when.setUTCHours(h!, mi!, s!, 0);
  }
  if (parts === null || y! < 1 || when.getUTCFullYear() !== y || when.getUTCMonth() !== mo! - 1
    || when.getUTCDate() !== d || h! > 23 || mi! > 59 || s! > 59) {
    r.fail(r.at(name), "expected a UTC time as YYYY-MM-DDTHH:MM:SSZ");
  }
  const seconds = when.getTime() / 1000;
  if (seconds < 0 || seconds > MAX_TIME) r.fail(r.at(name), "expected a time from 1970 on");
  return seconds;
}

/** An abandonment record from its JSON value; MalformedInput names the path, as gin does. */
export function parseValue(value: PyJson): AbandonmentRecord {
  const r: Reader = new Reader(value, "record", "abandonment record");
  const pairs = openEnvelope(r, FORMAT, FORMAT_VERSION, FIELDS);
  const owed: Reader = r.child("owed").only(["seat", "what"]);
  const what = owed.get("what");
  if (typeof what !== "string" || !OWED.has(what)) owed.fail(owed.at("what"), `expected one of ${[...OWED.keys()].join(", ")}`);
  const received = r.child("received").only(["messages", "digest"]);
  const scores = r.get("scores");
  if (!Array.isArray(scores) || scores.length !== 2) r.fail(r.at("scores"), "expected [host, guest]");
  // The fields in gin's order of reading them.
  const record = new AbandonmentRecord({
    matchId: r.hex("match_id", cosign.MATCH_ID_BYTES),
    ...readBinding(r, pairs),
    handNumber: r.integer("hand", 0, MAX_HAND_NUMBER),
    owedSeat: owed.integer("seat", 0, 1),
    owed: what,
    since: time(r, "since"),
    claimed: time(r, "claimed"),
    received: received.integer("messages", 0, 2 ** 32),
    receivedDigest: received.hex("digest", 32),
    scores: [r.integerAt(scores[0], r.at("scores[0]"), 0, MAX_SCORE), r.integerAt(scores[1], r.at("scores[1]"), 0, MAX_SCORE)],
    claimant: r.integer("claimant", 0, 1),
    signature: r.hex("signature", cosign.SIGNATURE_BYTES),
  });
  if (record.claimant === record.owedSeat) r.fail(r.at("claimant"), "the claimant is the seat that owed");
  if (record.claimed < record.since) r.fail(r.at("claimed"), "earlier than 'since'");
  return record;
}

/** Parse a record's JSON text under the hand records' limits (size, nesting). */
export function parse(text: string): AbandonmentRecord {
  return parseValue(load(text, "abandonment record: record"));
}
