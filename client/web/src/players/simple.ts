/**
 * The research baseline: OpenSpiel's SimpleGinRummyBot, decision for decision, as
 * gin/players/simple.py reproduces it (see that module for the bot's rules and
 * where the project's rules make it choose otherwise).
 *
 * The bot numbers cards with suits spades, clubs, diamonds, hearts; its "best meld
 * group" is the first group its search meets with the most melded points.
 */

import { type Action, Discard, DrawPile, Knock, LayOff } from "../engine/actions.ts";
import { Card, cardsMask, maskCards } from "../engine/cards.ts";
import { andNot, bitCount, bits, fromSuits, indices, type Mask, meets, or, suitBits, union, xor } from "../engine/mask.ts";
import { arrangeMask, maskValue, type Meld } from "../engine/melds.ts";
import { type Observation, Phase } from "../engine/observation.ts";
import { drawOrPass, isLegal } from "./easy.ts";
import { bitIndex } from "./evaluate.ts";

/** A hand mask in the bot's numbering (suits spades, clubs, diamonds, hearts). */
function oursToBot(mask: Mask): Mask {
  return fromSuits(suitBits(mask, 3), suitBits(mask, 0), suitBits(mask, 1), suitBits(mask, 2));
}

function botToOurs(mask: Mask): Mask {
  return fromSuits(suitBits(mask, 1), suitBits(mask, 2), suitBits(mask, 3), suitBits(mask, 0));
}

function cardValue(card: number): number {
  return Math.min((card % 13) + 1, 10);
}

type BotMeld = readonly [mask: Mask, points: number];

/** The bot's melds of `cards` (its numbering, ascending), in the order its search lists them. */
function meldList(cards: readonly number[]): BotMeld[] {
  const melds: number[][] = [];
  const byRank = [...cards].sort((a, b) => (a % 13) - (b % 13) || a - b);
  const n = byRank.length;
  for (let i = 0; i < n - 3; i++) {
    if (byRank[i]! % 13 === byRank[i + 3]! % 13) {
      const [a, b, c, d] = byRank.slice(i, i + 4) as [number, number, number, number];
      melds.push([a, b, c, d], [a, b, d], [a, c, d]);
    }
  }
  for (let i = 0; i < n - 2; i++) {
    if (byRank[i]! % 13 === byRank[i + 2]! % 13) melds.push(byRank.slice(i, i + 3));
  }
  const bySuit = [...cards].sort((a, b) => a - b);
  for (const length of [5, 4, 3]) {
    for (let i = 0; i < n - length + 1; i++) {
      const low = bySuit[i]!;
      const high = bySuit[i + length - 1]!;
      if (low === high - (length - 1) && Math.floor(low / 13) === Math.floor(high / 13)) {
        melds.push(bySuit.slice(i, i + length));
      }
    }
  }
  return melds.map((meld) => [meld.reduce((m, c) => m + 2 ** c, 0), meld.reduce((p, c) => p + cardValue(c), 0)]);
}

const GROUPS = new Map<Mask, Mask[]>();

/** The bot's best meld group of a hand (our mask), as masks of our numbering. */
export function bestGroup(mask: Mask): Mask[] {
  const cached = GROUPS.get(mask);
  if (cached !== undefined) return cached;
  const target = maskValue(mask) - arrangeMask(mask).deadwood; // the most points melded
  const melds = meldList(indices(oursToBot(mask)));

  const search = (options: readonly BotMeld[], value: number): Mask[] | null => {
    if (value === target) return []; // no meld fits beside a group of the most points
    if (value + maskValue(union(options.map((o) => o[0]))) < target) return null;
    for (const [meld, points] of options) {
      const rest = options.filter((o) => !meets(o[0], meld));
      const found = search(rest, value + points);
      if (found !== null) return [meld, ...found];
    }
    return null;
  };

  const group = search(melds, 0);
  if (group === null) throw new Error("the exact search's optimum is one of the bot's groups");
  const ours = group.map(botToOurs);
  if (GROUPS.size > 4096) GROUPS.clear();
  GROUPS.set(mask, ours);
  return ours;
}

