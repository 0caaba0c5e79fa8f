/**
 * Normal and Hard: one player, two styles (gin/players/hard.py).
 *
 * Both score a ten-card hand as its deadwood minus how close its loose cards are
 * to melding with the live cards ({@link potential}). Hard adds a model of the
 * opponent built from every card they took, threw or refused, holds back the
 * cards that would complete their melds, and knocks by guessing their hand.
 */

import { type Action, BigGin, Discard, DrawPile, DrawStock, Knock, LayOff, Pass } from "../engine/actions.ts";
import { type Card, cardsMask, maskCards } from "../engine/cards.ts";
import { bitCount, type Mask, meets, or, suitBits, union, xor } from "../engine/mask.ts";
import { type Arrangement, arrangeMask, discardOption, type DiscardOption, discardTable } from "../engine/melds.ts";
import { type Observation, Phase } from "../engine/observation.ts";
import {
  bitValue, declare, leastKnock, meldPartners, meldsWith, potential, potentialWithout,
} from "./evaluate.ts";
import { knockOutlook, opponentHands, waitingOutlook } from "./sampling.ts";
import { decisionRand, unseenOf, viewOf } from "./view.ts";

/** A suggested action and a one-line reason a person understands. */
export interface Hint {
  action: Action;
  reason: string;
}

/** The knobs that tell Normal from Hard. */
export interface Style {
  name: string;
  /** Weight of a loose card's chance to meld, in deadwood points. */
  reach: number;
  /** Weight of the chance a discard completes an opponent's meld. */
  caution: number;
  /** How much a pile card must improve the score to be taken. */
  takeMargin: number;
  /** Knock immediately on this much deadwood or less (rule of thumb). */
  knockAtOnce: number;
  /** Otherwise keep drawing while the stock is above this (rule of thumb). */
  waitWhileStock: number;
  /** Knock by this many guesses at the opponent's hand (0: by rule of thumb). */
  samples: number;
  /** How much more than waiting a knock must be worth. */
  knockMargin: number;
  /** Declining a knock, throw the card that knock would throw. */
  waitLow: boolean;
}

export const NORMAL: Style = {
  name: "normal", reach: 3.0, caution: 0.0, takeMargin: 1.0, knockAtOnce: 4, waitWhileStock: 12,
  samples: 0, knockMargin: 0.0, waitLow: false,
};
export const HARD: Style = {
  name: "hard", reach: 3.0, caution: 12.0, takeMargin: 1.0, knockAtOnce: 0, waitWhileStock: 0,
  samples: 30, knockMargin: 3.0, waitLow: true,
};

/** An action, and how to put the reason for it in words (only a hint asks). */
type Decision = [Action, () => string];

const ACES = 1 + 8192 + 67108864 + 549755813888;

