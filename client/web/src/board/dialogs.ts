/**
 * The board's windows, all in the page's one <dialog>: a question, the knock,
 * the hand's end, the match's end, the whole pile, how to play and the keys.
 * Each is built from an observation and reports the choice through a callback.
 */

import type { Card } from "../engine/cards.ts";
import type { Arrangement } from "../engine/melds.ts";
import type { Observation } from "../engine/observation.ts";
import type { Ruleset } from "../engine/rules.ts";
import type { MatchTotals } from "../engine/scoring.ts";
import { cardFace, groupsView } from "./cardview.ts";
import { byId, el, fill } from "./dom.ts";
import { group, grouped, laidOut } from "./layout.ts";
import { explainResult, gameLine, howToPlay, KEYS, shortName, totalsRows } from "./words.ts";

export interface DialogButton {
  label: string;
  primary?: boolean;
  /** For tests and automation to find it. */
  id?: string;
  /** Runs after the window closes. */
  run?: () => void;
}

let onCancel: (() => void) | null = null;

function dialog(): HTMLDialogElement {
  return byId<HTMLDialogElement>("dialog");
}

/** Wire the window's Esc, and its text's scrolling (once, at start). */
export function setUpDialog(): void {
  dialog().addEventListener("cancel", () => {
    const then = onCancel;
    onCancel = null;
    queueMicrotask(() => then?.());
  });
  byId("dialog-body").addEventListener("scroll", markScrolling, { passive: true });
  window.addEventListener("resize", markScrolling);
}

/** A text longer than its window can be scrolled with the keys (it takes the focus),
 * and while more of it is below, the window says so beside its buttons. */
export function markScrolling(): void {
  const body = byId("dialog-body");
  const scrolls = body.scrollHeight > body.clientHeight + 1;
  if (scrolls) body.setAttribute("tabindex", "0");
  else body.removeAttribute("tabindex");
  dialog().classList.toggle("more", scrolls && body.scrollTop + body.clientHeight < body.scrollHeight - 1);
}

export function dialogOpen(): boolean {
  return dialog().open;
}

let opened = 0;

/** Counts the windows opened: a window still open with the same count is the same window. */
export function dialogCount(): number {
  return opened;
}

/** Show a window; `cancel` runs when it is closed with Esc. */
export function openDialog(title: string, body: Node[], buttons: DialogButton[], cancel?: () => void): void {
  const box = dialog();
  opened += 1;
  byId("dialog-title").textContent = title;
  fill(byId("dialog-body"), ...body);
  const row = byId("dialog-buttons");
  fill(row);
  for (const b of buttons) {
    const button = el("button", { type: "button", class: b.primary ? "primary" : "", id: b.id ?? false }, b.label);
    button.addEventListener("click", () => {
      onCancel = null;
      box.close();
      b.run?.();
    });
    row.appendChild(button);
  }
  onCancel = cancel ?? null;
  if (!box.open) box.showModal();
  const first = row.querySelector<HTMLButtonElement>("button.primary") ?? row.querySelector("button");
  first?.focus({ preventScroll: true }); // a long text is read from its start
  byId("dialog-body").scrollTop = 0;
  markScrolling();
}

export function closeDialog(): void {
  onCancel = null;
  if (dialog().open) dialog().close();
}

const p = (text: string, cls = ""): HTMLElement => el("p", cls ? { class: cls } : {}, text);

/** A yes / no question. */
export function confirm(title: string, question: string, yes: string, then: () => void): void {
  openDialog(title, [p(question)], [{ label: "Cancel" }, { label: yes, primary: true, run: then }]);
}

/** The knock: which card goes face down, and which layout of the other ten is laid
 * down (`layouts` gives them for a card, least deadwood first). */
export function knockDialog(
  counts: ReadonlyMap<Card, number>, chosen: Card, layouts: (card: Card) => Arrangement[],
  them: string, knock: (card: Card, melds: Card[][]) => void,
): void {
  let card = chosen;
  let layout = 0;
  const cardsBox = el("fieldset", {}, el("legend", {}, "Throw face down"));
  const layoutBox = el("fieldset", { class: "layouts" });
  const preview = el("div", { class: "side" });
  const sentence = p("", "arith");

  const show = (): void => {
    const options = layouts(card);
    layout = Math.min(layout, options.length - 1);
    const count = options[layout]!.deadwood;
    sentence.textContent = count === 0
      ? `Gin: every card melds. ${them} cannot lay off against gin.`
      : `Knock with ${count} loose point${count === 1 ? "" : "s"}. ${them} lays off what fits onto your melds; `
        + `${count} or less left in their hand undercuts you.`;
    fill(layoutBox, el("legend", {}, options.length > 1 ? "Lay down" : "Your layout"));
    options.forEach((a, i) => {
      const melds = a.melds.map((m) => m.map((c) => c.glyph).join(" ")).join(" · ") || "no melds";
      const input = el("input", { type: "radio", name: "knock-layout", value: String(i) });
      input.checked = i === layout;
      input.addEventListener("change", () => { layout = i; show(); });
      layoutBox.appendChild(el("label", {}, input, ` ${melds} — ${a.deadwood} loose`));
    });
    const chosenLayout = options[layout]!;
    fill(preview, el("div", { class: "row" }, ...groupsView([
      ...chosenLayout.melds.map((m) => group(m, true)),
      ...(chosenLayout.deadwoodCards.length ? [group(chosenLayout.deadwoodCards)] : []),
    ])));
    // A gin is called a gin: the window's title and its button.
    byId("dialog-title").textContent = count === 0 ? "Gin" : "Knock";
    const go = byId("dialog-buttons").querySelector("button.primary");
    if (go) go.textContent = count === 0 ? "Gin!" : `Knock with ${count}`;
    markScrolling();
  };

  for (const [c, n] of counts) {
    const input = el("input", { type: "radio", name: "knock-card", value: c.toString() });
    input.checked = c === card;
    input.addEventListener("change", () => { card = c; layout = 0; show(); });
    cardsBox.appendChild(el("label", {}, input, ` the ${c.glyph} (${c.name}) — leaves ${n}`));
  }
  openDialog("Knock", [sentence, cardsBox, layoutBox, preview], [
    { label: "Cancel" },
    { label: "Knock", primary: true, run: () => knock(card, layouts(card)[layout]!.melds) },
  ]);
  show();
}

