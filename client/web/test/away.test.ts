// What an online player away from the page is told (src/board/away.ts): the tab's
// title on their move, and the notifications for each change of the peer's view.
import assert from "node:assert/strict";
import { test } from "node:test";

import { awayNews, awayTitle, type AwayView, YOUR_MOVE_TITLE } from "../src/board/away.ts";
import type { FailureView } from "../src/online/api.ts";

const NOBODY = { mine: "maple otter pebble quilt robin", friend: null, friendText: null, changed: false };
const FRIEND = { ...NOBODY, friend: "lemon harbor violin tulip kayak" };
const base: AwayView = {
  legal: [], connection: "waiting", role: "host", observation: null, over: false, failure: null,
  identity: NOBODY, rulesOffered: null, rematch: false, waitingFor: "welcome", rematchWanted: false,
};
const dealt = { phase: "upcard" }; // only its presence is read
const failure = (kind: string): FailureView => ({ kind, who: "guest", field: "", reason: "", proven: false });

test("the title says your move only while the page is hidden on your move", () => {
  const mine = { ...base, connection: "connected" as const, observation: dealt, legal: ["pass", "take"] };
  assert.equal(YOUR_MOVE_TITLE, "● Your move — Gin Rummy");
  assert.equal(awayTitle(mine, true, "Gin Rummy"), YOUR_MOVE_TITLE);
  assert.equal(awayTitle(mine, false, "Gin Rummy"), "Gin Rummy");
  assert.equal(awayTitle({ ...mine, legal: [] }, true, "Gin Rummy"), "Gin Rummy");
  assert.equal(awayTitle({ ...mine, failure: failure("CheatDetected") }, true, "Gin Rummy"), "Gin Rummy");
});

test("a host is told the friend joined, then that it is their move, once each", () => {
  const joined = { ...base, connection: "connected" as const, identity: FRIEND, waitingFor: null };
  assert.deepEqual(awayNews({ ...base, connection: "connecting" }, base), []); // the page opens
  assert.deepEqual(awayNews(base, joined), ["Your friend joined"]);
  const mine = { ...joined, observation: dealt, legal: ["pass", "take"] };
  assert.deepEqual(awayNews(joined, mine), ["Your move"]);
  assert.deepEqual(awayNews(mine, { ...mine, legal: ["take"] }), []); // still your move: said once
  assert.deepEqual(awayNews(mine, { ...mine, legal: [] }), []);
});

test("the friend leaving, and coming back, is said; this side reconnecting is not", () => {
  const playing = { ...base, connection: "connected" as const, identity: FRIEND, observation: dealt };
  const left = { ...playing, connection: "peer-left" as const };
  assert.deepEqual(awayNews(playing, left), ["Your friend is away — waiting for them to come back"]);
  const gone = { ...playing, connection: "peer-gone" as const };
  assert.deepEqual(awayNews(left, gone), []); // the same absence
  assert.deepEqual(awayNews(playing, gone), ["Your friend left — waiting in case they come back"]);
  assert.deepEqual(awayNews(gone, playing), ["Your friend is back"]);
  const reconnecting = { ...playing, connection: "reconnecting" as const };
  assert.deepEqual(awayNews(playing, reconnecting), []);
  assert.deepEqual(awayNews(reconnecting, playing), []);
  // A friend who leaves the match for good ends it: that is said, another failure is not.
  assert.deepEqual(awayNews(playing, { ...playing, failure: failure("LeftOwing") }), ["Your friend left the match"]);
  assert.deepEqual(awayNews(playing, { ...playing, failure: failure("PeerAborted") }), ["Your friend ended the match"]);
  assert.deepEqual(awayNews(playing, { ...playing, failure: failure("CheatDetected") }), []);
});

test("the friend's rematch offer is said once", () => {
  const over = { ...base, role: "guest" as const, connection: "connected" as const, identity: FRIEND, over: true };
  const offer = { ...over, over: false, rematch: true, rulesOffered: { name: "standard" }, waitingFor: null };
  assert.deepEqual(awayNews(over, offer), ["Your friend offers a rematch: accept or decline"]);
  assert.deepEqual(awayNews(offer, offer), []);
  // Custom rules offered before a first match are not a rematch.
  assert.deepEqual(awayNews(over, { ...offer, rematch: false }), []);
});
