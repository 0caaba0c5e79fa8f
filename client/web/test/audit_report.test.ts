// What gin audit prints, from the TypeScript twin the board shows (the corpus holds
// it to gin's text case by case), on records of a match two TS sessions play; and
// the board's replay of a verified hand, move by move through the engine.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Card } from "../src/engine/cards.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { get } from "../src/players/index.ts";
import { auditReport, type Given, reportData } from "../src/protocol/records/audit_report.ts";
import { FAILED, NOT_A_RECORD, UNPROVEN, VERIFIED } from "../src/protocol/records/audit_text.ts";
import type { HandRecord } from "../src/protocol/records/records.ts";
import { Session } from "../src/protocol/session/session.ts";
import { playLocal } from "../src/protocol/session/local.ts";
import { replayFrames } from "../src/board/replay.ts";
import { howToPlay } from "../src/board/words.ts";

/** A deterministic stand-in for a secure source (tests only). */
function source(seed: number): (n: number) => Uint8Array {
  let x = seed;
  return (n) => Uint8Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x >> 16) & 0xff || 1;
  });
}

/** The first two hands of a match (the first hand won does not end it). */
function twoHands(): [HandRecord, HandRecord] {
  const secret = Uint8Array.from({ length: 32 }, (_, i) => i);
  const host = new Session("host", secret, STANDARD.withOptions({ name: "short", target: 60 }), source(21),
    new Uint8Array(32).fill(104)); // each player's identity seed
  const guest = new Session("guest", secret, null, source(22), new Uint8Array(32).fill(103));
  playLocal(host, guest, [get("easy", 1), get("easy", 2)]);
  const records = host.events().flatMap((e) => (e.kind === "HandVerified" ? [e.record] : []));
  assert.ok(records.length >= 2, "the match lasts two hands");
  return [records[0]!, records[1]!];
}

const [first, second] = twoHands();
const file = (name: string, text: string): Given => ({ name, data: new TextEncoder().encode(text) });

test("a hand verified, a later hand alone not proven, both together proven", () => {
  const one = auditReport([file("1.json", first.toJson())]);
  assert.equal(one.status, VERIFIED);
  const lines = one.lines();
  assert.equal(lines[0], "1.json:");
  assert.match(lines[1]!, /^identities: host .*, guest /);
  assert.match(lines[2]!, /^Hand 1 of match [0-9a-f]{32} \(short rules\); (host|guest) deals and shuffles first$/);
  assert.ok(lines.some((l) => /^ {2}(host|guest) is dealt( [2-9TJQKA][cdhs]){10}$/.test(l)));
  assert.ok(lines.some((l) => l.startsWith("  result: ")));
  assert.equal(lines.at(-1), "verified");
  assert.deepEqual(one.lines(true), ["1.json:", lines[1], "verified"]);

  const alone = auditReport([file("2.json", second.toJson())]);
  assert.equal(alone.status, UNPROVEN);
  assert.deepEqual(alone.lines(true).slice(0, 3), ["2.json:", lines[1], "verified, except what these records cannot prove:"]);
  assert.ok(alone.lines().some((l) => l.endsWith(" (not verified: see below)")));
  assert.equal(auditReport([file("2.json", second.toJson()), file("1.json", first.toJson())]).status, VERIFIED);
});

test("a tampered record fails, naming where; what is no record is an error line", () => {
  const data = first.toDict() as { scores: number[] };
  data.scores = [0, 99];
  const bad = auditReport([file("bad.json", JSON.stringify(data))]);
  assert.equal(bad.status, FAILED);
  assert.ok(bad.lines(true).some((l) => l.startsWith("FAILED scores: recorded host 0, guest 99")));
  assert.ok(!bad.lines().includes("verified"));

  const mixed = auditReport([file("junk.json", '{"format": "gin-hand-record"}'),
    { name: "gone.json", data: null, unreadable: "NotFoundError" }, file("1.json", first.toJson())]);
  assert.equal(mixed.status, NOT_A_RECORD);
  assert.deepEqual(mixed.errors, ["gin audit: junk.json: hand record: record.version: missing",
    "gin audit: gone.json: cannot read: NotFoundError"]);
  assert.deepEqual(mixed.lines(true).filter((l) => !l.startsWith("identities: ")), ["1.json:", "verified"]);
});

test("the report as data replays the verified hand through the engine, move by move", () => {
  const data = reportData(auditReport([file("1.json", first.toJson()), file("x.json", "[]")]));
  assert.equal(data.errors.length, 1);
  const [one] = data.files;
  assert.ok(one !== undefined && one.hand !== null && one.status === VERIFIED && one.deck.length === 52);
  assert.deepEqual(one.verdict.slice(1), ["verified"]); // after the identities
  const frames = replayFrames(one.hand, one.deck.map((i) => Card.fromIndex(i)), true);
  assert.equal(frames.length, one.hand.moves.length + 1);
  // The deal: ten cards each, the upcard on the pile, 31 in the stock.
  assert.deepEqual(frames[0]!.hands.map((h) => h.length), [10, 10]);
  assert.equal(frames[0]!.pile.length, 1);
  assert.equal(frames[0]!.stock, 31);
  // Each move is told in gin audit's words, the same lines the report numbers.
  const told = one.lines.filter((l) => /^ {2}[ \d]{3}\. /.test(l)).map((l) => l.slice(7));
  assert.deepEqual(frames.slice(1).flatMap((f) => f.said.filter((s) => /^(host|guest) /.test(s)
    && !/ (lays out|goes gin|lays down big gin:|lays off) /.test(s))), told);
  const last = frames.at(-1)!;
  assert.ok(last.result !== null && frames.slice(0, -1).every((f) => f.result === null));
  assert.ok(last.said.some((s) => s.startsWith("result: ")));
  assert.ok(last.said.at(-1)!.startsWith("match scores after the hand: ") && !last.said.at(-1)!.includes("not verified"));
  // Both hands change as the moves are made.
  assert.notDeepEqual(frames[0]!.hands, last.hands);
});

test("How to play says records can be checked here, with nothing installed and nothing sent", () => {
  const text = howToPlay(STANDARD).flatMap((s) => s.paragraphs).join("\n");
  assert.match(text, /Check records .* checks hand records here as gin audit does, with nothing to install/);
  assert.match(text, /nothing is sent anywhere/);
});
