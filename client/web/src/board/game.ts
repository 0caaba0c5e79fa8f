/**
 * The board's controller: every game decision outside the page (the browser twin
 * of client/table/controller.py's Game).
 *
 * A {@link Game} holds the {@link Match}, shuffles each deck with its own random
 * stream, asks the computer for its moves, applies the player's actions and saves
 * the match in the browser after each one, so a reload goes on where it stopped.
 * The page only presents an {@link Observation} and calls these methods.
 */

import type { Action } from "../engine/actions.ts";
import { Discard, Knock } from "../engine/actions.ts";
import { type Card, cardsMask } from "../engine/cards.ts";
import { GinError, IllegalAction, MalformedInput } from "../engine/errors.ts";
import { shuffledDeck } from "../engine/hand.ts";
import { Match, type MatchData } from "../engine/match.ts";
import { allArrangements, type Arrangement, discardDeadwoods } from "../engine/melds.ts";
import type { HandResult, Observation } from "../engine/observation.ts";
import { Phase } from "../engine/observation.ts";
import type { Ruleset } from "../engine/rules.ts";
import type { MatchTotals } from "../engine/scoring.ts";
import * as players from "../players/index.ts";
import { Rand } from "../rand.ts";
import { matchEntry, RecordBook } from "./record.ts";
import type { AutoMove, HintView, Play } from "./play.ts";
import { scoreSheet, type SheetRow } from "./scoresheet.ts";
import { THEM } from "./words.ts";

export const HUMAN = 0;
export const OPPONENT = 1;
const SAVE_FORMAT = 1;

export type Strength = "easy" | "normal" | "hard";
export const STRENGTHS: readonly [Strength, string][] = [["easy", "Easy"], ["normal", "Normal"], ["hard", "Hard"]];

/** Somewhere to keep one text (the browser's localStorage; a map in tests). */
export interface Store {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A saved match as stored. */
interface Saved {
  format: number;
  vs: Strength;
  seed: number;
  match: MatchData;
}

export const SAVE_KEY = "gin.board.match";

/** For each card the player may knock by throwing, the deadwood it leaves. */
export function knockCounts(obs: Observation, legal: readonly Action[]): Map<Card, number> {
  const knockable = legal.filter((a): a is Knock => a instanceof Knock).map((a) => a.card);
  const counts = new Map<Card, number>();
  if (!knockable.length) return counts;
  const best = discardDeadwoods(cardsMask(obs.hand));
  for (const card of knockable) counts.set(card, best.get(card.mask)!);
  return counts;
}

/** The card whose throw leaves the least deadwood (never the card just taken). */
export function bestThrow(obs: Observation): Card | null {
  const left = discardDeadwoods(cardsMask(obs.hand));
  let best: Card | null = null;
  for (const card of obs.hand) {
    if (card !== obs.justTaken && (best === null || left.get(card.mask)! < left.get(best.mask)!)) best = card;
  }
  return best;
}

/** The card to knock with: the one leaving least deadwood, the selected one on a tie. */
export function knockChoice(counts: ReadonlyMap<Card, number>, selected: Card | null): [Card, number] {
  const count = Math.min(...counts.values());
  const best = [...counts].filter(([, n]) => n === count).map(([c]) => c);
  return [selected !== null && best.includes(selected) ? selected : best[0]!, count];
}

/** The ways to lay out the ten cards left after throwing `card`, within the knock
 * limit, least deadwood first (the first is the engine's best). */
export function knockLayouts(obs: Observation, card: Card): Arrangement[] {
  const left = cardsMask(obs.hand.filter((c) => c !== card));
  return allArrangements(left, obs.knockLimit).sort((a, b) => a.deadwood - b.deadwood);
}

/** The computer's own seed: its play never shifts the decks. Players keep no state
 * (each decision is seeded from this and the observation), so a resumed match
 * plays on exactly as it would have. */
function opponentSeed(seed: number): number {
  return (seed ^ 0x5bd1e995) >>> 0;
}

function newSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

/** One match against the computer, seen from the player's seat (player 0). The
 * computer deals the first hand, so the player is offered the first upcard. */
export class Game implements Play {
  readonly online = false;
  readonly botPlays = false;
  readonly them = THEM;
  match: Match;
  vs: Strength;
  /** Warnings for the page (a save that failed, a saved match that was damaged). */
  readonly warnings: string[] = [];
  private seed: number;
  private decks: Rand;
  private opponent: players.Player;
  private listeners: (() => void)[] = [];

  constructor(rules: Ruleset, vs: Strength, private readonly store: Store | null = null,
              seed: number = newSeed(), match: Match | null = null) {
    this.vs = vs;
    this.seed = seed;
    this.decks = new Rand(seed);
    this.opponent = players.get(vs, opponentSeed(seed));
    this.match = match ?? new Match(rules, OPPONENT);
    if (match?.hand) {
      // The deck stream goes on after the decks already dealt.
      const dealt = match.results.length + (match.hand.phase === Phase.OVER ? 0 : 1);
      for (let i = 0; i < dealt; i++) shuffledDeck(this.decks);
    }
    if (this.match.hand === null) this.nextHand();
  }

