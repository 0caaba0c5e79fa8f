/**
 * Dragging a card of your hand with a mouse or a finger (pointer events): onto
 * another card to put it there, onto the discard pile to throw it. The card
 * follows the pointer (moved by its style's transform, which the page's CSP
 * allows from script); a press that barely moves stays a click.
 */

import type { Card } from "../engine/cards.ts";

export interface DragTargets {
  /** The card shown by an element of the hand (null for anything else). */
  cardOf(node: Element | null): Card | null;
  elementOf(card: Card): HTMLElement | null;
  dropOnPile(card: Card): void;
  dropOnCard(card: Card, onto: Card): void;
}

const THRESHOLD = 8; // pixels a press moves before it is a drag

/** Wire the drags; returns a test for "the click now arriving ends a drag". */
export function wireDrag(hand: HTMLElement, pile: HTMLElement, to: DragTargets): () => boolean {
  let pressed: { card: Card; x: number; y: number; id: number } | null = null;
  let dragging = false;
  /** The card's element while it is dragged (it lets the pointer see what is under it). */
  let moving: HTMLElement | null = null;
  const putBack = (): void => {
    if (moving === null) return;
    moving.classList.remove("dragging");
    moving.style.removeProperty("transform");
    moving = null;
  };
  let swallowClick = false;
  const under = (e: PointerEvent): Element | null => document.elementFromPoint(e.clientX, e.clientY);

  hand.addEventListener("pointerdown", (e) => {
    const card = to.cardOf(e.target as Element);
    if (card !== null && e.button === 0) pressed = { card, x: e.clientX, y: e.clientY, id: e.pointerId };
  });
  hand.addEventListener("pointermove", (e) => {
    if (pressed === null || e.pointerId !== pressed.id) return;
    if (!dragging) {
      if (Math.hypot(e.clientX - pressed.x, e.clientY - pressed.y) < THRESHOLD) return;
      dragging = true;
      hand.setPointerCapture(e.pointerId);
      moving = to.elementOf(pressed.card);
      moving?.classList.add("dragging");
    }
    moving?.style.setProperty("transform", `translate(${e.clientX - pressed.x}px, ${e.clientY - pressed.y}px)`);
    pile.classList.toggle("drop", pile.contains(under(e)));
  });
  const end = (e: PointerEvent): void => {
    if (pressed === null || e.pointerId !== pressed.id) return;
    const { card } = pressed;
    pressed = null;
    pile.classList.remove("drop");
    if (!dragging) return;
    dragging = false;
    swallowClick = true; // the click that follows pointerup is not a click
    window.setTimeout(() => { swallowClick = false; }, 0);
    putBack();
    if (e.type === "pointercancel") return;
    const target = under(e);
    if (pile.contains(target)) {
      to.dropOnPile(card);
      return;
    }
    const onto = to.cardOf(target);
    if (onto !== null && onto !== card) to.dropOnCard(card, onto);
  };
  hand.addEventListener("pointerup", end);
  hand.addEventListener("pointercancel", end);
  return () => swallowClick;
}
