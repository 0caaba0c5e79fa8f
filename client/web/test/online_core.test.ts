// The worker's core with the real TS session: two cores play a whole (short) match
// through their replies, one of them restored from its stored state mid-match, as
// a reload does; both keep the same records, in gin audit's JSON.
import assert from "node:assert/strict";
import { test } from "node:test";

import { sha256 } from "@noble/hashes/sha2.js";

import { parseAction } from "../src/engine/actions.ts";
import { Observation } from "../src/engine/observation.ts";
import { Ruleset, STANDARD } from "../src/engine/rules.ts";
import * as players from "../src/players/index.ts";
import { Session } from "../src/protocol/session/session.ts";
import { CheatDetected } from "../src/protocol/session/events.ts";
import type { PeerNotice, RecordView } from "../src/online/api.ts";
import { PeerCore, type SessionMaker } from "../src/online/core.ts";
import type { Snapshot, WorkerReply, WorkerRequest } from "../src/online/messages.ts";

const maker: SessionMaker = {
  create: (role, secret, rules, random, identity, rematch) => new Session(role, secret, rules, random, identity,
    rematch ?? null),
  restore: (secret, state, random, identity) => Session.fromState(secret, state, random, identity),
};
/** Each seat's identity key (any two distinct keys). */
const idOf = (role: string): Uint8Array => new Uint8Array(32).fill(role === "host" ? 104 : 103);
/** Randomness from a label, the same on every run (SHA-256 of label and a counter). */
function seeded(label: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 32) {
      out.set(sha256(new TextEncoder().encode(`${label}/${counter++}`)).subarray(0, n - i), i);
    }
    return out;
  };
}

class Side {
  core: PeerCore;
  snapshot: Snapshot | null = null;
  state: string | null = null;
  readonly records: RecordView[] = [];
  readonly notices: PeerNotice[] = [];
  constructor(readonly outbox: Uint8Array[], label: string, sessions: SessionMaker = maker) {
    this.core = new PeerCore(sessions, seeded(label));
  }
  handle(request: WorkerRequest): void {
    const reply: WorkerReply = this.core.handle(request);
    this.snapshot = reply.snapshot ?? this.snapshot;
    this.state = reply.state ?? this.state;
    this.records.push(...reply.records);
    this.notices.push(...reply.notices);
    this.outbox.push(...reply.frames);
  }
}

/** Both sides move (normal against normal) and trade frames until nothing moves or `stop()`. */
function play(host: Side, toHost: Uint8Array[], guest: Side, toGuest: Uint8Array[], stop: () => boolean): void {
  const bots = [players.get("normal", 3), players.get("normal", 4)];
  for (let step = 0; step < 5000 && !stop(); step++) {
    let moved = false;
    for (const [side, inbox] of [[host, toHost], [guest, toGuest]] as const) {
      while (inbox.length > 0) {
        side.handle({ op: "receive", frame: inbox.shift()! });
        moved = true;
      }
    }
    if (guest.snapshot?.rulesOffered) {
      guest.handle({ op: "accept" });
      continue;
    }
    for (const [seat, side] of [host, guest].entries()) {
      const snap = side.snapshot!;
      if (snap.legal.length === 0) continue;
      const obs = Observation.fromDict(snap.observation);
      side.handle({ op: "act", action: bots[seat]!.choose(obs, snap.legal.map(parseAction)).toString() });
      moved = true;
    }
    if (!moved) break;
  }
}

test("two worker cores play a whole match, one restored mid-match, and keep the same records", () => {
  const secret = seeded("secret")(32);
  const toGuest: Uint8Array[] = [];
  const toHost: Uint8Array[] = [];
  const host = new Side(toGuest, "host");
  const guest = new Side(toHost, "guest");
  const rules = new Ruleset({ ...STANDARD, name: "short", target: 30 });
  host.handle({ op: "start", role: "host", secret, rules: rules.toDict(), identity: idOf("host") });
  guest.handle({ op: "start", role: "guest", secret, rules: null, identity: idOf("guest") });
  let restored = false;
  play(host, toHost, guest, toGuest, () => {
    if (!restored && guest.records.length === 1) {
      // A reload: a new core from the stored state; its offer and unacknowledged messages go again.
      restored = true;
      guest.core = new PeerCore(maker, seeded("restored guest"));
      guest.handle({ op: "restore", secret, state: guest.state!, identity: idOf("guest") });
      assert.equal(guest.snapshot?.role, "guest");
    }
    return false;
  });
  assert.ok(restored, "the guest was restored mid-match");
  assert.ok(host.snapshot!.over && guest.snapshot!.over);
  assert.equal(host.snapshot!.failure, null);
  assert.equal(guest.snapshot!.failure, null);
  assert.ok(host.notices.some((n) => n.kind === "match-over"));
  assert.deepEqual(host.records.map((r) => r.hand), guest.records.map((r) => r.hand));
  const steps = (json: string): unknown => {
    const data = JSON.parse(json) as { steps: unknown[] };
    data.steps = data.steps.map((s) => JSON.stringify(s)).sort();
    return data;
  };
  assert.ok([...host.records, ...guest.records].every((r) => r.failed === false));
  for (const [mine, theirs] of host.records.map((r, i) => [r, guest.records[i]!] as const)) {
    assert.match(mine.name, /^gin-[0-9a-f]{32}-hand-\d{2}\.json$/);
    assert.equal(mine.name, theirs.name);
    assert.deepEqual(steps(mine.json), steps(theirs.json));
  }
});

