// A rematch on the same link (protocol.md §7.1), the twin of
// tests/gin/protocol/test_session_rematch.py: a new session whose hello names the match
// just finished, dealt first by its loser, its records chained to it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { STANDARD } from "../src/engine/rules.ts";
import { get } from "../src/players/index.ts";
import { auditRecords } from "../src/protocol/records/audit.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import { place } from "../src/protocol/records/history.ts";
import type { HandRecord } from "../src/protocol/records/records.ts";
import { Session } from "../src/protocol/session/session.ts";
import type { SessionEvent } from "../src/protocol/session/events.ts";
import { playLocal, pump } from "../src/protocol/session/local.ts";
import { PreviousMatch } from "../src/protocol/session/rematch.ts";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i);
const HOST_ID = new Uint8Array(32).fill(104);
const GUEST_ID = new Uint8Array(32).fill(103);
const SHORT = STANDARD.withOptions({ name: "short", target: 10 });

function source(seed: number): (n: number) => Uint8Array {
  let x = seed;
  return (n) => Uint8Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x >> 16) & 0xff || 1;
  });
}

function pair(seed: number, hostPrev: PreviousMatch | null = null, guestPrev: PreviousMatch | null = null,
  guestRules: typeof SHORT | null = null): [Session, Session] {
  return [new Session("host", SECRET, SHORT, source(seed), HOST_ID, hostPrev),
    new Session("guest", SECRET, guestRules, source(seed + 1000), GUEST_ID, guestPrev)];
}

/** Play the match out; the host's events. */
function play(host: Session, guest: Session): SessionEvent[] {
  playLocal(host, guest, [get("easy", 0), get("easy", 1)]);
  assert.ok(host.failure === null && guest.failure === null && host.over && guest.over);
  return host.events();
}

const records = (events: SessionEvent[]): HandRecord[] =>
  events.flatMap((e) => (e.kind === "HandVerified" ? [e.record] : []));

test("a rematch is offered, accepted, dealt first by the loser, and its records continue the match before", () => {
  const [oldHost, oldGuest] = pair(1);
  const first = play(oldHost, oldGuest);
  const over = first.find((e) => e.kind === "MatchOver");
  assert.ok(over !== undefined && over.kind === "MatchOver" && over.totals !== null);
  const previous = oldHost.asPrevious();
  assert.ok(previous !== null && previous.equals(oldGuest.asPrevious()));
  assert.equal(previous.loser, 1 - over.winner);
  const [host, guest] = pair(3, previous, oldGuest.asPrevious(), oldGuest.rules);
  pump(host, guest);
  const offered = guest.events().filter((e) => e.kind === "RulesOffered");
  assert.equal(offered.length, 1);
  assert.ok(offered[0]!.kind === "RulesOffered" && offered[0]!.rematch);
  assert.equal(guest.waitingFor(), null);
  guest.acceptRules();
  pump(host, guest);
  const started = host.events().find((e) => e.kind === "MatchStarted");
  assert.ok(started !== undefined && started.kind === "MatchStarted" && started.firstDealer === previous.loser);
  const second = play(host, guest);
  assert.notEqual(bytesToHex(host.matchId!), bytesToHex(previous.matchId));
  const all = [...records(first), ...records(second)];
  assert.ok(records(second).every((r) => r.previous !== null && bytesToHex(r.previous) === bytesToHex(previous.matchId)));
  assert.ok(records(first).every((r) => r.previous === null));
  assert.ok(auditRecords(all).every((result) => result.ok));
  assert.equal(place(all).size, 0); // one history of the link, not a conflict
});

test("a wrong prev is the host's protocol error; a rematch this gin did not play is refused in words", () => {
  const [oldHost, oldGuest] = pair(5);
  play(oldHost, oldGuest);
  const mine = oldGuest.asPrevious()!;
  let [host, guest] = pair(7, new PreviousMatch(new Uint8Array(16), mine.loser), mine);
  pump(host, guest);
  assert.ok(guest.failure !== null && guest.failure.kind === "ProtocolError" && guest.failure.proven);
  assert.equal(guest.failure.field, "hello.prev");
  assert.equal(host.failure?.kind, "PeerAborted");
  [host, guest] = pair(9, mine, null);
  pump(host, guest);
  assert.ok(guest.failure !== null && guest.failure.kind === "RulesDeclined" && !guest.failure.proven);
  assert.equal(guest.failure.reason, "your friend offers a rematch of a match this gin did not play");
  [host, guest] = pair(11, mine, mine);
  pump(host, guest);
  guest.declineRules();
  const mineSaid = guest.events().filter((e) => e.kind === "RematchDeclined");
  pump(host, guest);
  // A normal end of the series (issue 28): no failure on either side, nobody at fault.
  assert.ok(guest.failure === null && host.failure === null && guest.over && host.over);
  assert.ok(guest.declined && host.declined && guest.waitingFor() === null && host.waitingFor() === null);
  assert.deepEqual(mineSaid.map((e) => e.kind === "RematchDeclined" && [e.by, e.reason]), [["guest", "you declined the rematch"]]);
  assert.equal(host.asPrevious(), null);
  for (const [side, id] of [[host, HOST_ID], [guest, GUEST_ID]] as const) { // still so once restored from its save
    const again = Session.fromState(SECRET, side.toState(), source(19), id);
    assert.ok(again.over && again.declined && again.failure === null);
  }
});

test("the finished session's late frames do not break the rematch; the rematch survives a restart", () => {
  const [oldHost, oldGuest] = pair(13);
  play(oldHost, oldGuest);
  let [host, guest] = pair(15, oldHost.asPrevious(), oldGuest.asPrevious());
  pump(host, guest);
  for (const frame of oldHost.resend()) guest.receive(frame);
  guest = Session.fromState(SECRET, guest.toState(), source(17), GUEST_ID);
  assert.ok(guest.rematch !== null && guest.rematch.equals(oldGuest.asPrevious()) && guest.rulesOffered !== null);
  for (const frame of host.resend()) guest.receive(frame);
  pump(host, guest);
  guest.acceptRules();
  pump(host, guest);
  for (const frame of oldGuest.resend()) host.receive(frame);
  play(host, guest);
  assert.equal(new Session("host", SECRET, SHORT, source(19), HOST_ID).asPrevious(), null);
  assert.throws(() => new PreviousMatch(new Uint8Array(3), 0));
});
