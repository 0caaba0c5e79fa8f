/**
 * A match: hands played until a player reaches the target, then the bonuses
 * (gin/engine/match.py). The deck of each hand is passed in, so a match is deterministic.
 */

import type { Action } from "./actions.ts";
import type { Card } from "./cards.ts";
import * as data from "./data.ts";
import { IllegalAction, MalformedInput } from "./errors.ts";
import { Hand, type HandData } from "./hand.ts";
import { type HandResult, type Observation, Phase } from "./observation.ts";
import { Ruleset, STANDARD } from "./rules.ts";
import { type MatchTotals, matchTotals, matchWinner } from "./scoring.ts";

/** A saved match (gin's `Match.to_dict`). */
export interface MatchData {
  rules: Record<string, unknown>;
  first_dealer: number;
  hands: HandData[];
}

/** Scores, hands won, who deals, the hand in play, and the end of the match. */
export class Match {
  readonly rules: Ruleset;
  readonly firstDealer: number;
  dealer: number;
  readonly scores: [number, number] = [0, 0];
  readonly handsWon: [number, number] = [0, 0];
  readonly results: HandResult[] = [];
  hand: Hand | null = null;
  totals: MatchTotals | null = null;
  private readonly finishedHands: Hand[] = [];

  constructor(rules: Ruleset = STANDARD, firstDealer = 0) {
    if (firstDealer !== 0 && firstDealer !== 1) {
      throw new MalformedInput(`first_dealer must be 0 or 1, got ${firstDealer}`);
    }
    this.rules = rules;
    this.firstDealer = firstDealer;
    this.dealer = firstDealer;
  }

  /** 1-based number of the hand in play (or about to be dealt). */
  get handNumber(): number {
    if (this.hand === null) return 1;
    return this.results.length + (this.hand.phase !== Phase.OVER ? 1 : 0);
  }

  get over(): boolean {
    return this.totals !== null;
  }

  get needsDeal(): boolean {
    return !this.over && (this.hand === null || this.hand.phase === Phase.OVER);
  }

  /** Start the next hand from a deck order, dealt by the player due to deal. */
  deal(deck: readonly (Card | null)[]): Hand {
    if (this.over) throw new IllegalAction("the match is over: no more hands are dealt");
    if (this.hand !== null && this.hand.phase !== Phase.OVER) {
      throw new IllegalAction("the hand in play is not finished");
    }
    this.hand = new Hand(deck, this.dealer, this.rules);
    return this.hand;
  }

  /** Apply an action to the hand in play; returns the result if it ends it. */
  apply(player: number, action: Action): HandResult | null {
    if (this.hand === null || this.hand.phase === Phase.OVER) {
      throw new IllegalAction(`player ${player} cannot ${action}: no hand is in play`);
    }
    this.hand.apply(player, action);
    const result = this.hand.result;
    if (result !== null) this.record(result);
    return result;
  }

  legalActions(): Action[] {
    if (this.hand === null || this.over) return [];
    return this.hand.legalActions();
  }

  get turn(): number {
    if (this.hand === null) throw new IllegalAction("no hand has been dealt");
    return this.hand.turn;
  }

  observation(player: number): Observation {
    if (this.hand === null) throw new IllegalAction("no hand has been dealt");
    return this.hand.observationIn(player, [this.scores[0], this.scores[1]],
      [this.handsWon[0], this.handsWon[1]], this.handNumber);
  }

  private record(result: HandResult): void {
    this.results.push(result);
    this.finishedHands.push(this.hand!);
    if (result.winner !== null) {
      this.scores[result.winner] += result.points;
      this.handsWon[result.winner] += 1;
      // After a dead hand the same dealer deals again.
      this.dealer = this.rules.winnerDeals ? result.winner : 1 - this.dealer;
    }
    if (matchWinner(this.scores, this.rules) !== null) {
      this.totals = matchTotals(this.scores, this.handsWon, this.rules);
    }
  }

  // -- saving --------------------------------------------------------------------

  /** Plain data from which {@link Match.fromDict} restores this match exactly. */
  toDict(): MatchData {
    const inPlay = this.hand === null || this.hand.phase === Phase.OVER ? [] : [this.hand.toDict()];
    return {
      rules: this.rules.toDict(),
      first_dealer: this.firstDealer,
      hands: [...this.finishedHands.map((h) => h.toDict()), ...inPlay],
    };
  }

  static fromDict(value: unknown): Match {
    const d = data.record(value, "a saved match");
    const match = new Match(Ruleset.fromDict(d.rules), data.seat(d.first_dealer, "first_dealer"));
    for (const saved of data.list(d.hands, "a saved match's hands")) {
      const replayed = Hand.fromDict(saved);
      if (replayed.dealer !== match.dealer || !replayed.rules.equals(match.rules)) {
        throw new MalformedInput("saved match: a hand's dealer or rules do not follow");
      }
      match.hand = replayed;
      if (replayed.result !== null) match.record(replayed.result);
    }
    return match;
  }
}
