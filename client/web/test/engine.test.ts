import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BigGin, Card, cardsMask, DECK, Discard, DrawPile, DrawStock, Hand, IllegalAction, Knock, LayOff, MalformedInput,
  Match, maskCards, parseAction, parseCards, Pass, Phase, Ruleset, ruleset, settle, stackedDeck,
} from "../src/engine/index.ts";
import { and, bitCount, highestIndex, lowestIndex, or, xor } from "../src/engine/mask.ts";
import { Rand } from "../src/rand.ts";

test("cards parse in every accepted form and print canonically", () => {
  for (const text of ["Th", "10h", "th", "T♥", "10♥\ufe0f"]) assert.equal(String(Card.parse(text)), "Th");
  assert.equal(Card.parse("Ac").index, 0);
  assert.equal(Card.parse("Ks").index, 51);
  assert.equal(Card.parse("Ks").glyph, "K♠");
  assert.equal(Card.parse("7h").name, "seven of hearts");
  assert.throws(() => Card.parse("1h"), /unknown rank/);
  assert.throws(() => Card.parse("7x"), /unknown suit/);
  assert.throws(() => parseCards("7h, 7h"), /card 2 of .* appears twice/);
  assert.throws(() => parseCards("7h,,8h"), MalformedInput);
});

test("masks of 52 bits: the high half (hearts, spades) works like the low", () => {
  const hand = parseCards("Ac Kd Ah Ks");
  const mask = cardsMask(hand);
  assert.equal(mask, 2 ** 0 + 2 ** 25 + 2 ** 26 + 2 ** 51);
  assert.deepEqual(maskCards(mask).map(String), ["Ac", "Kd", "Ah", "Ks"]);
  assert.equal(bitCount(mask), 4);
  assert.equal(lowestIndex(2 ** 51), 51);
  assert.equal(highestIndex(mask), 51);
  assert.equal(and(mask, 2 ** 26 + 2 ** 30), 2 ** 26);
  assert.equal(xor(mask, 2 ** 51), 2 ** 0 + 2 ** 25 + 2 ** 26);
  assert.equal(or(2 ** 51, 2 ** 51), 2 ** 51);
});

test("rulesets: presets, plain data with gin's names, bad fields named", () => {
  assert.equal(ruleset("oklahoma").knockLimitFor(1), 0);
  assert.equal(ruleset("oklahoma").knockLimitFor(7), 7);
  assert.equal(ruleset("classic").toDict().gin_bonus, 20);
  assert.ok(Ruleset.fromDict(ruleset("classic").toDict()).equals(ruleset("classic")));
  assert.throws(() => Ruleset.fromDict({ knock_limt: 3 }), /no such rule: knock_limt/);
  assert.throws(() => Ruleset.fromDict({ knock_limit: -1 }), /the knock limit must be a whole number from 0 to 10, not -1$/);
  assert.throws(() => Ruleset.fromDict({ shutout: "never" }), /the shutout rule must be double_bonus, double_total or none, not 'never'$/);
  assert.throws(() => ruleset("rummy"), /choose one of standard, classic, oklahoma/);
  const house = ruleset("standard").withOptions({ bigGinBonus: 31 });
  assert.equal(house.name, "custom");
  assert.ok(!house.isPreset && ruleset("classic").isPreset);
  assert.match(house.describe(),
    /^custom rules: the standard rules with 1 change\nknock limit: 10\n.*big gin: 31 \+ deadwood — changed from off/s);
  assert.deepEqual(house.describeLines().filter(([, changed]) => changed).map(([text]) => text),
    ["big gin: 31 + deadwood — changed from off"]);
  assert.equal(ruleset("classic").withOptions({ target: 50 }).nearestPreset().name, "classic");
  assert.throws(() => new Ruleset({ bigGinBonus: 31 }),
    /rules named 'standard' must be the standard rules exactly, but the big gin bonus is 31 \(the standard rules have null\)$/);
  assert.throws(() => Ruleset.fromDict({ dead_stock: 30 }), /the stock left at a dead hand must be a whole number from 0 to 10, not 30$/);
});

