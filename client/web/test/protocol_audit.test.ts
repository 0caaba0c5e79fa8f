// The keys each step reveals (reveals.ts, replayed on stacked decks as
// tests/gin/protocol/test_reveals.py does: big gin is rare in play) and what the audit says
// of records the conformance corpus does not hold: an unsigned hand, keys out of
// place in a hand that is no game. The corpus compares the audit of whole matches'
// records, honest and tampered, with gin's finding for finding.
import assert from "node:assert/strict";
import { test } from "node:test";

import { type Action, BigGin, Discard, DrawPile, DrawStock, Knock, LayOff, Pass } from "../src/engine/actions.ts";
import { Card, parseCards } from "../src/engine/cards.ts";
import { dealtPositions, Hand, stackedDeck, UPCARD_POSITION } from "../src/engine/hand.ts";
import { STANDARD } from "../src/engine/rules.ts";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { auditRecord, Finding } from "../src/protocol/records/audit.ts";
import * as fd from "../src/protocol/deal/fairdeal.ts";
import { HandRecord, Score, Step } from "../src/protocol/records/records.ts";
import { Reveals } from "../src/protocol/records/reveals.ts";
import { range } from "./protocol_vectors.ts";

const NON_DEALER = "2c 3c 4c 5c 6c 5d 5h 5s 7s 8s"; // with the upcard 9s: eleven melded
const DEALER = "Ac Ad As 7h 8h 9h Th Kd Qh Jd";
const card = (text: string): Card => Card.parse(text);

/** A hand and its Reveals, fed steps the way a record lists them. */
class Replay {
  readonly hand: Hand;
  readonly reveals: Reveals;

  constructor(upcard: string, stock = "") {
    const deck = stackedDeck(parseCards(NON_DEALER), parseCards(DEALER), card(upcard), parseCards(stock));
    this.hand = new Hand(deck, 1, STANDARD.withOptions({ bigGinBonus: 31 }));
    this.reveals = new Reveals(this.hand);
  }

  step(seat: number, action: Action | null, ...positions: number[]): string | null {
    const step = new Step(seat, action, positions.map((p) => [p, 1n] as const)); // values: the fair deal's to check
    const why = this.reveals.refusal(step);
    if (why === null && action !== null) {
      this.hand.apply(seat, action);
      this.reveals.applied(step);
    }
    return why;
  }

  deal(): void {
    // Each seat sends its keys for the other's ten cards and the upcard.
    assert.equal(this.step(1, null, ...dealtPositions(false), UPCARD_POSITION), null);
    assert.equal(this.step(0, null, ...dealtPositions(true), UPCARD_POSITION), null);
  }

  held(seat: number): number[] {
    const cards = new Set(this.hand.cards(seat));
    return Array.from({ length: 52 }, (_, p) => p).filter((p) => cards.has(this.hand.cardAt(p)!));
  }
}

