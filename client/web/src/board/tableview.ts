/**
 * Drawing the table from an observation and the table's presentation state: the
 * other player's cards, the stock and the pile, the player's hand, the prompt and
 * the buttons of the moves allowed now. Reads only; the table (table.ts) decides.
 */

import type { Action } from "../engine/actions.ts";
import { Discard, DrawPile, DrawStock, Knock, LayOff, Pass } from "../engine/actions.ts";
import type { Card } from "../engine/cards.ts";
import { bestArrangement } from "../engine/melds.ts";
import type { Observation } from "../engine/observation.ts";
import { Phase } from "../engine/observation.ts";
import { cardBack, cardFace, cardLabel, groupsView } from "./cardview.ts";
import { byId, el, fill } from "./dom.ts";
import type { Strength } from "./game.ts";
import { group, grouped, type Group, groupsWords, laidOut, opponentGroups } from "./layout.ts";
import type { HintView, Play } from "./play.ts";
import { renderSide, renderSideEmpty } from "./side.ts";
import { describe, lastMove, type LastMove, prompt } from "./words.ts";

export type ActionKey = "take" | "pass" | "stock" | "throw" | "knock" | "layoff";

/** Which actions each button plays. */
export const KINDS: Record<ActionKey, (a: Action) => boolean> = {
  take: (a) => a instanceof DrawPile,
  pass: (a) => a instanceof Pass,
  stock: (a) => a instanceof DrawStock,
  throw: (a) => a instanceof Discard,
  knock: (a) => a instanceof Knock,
  layoff: (a) => a instanceof LayOff,
};

/** What the table adds to the observation. */
export interface Look {
  readonly selected: Card | null;
  /** The player's own order of the cards (grouping off). */
  readonly order: Card[];
  readonly grouping: boolean;
  readonly hint: HintView | null;
  /** A warning or refusal for the prompt line ("" for none). */
  readonly message: string;
  /** The other player is thinking (the computer, before its move). */
  readonly thinking: boolean;
  /** The computer's strength (null online). */
  readonly vs: Strength | null;
}

/** The button of a card in the player's hand. */
export function cardButton(card: Card): HTMLElement | null {
  return byId("hand").querySelector(`[data-card="${card.toString()}"]`);
}

export function drawTable(game: Play, obs: Observation, look: Look): void {
  const legal = game.legal();
  const can = (key: ActionKey): boolean => legal.some(KINDS[key]);
  const counts = game.knockCounts();
  const hint = look.hint;
  const hintCard = hint && (hint.action instanceof Discard || hint.action instanceof Knock) ? hint.action.card : null;
  const over = obs.phase === Phase.OVER;

  // The other side: backs, with what they took from the pile face up; their melds
  // once they knock; their whole hand laid out once the hand is over.
  const dealer = obs.dealer !== obs.player ? " · dealer" : "";
  byId("opponent-label").textContent = `${game.opponentLabel()}${dealer}`
    + (obs.opponentKnown.length && !over ? ` · took from the pile: ${obs.opponentKnown.map((c) => c.glyph).join(" ")}` : "");
  const theirs = opponentGroups(obs);
  const opponent = byId("opponent");
  fill(opponent, ...groupsView(theirs));
  // One sentence for screen readers instead of ten "card face down".
  opponent.setAttribute("role", "img");
  opponent.setAttribute("aria-label", groupsWords(theirs, `${game.them}'s cards`));

  // Their last move stays in sight at the stock or the pile until the player moves.
  const mark = lastMove(obs, game.them);
  const markAt = (slot: LastMove["slot"]): LastMove | null => (mark?.slot === slot ? mark : null);
  byId("stock-label").textContent = `Stock ${obs.stockCount}`;
  const stock = byId<HTMLButtonElement>("stock");
  fill(stock, obs.stockCount ? cardBack() : "");
  showMark("stock", markAt("stock"));
  stock.setAttribute("aria-label", `Stock, ${obs.stockCount} cards${markWords(markAt("stock"))}`
    + (can("stock") ? ": draw" : ""));
  const top = obs.topOfPile;
  byId("discard-label").textContent = `Discard (${obs.pile.length})`;
  const discard = byId<HTMLButtonElement>("discard");
  const face = top ? cardFace(top) : null;
  face?.classList.toggle("marked", top === markAt("discard")?.card);
  fill(discard, face);
  showMark("discard", markAt("discard"));
  byId("btn-pile").hidden = false;
  discard.setAttribute("aria-label", (top
    ? `Discard pile, ${obs.pile.length} cards, the ${cardLabel(top, true)}, on top`
    : "Discard pile, empty") + markWords(markAt("discard")) + (top ? (can("take") ? ": take it" : ": see them all") : ""));
  stock.classList.toggle("hinted", hint?.action instanceof DrawStock);
  discard.classList.toggle("hinted", hint?.action instanceof DrawPile);
  const laidOff = obs.result?.outcome?.laidOff ?? [];
  const lines = obs.history.map((e) => describe(e, obs.player, game.them, laidOff))
    .filter((x): x is string => x !== null);
  fill(byId("log"), ...lines.slice(-4).map((line) => el("li", {}, line)));

  drawHand(obs, look, over, hintCard);
  byId("loose").textContent = looseText(obs, counts);
  const promptLine = byId("prompt");
  // A stopped match says so over any message (a notice from before it stopped).
  promptLine.textContent = game.stopped() ?? (look.message || promptText(game, obs, look, counts.size > 0, over));
  promptLine.classList.toggle("warn", look.message !== "");

  for (const key of Object.keys(KINDS) as ActionKey[]) {
    const button = byId<HTMLButtonElement>(`btn-${key}`);
    button.hidden = !can(key);
    button.classList.toggle("hinted", hint !== null && KINDS[key](hint.action));
  }
  byId("btn-take").textContent = top ? `Take the ${top.glyph}` : "Take";
  byId("btn-knock").textContent = counts.size && Math.min(...counts.values()) === 0 ? "Gin!" : "Knock…";
  const next = byId<HTMLButtonElement>("btn-next");
  next.hidden = !over || (game.online && !game.totals);
  next.textContent = game.totals ? (game.online ? "The result" : "New match") : "Next hand";
  byId<HTMLButtonElement>("btn-hint").disabled = !legal.length;
  byId("btn-hint").hidden = !game.hints; // no hint against a person
  renderSide(obs, look.vs, look.grouping, game.them);
}

