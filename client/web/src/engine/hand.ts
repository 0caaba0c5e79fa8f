/**
 * One hand of Gin Rummy as a state machine with explicit phases (gin/engine/hand.py).
 *
 * The deck is a sequence of 52 positions. The deal gives positions 0..19 one at a
 * time, the non-dealer first (even positions to the non-dealer, odd to the dealer);
 * position 20 is the upcard; positions 21..51 are the stock, drawn in order.
 *
 * A position's card may be unknown (null) to this copy of the hand: an online peer
 * does not know the cards it was not dealt. Such a card is held face down until
 * {@link Hand.reveal} tells it. With a full deck nothing is hidden.
 *
 * {@link Hand.refusal} is the one place that decides what is legal; `legalActions`
 * filters candidates through it and `apply` refuses what it refuses, leaving the
 * state unchanged.
 */

import {
  type Action, BigGin, Discard, DrawPile, DrawStock, Knock, LayOff, Pass, parseAction,
} from "./actions.ts";
import { Card, DECK, maskCards } from "./cards.ts";
import * as data from "./data.ts";
import { IllegalAction, MalformedInput } from "./errors.ts";
import { bestDefence, checkDefence, type Defence } from "./layoffs.ts";
import { andNot, bitCount, type Mask, meets, or, union } from "./mask.ts";
import { checkMeld, discardOption, discardTable, maskValue, type Meld } from "./melds.ts";
import { type Event, HandResult, Observation, Phase } from "./observation.ts";
import type { Rand } from "../rand.ts";
import { Ruleset, STANDARD } from "./rules.ts";
import { knockerLayout, settleMasks } from "./scoring.ts";

export const UPCARD_POSITION = 20;
export const FIRST_STOCK_POSITION = 21;

/** Deck positions of the ten cards dealt to the dealer or the non-dealer. */
export function dealtPositions(dealer: boolean): number[] {
  const out: number[] = [];
  for (let pos = dealer ? 1 : 0; pos < 20; pos += 2) out.push(pos);
  return out;
}

/** A shuffled deck from an injected random stream. */
export function shuffledDeck(rng: Rand): Card[] {
  return rng.shuffle([...DECK]);
}

/**
 * A deck order that deals the given hands and upcard, with `stock` on top of the
 * stock and the remaining cards after it in index order.
 */
export function stackedDeck(
  nonDealer: readonly Card[], dealer: readonly Card[], upcard: Card, stock: readonly Card[] = [],
): Card[] {
  if (nonDealer.length !== 10 || dealer.length !== 10) {
    throw new MalformedInput("each player is dealt exactly 10 cards");
  }
  const deck: Card[] = [];
  for (let i = 0; i < 10; i++) deck.push(nonDealer[i]!, dealer[i]!);
  deck.push(upcard, ...stock);
  const used = new Set(deck);
  if (used.size !== deck.length) throw new MalformedInput("a stacked deck repeats a card");
  for (const c of DECK) if (!used.has(c)) deck.push(c);
  return deck;
}

/** A saved hand: the deck, the dealer, the rules and every action (gin's `to_dict`). */
export interface HandData {
  rules: Record<string, unknown>;
  dealer: number;
  deck: (string | null)[];
  actions: [number, string][];
}

// Events whose card one player may not see: the other's stock draw, and a knocker's
// face-down discard until the hand is over.
const HIDDEN_CARD_KINDS = new Set(["stock", "knock"]);

/** One hand: deal, upcard offers, draws and discards, a knock, lay-offs, score. */
/** Why knocking by throwing `card` is refused when it leaves `deadwood` (null: within the limit). */
export function knockLimitRefusal(card: Card, deadwood: number, limit: number): string | null {
  return deadwood > limit ? `knocking with ${card} leaves ${deadwood} deadwood; the knock limit is ${limit}` : null;
}

export class Hand {
  readonly rules: Ruleset;
  readonly dealer: number;
  readonly knockLimit: number;
  phase: Phase = Phase.UPCARD;
  turn: number;
  justTaken: Card | null = null;
  result: HandResult | null = null;
  readonly events: Event[] = [];
  readonly actions: [number, Action][] = [];
  private readonly deck: (Card | null)[];
  private readonly masks: [Mask, Mask] = [0, 0];
  private readonly hidden: [Set<number>, Set<number>] = [new Set(), new Set()];
  private nextStock = FIRST_STOCK_POSITION;
  private readonly pileCards: Card[];
  private readonly known: [Mask, Mask] = [0, 0];
  private passes = 0;
  private knock: { player: number; melds: Mask[]; card: Card | null } | null = null;
  // Each player's view of `events`, kept as they happen.
  private readonly seen: [Event[], Event[]] = [[], []];