/** Python's `format(x, ".0f")`: round half to even, "-0" kept. */
export function fixed0(x: number): string {
  const floor = Math.floor(x);
  const diff = x - floor;
  const n = diff > 0.5 || (diff === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
  return n === 0 && (x < 0 || Object.is(x, -0)) ? "-0" : String(n);
}

/** Normal or Hard, by style. Deterministic: ties go to the higher card, then the card order. */
export class SkilledPlayer {
  readonly name: string;

  constructor(readonly style: Style, readonly seed = 0) {
    this.name = style.name;
  }

  choose(obs: Observation, legal: readonly Action[]): Action {
    return this.decideWhy(obs, legal)[0];
  }

  decide(obs: Observation, legal: readonly Action[]): Hint {
    const [action, why] = this.decideWhy(obs, legal);
    return { action, reason: why() };
  }

  private decideWhy(obs: Observation, legal: readonly Action[]): Decision {
    if (obs.phase === Phase.LAYOFF) return [new LayOff(), () => "Lay off every card that fits and meld the rest."];
    const hand = cardsMask(obs.hand);
    if (obs.phase !== Phase.DISCARD) return this.draw(obs, legal, hand);
    const allowed = new Map<Mask, Discard>(); // by the mask of the card thrown
    const knocks: Knock[] = [];
    for (const action of legal) {
      if (action instanceof Discard) allowed.set(action.card.mask, action);
      else if (action instanceof Knock) knocks.push(action);
      else if (action instanceof BigGin && action.melds === null) {
        return [new BigGin(), () => "Big gin: all eleven cards are in melds."];
      }
    }
    return this.discard(obs, hand, allowed, knocks);
  }

  // -- scoring -------------------------------------------------------------------

  /** The score of the cards kept (lower is better): deadwood less the value of waiting. */
  private scorer(live: Mask): (deadwood: number, waiting: number) => number {
    const reach = this.style.reach;
    const count = Math.max(bitCount(live), 1);
    return (deadwood, waiting) => deadwood - reach * waiting / count;
  }

  /** Roughly the chance that a card completes a three-card meld for the opponent. */
  private dangerOf(obs: Observation): (bit: Mask) => number {
    if (!this.style.caution) return () => 0.0;
    const view = viewOf(obs);
    const known = view.oppKnown;
    const unseen = view.unseen;
    const base = view.oppUnknown / Math.max(bitCount(unseen), 1);
    // Ranks they threw or refused, and the cards beside them, they are not collecting.
    const coldCards = or(view.oppThrown, view.oppRefused);
    const ranks = suitBits(coldCards, 0) | suitBits(coldCards, 1) | suitBits(coldCards, 2) | suitBits(coldCards, 3);
    const beside = (sm: number) => ((sm << 1) & 0x1ffe) | (sm >>> 1);
    const cold = or(ranks * ACES, fromSuitsBeside(coldCards, beside));
    const held = (card: Mask): number => {
      if (meets(card, known)) return 1.0;
      if (meets(card, unseen)) return base * (meets(card, cold) ? 0.5 : 1.0);
      return 0.0;
    };
    return (bit) => {
      let sum = 0;
      for (const [a, b] of meldPartners(bit)) sum += held(a) * held(b);
      return sum;
    };
  }

  // -- drawing -------------------------------------------------------------------

  private draw(obs: Observation, legal: readonly Action[], hand: Mask): Decision {
    const kinds = new Set(legal.map((a) => a.kind));
    const refuse: Action = kinds.has("pass") ? new Pass() : new DrawStock();
    const verb = refuse instanceof Pass ? "Pass" : "Draw from the stock";
    const top = obs.topOfPile;
    if (top === null || !kinds.has("take")) return [refuse, () => `${verb}: the pile is closed to you this turn.`];
    // Only a card that melds is worth showing: test that before the full scoring.
    if (meldsWith(top.mask, hand)) {
      const taken = or(hand, top.mask);
      const arrangement = arrangeMask(taken);
      if (!meets(arrangement.deadwoodMask, top.mask)) {
        // Throwing the pile card back leaves the hand as it is now.
        const now = discardOption(taken, top.mask);
        const live = unseenOf(obs, hand);
        const score = this.scorer(live);
        const wanted = score(now.deadwood, potential(now.deadwoodMask, live)) - this.style.takeMargin;
        const better = discardTable(taken).some((option) => option.bit !== top.mask
          && score(option.deadwood, potential(option.deadwoodMask, live)) < wanted);
        if (better) return [new DrawPile(), () => takeReason(top, arrangement)];
      }
    }
    return [refuse, () => `${verb}: the ${top.glyph} would not improve your hand enough `
      + "to show the opponent what you collect."];
  }

  // -- discarding and knocking -----------------------------------------------------

  private discard(obs: Observation, hand: Mask, allowed: Map<Mask, Discard>, knocks: Knock[]): Decision {
    const live = unseenOf(obs, hand);
    const least = knocks.length ? leastKnock(hand, knocks) : null;
    if (least !== null) {
      const knocking = this.knock(obs, hand, live, least[0], least[1]);
      if (knocking !== null) return knocking;
      if (this.style.waitLow) {
        const [left, knock] = least;
        const thrown = allowed.get(knock.card.mask)!;
        return [thrown, () => `Throw the ${thrown.card.glyph}: ${left} deadwood, the `
          + "least, while waiting for a better knock or an undercut."];
      }
    }
    const caution = this.style.caution;
    const dangerOf = this.dangerOf(obs);
    const score = this.scorer(live);
    const options = sortedByDeadwood(discardTable(hand));
    // Most discards throw a card of one set of loose cards: their potential follows
    // from that set's.
    const first = options[0]!;
    const loose = or(first.deadwoodMask, first.bit);
    const whole = potential(loose, live);
    // Options by deadwood stop where none can win (see gin/players/hard.py).
    const near = score(0, whole);
    let lowest: number | null = null;
    let best = Infinity;
    let bestBit = 0;
    let chosen: Discard | undefined;
    let risk = 0;
    let left = 0;
    for (const { bit, deadwood, deadwoodMask: kept } of options) {
      const action = allowed.get(bit);
      if (action === undefined) continue;
      const inLoose = or(kept, bit) === loose;
      if (deadwood + near > best) {
        lowest ??= score(0, potential(union(options.map((o) => o.deadwoodMask)), live));
        if (deadwood + lowest > best) break;
        if (inLoose) continue;
      }
      const waiting = inLoose ? potentialWithout(loose, live, bit, whole) : potential(kept, live);
      const danger = dangerOf(bit);
      const value = score(deadwood, waiting) + caution * danger;
      if (value < best || (value === best && orderBefore(bit, bestBit))) {
        best = value;
        bestBit = bit;
        chosen = action;
        risk = danger;
        left = deadwood;
      }
    }
    const action = chosen!;
    return [action, () => discardReason(action.card, obs, risk, left)];
  }

  /** `knock` with its melds declared, if it is time to knock on `left` deadwood; null to keep drawing. */
  private knock(obs: Observation, hand: Mask, live: Mask, left: number, knock: Knock): Decision | null {
    if (!left) {
      const [gin] = declare(hand, knock, left, live);
      return [gin, () => `Gin: throw the ${gin.card.glyph} and every card is in a `
        + `meld (${obs.rules.ginBonus} bonus, nothing can be laid off).`];
    }
    let action: Knock = knock;
    let why: string | null;
    if (this.style.samples) {
      let layout: Arrangement;
      [action, layout] = declare(hand, knock, left, live);
      why = this.knockBySamples(obs, action.card.mask, layout.meldMasks, left);
    } else { // by rule of thumb, which needs no melds: they are declared only to knock
      why = this.knockByRule(obs, left);
      if (why !== null) [action] = declare(hand, knock, left, live);
    }
    if (why === null) return null;
    const reason = why;
    return [action, () => `Knock, throwing the ${action.card.glyph}: ${left} deadwood — ${reason}.`];
  }

  /** Why to knock on `left` deadwood now by rule of thumb, or null to keep drawing. */
  private knockByRule(obs: Observation, left: number): string | null {
    if (left <= this.style.knockAtOnce) return "low enough that an undercut is unlikely";
    if (obs.stockCount <= this.style.waitWhileStock) return "take the points before the opponent improves";
    return null;
  }

  /**
   * Why to knock on `left` deadwood (throwing `thrown`) now, or null to keep
   * drawing: when that is worth more, against hands the opponent may hold, than a
   * round of waiting.
   */
  private knockBySamples(obs: Observation, thrown: Mask, melds: readonly Mask[], left: number): string | null {
    const style = this.style;
    const view = viewOf(obs);
    const rng = decisionRand(obs, this.seed);
    const hands = opponentHands(view, rng, style.samples, obs.knockLimit);
    const now = knockOutlook(hands, melds, left, obs.rules);
    const wait = waitingOutlook(view, xor(view.hand, thrown), thrown, hands, rng, obs.stockCount,
      obs.knockLimit, obs.rules);
    // The margin allows for a wait misjudged; a discard ending the hand dead is not.
    const margin = obs.stockCount > obs.rules.deadStock ? style.knockMargin : 0.0;
    if (now.points <= wait + margin) return null;
    return `worth about ${fixed0(now.points)} points now against ${fixed0(wait)} for waiting `
      + `(${fixed0(now.undercut * 100)}% of the hands the opponent may hold undercut it)`;
  }
}

/** The cards beside each cold card in its suit, as a mask (no wrap between suits). */
function fromSuitsBeside(cards: Mask, beside: (sm: number) => number): Mask {
  let out = 0;
  for (let s = 0; s < 4; s++) out += beside(suitBits(cards, s)) * 2 ** (13 * s);
  return out;
}

function sortedByDeadwood(options: DiscardOption[]): DiscardOption[] {
  return [...options].sort((a, b) => a.deadwood - b.deadwood); // stable, as Python's sorted
}

/** How discards of equal score rank: the higher card first, then the card order. */
function orderBefore(a: Mask, b: Mask): boolean {
  const va = bitValue(a);
  const vb = bitValue(b);
  return va > vb || (va === vb && a < b);
}

function takeReason(top: Card, arrangement: Arrangement): string {
  const meld = arrangement.meldMasks.find((m) => meets(m, top.mask))!;
  return `Take the ${top.glyph}: it completes ${maskCards(meld).map((c) => c.glyph).join(" ")}.`;
}

function discardReason(card: Card, obs: Observation, danger: number, left: number): string {
  const view = viewOf(obs);
  let reason = meets(card.mask, arrangeMask(view.hand).deadwoodMask)
    ? `Throw the ${card.glyph}: it is the loose card least likely to meld`
    : `Throw the ${card.glyph}: breaking up that meld costs least`;
  if (or(view.oppKnown, view.oppThrown) && danger < 0.05) {
    reason += ", and the opponent does not look to be collecting it";
  }
  return `${reason} (${left} deadwood left).`;
}