/** The other player's last move as a label over the stock or the pile (the slot's
 * name says it in words). */
function showMark(slot: LastMove["slot"], mark: LastMove | null): void {
  const badge = byId(`${slot}-mark`);
  badge.textContent = mark?.badge ?? "";
  badge.hidden = mark === null;
}

function markWords(mark: LastMove | null): string {
  return mark === null ? "" : `. ${mark.words.replace(/\.$/, "")}`;
}

/** The prompt line when no message overrides it: stopped, held up, over, a hint, or what to do. */
function promptText(game: Play, obs: Observation, look: Look, canKnock: boolean, over: boolean): string {
  const stopped = game.stopped();
  if (stopped !== null) return stopped;
  const held = game.holdUp();
  if (held !== null) return held;
  if (over) {
    return game.totals ? "The match is over."
      : game.online ? "The hand is over: the next deal is on its way."
      : "The hand is over: next hand when you are ready.";
  }
  if (look.hint !== null) return `Hint: ${look.hint.reason}`; // the reason names the move first
  return look.thinking ? `${game.them} is thinking…` : prompt(obs, canKnock, game.them);
}

/** Online before the first deal: no cards yet. */
export function drawEmpty(game: Play, message: string): void {
  fill(byId("opponent"));
  fill(byId("hand"));
  fill(byId("stock"), "");
  fill(byId("discard"), "");
  showMark("stock", null);
  showMark("discard", null);
  fill(byId("log"));
  byId("opponent-label").textContent = game.opponentLabel();
  byId("stock-label").textContent = "Stock";
  byId("discard-label").textContent = "Discard";
  byId("loose").textContent = "";
  byId("prompt").textContent = message || game.stopped() || "Waiting for the first deal…";
  renderSideEmpty(game.them, game.rules ?? game.rulesOnOffer, game.rules === null && game.rulesOnOffer !== null);
  for (const key of [...Object.keys(KINDS), "next"]) byId(`btn-${key}`).hidden = true;
  byId<HTMLButtonElement>("btn-hint").disabled = true;
  byId("btn-hint").hidden = !game.hints;
  byId("btn-pile").hidden = true;
}

function drawHand(obs: Observation, look: Look, over: boolean, hintCard: Card | null): void {
  const result = obs.result;
  let groups: Group[];
  if (over && result?.outcome && result.knocker !== null) {
    groups = laidOut(result.outcome, result.knocker === obs.player);
  } else {
    groups = look.grouping ? grouped(obs.hand) : [group(look.order)];
  }
  const hand = byId("hand");
  const hadFocus = hand.contains(document.activeElement);
  byId("hand-label").textContent = look.grouping || over ? "Your hand"
    : "Your hand (drag, or shift+← → to move the selected card)";
  fill(hand, ...groups.map((g) => el("span", {
    class: g.meld ? "group meld" : "group", role: "group", "aria-label": g.meld ? "a meld" : "loose cards",
  }, ...g.cards.map((c) => handCard(c!, obs, look.selected, over, hintCard, g.marked.has(c!))))));
  // How many cards and groups: the board's CSS spreads them over the table's width.
  hand.style.setProperty("--n", String(groups.reduce((n, g) => n + g.cards.length, 0)));
  hand.style.setProperty("--g", String(groups.length));
  if (hadFocus && look.selected) cardButton(look.selected)?.focus();
}

function handCard(card: Card, obs: Observation, selected: Card | null, over: boolean, hintCard: Card | null,
                  laid: boolean): HTMLElement {
  const taken = card === obs.justTaken;
  const node = cardFace(card, "button", {
    selected: card === selected && !over, dim: taken, hinted: card === hintCard, laid,
  });
  node.setAttribute("aria-pressed", String(card === selected));
  if (taken) node.setAttribute("aria-label", `${cardLabel(card, true)}, just taken from the pile: it cannot be thrown this turn`);
  if (over) node.setAttribute("tabindex", "-1");
  return node;
}

function looseText(obs: Observation, counts: ReadonlyMap<Card, number>): string {
  // A point total, as the hint counts it, and how many cards make it (the terminal's words).
  const loose = bestArrangement(obs.hand);
  const cards = loose.deadwoodCards.length;
  let text = `Loose points: ${loose.deadwood} (${cards} card${cards === 1 ? "" : "s"})`;
  if (counts.size) {
    const low = Math.min(...counts.values());
    text += low ? ` · you can knock (best: ${low} after throwing)` : " · you can go gin!";
  }
  if (obs.rules.knockLimitFromUpcard) {
    text += obs.knockLimit ? ` · knock on ${obs.knockLimit} or less this hand (the first upcard)`
      : " · gin only this hand (the first upcard was an ace)";
  }
  return text;
}