test("a hand that fails its audit leaves its evidence to download, named -failed as gin names it", () => {
  // The guest's session finds the first hand's audit failed (its event says so, with the record).
  const lying: SessionMaker = {
    create: (role, secret, rules, random, identity) => {
      const session = new Session(role, secret, rules, random, identity);
      const events = session.events.bind(session);
      session.events = () => events().map((event) => (event.kind === "HandVerified" && role === "guest"
        ? new CheatDetected("host", "message2[7]", "the host's message 2 is not its shuffle", event.record)
        : event));
      return session;
    },
    restore: maker.restore,
  };
  const secret = seeded("secret")(32);
  const toGuest: Uint8Array[] = [];
  const toHost: Uint8Array[] = [];
  const host = new Side(toGuest, "host");
  const guest = new Side(toHost, "guest", lying);
  host.handle({ op: "start", role: "host", secret, rules: STANDARD.toDict(), identity: idOf("host") });
  guest.handle({ op: "start", role: "guest", secret, rules: null, identity: idOf("guest") });
  play(host, toHost, guest, toGuest, () => guest.records.length > 0);
  const [evidence] = guest.records;
  assert.equal(evidence?.failed, true);
  assert.match(evidence!.name, /^gin-[0-9a-f]{32}-hand-01-failed\.json$/);
  assert.equal(JSON.parse(evidence!.json).hand, 1);
  const failed = guest.notices.find((n) => n.kind === "failed");
  assert.ok(failed && failed.kind === "failed" && failed.failure.who === "host" && failed.failure.proven);
});

test("after a match both cores build the rematch's sessions; the loser deals, the records chain", () => {
  const secret = seeded("rematch secret")(32);
  const toGuest: Uint8Array[] = [];
  const toHost: Uint8Array[] = [];
  const host = new Side(toGuest, "rematch host");
  const guest = new Side(toHost, "rematch guest");
  const rules = new Ruleset({ ...STANDARD, name: "short", target: 10 });
  host.handle({ op: "start", role: "host", secret, rules: rules.toDict(), identity: idOf("host") });
  guest.handle({ op: "start", role: "guest", secret, rules: null, identity: idOf("guest") });
  play(host, toHost, guest, toGuest, () => false);
  const over = host.notices.find((n) => n.kind === "match-over");
  assert.ok(over !== undefined && over.kind === "match-over" && host.snapshot!.rematchable);
  const first = host.records.length;
  for (const [side, role] of [[guest, "guest"], [host, "host"]] as const) {
    side.handle({ op: "rematch", secret, identity: idOf(role) });
    assert.ok(side.snapshot!.rematch && !side.snapshot!.over);
  }
  guest.handle({ op: "rematch", secret, identity: idOf("guest") }); // not over: refused in words
  assert.equal(guest.notices.at(-1)?.kind, "notice");
  play(host, toHost, guest, toGuest, () => false);
  const started = host.notices.filter((n) => n.kind === "match-started");
  assert.equal(started.length, 2);
  assert.ok(started[1]!.kind === "match-started" && started[1]!.firstDealer === 1 - over.winner);
  assert.ok(host.snapshot!.over && guest.snapshot!.over && host.snapshot!.failure === null);
  const previous = host.records.map((r) => (JSON.parse(r.json) as { previous: string | null }).previous);
  const firstId = host.records[0]!.name.split("-")[1];
  assert.ok(previous.slice(0, first).every((p) => p === null));
  assert.ok(previous.length > first && previous.slice(first).every((p) => p === firstId));
});