  constructor(deck: readonly (Card | null)[], dealer = 0, rules: Ruleset = STANDARD) {
    if (deck.length !== 52) throw new MalformedInput(`a deck has 52 positions, got ${deck.length}`);
    const known = deck.filter((c): c is Card => c !== null);
    if (new Set(known).size !== known.length) throw new MalformedInput("the deck repeats a card");
    const upcard = deck[UPCARD_POSITION];
    if (upcard === null || upcard === undefined) {
      throw new MalformedInput("the upcard (position 20) must be known");
    }
    if (dealer !== 0 && dealer !== 1) throw new MalformedInput(`dealer must be 0 or 1, got ${dealer}`);
    this.rules = rules;
    this.dealer = dealer;
    this.knockLimit = rules.knockLimitFor(upcard.value);
    this.deck = [...deck];
    for (const player of [0, 1]) {
      for (const pos of dealtPositions(player === dealer)) this.give(player, pos);
    }
    this.pileCards = [upcard];
    this.turn = 1 - dealer;
  }

  // -- reading the state -----------------------------------------------------

  get stockCount(): number {
    return 52 - this.nextStock;
  }

  get pile(): Card[] {
    return [...this.pileCards];
  }

  get nextStockPosition(): number {
    return this.nextStock;
  }

  /** Both passed the upcard and the first draw, from the stock, is still due. */
  get upcardClosed(): boolean {
    return this.passes === 2 && this.phase === Phase.DRAW && this.stockCount === 31;
  }

  /** The known cards `player` holds, in index order. */
  cards(player: number): Card[] {
    return maskCards(this.masks[player]!);
  }

  hiddenCount(player: number): number {
    return this.hidden[player]!.size;
  }

  cardCount(player: number): number {
    return bitCount(this.masks[player]!) + this.hidden[player]!.size;
  }

  cardAt(position: number): Card | null {
    return this.deck[position] ?? null;
  }

  // -- legality: the one place -----------------------------------------------

  /** Why `player` may not do `action` now, or null when it is legal. */
  refusal(player: number, action: Action): string | null {
    if (this.phase === Phase.OVER) return "the hand is over";
    if (player !== this.turn) return `it is player ${this.turn}'s turn`;
    return this.check(player, action);
  }

  /** The check of one kind of action (the phase and the turn are already right). */
  private check(player: number, action: Action): string | null {
    switch (action.kind) {
      case "pass": return this.phase === Phase.UPCARD ? null : "only the upcard can be passed";
      case "take": return this.pileRefusal();
      case "stock": return this.stockRefusal();
      case "discard": return this.discardRefusal(player, action);
      case "knock": return this.knockRefusal(player, action);
      case "biggin": return this.bigGinRefusal(player, action);
      case "layoff": return this.layoffRefusal(player, action);
    }
  }

  private pileRefusal(): string | null {
    if (this.phase === Phase.UPCARD) return null;
    if (this.phase !== Phase.DRAW) return "you have drawn already";
    return this.upcardClosed ? "both players passed the upcard: draw from the stock" : null;
  }

  private stockRefusal(): string | null {
    if (this.phase === Phase.DRAW) return null;
    return this.phase === Phase.UPCARD ? "take or pass the upcard first" : "not drawing now";
  }

  private discardRefusal(player: number, action: Discard | Knock): string | null {
    const phase = this.phase;
    if (phase !== Phase.DISCARD) {
      return phase === Phase.DRAW || phase === Phase.UPCARD ? "draw a card first" : "not discarding now";
    }
    const card = action.card;
    if (meets(card.mask, this.throwable(player))) return null;
    if (meets(this.masks[player]!, card.mask)) {
      return `${card} was just taken from the pile and cannot be thrown now`;
    }
    return `player ${player} does not hold ${card}`;
  }

