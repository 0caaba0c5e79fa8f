/**
 * Lay-offs: the defender's own melds and lay-offs, chosen together (gin/engine/layoffs.py).
 *
 * After a knock the defender lays out their own melds and lays loose cards off on
 * the knocker's melds: the fourth card of a three-card set, or the next card at
 * either end of a run, chaining. Every combination of the defender's own melds is
 * tried, and for each the lay-offs are the closure of what can be attached.
 */

import { type Card, cardsMask, DECK, maskCards, maskText } from "./cards.ts";
import { IllegalAction } from "./errors.ts";
import {
  andNot, bitCount, highestIndex, lowestIndex, type Mask, meets, or, suitBits, xor,
} from "./mask.ts";
import { candidateMelds, isMeldMask, maskValue, type Meld, meldCombinations } from "./melds.ts";

/** A lay-off: the card (a one-card mask) and the index of the knocker's meld. */
export type LayoffMask = readonly [bit: Mask, meld: number];

/** The defender's layout: own melds, lay-offs, and what is left as deadwood. */
export class Defence {
  constructor(
    readonly meldMasks: readonly Mask[],
    readonly layoffs: readonly LayoffMask[],
    readonly deadwoodMask: Mask,
    readonly deadwood: number,
  ) {}

  get melds(): Meld[] {
    return this.meldMasks.map(maskCards);
  }

  /** Each laid-off card with the index of the knocker's meld it goes on. */
  get laidOff(): [Card, number][] {
    return this.layoffs.map(([bit, i]) => [DECK[lowestIndex(bit)]!, i]);
  }

  get deadwoodCards(): Card[] {
    return maskCards(this.deadwoodMask);
  }
}

/** The 13-bit rank mask of a meld (all suits folded together). */
function rankBits(meld: Mask): number {
  return suitBits(meld, 0) | suitBits(meld, 1) | suitBits(meld, 2) | suitBits(meld, 3);
}

/**
 * Every card of `loose` that can be laid off, with the meld it goes on. Run
 * extensions are attributed first (they can chain); a set takes its fourth card
 * only when no run took it. Laying off more never costs, so the closure is the
 * best choice for a fixed set of own melds.
 */
export function layoffClosure(loose: Mask, knockerMelds: readonly Mask[]): LayoffMask[] {
  const taken = new Set<number>();
  const out: LayoffMask[] = [];
  const has = (index: number) => meets(loose, 2 ** index);
  knockerMelds.forEach((meld, i) => {
    if (bitCount(rankBits(meld)) === 1) return;
    const low = lowestIndex(meld);
    const base = Math.floor(low / 13) * 13;
    for (let index = highestIndex(meld); index + 1 < base + 13 && has(index + 1);) {
      index += 1; // extend upward
      if (!taken.has(index)) {
        taken.add(index);
        out.push([2 ** index, i]);
      }
    }
    for (let index = low; index - 1 >= base && has(index - 1);) {
      index -= 1; // extend downward
      if (!taken.has(index)) {
        taken.add(index);
        out.push([2 ** index, i]);
      }
    }
  });
  knockerMelds.forEach((meld, i) => {
    const ranks = rankBits(meld);
    if (bitCount(ranks) !== 1 || bitCount(meld) !== 3) return;
    const rank = 31 - Math.clz32(ranks);
    for (let suit = 0; suit < 4; suit++) {
      const index = suit * 13 + rank;
      if (!meets(meld, 2 ** index) && has(index) && !taken.has(index)) {
        taken.add(index);
        out.push([2 ** index, i]);
      }
    }
  });
  return out;
}

/** The defender's least-deadwood combination of own melds and lay-offs. */
export function bestDefence(defender: Mask, knockerMelds: readonly Mask[]): Defence {
  let best: Defence | undefined;
  for (const { used, chosen } of meldCombinations(candidateMelds(defender))) {
    let loose = xor(defender, used);
    const layoffs = layoffClosure(loose, knockerMelds);
    for (const [bit] of layoffs) loose = xor(loose, bit);
    const deadwood = maskValue(loose);
    if (best === undefined || deadwood < best.deadwood) {
      best = new Defence(chosen, layoffs, loose, deadwood);
    }
  }
  return best!; // the empty combination is always there
}

/** {@link bestDefence} for cards: the defender's 10 cards and the knocker's melds. */
export function bestDefenceCards(defender: Iterable<Card>, knockerMelds: Iterable<Iterable<Card>>): Defence {
  return bestDefence(cardsMask(defender), Array.from(knockerMelds, cardsMask));
}

/** Validate a layout the defender chose; IllegalAction names what is wrong. */
export function checkDefence(
  defender: Mask,
  knockerMelds: readonly Mask[],
  meldMasks: readonly Mask[],
  layoffs: readonly LayoffMask[],
): Defence {
  let used = 0;
  for (const meld of meldMasks) {
    if (!isMeldMask(meld)) throw new IllegalAction(`${maskText(meld)} is not a meld`);
    if (andNot(meld, defender) || meets(meld, used)) {
      throw new IllegalAction(`meld ${maskText(meld)} uses a card not held or used twice`);
    }
    used = or(used, meld);
  }
  const grown = [...knockerMelds];
  for (const [bit, target] of layoffs) {
    if (!(target >= 0 && target < grown.length)) {
      throw new IllegalAction(`lay-off of ${maskText(bit)} names no meld of the knocker`);
    }
    if (andNot(bit, defender) || meets(bit, used)) {
      throw new IllegalAction(`lay-off of ${maskText(bit)}: card not held or used twice`);
    }
    if (!isMeldMask(or(grown[target]!, bit))) {
      throw new IllegalAction(`${maskText(bit)} does not fit on ${maskText(grown[target]!)}`);
    }
    grown[target] = or(grown[target]!, bit);
    used = or(used, bit);
  }
  const loose = xor(defender, used);
  return new Defence(meldMasks, layoffs, loose, maskValue(loose));
}