test("big gin reveals every card not yet opened, then the defender shows", () => {
  const r = new Replay("9s");
  r.deal();
  assert.equal(r.step(0, new DrawPile()), null); // the upcard: both hold its keys already
  const mine = r.held(0).filter((p) => p !== UPCARD_POSITION);
  assert.equal(mine.length, 10);
  assert.equal(r.step(0, new BigGin(), ...mine.slice(0, -1)),
    `host's biggin should reveal the keys for positions ${mine.join(", ")}, not for positions ${mine.slice(0, -1).join(", ")}`);
  assert.equal(r.step(0, new BigGin(), ...mine), null);
  assert.equal(r.hand.result?.kind, "big_gin");
  assert.match(r.reveals.missing() ?? "", /^guest's show of the cards it holds is missing/);
  assert.equal(r.step(1, null, ...r.held(1)), null);
  assert.equal(r.reveals.missing(), null);
});

test("stock answers and discard keys", () => {
  const r = new Replay("Kc", "Qs Js Ts");
  r.deal();
  assert.equal(r.step(0, new Pass()), null);
  assert.equal(r.step(1, new Pass()), null);
  assert.equal(r.step(0, new DrawStock()), null);
  assert.equal(r.step(0, new Discard(card("Qs"))), // the key answer comes first
    "the key of the card host drew should come here: guest's keys for position 21");
  assert.notEqual(r.step(0, null, 21), null); // the drawer cannot answer itself
  assert.equal(r.step(1, null, 21), null);
  assert.notEqual(r.step(0, new Discard(card("Qs"))), null); // its own key must come along
  assert.equal(r.step(0, new Discard(card("Qs")), 21), null);
  assert.notEqual(r.step(1, new DrawPile(), 21), null); // taking is public: no keys
  assert.equal(r.step(1, new DrawPile()), null);
  const kd = r.held(1).find((p) => r.hand.cardAt(p) === card("Kd"))!;
  assert.equal(kd % 2, 1); // a card dealt to the dealer: its own key was never sent
  assert.notEqual(r.step(1, new Discard(card("Kd"))), null);
  assert.equal(r.step(1, new Discard(card("Kd")), kd), null);
  assert.equal(r.step(0, new DrawPile()), null);
  const eight = r.held(0).find((p) => r.hand.cardAt(p) === card("8s"))!;
  assert.equal(r.step(0, new Discard(card("8s")), eight), null);
  assert.equal(r.step(1, new DrawStock()), null);
  assert.equal(r.step(0, null, 22), null);
  assert.equal(r.step(1, new Discard(card("Js")), 22), null);
  assert.equal(r.step(0, new DrawStock()), null);
  assert.equal(r.step(1, null, 23), null);
  // The non-dealer gave its key for Kd's position at the deal: none goes again.
  assert.notEqual(r.step(0, new Discard(card("Kd")), kd), null);
  assert.equal(r.step(0, new Discard(card("Kd"))), null);
});

test("a knock carries exactly the unopened cards, then the defender's show comes first", () => {
  const r = new Replay("Ah"); // 2c-6c run, 5d5h5s, loose 7s 8s Ah: knock 8s leaves 7s + Ah = 8
  r.deal();
  assert.equal(r.step(0, new DrawPile()), null);
  const mine = r.held(0).filter((p) => p !== UPCARD_POSITION);
  assert.notEqual(r.step(0, new Knock(card("8s")), ...mine, UPCARD_POSITION), null);
  assert.equal(r.step(0, new Knock(card("8s")), ...mine), null);
  assert.notEqual(r.step(0, new LayOff()), null);
  assert.notEqual(r.step(1, null, ...r.held(1).slice(0, -1)), null);
  assert.equal(r.step(1, null, ...r.held(1)), null);
  assert.equal(r.step(1, new LayOff()), null);
  assert.notEqual(r.hand.result, null);
  assert.equal(r.reveals.missing(), null);
});

test("keys where the protocol sends none, and deal keys that never came", () => {
  const r = new Replay("Kc");
  assert.equal(r.step(0, new Pass()), "host and guest's deal keys should come before the first move");
  assert.equal(r.reveals.missing(), "host and guest's deal keys are missing");
  assert.match(r.step(0, null, 0) ?? "", /^host's deal keys should be for positions 1, 3, .*, 19, 20$/);
  r.deal();
  assert.equal(r.step(1, null, 30), "guest reveals keys where the protocol sends none");
});

/** A whole hand played from two seeds, its record unsigned (as a session audits it before signing). */
function playedRecord(): HandRecord {
  const [first, second] = [fd.SeedMaterial.fromSeed(range(0, 32)), fd.SeedMaterial.fromSeed(range(32, 64))];
  const matchId = utf8ToBytes("audit-test");
  const m1 = fd.buildMessage1(first);
  const [m2, proof] = fd.buildMessage2(second, m1, fd.context(matchId, 1));
  const deck = fd.deckOrder(first.permutation, second.permutation).map((c) => Card.fromIndex(c));
  const hand = new Hand(deck, 0, STANDARD);
  const reveals = new Reveals(hand);
  const material = [first, second]; // the dealer (host) shuffles first
  const keyed = (seat: number, positions: Iterable<number>): [number, bigint][] =>
    [...positions].sort((a, b) => a - b).map((p) => [p, material[seat]!.positionKeys[p]!]);
  const steps: Step[] = [];
  const add = (step: Step): void => {
    assert.equal(reveals.refusal(step), null);
    if (step.action !== null) {
      hand.apply(step.seat, step.action);
      reveals.applied(step);
    }
    steps.push(step);
  };
  add(new Step(1, null, keyed(1, [...dealtPositions(true), UPCARD_POSITION])));
  add(new Step(0, null, keyed(0, [...dealtPositions(false), UPCARD_POSITION])));
  const given: [Set<number>, Set<number>] = [new Set(steps[1]!.keys.map(([p]) => p)), new Set(steps[0]!.keys.map(([p]) => p))];
  const positionOf = (c: Card): number => deck.indexOf(c);
  // Both pass, then each draws from the stock and throws what it drew, until the hand is dead.
  add(new Step(1, new Pass()));
  add(new Step(0, new Pass()));
  while (hand.result === null) {
    const seat = hand.turn;
    add(new Step(seat, new DrawStock()));
    const drawn = hand.nextStockPosition - 1;
    add(new Step(1 - seat, null, keyed(1 - seat, [drawn])));
    given[1 - seat].add(drawn);
    const throwCard = deck[drawn]!;
    const p = positionOf(throwCard);
    add(new Step(seat, new Discard(throwCard), given[seat].has(p) ? [] : keyed(seat, [p])));
    given[seat].add(p);
  }
  return new HandRecord({
    rules: STANDARD, matchId, handNumber: 1, dealer: 0,
    commitments: [fd.commitment(first.seed, matchId, 1, "first"), fd.commitment(second.seed, matchId, 1, "second")],
    messages: [m1, m2, fd.buildMessage3(first, m2)], proof: fd.proofDigest(proof), steps, seeds: [first.seed, second.seed],
    score: Score.of(hand.result), scores: [0, 0],
  });
}

const PLAYED = playedRecord();

test("an unsigned hand audits clean but says it is not signed yet; a player trusts its own messages", () => {
  assert.equal(PLAYED.score.kind, "dead");
  const result = auditRecord(PLAYED, 0);
  assert.ok(result.ok && result.findings.length === 0);
  assert.deepEqual(result.unproven, ["the hand is not signed yet"]);
});

test("a finding names who, where and why, as gin's str(Finding)", () => {
  const wrong = PLAYED.with({ score: new Score("knock", 0, 0, 5) });
  const result = auditRecord(wrong, 1);
  assert.deepEqual(result.findings.map(String),
    ["result: recorded host 5 by knock, the replay gives a dead hand (at fault: record)"]);
  assert.deepEqual(result.findings.map((f) => f.who), ["record"]);
  const bad = new Finding("guest", "message2[3]", "x");
  assert.equal(String(bad), "message2[3]: x (at fault: guest)");
});