test("actions: text forms round-trip", () => {
  for (const text of ["pass", "stock", "take", "discard 7h", "knock 7h", "knock 7h / 5h6h7h / 9c9d9s",
    "biggin", "biggin / AcAdAh", "layoff", "layoff /", "layoff 8h>0 9h>0 / 2c3c4c"]) {
    assert.equal(String(parseAction(text)), text);
  }
  assert.equal(String(parseAction("knock 10h / 8h9h10h")), "knock Th / 8h9hTh");
  assert.throws(() => parseAction("layoff 8h"), /expected CARD>MELD/);
  assert.throws(() => parseAction("jump"), /action 'jump'/);
  assert.throws(() => parseAction("  "), /empty action/);
});

// Non-dealer (player 1 when player 0 deals): a hand that knocks on the first draw.
const NON_DEALER = parseCards("2c 3c 4c 7d 7h 7s Kc Kd 9s Ah");
const DEALER = parseCards("5d 6d 8h 9h Th Jc Qc 3s 4s 8c");

function dealt(stock = parseCards("Ks")): Hand {
  return new Hand(stackedDeck(NON_DEALER, DEALER, Card.parse("Ac"), stock), 0);
}

test("a hand: the upcard flow, then the card just taken cannot be thrown", () => {
  const hand = dealt();
  assert.equal(hand.phase, Phase.UPCARD);
  assert.equal(hand.turn, 1);
  assert.deepEqual(hand.legalActions().map(String), ["take", "pass"]);
  hand.apply(1, new DrawPile());
  assert.equal(hand.refusal(1, new Discard(Card.parse("Ac"))),
    "Ac was just taken from the pile and cannot be thrown now");
  assert.throws(() => hand.apply(1, new Discard(Card.parse("Ac"))), IllegalAction);
  assert.equal(hand.phase, Phase.DISCARD); // unchanged
  assert.equal(hand.refusal(0, new DrawStock()), "it is player 1's turn");
  assert.ok(!hand.legalActions().some((a) => String(a) === "discard Ac"));
});

test("a knock over the limit is refused with the count and the limit", () => {
  const hand = dealt();
  hand.apply(1, new Pass());
  hand.apply(0, new Pass());
  assert.equal(hand.refusal(1, new DrawPile()), "both players passed the upcard: draw from the stock");
  hand.apply(1, new DrawStock());
  assert.equal(hand.refusal(1, new Knock(Card.parse("Ah"))), null);
  assert.equal(hand.refusal(1, new Knock(Card.parse("2c"))),
    "knocking with 2c leaves 17 deadwood; the knock limit is 10");
});

test("a hand to its end: knock, lay-offs, result; the saved hand replays", () => {
  const hand = dealt(parseCards("Ks"));
  hand.apply(1, new Pass());
  hand.apply(0, new Pass());
  hand.apply(1, new DrawStock()); // Ks: three kings
  assert.ok(hand.legalActions().some((a) => String(a) === "knock 9s"));
  hand.apply(1, new Knock(Card.parse("9s")));
  assert.equal(hand.phase, Phase.LAYOFF);
  assert.equal(hand.observation(0).knockMelds!.length, 3);
  assert.equal(hand.observation(0).history.at(-1)!.card, null); // face down to the defender
  hand.apply(0, new LayOff());
  assert.equal(hand.phase, Phase.OVER);
  const result = hand.result!;
  assert.equal(result.knocker, 1);
  assert.equal(hand.observation(0).history.at(-2)!.card, Card.parse("9s")); // shown at the end
  const replayed = Hand.fromDict(JSON.parse(JSON.stringify(hand.toDict())));
  assert.deepEqual(replayed.result!.toDict(), result.toDict());
});

