// The board's online match without a page: OnlineGame over a peer's views (the
// fake peer of test/web, and a peer that never answers), and the online words.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DrawStock, Knock, Pass } from "../src/engine/actions.ts";
import { Card, parseCards } from "../src/engine/cards.ts";
import { IllegalAction } from "../src/engine/errors.ts";
import { stackedDeck } from "../src/engine/hand.ts";
import { Match } from "../src/engine/match.ts";
import { Phase } from "../src/engine/observation.ts";
import { STANDARD } from "../src/engine/rules.ts";
import type { OnlinePeer, Owed, PeerNotice, PeerView } from "../src/online/api.ts";
import { onlyThisComputer, onlyThisNetwork } from "../src/board/friend.ts";
import { FRIEND, OnlineGame } from "../src/board/online.ts";
import {
  connectionWords, declinedWords, describe, explainResult, failureLines, failureTitle, gameLine, originWords, pageState, shortName, statusWords, THEM,
  turnWords,
} from "../src/board/words.ts";
import { FakePeer } from "./web/fake_peer.ts";

test("a guest's game shows seat 1's cards and the peer's legal actions, parsed", () => {
  const peer = new FakePeer("guest", "http://relay/j/R#s", null, { seed: 9 });
  const game = new OnlineGame(peer);
  assert.equal(game.observation(), null);
  assert.deepEqual(game.legal(), []);
  assert.equal(game.opponentLabel(), "Your friend (host)");
  peer.arrive();
  const obs = game.observation()!;
  assert.equal(obs.player, 1);
  assert.deepEqual(obs.hand.map(String), peer.match!.observation(1).hand.map(String));
  assert.equal(game.rules!.name, "standard");
});

test("a move is sent as its text; a refused one never reaches the peer", () => {
  const peer = new FakePeer("host", "http://relay/j/R#s", { name: "standard" }, { seed: 4 });
  const game = new OnlineGame(peer);
  peer.arrive(); // the guest deals the first hand: the host is offered the upcard
  assert.equal(game.observation()!.phase, Phase.UPCARD);
  assert.throws(() => game.play(new DrawStock()), (e: Error) => e instanceof IllegalAction && /not allowed now/.test(e.message));
  assert.deepEqual(peer.sent, []);
  game.play(new Pass());
  assert.deepEqual(peer.sent, ["pass"]);
});

test("a knock over the limit is refused with the count the throw leaves; a legal one goes with its melds", () => {
  // After the draw of the Q♣: throwing it leaves 6 (a knock); throwing the K♣ leaves 16.
  const match = new Match(STANDARD, 1);
  match.deal(stackedDeck(parseCards("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad"),
    parseCards("5h 4d 9c 9d 9s 6c 7d 8s Ts Jh"), Card.parse("Jd"), parseCards("Qc")));
  match.apply(0, new Pass());
  match.apply(1, new Pass());
  match.apply(0, new DrawStock());
  const view: PeerView = {
    role: "host", seat: 0, connection: "connected", link: null, rules: STANDARD.toDict(), rulesOffered: null,
    observation: match.observation(0).toDict(), legal: match.legalActions().map(String), waitingFor: null,
    scores: [0, 0], results: [], verified: [], records: [], over: false, failure: null,
    identity: { mine: null, friend: null, friendText: null, changed: false },
    rematch: false, rematchWanted: false, matches: 0,
  };
  const peer = new SilentPeer(view);
  const game = new OnlineGame(peer);
  assert.equal(game.refusal(new Knock(Card.parse("Kc"))), "knocking with Kc leaves 16 deadwood; the knock limit is 10");
  assert.deepEqual([...game.knockCounts()].map(([c, n]) => `${c}=${n}`), ["Qc=6"]);
  const melds = [parseCards("4s 4c 4h"), parseCards("Kc Kd Ks Kh")];
  game.play(new Knock(Card.parse("Qc"), melds));
  assert.deepEqual(peer.sent, ["knock Qc / 4s4c4h / KcKdKsKh"]);
});

/** A peer that takes moves and never answers (until told). */
class SilentPeer implements OnlinePeer {
  listener: ((view: PeerView, notices: readonly PeerNotice[]) => void) | null = null;
  sent: string[] = [];
  constructor(public view: PeerView) {}
  subscribe(listener: (view: PeerView, notices: readonly PeerNotice[]) => void): void {
    this.listener = listener;
    listener(this.view, []);
  }
  act(action: string): void { this.sent.push(action); }
  acceptRules(): void {}
  declineRules(): void {}
  keepWaiting(): void {}
  abandon(): void {}
  rematch(): void {}
  leave(): void {}
}

