/**
 * A verified hand record replayed move by move: the record's actions applied
 * through the TypeScript engine on the deck its seeds define (the deck the audit
 * rebuilt), a frame after the deal and after each move, with both hands face up.
 * Each frame's words are gin audit's (protocol/records/audit_text.ts), so the replay and the
 * report tell the hand alike. Pure: the window of audit_window.ts draws the frames.
 */

import { parseAction } from "../engine/actions.ts";
import type { Card } from "../engine/cards.ts";
import { Hand } from "../engine/hand.ts";
import type { HandResult } from "../engine/observation.ts";
import { Ruleset } from "../engine/rules.ts";
import type { HandData } from "../protocol/records/audit_report.ts";
import { eventText, laidDown, scoresText, scoreText } from "../protocol/records/audit_text.ts";
import { SEATS } from "../protocol/records/seats.ts";

/** The table after a step: what happened, both hands, the pile and the stock. */
export interface Frame {
  /** What happened, a sentence each (the deal's, or the move's events). */
  readonly said: readonly string[];
  /** Each seat's cards (host, guest), in index order. */
  readonly hands: readonly [readonly Card[], readonly Card[]];
  /** The discard pile, the first thrown first; the top is last. */
  readonly pile: readonly Card[];
  readonly stock: number;
  /** The hand's end, on the last frame only. */
  readonly result: HandResult | null;
}

function frame(hand: Hand, said: string[]): Frame {
  return { said, hands: [hand.cards(0), hand.cards(1)], pile: hand.pile, stock: hand.stockCount, result: hand.result };
}

/** Every frame of the hand `record` tells (its moves: the keys that open cards
 * move nothing), dealt from `deck` (by position); `scoresProven`: whether the
 * audit proved the match scores after the hand. */
export function replayFrames(record: HandData, deck: readonly Card[], scoresProven: boolean): Frame[] {
  const hand = new Hand(deck, record.dealer, Ruleset.fromDict(record.rules));
  const frames = [frame(hand, [`${SEATS[record.dealer]} deals ten cards each and turns up ${deck[20]}; `
    + `knock limit ${hand.knockLimit}`])];
  for (const [seat, action] of record.moves) {
    const before = hand.events.length;
    hand.apply(seat, parseAction(action));
    const said = hand.events.slice(before).map(eventText);
    const result = hand.result;
    if (result !== null) {
      if (result.outcome !== null) {
        const knocker = result.knocker!;
        said.push(...laidDown(result.outcome, SEATS[knocker]!, SEATS[1 - knocker]!).map((line) => line.trim()));
      }
      said.push(`result: ${scoreText(result)}`, `match scores after the hand: ${scoresText(record.scores)}`
        + (scoresProven ? "" : " (not verified: these records cannot prove them)"));
    }
    frames.push(frame(hand, said));
  }
  return frames;
}
