/**
 * The board's keys: the terminal table's (see README), plus Enter or space for
 * the next hand and Esc to close a window (the dialog's own). ← → select a card
 * wherever the focus is, a radio button of the side included (left to itself, it
 * would change the computer's strength or the rules mid-match); only a field that
 * takes typing keeps them. Enter and space are left to a focused radio button or
 * checkbox.
 */

/** What the keys can do; the table implements it. */
export interface KeyActions {
  take(): void;
  stock(): void;
  pass(): void;
  throwSelected(): void;
  knock(): void;
  layOff(): void;
  hint(): void;
  undo(): void;
  scoreSheet(): void;
  wholePile(): void;
  toggleGrouping(): void;
  fullScreen(): void;
  howToPlay(): void;
  keys(): void;
  strength(index: number): void;
  nextRules(): void;
  newMatch(): void;
  select(step: number): void;
  move(step: number): void;
  /** Enter or space, on a card of the hand (`card`) or on no button: the next hand
   * once this one is over; else the card's click, or throwing the selected card. */
  enter(card: Element | null): void;
}

/** The action of a key press, or null if the board leaves the key alone. */
export function keyAction(e: KeyboardEvent, act: KeyActions): (() => void) | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const target = e.target as HTMLElement;
  const inField = target instanceof HTMLInputElement;
  const k = e.key;
  if (k === "ArrowLeft" || k === "ArrowRight") {
    if (takesTyping(target)) return null;
    const step = k === "ArrowLeft" ? -1 : 1;
    return e.shiftKey ? () => act.move(step) : () => act.select(step);
  }
  if (k === "Enter" || k === " ") {
    const card = target.closest("#hand .card");
    // Any other focused button clicks itself.
    if (inField || (target instanceof HTMLButtonElement && card === null)) return null;
    return () => act.enter(card);
  }
  const byKey: Record<string, () => void> = {
    t: () => act.take(),
    s: () => act.stock(),
    p: () => act.pass(),
    d: () => act.throwSelected(),
    k: () => act.knock(),
    l: () => act.layOff(),
    h: () => act.hint(),
    u: () => act.undo(),
    c: () => act.scoreSheet(),
    v: () => act.wholePile(),
    g: () => act.toggleGrouping(),
    f: () => act.fullScreen(),
    i: () => act.howToPlay(),
    "?": () => act.keys(),
    "1": () => act.strength(0),
    "2": () => act.strength(1),
    "3": () => act.strength(2),
    r: () => act.nextRules(),
    n: () => act.newMatch(),
    "<": () => act.move(-1),
    ">": () => act.move(1),
  };
  return k.length === 1 ? byKey[k.toLowerCase()] ?? null : null;
}

/** A field where ← → move the caret. */
function takesTyping(target: HTMLElement): boolean {
  if (target instanceof HTMLInputElement) return !["radio", "checkbox", "button", "submit", "reset"].includes(target.type);
  return target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || target.isContentEditable;
}
