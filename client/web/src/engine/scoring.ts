/** Scoring: settling a knock, and the bonuses at the end of a match (gin/engine/scoring.py). */

import { type Card, cardsMask, maskCards, maskText } from "./cards.ts";
import * as data_ from "./data.ts";
import { IllegalAction, MalformedInput } from "./errors.ts";
import { bestDefence, Defence } from "./layoffs.ts";
import { and, andNot, bitCount, type Mask, meets, or, xor } from "./mask.ts";
import { arrangeMask, checkMeld, maskValue, type Meld } from "./melds.ts";
import { type Ruleset, STANDARD } from "./rules.ts";

export type OutcomeKind = "knock" | "gin" | "big_gin" | "undercut";
export type Role = "knocker" | "defender";

/** An outcome as plain data, with gin's field names (`Outcome.to_dict`). */
export interface OutcomeData {
  kind: OutcomeKind;
  winner: Role;
  points: number;
  knocker_melds: string[][];
  knocker_deadwood_cards: string[];
  knocker_deadwood: number;
  defender_melds: string[][];
  layoffs: [string, number][];
  defender_deadwood_cards: string[];
  defender_deadwood: number;
}

/**
 * How a knock was settled. `points` go to `winner`. Deadwood counts are after
 * lay-offs; `layoffs` pairs each laid-off card with the index of the knocker's meld.
 */
export class Outcome {
  constructor(
    readonly kind: OutcomeKind,
    readonly winner: Role,
    readonly points: number,
    readonly knockerMelds: readonly Meld[],
    readonly knockerDeadwoodCards: readonly Card[],
    readonly knockerDeadwood: number,
    readonly defenderMelds: readonly Meld[],
    readonly layoffs: readonly [Card, number][],
    readonly defenderDeadwoodCards: readonly Card[],
    readonly defenderDeadwood: number,
  ) {}

  get laidOff(): Card[] {
    return this.layoffs.map(([card]) => card);
  }

  toDict(): OutcomeData {
    const melds = (ms: readonly Meld[]) => ms.map((m) => m.map(String));
    return {
      kind: this.kind,
      winner: this.winner,
      points: this.points,
      knocker_melds: melds(this.knockerMelds),
      knocker_deadwood_cards: this.knockerDeadwoodCards.map(String),
      knocker_deadwood: this.knockerDeadwood,
      defender_melds: melds(this.defenderMelds),
      layoffs: this.layoffs.map(([c, i]) => [String(c), i]),
      defender_deadwood_cards: this.defenderDeadwoodCards.map(String),
      defender_deadwood: this.defenderDeadwood,
    };
  }
}

/** The knocker's meld masks and deadwood mask: declared melds checked, or the best. */
export function knockerLayout(cards: Mask, melds: readonly Mask[] | null): [Mask[], Mask] {
  if (melds === null) {
    const best = arrangeMask(cards);
    return [[...best.meldMasks], best.deadwoodMask];
  }
  let used = 0;
  for (const meld of melds) {
    if (andNot(meld, cards)) {
      throw new IllegalAction(`declared meld ${maskText(meld)} uses a card the knocker does not hold`);
    }
    if (meets(meld, used)) {
      throw new IllegalAction(`declared meld ${maskText(meld)} reuses a card of another meld`);
    }
    used = or(used, meld);
  }
  return [[...melds], xor(cards, used)];
}

/**
 * Settle a knock on masks. `knocker` holds 10 cards, or 11 for big gin; `defence`
 * is the defender's chosen layout (default: the best one).
 */
export function settleMasks(
  knocker: Mask,
  defender: Mask,
  rules: Ruleset,
  knockerMelds: readonly Mask[],
  knockLimit: number,
  defence: Defence | null = null,
): Outcome {
  let melded = 0;
  for (const meld of knockerMelds) melded = or(melded, meld);
  const loose = xor(knocker, melded);
  const knockerDeadwood = maskValue(loose);
  const big = bitCount(knocker) === 11;
  if (big && (rules.bigGinBonus === null || loose)) {
    throw new IllegalAction("eleven cards may only be laid down as big gin, with big gin "
      + "in the ruleset and every card melded");
  }
  if (knockerDeadwood > knockLimit) {
    throw new IllegalAction(`cannot knock with ${knockerDeadwood} deadwood: the limit is ${knockLimit}`);
  }
  let kind: OutcomeKind;
  let winner: Role;
  let points: number;
  if (knockerDeadwood === 0) {
    // Nothing may be laid off against gin: the defender just lays out.
    const best = arrangeMask(defender);
    defence = new Defence(best.meldMasks, [], best.deadwoodMask, best.deadwood);
    const bonus = big && rules.bigGinBonus !== null ? rules.bigGinBonus : rules.ginBonus;
    kind = big ? "big_gin" : "gin";
    winner = "knocker";
    points = bonus + defence.deadwood;
  } else {
    defence ??= bestDefence(defender, knockerMelds);
    if (defence.deadwood <= knockerDeadwood) { // a tie is an undercut
      kind = "undercut";
      winner = "defender";
      points = knockerDeadwood - defence.deadwood + rules.undercutBonus;
    } else {
      kind = "knock";
      winner = "knocker";
      points = defence.deadwood - knockerDeadwood;
    }
  }
  return new Outcome(
    kind, winner, points,
    knockerMelds.map(maskCards), maskCards(loose), knockerDeadwood,
    defence.melds, defence.laidOff, defence.deadwoodCards, defence.deadwood,
  );
}

