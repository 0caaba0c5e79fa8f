/**
 * What a computer player knows, rebuilt from one Observation (gin/players/view.py).
 * Players keep no state: everything they remember is replayed from the history on
 * every call, so a decision depends only on what the player was shown.
 */

import { type Card, cardsMask } from "../engine/cards.ts";
import { andNot, FULL, type Mask, or } from "../engine/mask.ts";
import type { Observation } from "../engine/observation.ts";
import { derive, Rand } from "../rand.ts";

/** Masks of one player's knowledge. */
export interface View {
  hand: Mask;
  /** Cards neither in this hand, the pile nor known in the opponent's hand. */
  unseen: Mask;
  /** Taken from the pile by the opponent and still held. */
  oppKnown: Mask;
  /** Discarded by the opponent. */
  oppThrown: Mask;
  /** Offered on top of the pile and left there by the opponent. */
  oppRefused: Mask;
  /** How many of the opponent's cards are not known. */
  oppUnknown: number;
  /** How many cards the opponent drew from the stock. */
  oppDraws: number;
  /** The opponent's latest discard (0: none yet). */
  oppLast: Mask;
}

/** The live cards of {@link View.unseen}, without replaying the history. */
export function unseenOf(obs: Observation, hand: Mask): Mask {
  return andNot(FULL, or(or(hand, cardsMask(obs.pile)), cardsMask(obs.opponentKnown)));
}

export function viewOf(obs: Observation): View {
  const hand = cardsMask(obs.hand);
  const oppKnown = cardsMask(obs.opponentKnown);
  const me = obs.player;
  let thrown = 0;
  let refused = 0;
  let draws = 0;
  let last = 0;
  // Replay the pile to know which card the opponent declined each time.
  const stack = initialPile(obs);
  for (const event of obs.history) {
    const kind = event.kind;
    if (kind === "discard") {
      if (event.card !== null) {
        stack.push(event.card);
        if (event.player !== me) {
          thrown = or(thrown, event.card.mask);
          last = event.card.mask;
        }
      }
    } else if (kind === "take") {
      stack.pop();
    } else if ((kind === "stock" || kind === "pass") && event.player !== me) {
      if (kind === "stock") draws += 1;
      if (stack.length) refused = or(refused, stack[stack.length - 1]!.mask);
    }
  }
  return {
    hand,
    unseen: unseenOf(obs, hand),
    oppKnown,
    oppThrown: thrown,
    oppRefused: andNot(refused, oppKnown),
    oppUnknown: obs.opponentCardCount - obs.opponentKnown.length,
    oppDraws: draws,
    oppLast: last,
  };
}

/** The pile as dealt: the upcard (taken before any discard, or still at the bottom). */
function initialPile(obs: Observation): Card[] {
  for (const event of obs.history) {
    if (event.kind === "take") return event.card !== null ? [event.card] : [];
    if (event.kind === "discard") break;
  }
  return obs.pile.length ? [obs.pile[0]!] : [];
}

/**
 * The random stream of one decision: `Rand(derive(seed, lo, hi, n))` where `lo`
 * and `hi` are the low and high 32 bits of the hand's mask and `n` the number of
 * events in the history, as gin/ seeds it.
 */
export function decisionRand(obs: Observation, seed: number): Rand {
  const hand = cardsMask(obs.hand);
  const hi = Math.floor(hand / 4294967296);
  return new Rand(derive(seed, hand - hi * 4294967296, hi, obs.history.length));
}