  /** The match saved in `store`, where it stopped; null if none. A save that cannot
   * be continued is moved aside (kept under another key) and reported. */
  static resume(store: Store): Game | null {
    const text = store.getItem(SAVE_KEY);
    if (text === null) return null;
    try {
      const saved = JSON.parse(text) as Saved;
      if (saved.format !== SAVE_FORMAT) throw new MalformedInput(`unknown save format ${saved.format}`);
      if (!STRENGTHS.some(([key]) => key === saved.vs)) throw new MalformedInput(`unknown strength ${saved.vs}`);
      if (!Number.isInteger(saved.seed) || saved.seed < 0 || saved.seed >= 2 ** 32) {
        throw new MalformedInput("the saved seed is not a 32-bit number");
      }
      const match = Match.fromDict(saved.match);
      return new Game(match.rules, saved.vs, store, saved.seed, match);
    } catch (exc) {
      if (!(exc instanceof GinError || exc instanceof SyntaxError || exc instanceof TypeError)) throw exc;
      store.setItem(`${SAVE_KEY}.damaged`, text);
      store.removeItem(SAVE_KEY);
      throw new MalformedInput(`The saved match could not be continued (${exc.message}); `
        + "it was set aside and a new match begins.");
    }
  }

  // -- reading --------------------------------------------------------------------

  readonly rulesOnOffer = null;
  readonly hints = true;

  get rules(): Ruleset {
    return this.match.rules;
  }

  observation(): Observation {
    return this.match.observation(HUMAN);
  }

  opponentLabel(): string {
    return `Computer (${this.vs})`;
  }

  /** The player's legal actions now (none while the computer is to move). */
  legal(): Action[] {
    const hand = this.match.hand;
    if (hand === null || hand.phase === Phase.OVER || hand.turn !== HUMAN) return [];
    return this.match.legalActions();
  }

  bestThrow(): Card | null {
    return bestThrow(this.observation());
  }

  /** Why the player may not do `action` now (null when it is legal). */
  refusal(action: Action): string | null {
    const hand = this.match.hand;
    return hand === null ? "no hand is in play" : hand.refusal(HUMAN, action);
  }

  get opponentToMove(): boolean {
    const hand = this.match.hand;
    return hand !== null && hand.phase !== Phase.OVER && hand.turn === OPPONENT;
  }

  get totals(): MatchTotals | null {
    return this.match.totals;
  }

  knockCounts(): Map<Card, number> {
    return knockCounts(this.observation(), this.legal());
  }

  /** Every finished hand of the match, with the running totals and boxes. */
  scoreSheet(): SheetRow[] {
    return scoreSheet(this.match.results);
  }

  /** The player's last throw may still be taken back: the computer has not seen it.
   * It decides and moves in one step when its pause ends, so until then it has not. */
  get canUndo(): boolean {
    const hand = this.match.hand;
    if (hand === null || hand.phase === Phase.OVER || !hand.actions.length) return false;
    const [player, action] = hand.actions[hand.actions.length - 1]!;
    return player === HUMAN && action instanceof Discard;
  }

  /** Take back the player's last throw (IllegalAction if it may not be): the match
   * is replayed without it, so the position is exactly the one before. Returns the
   * card taken back. */
  undo(): Card {
    const hand = this.match.hand;
    if (hand === null || !this.canUndo) throw new IllegalAction("there is no throw to take back: the computer has seen it");
    const thrown = hand.actions[hand.actions.length - 1]![1] as Discard;
    const data = this.match.toDict();
    data.hands[data.hands.length - 1]!.actions.pop();
    this.match = Match.fromDict(data);
    this.save();
    this.changed();
    return thrown.card;
  }

  /** Hard's move for the player now, with its reason. */
  hint(): HintView {
    const legal = this.legal();
    if (!legal.length) throw new IllegalAction("it is not your turn");
    const hint = players.hint(this.observation(), legal);
    return { action: hint.action, reason: hint.reason };
  }

  // -- acting ---------------------------------------------------------------------

  /** Apply the player's action (IllegalAction, nothing changed, if refused). */
  play(action: Action): HandResult | null {
    return this.apply(HUMAN, action);
  }

  /** The computer's choice now (reads only). */
  opponentMove(): Action {
    if (!this.opponentToMove) throw new IllegalAction("it is not the computer's turn");
    return this.opponent.choose(this.match.observation(OPPONENT), this.match.legalActions());
  }

  applyOpponent(action: Action): HandResult | null {
    return this.apply(OPPONENT, action);
  }

  automatic(): AutoMove | null {
    if (!this.opponentToMove) return null;
    return { opponent: true, run: () => this.applyOpponent(this.opponentMove()) };
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  holdUp(): string | null {
    return null; // the computer answers at once
  }

  stopped(): string | null {
    return null; // a local match always goes on
  }

  takeWarnings(): string[] {
    return this.warnings.splice(0);
  }

  /** Deal the next hand from the game's own deck stream. */
  nextHand(): void {
    this.match.deal(shuffledDeck(this.decks));
    this.save();
    this.changed();
  }

  setStrength(vs: Strength): void {
    this.vs = vs;
    this.opponent = players.get(vs, opponentSeed(this.seed));
    this.save();
  }

  /** Abandon the match in play and start another (a fresh deck stream). */
  newMatch(rules: Ruleset = this.rules): void {
    this.seed = newSeed();
    this.decks = new Rand(this.seed);
    this.match = new Match(rules, OPPONENT);
    this.nextHand();
  }

  private apply(player: number, action: Action): HandResult | null {
    const result = this.match.apply(player, action);
    this.save();
    const totals = this.match.totals;
    if (result !== null && totals !== null && this.store !== null) { // your record (record.ts)
      this.warnings.push(...new RecordBook(this.store).add(matchEntry(`computer:${this.vs}`, HUMAN,
        totals.winner, this.match.results, totals, new Date().toISOString())));
    }
    this.changed();
    return result;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Keep the match in the store; a failure becomes a warning (play goes on). */
  save(): void {
    if (this.store === null) return;
    const saved: Saved = { format: SAVE_FORMAT, vs: this.vs, seed: this.seed, match: this.match.toDict() };
    try {
      this.store.setItem(SAVE_KEY, JSON.stringify(saved));
    } catch (exc) {
      this.warnings.push(`The match could not be saved in this browser: ${(exc as Error).message}`);
    }
  }
}