/**
 * Settle a knock from both players' cards. `knockerCards` are the knocker's 10
 * cards after the discard (11 for big gin); `knockerMelds` the melds they declare
 * (default: their best arrangement). A knock over the limit is IllegalAction.
 */
export function settle(
  knockerCards: Iterable<Card>,
  defenderCards: Iterable<Card>,
  rules: Ruleset = STANDARD,
  knockerMelds: Iterable<Iterable<Card>> | null = null,
  knockLimit: number | null = null,
): Outcome {
  const knocker = maskOf(knockerCards, "knocker");
  const defender = maskOf(defenderCards, "defender");
  if (meets(knocker, defender)) {
    throw new MalformedInput(`both players hold ${maskText(and(knocker, defender))}`);
  }
  if (bitCount(defender) !== 10 || ![10, 11].includes(bitCount(knocker))) {
    throw new MalformedInput("settle needs 10 cards for the defender and 10 (or 11 for big "
      + "gin) for the knocker");
  }
  const melds = knockerMelds === null ? null : Array.from(knockerMelds, checkMeld);
  const [meldMasks] = knockerLayout(knocker, melds);
  return settleMasks(knocker, defender, rules, meldMasks, knockLimit ?? rules.knockLimit);
}

/** The end of a match: each player's final total and how it is made up. */
export class MatchTotals {
  constructor(
    readonly winner: number,
    readonly points: readonly [number, number],
    readonly handsWon: readonly [number, number],
    readonly gameBonus: readonly [number, number],
    readonly boxBonus: readonly [number, number],
    readonly shutout: boolean,
    readonly totals: readonly [number, number],
  ) {}

  get margin(): number {
    return this.totals[this.winner]! - this.totals[1 - this.winner]!;
  }
}

/** The player who has reached the target, if any (only one can per hand). */
export function matchWinner(points: readonly number[], rules: Ruleset): number | null {
  for (const player of [0, 1]) if (points[player]! >= rules.target) return player;
  return null;
}

/** Add the game bonus, box bonuses and the shutout rule to the hand points. */
export function matchTotals(points: readonly number[], handsWon: readonly number[], rules: Ruleset): MatchTotals {
  const winner = matchWinner(points, rules);
  if (winner === null) {
    throw new IllegalAction(`no player has reached ${rules.target} yet (scores ${points[0]}-`
      + `${points[1]}): the match is not over`);
  }
  const loser = 1 - winner;
  const shutout = handsWon[loser] === 0 && rules.shutout !== "none";
  const game = rules.gameBonus * (shutout && rules.shutout === "double_bonus" ? 2 : 1);
  const gameBonus: [number, number] = winner === 0 ? [game, 0] : [0, game];
  const box: [number, number] = [handsWon[0]! * rules.boxBonus, handsWon[1]! * rules.boxBonus];
  const totals: [number, number] = [0, 1].map((p) => points[p]! + gameBonus[p]! + box[p]!) as [number, number];
  if (shutout && rules.shutout === "double_total") totals[winner] *= 2;
  return new MatchTotals(winner, [points[0]!, points[1]!], [handsWon[0]!, handsWon[1]!],
    gameBonus, box, shutout, totals);
}

function maskOf(cards: Iterable<Card>, who: string): Mask {
  const list = [...cards];
  const mask = cardsMask(list);
  if (bitCount(mask) !== list.length) {
    throw new MalformedInput(`the ${who}'s cards repeat a card: ${list.join(" ")}`);
  }
  return mask;
}

/** An outcome from its plain data ({@link Outcome.toDict}); MalformedInput if bad. */
export function outcomeFromDict(data: unknown): Outcome {
  const d = data_.record(data, "an outcome");
  if (!["knock", "gin", "big_gin", "undercut"].includes(d.kind as string)) {
    throw new MalformedInput(`outcome kind ${JSON.stringify(d.kind)} is not known`);
  }
  if (d.winner !== "knocker" && d.winner !== "defender") {
    throw new MalformedInput(`outcome winner ${JSON.stringify(d.winner)} is not knocker or defender`);
  }
  const layoffs = data_.list(d.layoffs, "outcome.layoffs").map((pair): [Card, number] => {
    const [c, i] = data_.list(pair, "a lay-off");
    return [data_.card(c, "a lay-off's card"), data_.whole(i, "a lay-off's meld")];
  });
  return new Outcome(
    d.kind as OutcomeKind, d.winner, data_.whole(d.points, "outcome.points"),
    data_.melds(d.knocker_melds, "outcome.knocker_melds"),
    data_.cards(d.knocker_deadwood_cards, "outcome.knocker_deadwood_cards"),
    data_.whole(d.knocker_deadwood, "outcome.knocker_deadwood"),
    data_.melds(d.defender_melds, "outcome.defender_melds"), layoffs,
    data_.cards(d.defender_deadwood_cards, "outcome.defender_deadwood_cards"),
    data_.whole(d.defender_deadwood, "outcome.defender_deadwood"),
  );
}
