/** Cards as elements: a face tells its suit by symbol as well as colour. */

import { Card, RANKS, SUIT_GLYPHS } from "../engine/cards.ts";
import { el } from "./dom.ts";
import type { Group } from "./layout.ts";

const rankText = (card: Card): string => (card.rank === 10 ? "10" : RANKS[card.rank - 1]!);

/** How one card of a row is shown. */
export interface CardLook {
  selected?: boolean;
  dim?: boolean;
  hinted?: boolean;
  laid?: boolean;
}

/** The face of `card` inside a new element of `tag` (a button for cards you act on). */
export function cardFace(card: Card, tag: "span" | "button" = "span", look: CardLook = {}): HTMLElement {
  const suit = SUIT_GLYPHS[card.suit]!;
  const classes = ["card", card.isRed ? "red" : "black"];
  if (look.selected) classes.push("selected");
  if (look.dim) classes.push("dim");
  if (look.hinted) classes.push("hinted");
  if (look.laid) classes.push("laid");
  const node = el(tag, { class: classes.join(" "), "data-card": card.toString() },
    el("span", { class: "corner", "aria-hidden": "true" }, el("span", {}, rankText(card)), el("span", {}, suit)),
    el("span", { class: "pip", "aria-hidden": "true" }, suit));
  if (tag === "button") node.setAttribute("type", "button");
  else node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardLabel(card, tag === "button") + (look.laid ? " (laid off)" : ""));
  return node;
}

/** A card's name for assistive technology: "ace of spades". A card you act on (a
 * button) is named with what it shows first, "A♠, ace of spades", so that what is
 * seen is what is said (to speech control, "click A"). */
export function cardLabel(card: Card, shown: boolean): string {
  return shown ? `${card.glyph}, ${card.name}` : card.name;
}

/** A card back. */
export function cardBack(): HTMLElement {
  return el("span", { class: "card back", role: "img", "aria-label": "a card face down" });
}

/** A row of groups of plain (not clickable) cards, backs for null; a bar under
 * each meld. */
export function groupsView(groups: readonly Group[]): HTMLElement[] {
  return groups.map((g) => el("span", { class: g.meld ? "group meld" : "group" },
    ...g.cards.map((c) => (c === null ? cardBack() : cardFace(c, "span", { laid: g.marked.has(c) })))));
}
