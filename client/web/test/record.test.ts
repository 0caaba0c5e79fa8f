// Your record (src/board/record.ts): the same numbers as client/record.py on the
// shared fixture, a match recorded when a local match ends, a damaged record set aside.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Game } from "../src/board/game.ts";
import { OnlineGame } from "../src/board/online.ts";
import type { OnlinePeer, PeerNotice, PeerView } from "../src/online/api.ts";
import { FakePeer } from "./web/fake_peer.ts";
import { friendKey, opponentLabel, parse, RECORD_KEY, RecordBook, summarize, type TextStore } from "../src/board/record.ts";
import { STANDARD } from "../src/engine/rules.ts";
import * as players from "../src/players/index.ts";
import { failureLines, failureTitle } from "../src/board/words.ts";

class MemoryStore implements TextStore {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null { return this.items.get(key) ?? null; }
  setItem(key: string, value: string): void { this.items.set(key, value); }
  removeItem(key: string): void { this.items.delete(key); }
}

test("the shared fixture summarizes as client/record.py does", () => {
  const data = JSON.parse(readFileSync(new URL("../../../tests/fixtures/record.json", import.meta.url), "utf8"));
  assert.deepEqual(summarize(parse(data)), data.summary);
});

test("a finished local match is added to the record", () => {
  const store = new MemoryStore();
  const me = players.get("normal", 7);
  for (const seed of [1, 2]) {
    const game = new Game(STANDARD.withOptions({ target: 10 }), "hard", store, seed);
    while (!game.match.over) {
      if (game.match.hand?.phase === "over") game.nextHand();
      else if (game.opponentToMove) game.applyOpponent(game.opponentMove());
      else game.play(me.choose(game.observation(), game.legal()));
    }
    assert.deepEqual(game.takeWarnings(), []);
  }
  const { matches, problem } = new RecordBook(store).load();
  assert.equal(problem, "");
  assert.equal(matches.length, 2);
  assert.deepEqual(summarize(matches).opponents.map((o) => [o.opponent, o.matches]), [["computer:hard", 2]]);
});

test("a damaged record is set aside and said", () => {
  const store = new MemoryStore();
  store.setItem(RECORD_KEY, "{not json");
  const { matches, problem } = new RecordBook(store).load();
  assert.deepEqual(matches, []);
  assert.match(problem, /Your record in this browser was damaged .*set aside/);
  assert.equal(store.getItem(`${RECORD_KEY}.damaged`), "{not json");
  assert.equal(store.getItem(RECORD_KEY), null);
});

/** A peer whose views the test sends. */
class ToldPeer implements OnlinePeer {
  listener: ((view: PeerView, notices: readonly PeerNotice[]) => void) | null = null;
  constructor(public view: PeerView) {}
  subscribe(listener: (view: PeerView, notices: readonly PeerNotice[]) => void): void {
    this.listener = listener;
    listener(this.view, []);
  }
  act(): void {}
  acceptRules(): void {}
  declineRules(): void {}
  keepWaiting(): void {}
  abandon(): void {}
  rematch(): void {}
  leave(): void {}
}

test("an online match is recorded when it ends, the friend known by its identity's words", () => {
  const fake = new FakePeer("guest", "http://relay/j/R#s", null, { seed: 9 });
  fake.arrive();
  const peer = new ToldPeer(fake.view());
  const store = new MemoryStore();
  const game = new OnlineGame(peer, null, store);
  const link = "ab".repeat(32);
  const record = (hand: number, result: object, failed = false) => (
    { hand, name: `gin-x-hand-0${hand}.json`, json: JSON.stringify({ result, link }), failed });
  const records = [ // the link's records: an earlier match's hand, this match's, a failed one's evidence
    record(1, { kind: "knock", knocker: 0, winner: 0, points: 12 }),
    record(1, { kind: "gin", knocker: 1, winner: 1, points: 30 }),
    record(2, { kind: "undercut", knocker: 0, winner: 1, points: 35 }),
    record(3, { kind: "knock", knocker: 0, winner: 0, points: 5 }, true), // failed: not a hand played out
    { hand: 4, name: "odd.json", json: "not json", failed: false },
  ];
  // The hands counted are this match's (the view's results), not every record of the link (issue 28).
  const results = [{ kind: "gin", knocker: 1, winner: 1, points: 30, outcome: null },
    { kind: "undercut", knocker: 0, winner: 1, points: 35, outcome: null }] as const;
  peer.listener!({ ...peer.view, records, results, over: true }, [{ kind: "match-over", winner: 1, forfeitBy: "host" }]);
  const { matches } = new RecordBook(store).load();
  assert.equal(matches.length, 1);
  const entry = matches[0]!;
  assert.equal(entry.opponent, "friend:lemon harbor violin tulip kayak"); // the fake peer's friend
  assert.equal(entry.won, true); // this page is the guest, seat 1
  assert.deepEqual(entry.hands, [
    { kind: "gin", knocker: 0, winner: 0, points: 30 }, { kind: "undercut", knocker: 1, winner: 0, points: 35 }]);
  assert.equal(entry.totals, null); // forfeited
  assert.deepEqual(game.takeWarnings(), []);
  assert.equal(summarize(matches).opponents[0]!.label, "Friend (lemon harbor violin tulip kayak)");
});

test("a friend is keyed by its identity's words, by the link's id while none is known", () => {
  assert.equal(friendKey("maple otter pebble quilt robin", "ab".repeat(16)), "friend:maple otter pebble quilt robin");
  assert.equal(friendKey(null, "ab".repeat(16)), `friend:${"ab".repeat(8)}`);
  assert.equal(opponentLabel("friend:maple otter pebble quilt robin"), "Friend (maple otter pebble quilt robin)");
  assert.equal(opponentLabel(`friend:${"ab".repeat(8)}`), "Friend (link abababab)");
  assert.equal(opponentLabel("computer:hard"), "Computer (hard)");
});

test("a friend that claims you left while it owed its move is recorded as leaving, never 'abandoned by you'", () => {
  const fake = new FakePeer("guest", "http://relay/j/R#s", null, { seed: 9 });
  fake.arrive();
  const peer = new ToldPeer(fake.view());
  const store = new MemoryStore();
  const game = new OnlineGame(peer, null, store);
  const failure = { kind: "LeftOwing", who: "host", field: "move", proven: false,
    reason: "the host left the match while the next message was its own (move); it claimed you had gone silent, saying: bye" };
  peer.listener!({ ...peer.view, failure }, [{ kind: "failed", failure }]);
  const { matches } = new RecordBook(store).load();
  assert.deepEqual(matches.map((m) => m.abandoned), ["friend"]);
  assert.equal(failureTitle(failure), "Your friend left the match");
  assert.match(failureLines(failure).join(" "), /counts as abandoned by your friend\. Not a cheat/);
  assert.deepEqual(game.takeWarnings(), []);
});
