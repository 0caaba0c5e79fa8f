/**
 * The match's score sheet, derived from the hands the match keeps (no second
 * copy): each hand's result, the running totals and the boxes (hands won). The
 * twin of client/table/scoresheet.py.
 */

import type { HandResult } from "../engine/observation.ts";

/** One hand on the sheet. `winner` is null for a dead hand (no points). */
export interface SheetRow {
  readonly number: number;
  readonly kind: string;
  readonly knocker: number | null;
  readonly winner: number | null;
  readonly points: number;
  /** The running totals after this hand. */
  readonly totals: readonly [number, number];
  /** Hands won so far. */
  readonly boxes: readonly [number, number];
}

/** A row per finished hand, in order, with the running totals and boxes. */
export function scoreSheet(results: readonly HandResult[]): SheetRow[] {
  const totals: [number, number] = [0, 0];
  const boxes: [number, number] = [0, 0];
  return results.map((result, i) => {
    if (result.winner !== null) {
      totals[result.winner] += result.points;
      boxes[result.winner] += 1;
    }
    return { number: i + 1, kind: result.kind, knocker: result.knocker, winner: result.winner,
      points: result.points, totals: [totals[0], totals[1]], boxes: [boxes[0], boxes[1]] };
  });
}
