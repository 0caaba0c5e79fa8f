// Identities (protocol.md §4, §7.1, §9): one identity cannot sit in both seats, a match
// minted on a real link is a conflict beside the real one, and the browser keeps its
// identity key and its known friends (online/identity.ts).
import assert from "node:assert/strict";
import { test } from "node:test";

import { sha256 } from "@noble/hashes/sha2.js";

import { STANDARD } from "../src/engine/rules.ts";
import { get } from "../src/players/index.ts";
import { auditRecords } from "../src/protocol/records/audit.ts";
import { fingerprint, Identity, identitiesText } from "../src/protocol/records/identity.ts";
import type { HandRecord } from "../src/protocol/records/records.ts";
import { Session } from "../src/protocol/session/session.ts";
import { playLocal, pump } from "../src/protocol/session/local.ts";
import { describeFriend, loadIdentity, meetFriend } from "../src/online/identity.ts";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => 64 + i);
const SHORT = STANDARD.withOptions({ name: "short", target: 30 });

function source(label: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 32) out.set(sha256(new TextEncoder().encode(`${label}/${counter++}`)).subarray(0, n - i), i);
    return out;
  };
}

const key = (fill: number): Uint8Array => new Uint8Array(32).fill(fill);

test("one identity cannot play both seats: the host refuses the welcome (welcome.id)", () => {
  const host = new Session("host", SECRET, STANDARD, source("h"), key(1));
  const guest = new Session("guest", SECRET, null, source("g"), key(1));
  pump(host, guest);
  assert.equal(host.failure?.kind, "ProtocolError");
  assert.equal(host.failure?.who, "guest");
  assert.equal(host.failure?.field, "welcome.id");
  assert.equal(guest.observation(), null);
});

function match(guestKey: Uint8Array, tag: string): HandRecord[] {
  const host = new Session("host", SECRET, SHORT, source(`h${tag}`), key(1));
  const guest = new Session("guest", SECRET, null, source(`g${tag}`), guestKey);
  playLocal(host, guest, [get("normal", 1), get("normal", 2)]);
  assert.deepEqual(host.identities, guest.identities);
  return host.events().flatMap((e) => (e.kind === "HandVerified" ? [e.record] : []));
}

test("a match minted on a real link verifies alone and is a conflict beside the real one", () => {
  const real = match(key(2), "real");
  const minted = match(key(3), "minted"); // the host holds the link and plays both seats
  for (const records of [real, minted]) assert.ok(auditRecords(records).every((r) => r.ok && !r.unproven.length));
  const results = auditRecords([...real, ...minted]);
  assert.ok(results.every((r) => !r.ok));
  for (const result of results) {
    assert.equal(result.findings.length, 1);
    assert.equal(result.findings[0]!.where, "link");
    assert.match(result.findings[0]!.detail, /do not form one history: .* both begin it; at most one is the real match$/);
  }
  const [a, c] = [new Identity(key(1)).public, new Identity(key(3)).public];
  assert.equal(identitiesText(minted[0]!.identities),
    `identities: host ${fingerprint(a)} (${Buffer.from(a).toString("hex")}), guest ${fingerprint(c)} (${Buffer.from(c).toString("hex")})`);
});

class MemoryStorage implements Storage {
  readonly items = new Map<string, string>();
  get length(): number { return this.items.size; }
  key(i: number): string | null { return [...this.items.keys()][i] ?? null; }
  getItem(k: string): string | null { return this.items.get(k) ?? null; }
  setItem(k: string, value: string): void { this.items.set(k, value); }
  removeItem(k: string): void { this.items.delete(k); }
  clear(): void { this.items.clear(); }
}

test("the browser's identity key is made once and kept; a damaged one is set aside and said", () => {
  const storage = new MemoryStorage();
  let draws = 0;
  const random = (n: number): Uint8Array => { draws++; return new Uint8Array(n).fill(draws); };
  const first = loadIdentity(storage, random, () => 7);
  assert.equal(first.warning, null);
  assert.deepEqual(loadIdentity(storage, random, () => 7).secret, first.secret);
  assert.equal(draws, 1);
  storage.setItem("gin-identity", "{not json");
  const second = loadIdentity(storage, random, () => 7);
  assert.equal(draws, 2);
  assert.notDeepEqual(second.secret, first.secret);
  assert.match(second.warning!, /moved to gin-identity\.damaged-7\. A new identity key was made: your friends will see a new identity\.$/);
  assert.equal(storage.getItem("gin-identity.damaged-7"), "{not json");
});

test("known friends: new, then known, and a changed identity on a link is said plainly", () => {
  const storage = new MemoryStorage();
  const alice = { hex: "a".repeat(64), words: "acorn actor album anchor ankle" };
  const mallory = { hex: "b".repeat(64), words: "zebra zipper yogurt wolf wizard" };
  const met = meetFriend(storage, "01".repeat(16), alice, "10".repeat(16));
  assert.deepEqual(met, { friend: { words: alice.words, matches: 0, was: null }, warnings: [] });
  assert.equal(describeFriend(met.friend), `your friend: ${alice.words} (new: you have not played this identity before)`);
  assert.equal(meetFriend(storage, "01".repeat(16), alice, "10".repeat(16)).friend.matches, 0); // the same match again
  assert.equal(describeFriend(meetFriend(storage, "02".repeat(16), alice, "11".repeat(16)).friend),
    `your friend: ${alice.words} (known: 1 match before)`);
  const changed = meetFriend(storage, "01".repeat(16), mallory, "12".repeat(16)).friend;
  assert.equal(describeFriend(changed), `your friend's identity on this link changed: was ${alice.words}, now `
    + `${mallory.words}; someone else may hold this link`);
  storage.setItem("gin-friends", JSON.stringify({ format: 1, links: { x: 5 }, seen: {} }));
  const again = meetFriend(storage, "01".repeat(16), alice, "13".repeat(16), () => 9);
  assert.equal(again.friend.matches, 0);
  assert.match(again.warnings[0]!, /damaged; they were moved to gin-friends\.damaged-9\. Your known friends start again/);
});