  /** The cards `player` may throw in the discard phase: those held, less the card just taken. */
  private throwable(player: number): Mask {
    const taken = this.justTaken;
    return taken === null ? this.masks[player]! : andNot(this.masks[player]!, taken.mask);
  }

  private knockRefusal(player: number, action: Knock): string | null {
    const why = this.discardRefusal(player, action);
    if (why !== null) return why;
    if (this.hidden[player]!.size) return "the knocker's cards must all be revealed";
    const mask = this.masks[player]!;
    let deadwood: number;
    if (action.melds === null) {
      deadwood = discardOption(mask, action.card.mask).deadwood;
    } else {
      try {
        deadwood = maskValue(this.declared(mask - action.card.mask, action.melds)[1]);
      } catch (exc) {
        return reason(exc);
      }
    }
    return knockLimitRefusal(action.card, deadwood, this.knockLimit);
  }

  private bigGinRefusal(player: number, action: BigGin): string | null {
    if (this.phase !== Phase.DISCARD) return "big gin is declared with eleven cards, after the draw";
    if (this.rules.bigGinBonus === null) return `big gin is not played under the ${this.rules.name} rules`;
    if (this.hidden[player]!.size) return "the knocker's cards must all be revealed"; // seen, as for a knock
    let loose: Mask;
    try {
      loose = this.declared(this.masks[player]!, action.melds)[1];
    } catch (exc) {
      return reason(exc);
    }
    return loose === 0 ? null : "not every card is in a meld";
  }

  private layoffRefusal(player: number, action: LayOff): string | null {
    if (this.phase !== Phase.LAYOFF) return `nobody has knocked, so there is nothing to lay off: ${this.whatNow()}`;
    try {
      this.defence(player, action);
    } catch (exc) {
      return reason(exc);
    }
    return null;
  }

  /** What the player to move may do in the upcard, draw or discard phase. */
  private whatNow(): string {
    if (this.phase === Phase.UPCARD) return "take the upcard or pass";
    if (this.phase === Phase.DRAW) {
      return this.upcardClosed ? "draw from the stock" : "draw from the stock or take the discard";
    }
    return "throw a card, or knock if your loose cards are few enough";
  }

  private declared(cards: Mask, melds: readonly Meld[] | null): [Mask[], Mask] {
    return knockerLayout(cards, melds === null ? null : melds.map(checkMeld));
  }

  private defence(player: number, action: LayOff): Defence {
    if (this.hidden[player]!.size) throw new IllegalAction("the defender's cards must all be revealed");
    const knockerMelds = this.knock!.melds;
    const mask = this.masks[player]!;
    if (action.layoffs === null && action.melds === null) return bestDefence(mask, knockerMelds);
    const melds = (action.melds ?? []).map(checkMeld);
    const layoffs = (action.layoffs ?? []).map(([c, i]) => [c.mask, i] as const);
    return checkDefence(mask, knockerMelds, melds, layoffs);
  }

  /**
   * Every action the player to move may take now, in gin's order. In the lay-off
   * phase the defender's layout is free; this lists the best one (`layoff`), and
   * any other valid layout is legal too.
   */
  legalActions(): Action[] {
    const player = this.turn;
    let candidates: Action[];
    switch (this.phase) {
      case Phase.UPCARD: candidates = [new DrawPile(), new Pass()]; break;
      case Phase.DRAW: candidates = [new DrawStock(), new DrawPile()]; break;
      case Phase.LAYOFF: candidates = [new LayOff()]; break;
      case Phase.DISCARD: return this.discardPhaseActions(player);
      default: return [];
    }
    return candidates.filter((a) => this.check(player, a) === null);
  }

  private discardPhaseActions(player: number): Action[] {
    const mask = this.masks[player]!;
    const throwable = this.throwable(player);
    if (this.hidden[player]!.size) { // an online peer's hand: discards of the known cards
      return maskCards(throwable).map((c) => new Discard(c));
    }
    const table = discardTable(mask);
    const legal: Action[] = [];
    for (const option of table) {
      if (meets(option.bit, throwable)) legal.push(new Discard(cardOfBit(option.bit)));
    }
    for (const option of table) {
      if (option.deadwood <= this.knockLimit) {
        const knock = new Knock(cardOfBit(option.bit));
        if (this.knockRefusal(player, knock) === null) legal.push(knock);
      }
    }
    if (this.rules.bigGinBonus !== null && table.some((o) => o.deadwood === 0)
        && this.bigGinRefusal(player, new BigGin()) === null) {
      legal.push(new BigGin()); // eleven melded cards allow a gin discard
    }
    return legal;
  }

