import assert from "node:assert/strict";
import { test } from "node:test";

import { Card, DECK, DrawStock, Hand, MalformedInput, parseCards, Pass, Phase, stackedDeck } from "../src/engine/index.ts";
import { get, hint, NAMES } from "../src/players/index.ts";
import { fixed0 } from "../src/players/hard.ts";
import { Rand } from "../src/rand.ts";

const NON_DEALER = parseCards("2c 3c 4c 7d 7h 7s Kc Kd 9s Ah");
const DEALER = parseCards("5d 6d 8h 9h Th Jc Qc 3s 4s 8c");

function afterDraw(): Hand {
  const hand = new Hand(stackedDeck(NON_DEALER, DEALER, Card.parse("Ac"), parseCards("Qh")), 0);
  hand.apply(1, new Pass());
  hand.apply(0, new Pass());
  hand.apply(1, new DrawStock()); // Qh: 2c3c4c, three sevens, Kc Kd Qh 9s Ah loose
  return hand;
}

test("players by name; a bad name or seed is refused at once", () => {
  for (const name of NAMES) assert.equal(get(name, 5).name, name);
  assert.equal(get(" Hard ").name, "hard");
  assert.throws(() => get("expert"), MalformedInput);
  assert.throws(() => get("hard", 2 ** 32), RangeError);
});

test("easy throws its costliest loose card; the hint explains a move", () => {
  const hand = afterDraw();
  const obs = hand.observation(1);
  const legal = hand.legalActions();
  assert.equal(String(get("easy").choose(obs, legal)), "discard Kd"); // king before queen, diamonds after clubs
  const advice = hint(obs, legal);
  assert.ok(legal.some((a) => String(a) === String(advice.action)));
  assert.match(advice.reason, /^Throw the .+ deadwood left\)\.$/);
});

test("every player picks a legal action at every turn of a whole hand, the same for the same seed", () => {
  for (const name of NAMES) {
    const play = (seed: number): string[] => {
      const hand = new Hand(new Rand(11).shuffle([...DECK]), 1);
      const players = [get(name, seed), get(name, seed + 1)];
      const chosen: string[] = [];
      while (hand.phase !== Phase.OVER) {
        const legal = hand.legalActions();
        const action = players[hand.turn]!.choose(hand.observation(hand.turn), legal);
        assert.equal(hand.refusal(hand.turn, action), null, `${name}: ${action}`);
        chosen.push(String(action));
        hand.apply(hand.turn, action);
      }
      return chosen;
    };
    assert.deepEqual(play(3), play(3));
  }
});

test("reasons round numbers as Python does: half to even", () => {
  assert.deepEqual([2.5, 3.5, -2.5, 0.5, -0.4, 44.49].map(fixed0), ["2", "4", "-2", "0", "-0", "44"]);
});
