// Silence has a name (protocol.md §10.3): the abandonment record in TypeScript — §13's
// vectors, a session whose peer falls silent, the audit's verdicts and the strict reader.
// The conformance corpus compares records, refusals and audits with gin/ case by case.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { IllegalAction, MalformedInput, PeerFault } from "../src/engine/errors.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { get } from "../src/players/index.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { AbandonmentRecord, check, isoTime, parse } from "../src/protocol/records/abandonment.ts";
import { auditRecords } from "../src/protocol/records/audit.ts";
import * as cosign from "../src/protocol/records/cosign.ts";
import { parseFile } from "../src/protocol/records/evidence.ts";
import * as msgpack from "../src/protocol/wire/msgpack.ts";
import { Session } from "../src/protocol/session/session.ts";
import { pump } from "../src/protocol/session/local.ts";
import { Abandoned, MatchOver } from "../src/protocol/session/events.ts";
import { STATE_LIMITS } from "../scripts/session_checks.ts";
import { range, vector } from "./protocol_vectors.ts";

const SINCE = 1_796_198_400; // 2026-12-02 08:00:00 UTC
const HOST = new cosign.Signer(range(32, 64));
const GUEST = new cosign.Signer(range(64, 96));
const LITERAL = /```abandonment\n(.*)\n```/.exec(
  readFileSync(new URL("../../../protocol.md", import.meta.url), "utf8"))![1]!;

const VECTOR = new AbandonmentRecord({
  matchId: hexToBytes(vector("session_match_id")), linkId: hexToBytes(vector("session_link_id")),
  signingKeys: [HOST.public, GUEST.public],
  identities: [hexToBytes(vector("session_host_identity")), hexToBytes(vector("session_guest_identity"))],
  vouches: [hexToBytes(vector("session_host_vouch")), hexToBytes(vector("session_guest_vouch"))], previous: null,
  handNumber: 3, owedSeat: 1, owed: "seed", since: SINCE,
  claimed: SINCE + 300, received: 40, receivedDigest: range(96, 128), scores: [45, 30], claimant: 0,
}).signed((digest) => HOST.sign(digest));

test("abandonment vectors: the signed fields, the digest and the host's signature byte for byte", () => {
  const fields = VECTOR.toDict();
  delete fields.signature;
  assert.equal(cosign.canonicalJson(fields), LITERAL);
  assert.equal(bytesToHex(VECTOR.digest()), vector("abandonment_digest"));
  assert.equal(bytesToHex(VECTOR.signature), vector("abandonment_signature_host"));
  assert.deepEqual(check(VECTOR), []);
  assert.equal(VECTOR.words(), "abandoned by the guest: it owed its seed for hand 3 since 2026-12-02 08:00:00 UTC; "
    + "the host ended the match at 08:05:00 (after 300 s). This is the host's signed word: not a cheat, and not "
    + "proven (the guest may have withheld it, or the relay dropped it)");
  assert.equal(isoTime(SINCE), "2026-12-02T08:00:00Z");
});

/** A match whose host never moves: the guest plays while it can, then waits on the host. */
function silentHost(): [Session, Session] {
  let n = 0;
  const bytes = (n2: number): Uint8Array => Uint8Array.from({ length: n2 }, () => (n = (n * 31 + 7) % 251));
  const host = new Session("host", range(0, 32), STANDARD, bytes, range(128, 160));
  const guest = new Session("guest", range(0, 32), null, bytes, range(160, 192));
  pump(host, guest);
  const player = get("easy");
  while (guest.legalActions().length) { // the guest plays until it waits on the host
    guest.act(player.choose(guest.observation()!, guest.legalActions()));
    pump(host, guest);
  }
  return [host, guest];
}

test("a silent peer: the waiting side ends the match as abandoned by it, signed, replayed on restore", () => {
  const [host, guest] = silentHost();
  assert.equal(guest.waitingFor(), "move");
  guest.abandon(SINCE, SINCE + 900);
  const failure = guest.failure;
  assert.ok(failure instanceof Abandoned && !failure.proven && failure.who === "host" && failure.field === "move");
  assert.ok(!guest.events().some((e) => e instanceof MatchOver)); // no forfeit
  const record = failure.record!;
  assert.equal(record.claimant, 1);
  assert.equal(record.received, guest.received);
  assert.deepEqual(check(record), []);
  assert.match(failure.reason, /^Abandoned by the host: it owed its move for hand 1 since 2026-12-02 08:00:00 UTC/);
  assert.throws(() => guest.abandon(SINCE, SINCE + 901), PeerFault); // sticky
  const state = msgpack.decode(msgpack.encode(guest.toState()), STATE_LIMITS) as Map<string, msgpack.Value>;
  const back = Session.fromState(range(0, 32), state, () => new Uint8Array(32).fill(9), range(160, 192));
  assert.ok(back.failure instanceof Abandoned && back.failure.record !== null);
  assert.equal(back.failure.record.toJson(), record.toJson());
  // The host owes nothing (it is its move): it cannot claim the guest abandoned.
  assert.throws(() => host.abandon(SINCE, SINCE + 1), (e: unknown) => e instanceof IllegalAction
    && /owes nothing now \(it is your move\)/.test(e.message));
  assert.throws(() => host.abandon(SINCE + 1, SINCE), MalformedInput);
});

test("the audit: a claim, never verified; a forgery fails by name; junk is not a record", () => {
  const [result] = auditRecords([parseFile(VECTOR.toJson()) as AbandonmentRecord]);
  assert.ok(result!.ok);
  assert.deepEqual(result!.unproven, ["that the guest fell silent: only the host says so"]);
  const forged = auditRecords([VECTOR.with({ claimed: SINCE + 301 })])[0]!;
  assert.deepEqual(forged.findings.map(String), ["signature: the host's signature does not sign this record (at fault: record)"]);
  const stranger = auditRecords([VECTOR.with({ matchId: new Uint8Array(16) })])[0]!;
  assert.deepEqual(stranger.findings.map((f) => f.where), ["match_id"]);
  assert.throws(() => parse("{\"format\": \"gin-abandonment\"}"), /abandonment record: record.version: missing$/);
  assert.throws(() => parse("[".repeat(65)), /abandonment record: record: not JSON \(more than 64 arrays/);
  const data = JSON.parse(VECTOR.toJson()) as Record<string, unknown>;
  data.since = "0099-06-01T00:00:00Z"; // not 1999: JavaScript's Date.UTC would read it so
  assert.throws(() => parseFile(JSON.stringify(data)), /record.since: expected a time from 1970 on/);
});

test("an abandonment record that repeats a key is refused in its own words, not a hand record's (issue 26)", () => {
  // parseFile read a text that its strict reader refused as a hand record's text.
  const good = VECTOR.toJson();
  for (const [old, repeated] of [['"hand": ', '"hand": 0, "hand": '], ['"what": ', '"what": "seed", "what": '],
    ['"format": ', '"format": "gin-hand-record", "format": ']]) {
    const spoiled = good.replace(old!, repeated!);
    const place = spoiled.indexOf(repeated!) + repeated!.length - old!.length;
    assert.throws(() => parseFile(spoiled), (exc: unknown) => exc instanceof MalformedInput
      && exc.message === `abandonment record: record: not JSON (a key repeats in its object (char ${place}))`, repeated);
  }
  assert.throws(() => parseFile(good.slice(0, -3)), /: hand record: not JSON \(expecting/);
});