  // -- changing the state ------------------------------------------------------

  /** Do `action` for `player`; IllegalAction (state unchanged) if refused. */
  apply(player: number, action: Action): void {
    const why = this.refusal(player, action);
    if (why !== null) {
      throw new IllegalAction(`player ${player} cannot ${action} in the ${this.phase} phase: ${why}`);
    }
    this.actions.push([player, action]);
    const other = 1 - player;
    switch (action.kind) {
      case "discard": {
        this.remove(player, action.card);
        this.pileCards.push(action.card);
        this.log({ player, kind: "discard", card: action.card });
        this.justTaken = null;
        if (this.stockCount <= this.rules.deadStock) {
          this.log({ player, kind: "dead", card: null });
          this.finish(new HandResult("dead", null, null, 0, null));
        } else {
          this.turn = other;
          this.phase = Phase.DRAW;
        }
        break;
      }
      case "stock": {
        const pos = this.nextStock;
        this.nextStock += 1;
        this.give(player, pos);
        this.justTaken = null;
        this.log({ player, kind: "stock", card: this.deck[pos] ?? null });
        this.phase = Phase.DISCARD;
        break;
      }
      case "take": {
        const card = this.pileCards.pop()!;
        this.masks[player] = or(this.masks[player]!, card.mask);
        this.known[player] = or(this.known[player]!, card.mask);
        this.justTaken = card;
        this.log({ player, kind: "take", card });
        this.phase = Phase.DISCARD;
        break;
      }
      case "pass": {
        this.log({ player, kind: "pass", card: null });
        this.passes += 1;
        if (this.passes === 1) {
          this.turn = other;
        } else { // both passed: the non-dealer draws, from the stock only
          this.turn = 1 - this.dealer;
          this.phase = Phase.DRAW;
        }
        break;
      }
      case "knock": {
        this.remove(player, action.card);
        const [melds] = this.declared(this.masks[player]!, action.melds);
        this.knock = { player, melds, card: action.card };
        this.log({ player, kind: "knock", card: action.card });
        if (!andNot(this.masks[player]!, union(melds))) {
          this.settle(null); // gin: nothing may be laid off
        } else {
          this.turn = other;
          this.phase = Phase.LAYOFF;
        }
        break;
      }
      case "biggin": {
        const [melds] = this.declared(this.masks[player]!, action.melds);
        this.knock = { player, melds, card: null };
        this.log({ player, kind: "biggin", card: null });
        this.settle(null);
        break;
      }
      case "layoff": {
        const defence = this.defence(player, action);
        this.log({ player, kind: "layoff", card: null });
        this.settle(defence);
        break;
      }
    }
  }

  /**
   * Tell this copy of the hand the card at a position it did not know.
   * MalformedInput if that contradicts what is known.
   */
  reveal(position: number, card: Card): void {
    if (!(Number.isInteger(position) && position >= 0 && position < 52)) {
      throw new MalformedInput(`deck position ${position} is not in 0..51`);
    }
    const current = this.deck[position];
    if (current !== null && current !== undefined) {
      if (current !== card) throw new MalformedInput(`position ${position} holds ${current}, not ${card}`);
      return;
    }
    const at = this.deck.indexOf(card);
    if (at >= 0) throw new MalformedInput(`${card} is already at position ${at}`);
    this.deck[position] = card;
    for (const player of [0, 1]) {
      if (this.hidden[player]!.delete(position)) this.masks[player] = or(this.masks[player]!, card.mask);
    }
  }

  private give(player: number, position: number): void {
    const card = this.deck[position];
    if (card === null || card === undefined) this.hidden[player]!.add(position);
    else this.masks[player] = or(this.masks[player]!, card.mask);
  }

  private remove(player: number, card: Card): void {
    this.masks[player] = andNot(this.masks[player]!, card.mask);
    this.known[player] = andNot(this.known[player]!, card.mask);
  }

