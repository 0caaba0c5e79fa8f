/**
 * Which keys each step of a hand reveals (protocol.md §7), checked step by step
 * (gin/protocol/records/reveals.py).
 *
 * A hand record lists every key a seat revealed: at the deal, in answer to a stock
 * draw, with a discard, a knock or big gin, and the defender's show. The audit
 * checks that each key is its revealer's (fairdeal's auditHand); this checks that
 * each step carries exactly the keys the protocol sends there, so a record with a
 * key removed, moved or added does not verify. Keys are of deck positions; a
 * seat's key for a position is sent at most once.
 */

import { dealtPositions, type Hand, UPCARD_POSITION } from "../../engine/hand.ts";
import { SEATS, type Step } from "./records.ts";

const numeric = (a: number, b: number): number => a - b;

function samePositions(got: readonly number[], want: ReadonlySet<number>): boolean {
  const sorted = [...want].sort(numeric);
  return got.length === sorted.length && got.every((p, i) => p === sorted[i]);
}

function positions(list: Iterable<number>): string {
  const ordered = [...list].sort(numeric);
  if (!ordered.length) return "no position";
  return "position" + (ordered.length > 1 ? "s " : " ") + ordered.join(", ");
}

const dealDue = (due: ReadonlySet<number>): string => [...due].sort(numeric).map((s) => SEATS[s]).join(" and ");

/**
 * The keys owed and given so far in one replayed hand. Call {@link refusal}
 * before applying each step's action to the hand, then {@link applied} after an
 * action was applied.
 */
export class Reveals {
  private readonly position = new Map<number, number>(); // card index -> deck position
  private readonly given: [Set<number>, Set<number>] = [new Set(), new Set()];
  private readonly dealDue = new Set([0, 1]); // seats whose deal keys have not come yet
  // A key-only step that must come next: (seat, positions, what it is).
  private owed: { seat: number; want: ReadonlySet<number>; what: string } | null = null;

  constructor(private readonly hand: Hand) {
    for (let p = 0; p < 52; p++) {
      const card = hand.cardAt(p);
      if (card !== null) this.position.set(card.index, p);
    }
  }

  /** What is wrong with the keys of `step`, or null (and they count as given). */
  refusal(step: Step): string | null {
    const got = step.keys.map(([p]) => p).sort(numeric);
    if (this.owed !== null) {
      const { seat, want, what } = this.owed;
      if (step.action !== null || step.seat !== seat || !samePositions(got, want)) {
        return `${what} should come here: ${SEATS[seat]}'s keys for ${positions(want)}`;
      }
      this.owed = null;
      for (const p of want) this.given[seat]!.add(p);
      return null;
    }
    if (step.action === null) return this.deal(step.seat, got);
    if (this.dealDue.size) return `${dealDue(this.dealDue)}'s deal keys should come before the first move`;
    const want = this.withAction(step);
    if (!samePositions(got, want)) {
      return `${SEATS[step.seat]}'s ${step.action} should reveal the keys for ${positions(want)}, `
        + `not for ${positions(got)}`;
    }
    for (const p of want) this.given[step.seat]!.add(p);
    return null;
  }

  /** Note what the action just applied makes the other seat owe next. */
  applied(step: Step): void {
    const other = 1 - step.seat;
    const kind = step.action?.kind;
    if (kind === "stock") {
      const drawn = this.hand.nextStockPosition - 1;
      this.owed = { seat: other, want: new Set([drawn]), what: `the key of the card ${SEATS[step.seat]} drew` };
    } else if (kind === "knock" || kind === "biggin") {
      const show = this.unrevealed(other);
      if (show.size) this.owed = { seat: other, want: show, what: `${SEATS[other]}'s show of the cards it holds` };
    }
  }

  /** What is still owed once the steps have run out, or null. */
  missing(): string | null {
    if (this.owed !== null) {
      const { seat, want, what } = this.owed;
      return `${what} is missing: ${SEATS[seat]}'s keys for ${positions(want)}`;
    }
    if (this.dealDue.size) return `${dealDue(this.dealDue)}'s deal keys are missing`;
    return null;
  }

  private deal(seat: number, got: number[]): string | null {
    if (!this.dealDue.has(seat) || this.hand.actions.length) {
      return `${SEATS[seat]} reveals keys where the protocol sends none`;
    }
    // Each seat opens the other's dealt cards and the upcard for it.
    const want = new Set([...dealtPositions(1 - seat === this.hand.dealer), UPCARD_POSITION]);
    if (!samePositions(got, want)) return `${SEATS[seat]}'s deal keys should be for ${positions(want)}`;
    this.dealDue.delete(seat);
    for (const p of want) this.given[seat]!.add(p);
    return null;
  }

  /** The keys `step`'s action carries: a discard's card unless already opened for
   * the other, or at a knock or big gin every card held not yet opened. */
  private withAction(step: Step): Set<number> {
    const action = step.action!;
    if (action.kind === "discard") {
      const position = this.position.get(action.card.index)!;
      return this.given[step.seat]!.has(position) ? new Set() : new Set([position]);
    }
    if (action.kind === "knock" || action.kind === "biggin") return this.unrevealed(step.seat);
    return new Set();
  }

  private unrevealed(seat: number): Set<number> {
    const held = this.hand.cards(seat).map((c) => this.position.get(c.index)!);
    return new Set(held.filter((p) => !this.given[seat]!.has(p)));
  }
}
