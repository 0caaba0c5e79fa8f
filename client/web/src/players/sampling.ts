/**
 * Hard's guesses at the opponent's hidden cards, and what a knock is worth
 * against them (gin/players/sampling.py). The guesses depend only on the
 * observation and the random stream.
 */

import { bestDefence } from "../engine/layoffs.ts";
import { bits, type Mask, meets, or, union, xor } from "../engine/mask.ts";
import { arrangeMask, discardTable } from "../engine/melds.ts";
import type { Ruleset } from "../engine/rules.ts";
import type { Rand } from "../rand.ts";
import { bitValue, meldsWith } from "./evaluate.ts";
import type { View } from "./view.ts";

/** From this stock on, the modelled opponent knocks only when the knock wins. */
export const LATE_STOCK = 6;

/**
 * How much less likely a guess is for each card the opponent threw or left on the
 * pile that would have made a meld with two of the guessed cards.
 */
export const COLD_LIKELIHOOD = 0.25;
/** ... for each loose card of the guess worth more than the opponent's latest discard. */
export const HIGH_LIKELIHOOD = 0.3;
/** ... if the guess is within the knock limit (they did not knock). */
export const KNOCKABLE_LIKELIHOOD = 0.3;

/**
 * `count` guesses (masks) at the opponent's hand, drawn from `rng`: each dealt and
 * improved ({@link guess}), then kept with the chance {@link likelihood} gives it
 * (after `3 * count` tries, any guess is kept).
 */
export function opponentHands(view: View, rng: Rand, count: number, limit = 10): Mask[] {
  const pool = bits(view.unseen);
  const cold = bits(or(view.oppThrown, view.oppRefused));
  const last = view.oppLast ? bitValue(view.oppLast) : 10;
  const hands: Mask[] = [];
  let tries = 0;
  while (hands.length < count) {
    const hand = guess(view, pool, rng);
    tries += 1;
    const chance = likelihood(hand, cold, last, limit);
    if (chance >= 1.0 || tries > 3 * count || rng.random() < chance) hands.push(hand);
  }
  return hands;
}

/** How likely a guess is against what the opponent did (one multiplication per factor, in order). */
function likelihood(hand: Mask, cold: readonly Mask[], last: number, limit: number): number {
  let chance = 1.0;
  for (const card of cold) {
    if (meldsWith(card, hand)) chance *= COLD_LIKELIHOOD;
  }
  const arrangement = arrangeMask(hand);
  for (const loose of bits(arrangement.deadwoodMask)) {
    if (bitValue(loose) > last) chance *= HIGH_LIKELIHOOD;
  }
  if (arrangement.deadwood <= limit) chance *= KNOCKABLE_LIKELIHOOD;
  return chance;
}

/** One guess: known cards plus hidden ones dealt from `pool` (a partial Fisher-Yates), improved per stock draw. */
function guess(view: View, pool: readonly Mask[], rng: Rand): Mask {
  const deal = [...pool];
  const hidden = view.oppUnknown;
  const draws = view.oppDraws;
  for (let i = 0; i < Math.min(hidden + draws, deal.length); i++) {
    const j = i + rng.below(deal.length - i);
    [deal[i], deal[j]] = [deal[j]!, deal[i]!];
  }
  let hand = or(view.oppKnown, union(deal.slice(0, hidden)));
  for (const card of deal.slice(hidden, hidden + draws)) { // known cards stay: still held
    hand = bestTen(or(hand, card), view.oppKnown)[0];
  }
  return hand;
}

/** A knock judged against the guessed hands. */
export interface KnockOutlook {
  /** The share of guesses that undercut it. */
  undercut: number;
  /** The mean points it wins (negative: it loses). */
  points: number;
}

/** How a knock on `deadwood` with `melds` fares against each guessed hand. */
export function knockOutlook(hands: readonly Mask[], melds: readonly Mask[], deadwood: number, rules: Ruleset): KnockOutlook {
  let undercuts = 0;
  let points = 0;
  for (const hand of hands) {
    const won = settlePoints(deadwood, melds, hand, rules);
    if (won < 0) undercuts += 1;
    points += won;
  }
  const total = Math.max(hands.length, 1);
  return { undercut: undercuts / total, points: points / total };
}

/** Points the knocker wins (negative: loses) against `defender`'s cards. */
function settlePoints(knockerLeft: number, melds: readonly Mask[], defender: Mask, rules: Ruleset): number {
  if (knockerLeft === 0) return rules.ginBonus + arrangeMask(defender).deadwood;
  const defended = bestDefence(defender, melds).deadwood;
  if (defended <= knockerLeft) return -(rules.undercutBonus + knockerLeft - defended);
  return defended - knockerLeft;
}

/** The ten cards left after the discard leaving least deadwood (never a card of `keep`). */
function bestTen(eleven: Mask, keep: Mask = 0): [Mask, number] {
  let best: { bit: Mask; deadwood: number } | null = null;
  for (const option of discardTable(eleven)) {
    if (meets(option.bit, keep)) continue;
    if (best === null || option.deadwood < best.deadwood) best = option;
  }
  return [xor(eleven, best!.bit), best!.deadwood];
}

/**
 * Mean points of throwing `thrown` instead of knocking, keeping `mine`, looking one
 * round ahead against each guessed hand (see gin/players/sampling.py).
 */
export function waitingOutlook(
  view: View, mine: Mask, thrown: Mask, hands: readonly Mask[], rng: Rand,
  stock: number, limit: number, rules: Ruleset,
): number {
  if (stock <= rules.deadStock) return 0.0;
  let total = 0;
  for (const hand of hands) {
    const pool = bits(view.unseen).filter((b) => !meets(b, hand));
    let theirs = or(hand, thrown);
    if (meets(arrangeMask(theirs).deadwoodMask, thrown)) {
      theirs = or(hand, pool.splice(rng.below(pool.length), 1)[0]!);
    }
    let theirLeft: number;
    [theirs, theirLeft] = bestTen(theirs);
    if (theirLeft <= limit) {
      const won = settlePoints(theirLeft, arrangeMask(theirs).meldMasks, mine, rules);
      if (won > 0 || stock - 1 > LATE_STOCK) {
        total -= won;
        continue;
      }
    }
    if (stock - 1 <= rules.deadStock || !pool.length) continue; // their discard ends the hand dead
    const [ten, left] = bestTen(or(mine, rng.choice(pool)));
    if (left <= limit) total += settlePoints(left, arrangeMask(ten).meldMasks, theirs, rules);
  }
  return total / Math.max(hands.length, 1);
}