/** What the knocker did, by how the hand ended (as the terminal's end-of-hand title says). */
const KNOCKER_DID: Readonly<Record<string, string>> = {
  knock: "knocked", undercut: "knocked", gin: "went gin", big_gin: "laid down big gin",
};

/** One player's cards in the hand's end window; `theirs` for the other player's
 * (they turn face up there, motion.ts). */
function side(title: string, groups: ReturnType<typeof grouped>, theirs: boolean): HTMLElement {
  return el("div", { class: theirs ? "side theirs" : "side" }, el("h3", {}, title),
    el("div", { class: "row" }, ...groupsView(groups)));
}

/** The end of a hand: both hands laid out (lay-offs marked on the knocker's melds),
 * the arithmetic, and the scores. */
export function handOverDialog(obs: Observation, next: string, them: string, then: () => void, cancel: () => void): void {
  const result = obs.result!;
  const out = result.outcome;
  const me = obs.player;
  const body: Node[] = [];
  let title = "Dead hand";
  if (out !== null && result.knocker !== null) {
    const iKnocked = result.knocker === me;
    title = result.winner === me ? "You won the hand" : `${them} won the hand`;
    body.push(side(`${iKnocked ? "You" : them} ${KNOCKER_DID[out.kind]}`, laidOut(out, true), !iKnocked));
    body.push(side(iKnocked ? them : "You", laidOut(out, false), iKnocked));
  } else {
    body.push(side(them, grouped(obs.opponentHand ?? []), true));
    body.push(side("You", grouped(obs.hand), false));
  }
  body.push(p(explainResult(obs, them), "arith"));
  body.push(el("p", {}, gameLine(obs, them)));
  openDialog(title, body, [{ label: next, primary: true, run: then }], cancel);
}

/** A cell of the match's totals; a sum ("0 × 25 = 0") is kept on one line, as a phone
 * broke it after its "×". */
const numberCell = (text: string): HTMLElement => el("td", { class: text.includes("=") ? "num sum" : "num" }, text);

/** The end of the match: points, game bonus, boxes, shutout and totals; `then`
 * starts a new match (local) or asks for a rematch (online), its button `again`. */
export function matchEndDialog(totals: MatchTotals, rules: Ruleset, me: number, them: string,
                               then: (() => void) | null, again = "New match"): void {
  const rows = totalsRows(totals, rules, me);
  const table = el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "You"), el("th", {}, shortName(them)))),
    el("tbody", {}, ...rows.map(([label, a, b]) => el("tr", {},
      el("th", { scope: "row" }, label), numberCell(a), numberCell(b)))));
  const won = totals.winner === me;
  const headline = `${won ? "You win" : `${them} wins`} the match by ${totals.margin} points`
    + (totals.shutout ? ": a shutout." : ".");
  const buttons: DialogButton[] = then === null ? [{ label: "Close", primary: true }]
    : [{ label: "Close" }, { label: again, primary: true, id: "btn-again", run: then }];
  openDialog(won ? "You win the match" : `${them} wins the match`, [p(headline, "arith"), table], buttons);
}

/** The whole discard pile, bottom first. */
export function pileDialog(pile: readonly Card[]): void {
  const body = pile.length
    ? [p(`${pile.length} card${pile.length === 1 ? "" : "s"}, the first thrown on the left; the top is last.`),
      el("div", { class: "pile-list" }, ...pile.map((c) => cardFace(c)))]
    : [p("The discard pile is empty.")];
  openDialog("The discard pile", body, [{ label: "Close", primary: true }]);
}

/** How to play: the rules with this ruleset's numbers, the computer, the shuffle. */
export function howToPlayDialog(rules: Ruleset): void {
  const body: Node[] = [];
  for (const section of howToPlay(rules)) {
    body.push(el("h3", {}, section.title), ...section.paragraphs.map((t) => p(t)));
    if (section.table) {
      body.push(el("table", {}, el("tbody", {}, ...section.table.map(([a, b]) =>
        el("tr", {}, el("th", { scope: "row" }, a), el("td", {}, b))))));
    }
  }
  openDialog("How to play", body, [{ label: "Close", primary: true }]);
}

/** The score sheet: a row per hand (cells from words.ts), and a note under it. */
export function sheetDialog(columns: readonly string[], rows: readonly string[][], note: string): void {
  const body: Node[] = rows.length
    ? [el("table", { id: "sheet" },
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((c) => el("td", {}, c))))))]
    : [p("No hand has finished yet.")];
  openDialog("Score sheet", [...body, p(note)], [{ label: "Close", primary: true }]);
}

export function keysDialog(): void {
  const table = el("table", {}, el("tbody", {}, ...KEYS.map(([k, what]) =>
    el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, what)))));
  openDialog("Keys", [table], [{ label: "Close", primary: true }]);
}

/** A message that needs reading (a damaged save, a failed save). */
export function alertDialog(title: string, text: string): void {
  openDialog(title, [p(text)], [{ label: "OK", primary: true }]);
}
