/**
 * How cards are laid out in a row: grouped into melds, or in the player's own
 * order (as client/table/layout.py does for the terminal table). Pure functions.
 */

import { Card } from "../engine/cards.ts";
import { bestArrangement } from "../engine/melds.ts";
import type { Observation } from "../engine/observation.ts";
import type { Outcome } from "../engine/scoring.ts";

/** Cards shown together; `meld` groups get a bar under them. `marked` cards were
 * laid off onto this meld by the other player. `null` is a card back. */
export interface Group {
  cards: (Card | null)[];
  meld: boolean;
  marked: ReadonlySet<Card>;
}

const NONE: ReadonlySet<Card> = new Set();

export function group(cards: (Card | null)[], meld = false, marked = NONE): Group {
  return { cards, meld, marked };
}

const byRank = (cards: Iterable<Card>): Card[] => [...cards].sort(Card.compare);

/** The best arrangement: each set and run, then the loose cards by rank. */
export function grouped(cards: Iterable<Card>): Group[] {
  const arrangement = bestArrangement(cards);
  const groups = arrangement.melds.map((meld) => group(meld, true));
  const loose = byRank(arrangement.deadwoodCards);
  return loose.length ? [...groups, group(loose)] : groups;
}

/** The player's order kept for the cards still held, new cards at the end. */
export function ownOrder(order: readonly Card[], hand: Iterable<Card>): Card[] {
  const held = new Set(hand);
  const kept = order.filter((c) => held.has(c));
  const keptSet = new Set(kept);
  return [...kept, ...byRank([...held].filter((c) => !keptSet.has(c)))];
}

/** `order` with `card` moved `step` places (clamped to the ends). */
export function moved(order: readonly Card[], card: Card, step: number): Card[] {
  const out = [...order];
  const i = out.indexOf(card);
  if (i < 0) return out;
  const j = Math.max(0, Math.min(out.length - 1, i + step));
  out.splice(i, 1);
  out.splice(j, 0, card);
  return out;
}

/** `order` with `card` moved to just before `before` (to the end for null). */
export function movedBefore(order: readonly Card[], card: Card, before: Card | null): Card[] {
  const out = order.filter((c) => c !== card);
  const j = before === null ? out.length : out.indexOf(before);
  out.splice(j < 0 ? out.length : j, 0, card);
  return out;
}

/** One side of a settled knock: melds (the knocker's with the defender's lay-offs
 * attached and marked), then the deadwood. */
export function laidOut(outcome: Outcome, knocker: boolean): Group[] {
  let groups: Group[];
  let loose: readonly Card[];
  if (knocker) {
    groups = outcome.knockerMelds.map((meld, i) => {
      const extra = new Set(outcome.layoffs.filter(([, on]) => on === i).map(([c]) => c));
      return group(byRank([...meld, ...extra]), true, extra);
    });
    loose = outcome.knockerDeadwoodCards;
  } else {
    groups = outcome.defenderMelds.map((meld) => group([...meld], true));
    loose = outcome.defenderDeadwoodCards;
  }
  return loose.length ? [...groups, group(byRank(loose))] : groups;
}

/** The computer's side: backs, with what it took from the pile face up; its melds
 * once it knocks (for you to lay off onto); its whole hand once the hand is over. */
export function opponentGroups(obs: Observation): Group[] {
  const result = obs.result;
  if (result?.outcome && result.knocker !== null) return laidOut(result.outcome, result.knocker !== obs.player);
  if (obs.knockMelds !== null && obs.opponentHand !== null && obs.turn === obs.player) {
    // It knocked: its melds (to lay off onto) and its loose cards lie face up.
    const melded = new Set(obs.knockMelds.flat().map(String));
    const loose = obs.opponentHand.filter((c) => !melded.has(String(c)));
    return [...obs.knockMelds.map((m) => group([...m], true)), group(byRank(loose))];
  }
  if (obs.opponentHand !== null) return grouped(obs.opponentHand);
  const known = [...obs.opponentKnown];
  const backs: null[] = Array(Math.max(0, obs.opponentCardCount - known.length)).fill(null);
  return [...(known.length ? [group(known)] : []), group(backs)];
}

/** A row of cards in words: its melds, its loose cards, how many face down. */
export function groupsWords(groups: readonly Group[], who: string): string {
  const parts: string[] = [];
  let down = 0;
  for (const g of groups) {
    const faces = g.cards.filter((c): c is Card => c !== null);
    down += g.cards.length - faces.length;
    if (faces.length) parts.push(`${g.meld ? "meld" : "face up"}: ${faces.map((c) => c.glyph).join(" ")}`);
  }
  if (down) parts.push(`${down} face down`);
  return `${who}: ${parts.join("; ")}`;
}
