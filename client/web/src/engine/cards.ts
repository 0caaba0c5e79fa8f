/**
 * Cards: a small immutable value type, its text forms, and card sets as masks.
 *
 * A card's index is `suit * 13 + (rank - 1)` with suits in the order clubs,
 * diamonds, hearts, spades, as in gin/engine/cards.py; a hand is a 52-bit {@link Mask}.
 */

import { MalformedInput } from "./errors.ts";
import { pyRepr } from "./pyrepr.ts";
import { indices, type Mask } from "./mask.ts";

export const RANKS = "A23456789TJQK";
export const SUITS = "cdhs";
export const SUIT_GLYPHS = "♣♦♥♠";
export const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"] as const;
export const RANK_NAMES = [
  "ace", "two", "three", "four", "five", "six", "seven",
  "eight", "nine", "ten", "jack", "queen", "king",
] as const;

const VARIATION_SELECTORS = /[\ufe0e\ufe0f]/g;
/** The spaces card and action texts may hold: ASCII only, as gin.engine.cards.SPACE, so
 * that both implementations split a text alike (JavaScript's \s and trim() know
 * more spaces than Python's str.split, and Python's knows some JavaScript's does not). */
export const SPACE = " \t\n\r\f\v";
const SEPARATORS = /[ \t\n\r\f\v]*,[ \t\n\r\f\v]*|[ \t\n\r\f\v]+/;

/** `text` without ASCII spaces at either end (Python's `text.strip(SPACE)`). */
export function stripSpace(text: string): string {
  return text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
}

/**
 * One playing card. `rank` is 1 (ace) to 13 (king); `suit` 0..3 (c d h s).
 * There is one instance per card (see {@link Card.fromIndex}), so cards compare
 * with `===`. `toString()` is the canonical text (`Th`).
 */
export class Card {
  readonly rank: number;
  readonly suit: number;
  /** 0..51, the card's bit in a hand mask. */
  readonly index: number;
  /** The one-card mask, `2 ** index`. */
  readonly mask: Mask;

  private constructor(rank: number, suit: number) {
    this.rank = rank;
    this.suit = suit;
    this.index = suit * 13 + rank - 1;
    this.mask = 2 ** this.index;
  }

  /** Deadwood points: ace 1, two to ten their number, court cards 10. */
  get value(): number {
    return this.rank < 10 ? this.rank : 10;
  }

  get isRed(): boolean {
    return this.suit === 1 || this.suit === 2;
  }

  /** Rank and suit glyph for display, such as `10♥`. */
  get glyph(): string {
    return (this.rank === 10 ? "10" : RANKS[this.rank - 1]) + SUIT_GLYPHS[this.suit];
  }

  /** Words, such as `seven of hearts`. */
  get name(): string {
    return `${RANK_NAMES[this.rank - 1]} of ${SUIT_NAMES[this.suit]}`;
  }

  toString(): string {
    return RANKS[this.rank - 1]! + SUITS[this.suit]!;
  }

  toJSON(): string {
    return this.toString();
  }

  /** The card of a rank (1..13) and suit (0..3). */
  static of(rank: number, suit: number): Card {
    if (!Number.isInteger(rank) || !Number.isInteger(suit) || rank < 1 || rank > 13
        || suit < 0 || suit > 3) {
      throw new MalformedInput(`no such card: rank ${rank}, suit ${suit}`);
    }
    return DECK[suit * 13 + rank - 1]!;
  }

  static fromIndex(index: number): Card {
    const card = Number.isInteger(index) ? DECK[index] : undefined;
    if (card === undefined) throw new MalformedInput(`card index ${index} is not in 0..51`);
    return card;
  }

  /** Parse one card: `7h`, `Th`, `10h`, `7♥`, any case. */
  static parse(text: string): Card {
    const token = stripSpace(text).replace(VARIATION_SELECTORS, "");
    const chars = [...token];
    if (chars.length < 2) {
      throw new MalformedInput(`card ${pyRepr(text)}: expected a rank then a suit, such as 7h or T♥`);
    }
    const rawRank = chars.slice(0, -1).join("");
    const rawSuit = chars[chars.length - 1]!;
    let rankText = rawRank.toUpperCase();
    if (rankText === "10") rankText = "T";
    const rank = rankText.length === 1 ? RANKS.indexOf(rankText) : -1;
    if (rank < 0) {
      throw new MalformedInput(
        `card ${pyRepr(text)}: unknown rank ${pyRepr(rawRank)} (use A 2-9 T/10 J Q K)`);
    }
    let suit = SUITS.indexOf(rawSuit.toLowerCase());
    if (suit < 0) suit = SUIT_GLYPHS.indexOf(rawSuit);
    if (suit < 0) {
      throw new MalformedInput(`card ${pyRepr(text)}: unknown suit ${pyRepr(rawSuit)} (use c d h s or ♣♦♥♠)`);
    }
    return DECK[suit * 13 + rank]!;
  }

  /** Python's ordering of cards: by rank, then suit. */
  static compare(a: Card, b: Card): number {
    return a.rank - b.rank || a.suit - b.suit;
  }

  /** @internal builds the deck once. */
  static makeDeck(): readonly Card[] {
    const deck: Card[] = [];
    for (let i = 0; i < 52; i++) deck.push(new Card((i % 13) + 1, Math.floor(i / 13)));
    return Object.freeze(deck);
  }
}

/** All 52 cards in index order. */
export const DECK: readonly Card[] = Card.makeDeck();

/**
 * Parse cards separated by spaces and/or commas; duplicates are an error.
 * Errors name the bad token and its position (1-based).
 */
export function parseCards(text: string): Card[] {
  const stripped = stripSpace(text);
  if (!stripped) return [];
  const cards: Card[] = [];
  const seen = new Set<Card>();
  stripped.split(SEPARATORS).forEach((token, i) => {
    const position = i + 1;
    if (!token) throw new MalformedInput(`card ${position} of ${pyRepr(text)} is empty`);
    let card: Card;
    try {
      card = Card.parse(token);
    } catch (exc) {
      if (exc instanceof MalformedInput) {
        throw new MalformedInput(`card ${position} of ${pyRepr(text)}: ${exc.message}`);
      }
      throw exc;
    }
    if (seen.has(card)) {
      throw new MalformedInput(`card ${position} of ${pyRepr(text)}: ${card} appears twice`);
    }
    seen.add(card);
    cards.push(card);
  });
  return cards;
}

/** The 52-bit mask of a collection of cards. */
export function cardsMask(cards: Iterable<Card>): Mask {
  let hi = 0;
  let lo = 0;
  for (const card of cards) {
    if (card.index < 26) lo |= 1 << card.index;
    else hi |= 1 << (card.index - 26);
  }
  return hi * 67108864 + lo;
}

/** The cards of a mask, in index order (suit, then rank). */
export function maskCards(mask: Mask): Card[] {
  return indices(mask).map((i) => DECK[i]!);
}

/** Canonical text of several cards, space separated (inverse of parseCards). */
export function formatCards(cards: Iterable<Card>): string {
  return Array.from(cards, String).join(" ");
}

/** Canonical text of the cards of a mask. */
export function maskText(mask: Mask): string {
  return formatCards(maskCards(mask));
}
