/**
 * Hand evaluation shared by the computer players (gin/players/evaluate.py).
 */

import { type Action, Discard, Knock } from "../engine/actions.ts";
import { type Card, maskCards } from "../engine/cards.ts";
import { layoffClosure } from "../engine/layoffs.ts";
import { andNot, type Mask, popcount32, suitBits } from "../engine/mask.ts";
import {
  allArrangements, arrangeMask, type Arrangement, discardOption, hasOneLayout,
} from "../engine/melds.ts";

const RANK_VALUE = Array.from({ length: 13 }, (_, r) => Math.min(r + 1, 10));

/** The bit index (0..51) of a one-card mask. */
export function bitIndex(bit: Mask): number {
  return bit < 67108864 ? 31 - Math.clz32(bit) : 57 - Math.clz32(bit / 67108864);
}

export function bitValue(bit: Mask): number {
  return RANK_VALUE[bitIndex(bit) % 13]!;
}

/** How many of a rank's four cards (a 13-bit rank bit) a mask holds. */
function rankCount(mask: Mask, rankBit: number): number {
  let n = 0;
  for (let s = 0; s < 4; s++) if (suitBits(mask, s) & rankBit) n++;
  return n;
}

/**
 * How close the loose cards are to melding, given the live cards: over every
 * two-card start of a meld among `loose` and every live card that would complete
 * it, the points that meld would save.
 */
export function potential(loose: Mask, live: Mask): number {
  let total = 0;
  const q = [suitBits(loose, 0), suitBits(loose, 1), suitBits(loose, 2), suitBits(loose, 3)];
  for (let s = 0; s < 4; s++) {
    const sm = q[s]!;
    if (sm & ((sm >>> 1) | (sm >>> 2))) { // two in a row or with a gap
      const alive = suitBits(live, s);
      for (const [points, cards] of suitOuts(sm)) total += points * popcount32(cards & alive);
    }
  }
  const [c, d, h, s] = q as [number, number, number, number];
  let pairs = (c & d) | ((c | d) & (h | s)) | (h & s);
  while (pairs) { // sets: a pair waits for the other cards of its rank
    const rankBit = pairs & -pairs;
    pairs ^= rankBit;
    total += RANK_VALUE[31 - Math.clz32(rankBit)]! * rankCount(loose, rankBit) * rankCount(live, rankBit);
  }
  return total;
}

/**
 * `potential(loose ^ bit, live)` for a card `bit` of `loose`, given
 * `whole === potential(loose, live)`: only the starts with `bit` are lost.
 */
export function potentialWithout(loose: Mask, live: Mask, bit: Mask, whole: number): number {
  const index = bitIndex(bit);
  const rank = index % 13;
  const suit = (index - rank) / 13;
  const alive = suitBits(live, suit);
  for (const [points, cards] of suitLoss(suitBits(loose, suit), rank)) {
    whole -= points * popcount32(cards & alive);
  }
  const rankBit = 1 << rank;
  const held = rankCount(loose, rankBit);
  if (held >= 2) { // the set term, value * held * live, counts from a pair up
    whole -= RANK_VALUE[rank]! * rankCount(live, rankBit) * (held === 2 ? 2 : 1);
  }
  return whole;
}

type Weights = readonly (readonly [number, number])[];
const OUTS = new Map<number, Weights>();
const LOSS = new Map<number, Weights>();

/** The run part of {@link potential} in one suit, as (points, cards) weights. */
function suitOuts(suit: number): Weights {
  let out = OUTS.get(suit);
  if (out === undefined) {
    out = grouped(suitWorth(suit));
    OUTS.set(suit, out);
  }
  return out;
}

/** What {@link suitOuts} of a suit loses with the card of `rank`, in the same form. */
function suitLoss(suit: number, rank: number): Weights {
  const key = (suit << 4) | rank;
  let out = LOSS.get(key);
  if (out === undefined) {
    const lost = suitWorth(suit);
    const after = suitWorth(suit & ~(1 << rank));
    out = grouped(lost.map((points, i) => points - after[i]!));
    LOSS.set(key, out);
  }
  return out;
}