test("after a move is sent, nothing more is offered until the peer answers", () => {
  const peer = new FakePeer("host", "http://relay/j/R#s", { name: "standard" }, { seed: 4 });
  peer.arrive();
  const silent = new SilentPeer(peer.view());
  const game = new OnlineGame(silent, { name: "easy", choose: (_o, legal) => legal[0]! });
  assert.ok(game.legal().length > 0);
  assert.ok(game.automatic() !== null && game.automatic()!.opponent === false);
  game.play(new Pass());
  assert.deepEqual(silent.sent, ["pass"]);
  assert.deepEqual(game.legal(), []); // no second move (nor a bot's) while the first is in flight
  assert.equal(game.automatic(), null);
  assert.equal(game.holdUp(), "Sending your move…");
  silent.listener!({ ...silent.view, legal: [], waitingFor: "key" }, []);
  assert.equal(game.holdUp(), "Waiting for your friend's device to send the key to your card…");
  silent.listener!({ ...silent.view, legal: [], waitingFor: "key", connection: "reconnecting" }, []);
  assert.equal(game.holdUp(),
    "Waiting for your friend's device to send the key to your card… (connection lost — reconnecting…)");
  silent.listener!(silent.view, []);
  silent.listener!(silent.view, [{ kind: "notice", text: "refused: pass" }]);
  assert.ok(game.legal().length > 0); // refused: the player may move again
  assert.deepEqual(game.takeWarnings(), ["refused: pass"]);
});

test("the connection, whose move, the page's state and a failure in words", () => {
  assert.equal(connectionWords("waiting", "host", false), "Waiting for your friend to open the link");
  assert.equal(connectionWords("waiting", "guest", false), "Waiting for your friend, the host");
  assert.equal(connectionWords("waiting", "guest", true), "Your friend is away — waiting for them to come back");
  // One vocabulary: "away" while the relay keeps the friend's seat, "left" once it gave it up.
  assert.equal(connectionWords("peer-left", "host", true), "Your friend is away — waiting for them to come back");
  assert.equal(connectionWords("peer-gone", "host", true), "Your friend left — waiting in case they come back");
  assert.equal(connectionWords("reconnecting", "host", true), "Connection lost — reconnecting…");
  const nobody = { mine: null, friend: null, friendText: null, changed: false };
  const ended = { connection: "closed" as const, role: "guest" as const, observation: {}, identity: nobody };
  assert.equal(statusWords({ ...ended, over: true, failure: null }), "The match is over");
  assert.equal(statusWords({ ...ended, connection: "peer-gone", over: true, failure: null }), "The match is over");
  assert.equal(statusWords({ ...ended, over: false, failure: null }), "Disconnected");
  // A friend met in the handshake who drops before the first deal is away, not yet to come (issue 28).
  const met = { ...nobody, friend: "lemon harbor violin tulip kayak" };
  assert.equal(statusWords({ connection: "waiting", role: "host", observation: null, over: false, failure: null,
    identity: met }), "Your friend is away — waiting for them to come back");
  assert.equal(statusWords({ connection: "waiting", role: "host", observation: null, over: false, failure: null,
    identity: nobody }), "Waiting for your friend to open the link");
  // A declined rematch is a normal end, from either side: nothing failed, nobody is at fault (issue 28).
  assert.match(declinedWords("guest"), /^You declined the rematch, so the matches on this link end here\. Nothing failed and nobody is at fault/);
  assert.match(declinedWords("host"), /^Your friend declined the rematch, so the matches on this link end here\. Nothing failed/);
  assert.equal(pageState({ failure: null, over: true, observation: null, connection: "closed" }), "match-over");
  const base = { legal: [] as string[], waitingFor: null as Owed | null, over: false, failure: null, rulesOffered: null,
    connection: "connected" as const, rematch: false, rematchWanted: false };
  assert.equal(turnWords({ ...base, legal: ["pass"] }), "Your move");
  assert.equal(turnWords({ ...base, waitingFor: "move" }), "Your friend's move");
  assert.equal(turnWords({ ...base, waitingFor: "seed" }), "Waiting for your friend's device to reveal its secret number, to check the deck");
  assert.equal(turnWords({ ...base, over: true }), "The match is over");
  assert.equal(turnWords({ ...base, waitingFor: "move", connection: "reconnecting" }), "");
  // A rematch (protocol.md §7.1): asked for, offered, awaited.
  assert.equal(turnWords({ ...base, over: true, rematchWanted: true }), "Waiting for your friend to accept the rematch");
  assert.equal(turnWords({ ...base, rematch: true, waitingFor: "welcome" }), "Waiting for your friend to accept the rematch");
  assert.equal(turnWords({ ...base, rematch: true, rulesOffered: {} as never }), "Your friend offers a rematch: accept or decline");
  const obs = {};
  assert.equal(pageState({ failure: null, over: false, observation: null, connection: "connected" }), "waiting");
  assert.equal(pageState({ failure: null, over: false, observation: obs, connection: "connected" }), "playing");
  assert.equal(pageState({ failure: null, over: false, observation: obs, connection: "reconnecting" }), "playing");
  assert.equal(pageState({ failure: null, over: false, observation: obs, connection: "peer-left" }), "waiting");
  assert.equal(pageState({ failure: null, over: true, observation: obs, connection: "closed" }), "match-over");
  const failure = { kind: "CheatDetected", who: "guest", field: "seed", reason: "The seed does not match its commitment.", proven: true };
  assert.equal(pageState({ failure, over: true, observation: obs, connection: "closed" }), "failed");
  assert.equal(failureTitle(failure), "Cheating detected");
  assert.deepEqual(failureLines(failure), ["The seed does not match its commitment.", "What failed: seed.",
    "At fault: guest (proven: the match is forfeited)."]);
  assert.deepEqual(failureLines({ ...failure, kind: "PeerTimedOut", who: "guest or the relay", field: "", proven: false }),
    ["The seed does not match its commitment.", "At fault: guest or the relay."]);
});