  private settle(defence: Defence | null): void {
    const { player: knocker, melds } = this.knock!;
    const defender = 1 - knocker;
    if (defence === null && this.hidden[defender]!.size) {
      throw new IllegalAction("the defender's cards must be revealed before gin is scored");
    }
    const outcome = settleMasks(this.masks[knocker]!, this.masks[defender]!, this.rules, melds,
      this.knockLimit, defence);
    const winner = outcome.winner === "knocker" ? knocker : defender;
    this.finish(new HandResult(outcome.kind, knocker, winner, outcome.points, outcome));
  }

  private finish(result: HandResult): void {
    this.result = result;
    this.phase = Phase.OVER;
    // The knocker's face-down discard is shown to both once the hand is over.
    this.events.forEach((event, index) => {
      if (event.kind === "knock") for (const seen of this.seen) seen[index] = event;
    });
  }

  private log(event: Event): void {
    this.events.push(event);
    for (const [player, seen] of this.seen.entries()) {
      seen.push(HIDDEN_CARD_KINDS.has(event.kind) ? this.seenAs(event, player) : event);
    }
  }

  /** `event` as `player` sees it: a hidden card is left out. */
  private seenAs(event: Event, player: number): Event {
    const visible = event.kind === "stock"
      ? event.player === player
      : event.player === player || this.phase === Phase.OVER;
    return visible ? event : { player: event.player, kind: event.kind, card: null };
  }

  // -- what a player sees --------------------------------------------------------

  /** Exactly what `player` may see now. */
  observation(player: number): Observation {
    return this.observationIn(player, [0, 0], [0, 0], 1);
  }

  /** {@link observation} with the match context filled in (for {@link Match}). */
  observationIn(
    player: number, scores: readonly [number, number], handsWon: readonly [number, number], handNumber: number,
  ): Observation {
    const other = 1 - player;
    const over = this.phase === Phase.OVER;
    const knockMelds = this.knock !== null && (this.phase === Phase.LAYOFF || over)
      ? this.knock.melds.map(maskCards)
      : null;
    // The opponent's hand: once the hand is over, and to the defender while it lays
    // off (a knocker lays its whole hand face up).
    const shown = over || (knockMelds !== null && this.knock!.player === other);
    return new Observation({
      player,
      phase: this.phase,
      turn: this.turn,
      dealer: this.dealer,
      hand: maskCards(this.masks[player]!),
      justTaken: this.turn === player ? this.justTaken : null,
      pile: [...this.pileCards],
      stockCount: this.stockCount,
      opponentCardCount: this.cardCount(other),
      opponentKnown: maskCards(this.known[other]!),
      history: [...this.seen[player]!],
      knockLimit: this.knockLimit,
      rules: this.rules,
      upcardClosed: this.upcardClosed,
      result: this.result,
      opponentHand: shown ? maskCards(this.masks[other]!) : null,
      knockMelds,
      scores,
      handsWon,
      handNumber,
    });
  }

  // -- saving --------------------------------------------------------------------

  /** Plain data from which {@link Hand.fromDict} restores this hand exactly. */
  toDict(): HandData {
    return {
      rules: this.rules.toDict(),
      dealer: this.dealer,
      deck: this.deck.map((c) => (c === null ? null : String(c))),
      actions: this.actions.map(([p, a]) => [p, String(a)]),
    };
  }

  static fromDict(value: unknown): Hand {
    const d = data.record(value, "a saved hand");
    const deck = data.list(d.deck, "a saved hand's deck")
      .map((c, i) => (c === null ? null : data.card(c, `deck[${i}]`)));
    const hand = new Hand(deck, data.seat(d.dealer, "a saved hand's dealer"), Ruleset.fromDict(d.rules));
    for (const item of data.list(d.actions, "a saved hand's actions")) {
      const [player, text] = data.list(item, "a saved action");
      if (typeof text !== "string") throw new MalformedInput("a saved action's text must be text");
      try {
        hand.apply(data.seat(player, "a saved action's player"), parseAction(text));
      } catch (exc) {
        if (exc instanceof IllegalAction) {
          throw new MalformedInput(`saved hand replays an illegal action: ${exc.message}`);
        }
        throw exc;
      }
    }
    return hand;
  }
}

function cardOfBit(bit: Mask): Card {
  return maskCards(bit)[0]!;
}

/** The message of an engine error that refuses an action; anything else is rethrown. */
function reason(exc: unknown): string {
  if (exc instanceof IllegalAction || exc instanceof MalformedInput) return exc.message;
  throw exc;
}