test("settle: a knock, lay-offs chaining along a run, a knock over the limit", () => {
  const gin = settle(parseCards("2c 3c 4c 7d 7h 7s Kc Kd Ks Qs"), parseCards("5c 6c 8h 9h Th Jc Qc 3s 4s 8c"),
    ruleset("standard"), null, 10);
  assert.equal(gin.kind, "knock");
  const outcome = settle(parseCards("2c 3c 4c 7d 7h 7s Kc Kd Ks Ah"), parseCards("5c 6c 8h 9h Th Jc Qc 3s 4s 8c"));
  assert.deepEqual(outcome.laidOff.map(String), ["5c", "6c"]);
  assert.equal(outcome.points, 35 - 1);
  assert.throws(() => settle(parseCards("2c 3c 4c 7d 7h 7s Kc Kd Qs Ah"), parseCards("5d 6d 8h 9h Th Jc Qc 3s 4s 8c")),
    /cannot knock with 31 deadwood: the limit is 10/);
});

test("a match: hands until the target, the dealer alternates, totals at the end", () => {
  const match = new Match(ruleset("standard"), 0);
  const rng = new Rand(7);
  while (!match.over) {
    const hand = match.deal(rng.shuffle([...DECK]));
    while (hand.phase !== Phase.OVER) {
      const legal = match.legalActions();
      const knock = legal.find((a) => a.kind === "knock");
      match.apply(hand.turn, knock ?? legal.find((a) => a.kind === "stock" || a.kind === "pass")
        ?? legal[legal.length - 1]!);
    }
  }
  assert.ok(Math.max(...match.scores) >= 100);
  assert.equal(match.totals!.totals[match.totals!.winner],
    match.scores[match.totals!.winner] + match.totals!.gameBonus[match.totals!.winner]!
      + match.totals!.boxBonus[match.totals!.winner]!);
  const restored = Match.fromDict(JSON.parse(JSON.stringify(match.toDict())));
  assert.deepEqual(restored.scores, match.scores);
  assert.throws(() => match.deal([...DECK]), /the match is over/);
});

test("an online copy: the opponent's hidden cards block a knock or big gin until revealed", () => {
  const deck: (Card | null)[] = stackedDeck(NON_DEALER, DEALER, Card.parse("Ac"), parseCards("Ks"));
  for (let pos = 0; pos < 20; pos += 2) deck[pos] = null; // the non-dealer's cards are unknown here
  const hand = new Hand(deck, 0, ruleset("standard").withOptions({ bigGinBonus: 31 }));
  assert.equal(hand.hiddenCount(1), 10);
  hand.apply(1, new Pass());
  hand.apply(0, new Pass());
  hand.apply(1, new DrawStock());
  assert.equal(hand.refusal(1, new BigGin()), "the knocker's cards must all be revealed");
  assert.equal(hand.refusal(1, new Knock(Card.parse("Ks"))), "the knocker's cards must all be revealed");
  assert.deepEqual(hand.legalActions().map(String), ["discard Ks"]); // only the known card
  NON_DEALER.forEach((card, i) => hand.reveal(2 * i, card));
  assert.equal(hand.refusal(1, new Knock(Card.parse("9s"))), null);
  assert.throws(() => hand.reveal(0, Card.parse("Qh")), /position 0 holds 2c, not Qh/);
});

test("the knocker's hand is face up for the defender while laying off, as in gin/", () => {
  const hand = dealt();
  hand.apply(1, new Pass());
  hand.apply(0, new Pass());
  hand.apply(1, new DrawStock());
  assert.equal(hand.observation(0).opponentHand, null); // nothing shows before the knock
  hand.apply(1, new Knock(Card.parse("Ah")));
  const defender = hand.observation(0);
  assert.equal(defender.phase, Phase.LAYOFF);
  assert.deepEqual(defender.opponentHand?.map(String).sort(),
    hand.observation(1).hand.map(String).sort());
  assert.ok(defender.knockMelds !== null);
  // The knocker does not see the defender's hand until the hand is over.
  assert.equal(hand.observation(1).opponentHand, null);
  hand.apply(0, new LayOff());
  assert.notEqual(hand.observation(1).opponentHand, null);
});