test("the table's sentences name the friend: the log, the hand's arithmetic, the score line", () => {
  // The host (seat 0) knocks with 6 after the draw of the Q♣; the friend holds 5♥ … J♥.
  const match = new Match(STANDARD, 1);
  match.deal(stackedDeck(parseCards("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad"),
    parseCards("5h 4d 9c 9d 9s 6c 7d 8s Ts Jh"), Card.parse("Jd"), parseCards("Qc")));
  match.apply(0, new Pass());
  match.apply(1, new Pass());
  match.apply(0, new DrawStock());
  match.apply(0, new Knock(Card.parse("Qc")));
  match.apply(1, match.legalActions()[0]!);
  const guest = match.observation(1); // the friend, as the guest's board shows it
  assert.deepEqual(guest.history.map((e) => describe(e, 1, FRIEND)).filter((x) => x !== null),
    ["Your friend passed on the first card.", "Your friend drew from the stock.", "Your friend knocked."]);
  assert.match(explainResult(guest, FRIEND), /^Your friend knocked with 6; you were left with \d+/);
  assert.match(explainResult(match.observation(0), FRIEND), /; your friend was left with \d+/);
  assert.match(gameLine(guest, FRIEND), /^Game: you 0 – \d+ friend\. Hands won: you 0, friend 1\.$/);
  assert.equal(shortName(FRIEND), "Friend");
  assert.equal(shortName(THEM), "Computer");
});

test("an invite link on this computer's loopback address is said to work only here", () => {
  for (const link of ["http://127.0.0.1:8766/j/R#s", "http://localhost:8766/j/R#s", "http://[::1]:8766/j/R#s",
    "http://127.8.0.1/j/R#s"]) assert.equal(onlyThisComputer(link), true, link);
  for (const link of ["http://192.168.1.20:40123/j/R#s", "https://relay.example.org/j/R#s",
    "http://127.0.0.1.example.org/j/R#s", "not a link"]) assert.equal(onlyThisComputer(link), false, link);
  // A local network's address: the invite says the link works only there (as the terminal's does).
  for (const link of ["http://192.168.1.5:8765/j/R#s", "http://10.0.0.7/j/R#s", "http://172.20.1.1/j/R#s",
    "http://192.0.2.2:30300/j/R#s", "http://[fe80::1]:80/j/R#s", "http://[fd12::3]/j/R#s", "http://myhost:8765/j/R#s",
    "http://gin.local/j/R#s"]) assert.equal(onlyThisNetwork(link), true, link);
  for (const link of ["https://relay.example.org/j/R#s", "http://127.0.0.1/j/R#s", "http://172.32.0.1/j/R#s",
    "http://8.8.8.8/j/R#s", "not a link"]) assert.equal(onlyThisNetwork(link), false, link);
});

test("the page names where its code and its relay came from, and what one server for both means (issue 27)", () => {
  const [apart, trustApart] = originWords("https://board.example.org", "https://relay.example.org/gin");
  assert.equal(apart, "Board from board.example.org · relay relay.example.org");
  assert.match(trustApart, /only passes sealed messages: it cannot read or play your hand/);
  const [same, trustSame] = originWords("http://127.0.0.1:8765", "http://127.0.0.1:8765");
  assert.equal(same, "Board from 127.0.0.1:8765 · relay 127.0.0.1:8765: the same server");
  assert.match(trustSame, /could read your hand or play it for you/);
  assert.match(trustSame, /gin web.*Join with a link.*gin join/);
});