/** By rank, the points a live card of that rank would save in the suit's runs. */
function suitWorth(suit: number): number[] {
  const worth = new Array<number>(13).fill(0);
  for (let rank = 0; rank < 12; rank++) {
    if (((suit >>> rank) & 3) === 3) { // two in a row: either end completes a run
      for (const out of [rank - 1, rank + 2]) {
        if (out >= 0 && out <= 12) worth[out]! += RANK_VALUE[rank]! + RANK_VALUE[rank + 1]!;
      }
    }
    if (rank <= 10 && ((suit >>> rank) & 7) === 5) { // two with a gap: the middle card
      worth[rank + 1]! += RANK_VALUE[rank]! + RANK_VALUE[rank + 2]!;
    }
  }
  return worth;
}

function grouped(worth: number[]): Weights {
  const groups = new Map<number, number>();
  worth.forEach((points, rank) => {
    if (points) groups.set(points, (groups.get(points) ?? 0) | (1 << rank));
  });
  return [...groups.entries()];
}

const PARTNERS = new Map<Mask, (readonly [Mask, Mask])[]>();

/** Every pair of other cards that would make a three-card meld with `bit`. */
export function meldPartners(bit: Mask): readonly (readonly [Mask, Mask])[] {
  let pairs = PARTNERS.get(bit);
  if (pairs !== undefined) return pairs;
  const index = bitIndex(bit);
  const rank = index % 13;
  const base = index - rank;
  const others: Mask[] = [];
  for (let s = 0; s < 4; s++) if (13 * s + rank !== index) others.push(2 ** (13 * s + rank));
  pairs = [[others[0]!, others[1]!], [others[0]!, others[2]!], [others[1]!, others[2]!]];
  for (const lo of [rank - 2, rank - 1, rank]) {
    if (lo >= 0 && lo + 2 <= 12) {
      const run: Mask[] = [];
      for (let r = lo; r < lo + 3; r++) if (r !== rank) run.push(2 ** (base + r));
      pairs.push([run[0]!, run[1]!]);
    }
  }
  PARTNERS.set(bit, pairs);
  return pairs;
}

/** Whether `bit` makes a meld with two cards of `hand` (a cheap test). */
export function meldsWith(bit: Mask, hand: Mask): boolean {
  const index = bitIndex(bit);
  const rank = index % 13;
  const suit = (index - rank) / 13;
  if (rankCount(andNot(hand, bit), 1 << rank) >= 2) return true; // a set
  const sm = suitBits(hand, suit) | (1 << rank);
  return ((((sm & (sm >>> 1) & (sm >>> 2)) << 2) >>> rank) & 7) !== 0; // a run from rank-2..rank
}

/** The legal knock leaving least deadwood, and that deadwood; null when none is legal. */
export function leastKnock(hand: Mask, legal: readonly Action[]): [number, Knock] | null {
  let least: [number, Knock] | null = null;
  for (const action of legal) {
    if (action.kind !== "knock") continue;
    const deadwood = discardOption(hand, action.card.mask).deadwood;
    if (least === null || deadwood < least[0]) least = [deadwood, action];
  }
  return least;
}

/**
 * `knock` with its melds chosen to leave the defender fewest lay-offs, estimated
 * by how many live cards could go onto the melds. `deadwood` is the least the
 * cards kept can leave.
 */
export function declare(hand: Mask, knock: Knock, deadwood: number, live: Mask): [Knock, Arrangement] {
  const rest = hand - knock.card.mask;
  if (hasOneLayout(rest)) return [knock, arrangeMask(rest)];
  const options = allArrangements(rest, deadwood).filter((a) => a.deadwood === deadwood);
  if (options.length <= 1) return [knock, arrangeMask(rest)];
  let chosen = options[0]!;
  let fewest = layoffClosure(live, chosen.meldMasks).length;
  for (const option of options.slice(1)) {
    const n = layoffClosure(live, option.meldMasks).length;
    if (n < fewest) {
      fewest = n;
      chosen = option;
    }
  }
  return [new Knock(knock.card, chosen.meldMasks.map(maskCards)), chosen];
}

/** The legal knock leaving least deadwood, declared by {@link declare}; null when none. */
export function bestKnock(hand: Mask, legal: readonly Action[], live: Mask): [Knock, Arrangement] | null {
  const least = leastKnock(hand, legal);
  return least === null ? null : declare(hand, least[1], least[0], live);
}

/** The cards that may be thrown now. */
export function discards(legal: readonly Action[]): Card[] {
  return legal.filter((a): a is Discard => a instanceof Discard).map((a) => a.card);
}

