/**
 * Cards that travel: the deal, a draw from the stock or the pile, a throw, a
 * lay-off, the other player's cards turning face up. The table is drawn in its new
 * state at once (FLIP: measure where each card was, draw the new state, then
 * animate each moved card from its old place to its new one), so nothing waits for
 * an animation: a click during one acts on the state it shows the end of. Only the
 * `translate` and `scale` properties are animated: they add to the transforms the
 * board's CSS gives a card (the selected card's lift), which stay in force.
 *
 * The speed is the player's setting (off, normal, fast); without one it follows
 * the system's `prefers-reduced-motion`. For tests and automation the page's body
 * counts the animations started (`data-animations`).
 */

import { byId } from "./dom.ts";

export type Speed = "off" | "normal" | "fast";

/** The settings as the side offers them. */
export const SPEEDS: readonly Speed[] = ["off", "normal", "fast"];

/** How long one card takes to travel, in milliseconds. */
const DURATION: Readonly<Record<Speed, number>> = { off: 0, normal: 250, fast: 120 };

/** A card that moved less than this (the selected card's lift, a hover) is not animated. */
const MIN_TRAVEL = 20;

/** Where a card was shown, and what was left of its journey: the table is drawn
 * again while cards travel (the other player's move, a click), and a card goes on
 * from where it was seen, in the time it had left (the deal keeps its rhythm). */
interface Place {
  readonly rect: DOMRect;
  /** Milliseconds before it was due to set off, and of its journey left (null: none). */
  readonly wait: number;
  readonly left: number | null;
}

/** Where the cards on the table were before a change. */
export interface Snapshot {
  /** The hand shown (null before the first deal). */
  readonly handNumber: number | null;
  /** Each face-up card, by its text. */
  readonly faces: ReadonlyMap<string, Place>;
  /** The other player's face-down cards, in their order. */
  readonly backs: readonly Place[];
  readonly stock: Place;
  readonly opponent: Place;
}

function place(node: Element): Place {
  const rect = node.getBoundingClientRect();
  const journey = node.getAnimations().find((a) => a.playState === "running");
  const timing = journey?.effect?.getComputedTiming();
  if (journey === undefined || timing === undefined) return { rect, wait: 0, left: null };
  const now = Number(journey.currentTime ?? 0);
  const wait = Math.max(0, Number(timing.delay ?? 0) - now);
  return { rect, wait, left: Math.max(0, Number(timing.endTime ?? 0) - now - wait) };
}

export function isSpeed(value: unknown): value is Speed {
  return typeof value === "string" && (SPEEDS as readonly string[]).includes(value);
}

type Travel = (node: HTMLElement, from: Place, delay?: number) => void;

export class Motion {
  /** The player's choice; null follows the system's reduced-motion preference. */
  private chosen: Speed | null = null;
  private running: Animation[] = [];
  private started = 0;
  /** The hand on the table (null before the first deal). */
  private shown: number | null = null;

  constructor(private readonly reducedMotion: () => boolean = systemReducedMotion) {}

  get speed(): Speed {
    return this.chosen ?? (this.reducedMotion() ? "off" : "normal");
  }

  /** The setting kept with the board's other settings (null: none chosen). */
  get choice(): Speed | null {
    return this.chosen;
  }

  choose(speed: Speed | null): void {
    this.chosen = speed;
    if (speed === "off") this.stop();
  }

  /** Where the cards are now (as seen: mid-flight cards where they are shown);
   * the animations running stop, as the table is about to be drawn again. Null
   * when cards do not move (nothing is measured). */
  measure(): Snapshot | null {
    if (DURATION[this.speed] === 0) {
      this.stop();
      return null;
    }
    const faces = new Map<string, Place>();
    for (const node of byId("table").querySelectorAll<HTMLElement>(".card[data-card]")) {
      faces.set(node.dataset.card!, place(node));
    }
    const snapshot = {
      handNumber: this.shown,
      faces,
      backs: [...byId("opponent").querySelectorAll(".card.back")].map(place),
      stock: place(byId("stock").querySelector(".card") ?? byId("stock")),
      opponent: place(byId("opponent")),
    };
    this.stop();
    return snapshot;
  }

