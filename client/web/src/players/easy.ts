/** The plain players: Random and Easy (gin/players/easy.py). */

import {
  type Action, BigGin, Discard, DrawPile, DrawStock, LayOff, Pass, sameAction,
} from "../engine/actions.ts";
import { type Card, cardsMask } from "../engine/cards.ts";
import { and, bits, type Mask } from "../engine/mask.ts";
import { arrangeMask } from "../engine/melds.ts";
import { type Observation, Phase } from "../engine/observation.ts";
import { bestKnock, bitIndex, bitValue, discards } from "./evaluate.ts";
import { decisionRand } from "./view.ts";

/** Whether `action` is among `legal`. */
export function isLegal(action: Action, legal: readonly Action[]): boolean {
  return legal.some((a) => sameAction(a, action));
}

/** Uniform over the legal actions: a floor for the others to beat. */
export class RandomPlayer {
  readonly name = "random";
  constructor(readonly seed: number) {}

  choose(obs: Observation, legal: readonly Action[]): Action {
    return decisionRand(obs, this.seed).choice(legal);
  }
}

/** Take the pile card if asked to and allowed, else pass the upcard or draw. */
export function drawOrPass(legal: readonly Action[], take: boolean): Action {
  if (take && isLegal(new DrawPile(), legal)) return new DrawPile();
  return isLegal(new Pass(), legal) ? new Pass() : new DrawStock();
}

/**
 * Never takes from the pile, throws the costliest loose card, knocks at the first
 * chance (with its least deadwood).
 */
export class EasyPlayer {
  readonly name = "easy";

  choose(obs: Observation, legal: readonly Action[]): Action {
    if (obs.phase === Phase.UPCARD || obs.phase === Phase.DRAW) return drawOrPass(legal, false);
    if (obs.phase === Phase.LAYOFF) return new LayOff();
    if (isLegal(new BigGin(), legal)) return new BigGin();
    const hand = cardsMask(obs.hand);
    const knock = bestKnock(hand, legal, 0);
    if (knock !== null) return knock[0];
    const allowed = new Map<Mask, Card>(discards(legal).map((c) => [c.mask, c]));
    const all = cardsMask(allowed.values());
    const loose = and(arrangeMask(hand).deadwoodMask, all);
    let costliest = 0;
    let key = [-1, -1, -1];
    for (const bit of bits(loose || all)) { // all eleven melded: throw the costliest card
      const k = [bitValue(bit), bitIndex(bit) % 13, bit];
      if (k[0]! > key[0]! || (k[0] === key[0] && (k[1]! > key[1]! || (k[1] === key[1] && k[2]! > key[2]!)))) {
        key = k;
        costliest = bit;
      }
    }
    return new Discard(allowed.get(costliest)!);
  }
}
