/**
 * What one player may see of a hand, and the values it is made of: the phase, the
 * events, the result (gin/engine/observation.py).
 * Also the plain-data form of an observation, used by the conformance corpus to
 * hand positions to the computer players.
 */

import type { Card } from "./cards.ts";
import * as data from "./data.ts";
import { MalformedInput } from "./errors.ts";
import type { Meld } from "./melds.ts";
import { Ruleset } from "./rules.ts";
import { type Outcome, type OutcomeData, outcomeFromDict } from "./scoring.ts";

/** Where a hand is: whose decision, and of which kind. */
export const Phase = {
  /** The player to move may take the upcard or pass. */
  UPCARD: "upcard",
  /** Draw from the stock or the pile. */
  DRAW: "draw",
  /** Eleven cards: discard, knock (or big gin). */
  DISCARD: "discard",
  /** The defender answers a knock. */
  LAYOFF: "layoff",
  OVER: "over",
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
const PHASES: readonly string[] = Object.values(Phase);

export type EventKind = "pass" | "stock" | "take" | "discard" | "knock" | "biggin" | "layoff" | "dead";
const EVENT_KINDS: readonly string[] = ["pass", "stock", "take", "discard", "knock", "biggin", "layoff", "dead"];

/**
 * Something that happened in the hand. `card` is null where the observer may not
 * see it (the opponent's stock draw, a knocker's face-down discard).
 */
export interface Event {
  readonly player: number;
  readonly kind: EventKind;
  readonly card: Card | null;
}

/** An event as plain data: `[player, kind, card text or null]`. */
export type EventData = [number, EventKind, string | null];

export function eventToData(event: Event): EventData {
  return [event.player, event.kind, event.card === null ? null : String(event.card)];
}

export function eventFromData(value: unknown): Event {
  const [player, kind, card] = data.list(value, "an event");
  if (typeof kind !== "string" || !EVENT_KINDS.includes(kind)) {
    throw new MalformedInput(`event kind ${JSON.stringify(kind)} is not known`);
  }
  return {
    player: data.seat(player, "an event's player"),
    kind: kind as EventKind,
    card: card === null ? null : data.card(card, "an event's card"),
  };
}

export type HandEndKind = "knock" | "gin" | "big_gin" | "undercut" | "dead";

/** How a hand ended. `winner` scores `points`; both null/0 for a dead hand. */
export class HandResult {
  constructor(
    readonly kind: HandEndKind,
    readonly knocker: number | null,
    readonly winner: number | null,
    readonly points: number,
    readonly outcome: Outcome | null,
  ) {}

  toDict(): HandResultData {
    return {
      kind: this.kind,
      knocker: this.knocker,
      winner: this.winner,
      points: this.points,
      outcome: this.outcome === null ? null : this.outcome.toDict(),
    };
  }

  static fromDict(value: unknown): HandResult {
    const d = data.record(value, "a hand result");
    if (!["knock", "gin", "big_gin", "undercut", "dead"].includes(d.kind as string)) {
      throw new MalformedInput(`hand result kind ${JSON.stringify(d.kind)} is not known`);
    }
    const maybeSeat = (x: unknown, what: string) => (x === null ? null : data.seat(x, what));
    return new HandResult(
      d.kind as HandEndKind, maybeSeat(d.knocker, "result.knocker"), maybeSeat(d.winner, "result.winner"),
      data.whole(d.points, "result.points"), d.outcome === null ? null : outcomeFromDict(d.outcome));
  }
}

/** A hand result as plain data (gin's `HandResult.to_dict`). */
export interface HandResultData {
  kind: HandEndKind;
  knocker: number | null;
  winner: number | null;
  points: number;
  outcome: OutcomeData | null;
}

/** The fields of an {@link Observation}. */
export interface ObservationFields {
  player: number;
  phase: Phase;
  /** The player who must act now (meaningless once over). */
  turn: number;
  dealer: number;
  hand: readonly Card[];
  /** The card this player may not throw now. */
  justTaken: Card | null;
  /** Bottom first; the last is the top. */
  pile: readonly Card[];
  stockCount: number;
  opponentCardCount: number;
  /** Cards the opponent took from the pile and holds. */
  opponentKnown: readonly Card[];
  history: readonly Event[];
  knockLimit: number;
  rules: Ruleset;
  /** The pile may not be taken this turn (both passed the upcard). */
  upcardClosed: boolean;
  result: HandResult | null;
  /** Shown once the hand is over, and to the defender while it lays off. */
  opponentHand: readonly Card[] | null;
  /** The knocker's melds, in the lay-off phase and after. */
  knockMelds: readonly Meld[] | null;
  // Match context (filled in by a Match; zero for a lone hand).
  scores: readonly [number, number];
  handsWon: readonly [number, number];
  handNumber: number;
}

/** Exactly what one player may see. The only input of computer players and UIs. */
export class Observation implements Readonly<ObservationFields> {
  readonly player!: number;
  readonly phase!: Phase;
  readonly turn!: number;
  readonly dealer!: number;
  readonly hand!: readonly Card[];
  readonly justTaken!: Card | null;
  readonly pile!: readonly Card[];
  readonly stockCount!: number;
  readonly opponentCardCount!: number;
  readonly opponentKnown!: readonly Card[];
  readonly history!: readonly Event[];
  readonly knockLimit!: number;
  readonly rules!: Ruleset;
  readonly upcardClosed!: boolean;
  readonly result!: HandResult | null;
  readonly opponentHand!: readonly Card[] | null;
  readonly knockMelds!: readonly Meld[] | null;
  readonly scores!: readonly [number, number];
  readonly handsWon!: readonly [number, number];
  readonly handNumber!: number;

  constructor(fields: ObservationFields) {
    Object.assign(this, fields);
  }

  get myTurn(): boolean {
    return this.phase !== Phase.OVER && this.turn === this.player;
  }

  get topOfPile(): Card | null {
    return this.pile.length ? this.pile[this.pile.length - 1]! : null;
  }

  /** Plain data with gin's field names (see docs/conformance.md). */
  toDict(): Record<string, unknown> {
    const texts = (cards: readonly Card[] | null) => (cards === null ? null : cards.map(String));
    return {
      player: this.player,
      phase: this.phase,
      turn: this.turn,
      dealer: this.dealer,
      hand: texts(this.hand),
      just_taken: this.justTaken === null ? null : String(this.justTaken),
      pile: texts(this.pile),
      stock_count: this.stockCount,
      opponent_card_count: this.opponentCardCount,
      opponent_known: texts(this.opponentKnown),
      history: this.history.map(eventToData),
      knock_limit: this.knockLimit,
      rules: this.rules.toDict(),
      upcard_closed: this.upcardClosed,
      result: this.result === null ? null : this.result.toDict(),
      opponent_hand: texts(this.opponentHand),
      knock_melds: this.knockMelds === null ? null : this.knockMelds.map((m) => m.map(String)),
      scores: [...this.scores],
      hands_won: [...this.handsWon],
      hand_number: this.handNumber,
    };
  }

  /** An observation from its plain data; MalformedInput names a bad field. */
  static fromDict(value: unknown): Observation {
    const d = data.record(value, "an observation");
    if (typeof d.phase !== "string" || !PHASES.includes(d.phase)) {
      throw new MalformedInput(`observation phase ${JSON.stringify(d.phase)} is not known`);
    }
    if (typeof d.upcard_closed !== "boolean") {
      throw new MalformedInput("observation.upcard_closed must be true or false");
    }
    const pair = (x: unknown, what: string): [number, number] => {
      const [a, b] = data.list(x, what);
      return [data.whole(a, what), data.whole(b, what)];
    };
    return new Observation({
      player: data.seat(d.player, "observation.player"),
      phase: d.phase as Phase,
      turn: data.seat(d.turn, "observation.turn"),
      dealer: data.seat(d.dealer, "observation.dealer"),
      hand: data.cards(d.hand, "observation.hand"),
      justTaken: d.just_taken === null ? null : data.card(d.just_taken, "observation.just_taken"),
      pile: data.cards(d.pile, "observation.pile"),
      stockCount: data.whole(d.stock_count, "observation.stock_count"),
      opponentCardCount: data.whole(d.opponent_card_count, "observation.opponent_card_count"),
      opponentKnown: data.cards(d.opponent_known, "observation.opponent_known"),
      history: data.list(d.history, "observation.history").map(eventFromData),
      knockLimit: data.whole(d.knock_limit, "observation.knock_limit"),
      rules: Ruleset.fromDict(d.rules),
      upcardClosed: d.upcard_closed,
      result: d.result === null ? null : HandResult.fromDict(d.result),
      opponentHand: d.opponent_hand === null ? null : data.cards(d.opponent_hand, "observation.opponent_hand"),
      knockMelds: d.knock_melds === null ? null : data.melds(d.knock_melds, "observation.knock_melds"),
      scores: pair(d.scores, "observation.scores"),
      handsWon: pair(d.hands_won, "observation.hands_won"),
      handNumber: data.whole(d.hand_number, "observation.hand_number"),
    });
  }
}