/** The bot's card order for loose cards: rank, then suit spades < clubs < diamonds < hearts. */
function rankOrder(bit: Mask): [number, number] {
  const index = bitIndex(oursToBot(bit));
  return [index % 13, index];
}

function rankOrderAbove(a: Mask, b: Mask): boolean {
  const [ra, ia] = rankOrder(a);
  const [rb, ib] = rankOrder(b);
  return ra > rb || (ra === rb && ia > ib);
}

/** The bot's card order (its hand is listed by card number). */
function cardOrder(bit: Mask): number {
  return bitIndex(oursToBot(bit));
}

/** The loose cards of the bot's best meld group. */
export function loose(mask: Mask): Mask {
  return andNot(mask, union(bestGroup(mask)));
}

/** The bot's deadwood count: its best group's loose cards, less the highest-ranked
 * one for an eleven-card hand. */
export function deadwoodCount(mask: Mask): number {
  let cards = loose(mask);
  if (bitCount(mask) === 11 && cards) cards = xor(cards, highestRanked(bits(cards)));
  return maskValue(cards);
}

function highestRanked(candidates: readonly Mask[]): Mask {
  let best = candidates[0]!;
  for (const bit of candidates.slice(1)) if (rankOrderAbove(bit, best)) best = bit;
  return best;
}

function melds(group: readonly Mask[]): Meld[] {
  return group.map(maskCards);
}

/** OpenSpiel's SimpleGinRummyBot. Deterministic. */
export class SimplePlayer {
  readonly name = "simple";

  choose(obs: Observation, legal: readonly Action[]): Action {
    const hand = cardsMask(obs.hand);
    if (obs.phase === Phase.LAYOFF) return new LayOff([], melds(bestGroup(hand)));
    if (obs.phase !== Phase.DISCARD) return this.draw(obs, legal, hand);
    return this.discard(obs, legal, hand);
  }

  private draw(obs: Observation, legal: readonly Action[], hand: Mask): Action {
    const top = obs.topOfPile;
    if (top !== null && isLegal(new DrawPile(), legal)) {
      const eleven = or(hand, top.mask);
      if (deadwoodCount(eleven) <= obs.knockLimit || !meets(loose(eleven), top.mask)) return new DrawPile();
    }
    return drawOrPass(legal, false);
  }

  private discard(obs: Observation, legal: readonly Action[], hand: Mask): Action {
    const banned = obs.justTaken !== null ? obs.justTaken.mask : 0;
    const free = loose(hand);
    const throwable = bits(hand).filter((b) => b !== banned);
    const candidates = bits(free).filter((b) => b !== banned);
    let card: Mask;
    let group: Mask[];
    let left: number;
    if (candidates.length) {
      card = highestRanked(candidates);
      group = bestGroup(hand);
      left = maskValue(xor(free, card));
    } else {
      const gin = throwable.filter((b) => !arrangeMask(hand - b).deadwood);
      if (gin.length) {
        card = gin.reduce((a, b) => (cardOrder(b) < cardOrder(a) ? b : a));
      } else { // only the banned card is loose: least deadwood, first in card order
        const key = (b: Mask) => [arrangeMask(hand - b).deadwood, cardOrder(b)] as const;
        card = throwable.reduce((a, b) => {
          const [da, oa] = key(a);
          const [db, ob] = key(b);
          return db < da || (db === da && ob < oa) ? b : a;
        });
      }
      group = bestGroup(hand - card);
      left = maskValue(hand - card) - group.reduce((sum, m) => sum + maskValue(m), 0);
    }
    const chosen = Card.fromIndex(bitIndex(card));
    if (deadwoodCount(hand) <= obs.knockLimit && left <= obs.knockLimit && isLegal(new Knock(chosen), legal)) {
      return new Knock(chosen, melds(group));
    }
    return new Discard(chosen);
  }
}