  /** Animate what changed since `before`, the table drawn in its new state: hand
   * `handNumber`, just dealt if `dealt` (no move made yet). Another hand shown
   * without its deal (a match continued) appears as it is. */
  play(before: Snapshot | null, handNumber: number, dealt: boolean): void {
    const duration = DURATION[this.speed];
    const travel: Travel = (node, from, delay = 0) => {
      this.fly(node, from.rect, from.left ?? duration, from.left === null ? delay : from.wait);
    };
    if (before !== null && before.handNumber === handNumber) {
      this.follow(before, travel, (node) => this.turnUp(node, duration));
    } else if (before !== null && dealt) {
      this.deal(before.stock, duration, travel);
    }
    this.shown = handNumber;
  }

  /** No hand is shown (online, before the first deal). */
  clear(): void {
    this.stop();
    this.shown = null;
  }

  /** The other player's cards in the hand's end window turn face up, one after another. */
  reveal(cards: Iterable<HTMLElement>): void {
    const duration = DURATION[this.speed];
    if (duration === 0) return;
    let i = 0;
    for (const node of cards) this.turnUp(node, duration, (i++ * duration) / 3);
  }

  /** The whole deal comes from the stock, a card to each player in turn, then the upcard. */
  private deal(stock: Place, duration: number, travel: Travel): void {
    const theirs = [...byId("opponent").querySelectorAll<HTMLElement>(".card")];
    const mine = [...byId("hand").querySelectorAll<HTMLElement>(".card")];
    const order: HTMLElement[] = [];
    for (let i = 0; i < Math.max(theirs.length, mine.length); i++) {
      if (theirs[i]) order.push(theirs[i]!);
      if (mine[i]) order.push(mine[i]!);
    }
    order.push(...byId("discard").querySelectorAll<HTMLElement>(".card"));
    const from = { rect: stock.rect, wait: 0, left: null };
    order.forEach((node, i) => travel(node, from, (i * duration) / 4));
  }

  /** Each card from where it was; a card new to the table from where it must have
   * come (the stock, or the other player's hand); a card of theirs newly face up turns. */
  private follow(before: Snapshot, travel: Travel, turn: (node: HTMLElement) => void): void {
    const backs = [...byId("opponent").querySelectorAll<HTMLElement>(".card.back")];
    const still = (p: Place): Place => ({ rect: p.rect, wait: 0, left: null });
    const theirHand = still(before.backs.at(-1) ?? before.opponent);
    const stock = still(before.stock);
    const shown = backs.length < before.backs.length; // cards of theirs came face up
    for (const node of byId("table").querySelectorAll<HTMLElement>(".card[data-card]")) {
      const was = before.faces.get(node.dataset.card!);
      if (was !== undefined) travel(node, was);
      else if (node.closest("#discard")) travel(node, theirHand); // thrown from their hand
      else if (node.closest("#hand")) travel(node, shown ? theirHand : stock); // laid off, or drawn
      else if (node.closest("#opponent") && shown) turn(node);
    }
    // Their cards face down from where they were; one more is drawn from the stock.
    backs.forEach((node, i) => travel(node, before.backs[i] ?? stock));
  }

  /** Animate `node` from `from` to where it is, unless it hardly moved. */
  private fly(node: HTMLElement, from: DOMRect, duration: number, delay: number): void {
    const to = node.getBoundingClientRect();
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    if (Math.hypot(dx, dy) < MIN_TRAVEL || duration === 0) return;
    // Above the other cards while it travels (the cards are positioned).
    this.start(node, [
      { translate: `${dx}px ${dy}px`, zIndex: 10 },
      { translate: "0 0", zIndex: 10 },
    ], duration, delay);
  }

  /** A card turning face up where it lies. */
  private turnUp(node: HTMLElement, duration: number, delay = 0): void {
    this.start(node, [{ scale: "0 1" }, { scale: "1 1" }], duration, delay);
  }

  private start(node: HTMLElement, keyframes: Keyframe[], duration: number, delay: number): void {
    // Backwards: a card waiting for its turn in the deal is shown where it starts.
    this.running.push(node.animate(keyframes, { duration, delay, easing: "ease-out", fill: "backwards" }));
    this.started += 1;
    document.body.dataset.animations = String(this.started);
  }

  private stop(): void {
    for (const animation of this.running) animation.cancel();
    this.running = [];
  }
}

function systemReducedMotion(): boolean {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
