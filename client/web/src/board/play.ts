/**
 * What the table presents and acts on: one match seen from this browser's seat.
 * The local match against the computer (game.ts) and an online match through the
 * online peer (online.ts) both implement {@link Play}; the table never knows
 * which, beyond the few choices that only a local match has.
 */

import type { Action } from "../engine/actions.ts";
import type { Card } from "../engine/cards.ts";
import type { Observation } from "../engine/observation.ts";
import type { Ruleset } from "../engine/rules.ts";
import type { MatchTotals } from "../engine/scoring.ts";
import type { SheetRow } from "./scoresheet.ts";

/** What the strongest computer would do now, and why. */
export interface HintView {
  action: Action;
  reason: string;
}

/** A move the table makes after its pause, without the player. */
export interface AutoMove {
  /** True for the opponent's move (the table says it is thinking); false for this seat's bot. */
  readonly opponent: boolean;
  run(): void;
}

export interface Play {
  /** Local: the strength, rules and new-match choices apply; online they are hidden. */
  readonly online: boolean;
  /** The computer plays this seat (`?bot=LEVEL`): nobody is there to close windows. */
  readonly botPlays: boolean;
  /** The other player in sentences: "The computer", "Your friend". */
  readonly them: string;
  /** The label over their cards: "Computer (normal)", "Your friend (host)". */
  opponentLabel(): string;
  /** The rules of the match (null online until the guest has them). */
  readonly rules: Ruleset | null;
  /** Online, custom rules the host offers this (guest) player, until answered; else null. */
  readonly rulesOnOffer: Ruleset | null;
  /** What this seat sees; null online before the first deal. */
  observation(): Observation | null;
  /** This seat's legal actions now (none while the other player is to move). */
  legal(): Action[];
  /** For each card this seat may knock by throwing, the deadwood it leaves. */
  knockCounts(): Map<Card, number>;
  /** The card whose throw leaves the least deadwood (never the card just taken). */
  bestThrow(): Card | null;
  /** Why this seat may not do `action` now (null when it is legal). */
  refusal(action: Action): string | null;
  /** The hint is offered: against the computer; online neither player has one. */
  readonly hints: boolean;
  /** Hard's move for this seat now, with its reason (IllegalAction online). */
  hint(): HintView;
  /** Play this seat's action; IllegalAction (nothing changed) when refused. The
   * new state is announced to the {@link onChange} listener. */
  play(action: Action): void;
  /** The move to make without the player now, or null. */
  automatic(): AutoMove | null;
  /** After a hand: deal the next one (local); online the peers deal it themselves. */
  nextHand(): void;
  /** Online, after the match: ask for a rematch on the same link (local: absent). */
  rematch?(): void;
  /** Online: the friend's rematch offer awaits this player's answer (its own window asks). */
  readonly rematchOffered?: boolean;
  /** Why this seat cannot move although it is its turn (its move is on its way), or null. */
  holdUp(): string | null;
  /** Why play has stopped for good before the match's end (an online failure), or null. */
  stopped(): string | null;
  /** The match's totals once it is over. */
  readonly totals: MatchTotals | null;
  /** Every finished hand of the match, with the running totals and boxes. */
  scoreSheet(): SheetRow[];
  /** Called after every change of what {@link observation} and {@link legal} say. */
  onChange(listener: () => void): void;
  /** Warnings for the player since the last call (a save that failed…). */
  takeWarnings(): string[];
}
