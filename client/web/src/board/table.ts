/**
 * The table: shows what a {@link Play} observes (a local match against the
 * computer, or an online match) and turns clicks, drags and keys into its calls.
 * It keeps only presentation state (the selected card, the player's own order,
 * the hint on show). Moves made without the player (the computer's, or a bot's
 * online) run from timers, one at a time with a pause between them, never inside
 * a click handler, so the page answers at once and every move can be followed.
 * This browser's player is always at the bottom, whichever seat it holds. The
 * drawing itself is in tableview.ts.
 */

import type { Action } from "../engine/actions.ts";
import { Discard, DrawPile, DrawStock, Knock, LayOff, Pass } from "../engine/actions.ts";
import { Card } from "../engine/cards.ts";
import { GinError, IllegalAction } from "../engine/errors.ts";
import type { Observation } from "../engine/observation.ts";
import { Phase } from "../engine/observation.ts";
import { PRESETS } from "../engine/rules.ts";
import {
  alertDialog, closeDialog, confirm, dialogCount, dialogOpen, handOverDialog, howToPlayDialog, keysDialog,
  knockDialog, matchEndDialog, pileDialog, sheetDialog,
} from "./dialogs.ts";
import { byId } from "./dom.ts";
import { wireDrag } from "./drag.ts";
import { Game, HUMAN as HUMAN_SEAT, knockChoice, knockLayouts, STRENGTHS, type Strength } from "./game.ts";
import { grouped, moved, movedBefore, ownOrder } from "./layout.ts";
import { isSpeed, Motion, type Speed } from "./motion.ts";
import { buildSide, showLocalChoices, showPause, showSpeed } from "./side.ts";
import { keyAction, type KeyActions } from "./keys.ts";
import type { HintView, Play } from "./play.ts";
import { type ActionKey, cardButton, drawEmpty, drawTable, KINDS } from "./tableview.ts";
import { NO_HINT_ONLINE, sheetColumns, sheetNote, sheetRows, UNDO_NONE, undone } from "./words.ts";

const PREFS_KEY = "gin.board.prefs";

/** Presentation settings kept with the match (the order of your cards, grouping,
 * the cards' speed: null follows the system's reduced-motion preference). */
interface Prefs {
  grouping: boolean;
  order: string[];
  motion?: Speed | null;
  /** The computer's wait before it moves, in ms: the window in which a throw can be undone. */
  pause?: number;
}

/** The waits a player can choose (ms); ?delay=MS in the address sets any other, for tests. */
export const PAUSES = [700, 2000, 5000];

export class Table implements KeyActions {
  private selected: Card | null = null;
  private order: Card[] = [];
  private grouping = true;
  private shownHint: { view: HintView; key: string } | null = null;
  private message = "";
  /** Bumped when a new match starts, so a pending computer move is dropped. */
  private generation = 0;
  private thinking = false;
  /** A move without the player is waiting for its pause. */
  private autoPending = false;
  /** The hand whose end was shown (its window opens once per hand). */
  private overShown: number | null = null;
  /** The cards held at the last change (to select a card just drawn). */
  private held: readonly Card[] = [];
  /** True while the click that ends a drag arrives (it is not a click). */
  private dragEnded: () => boolean = () => false;
  private readonly motion = new Motion();
  /** Told after each change of the table (install.ts: may a new build start now?). */
  private readonly shownListeners: Array<() => void> = [];

  /** The player's choice of the computer's wait (ms), or null: 0.7 s. */
  private pause: number | null = null;

  /** `fixedDelay`: the computer's wait before it moves, in ms, from the address (it wins
   * over the player's setting, which it leaves as it was); null for the player's setting. */
  constructor(private game: Play, private readonly fixedDelay: number | null, private readonly store: Storage | null) {
    this.loadPrefs();
  }

  private get delay(): number {
    return this.fixedDelay ?? this.pause ?? PAUSES[0]!;
  }

  // -- starting -------------------------------------------------------------------

  start(): void {
    buildSide((name) => this.rulesChosen(name), (vs) => this.setStrength(vs), (speed) => this.setSpeed(speed),
      (ms) => this.setPause(ms));
    this.wire();
    const warnings = this.game.takeWarnings();
    this.listen(this.game);
    this.changed();
    for (const warning of warnings) alertDialog("Saving", warning);
  }

  /** Present another match (an online one, or the computer again): what was
   * pending for the old one is dropped. */
  setGame(game: Play): void {
    this.generation += 1;
    this.thinking = false;
    this.autoPending = false;
    this.game = game;
    this.order = [];
    this.selected = null;
    this.shownHint = null;
    this.message = "";
    this.overShown = null;
    this.held = [];
    this.listen(game);
    this.changed();
  }

  get play(): Play {
    return this.game;
  }

  onShown(listener: () => void): void {
    this.shownListeners.push(listener);
  }

  private listen(game: Play): void {
    game.onChange(() => {
      if (game === this.game) this.changed();
    });
  }

  /** The local match, when that is what is played (its own choices apply). */
  private get local(): Game | null {
    return this.game instanceof Game ? this.game : null;
  }

  private wire(): void {
    const on = (id: string, run: () => void): void => byId(id).addEventListener("click", run);
    on("btn-take", () => this.take());
    on("btn-pass", () => this.pass());
    on("btn-stock", () => this.stock());
    on("btn-throw", () => this.throwSelected());
    on("btn-knock", () => this.knock());
    on("btn-layoff", () => this.layOff());
    on("btn-next", () => this.next());
    on("btn-hint", () => this.hint());
    on("btn-undo", () => this.undo());
    on("btn-sheet", () => this.scoreSheet());
    on("btn-rules-help", () => this.howToPlay());
    on("btn-keys", () => this.keys());
    on("btn-full", () => this.fullScreen());
    on("btn-pile", () => this.wholePile());
    on("btn-new", () => this.newMatch());
    on("stock", () => this.stock());
    on("discard", () => (this.can("take") ? this.take() : this.wholePile()));
    byId<HTMLInputElement>("group").addEventListener("change", (e) =>
      this.setGrouping((e.target as HTMLInputElement).checked));
    document.addEventListener("keydown", (e) => {
      const run = dialogOpen() ? null : keyAction(e, this);
      if (run === null) return;
      e.preventDefault();
      run();
    });
    document.addEventListener("fullscreenchange", () => showFull(document.fullscreenElement !== null));
    this.wireHand();
  }

  // -- showing the state ----------------------------------------------------------

  private render(): void {
    const game = this.game;
    const obs = game.observation();
    showLocalChoices(!game.online);
    showSpeed(this.motion.speed);
    showPause(this.delay);
    const undo = byId<HTMLButtonElement>("btn-undo");
    undo.hidden = this.local === null; // no undo against a person, dealt or not
    undo.disabled = !this.local?.canUndo;
    if (obs === null) {
      this.motion.clear();
      drawEmpty(game, this.message);
      return;
    }
    this.order = ownOrder(this.order, obs.hand);
    if (this.selected !== null && !obs.hand.includes(this.selected)) this.selected = null;
    const before = this.motion.measure();
    drawTable(game, obs, {
      selected: this.selected, order: this.order, grouping: this.grouping, hint: this.currentHint(obs),
      message: this.message, thinking: this.thinking, vs: this.local?.vs ?? null,
    });
    this.motion.play(before, obs.handNumber, obs.history.length === 0);
  }

  private currentHint(obs: Observation): HintView | null {
    return this.shownHint !== null && this.shownHint.key === stateKey(obs) ? this.shownHint.view : null;
  }

  private can(key: ActionKey): boolean {
    return this.game.legal().some(KINDS[key]);
  }

  // -- acting ---------------------------------------------------------------------

  private act(action: Action): void {
    if (this.thinking && !this.game.legal().length) return;
    this.message = "";
    this.shownHint = null;
    try {
      this.game.play(action); // the change comes back through changed()
    } catch (exc) {
      if (!(exc instanceof IllegalAction)) throw exc;
      this.message = refusalWords(exc.message);
      this.render();
    }
  }

  /** Show the new state; then the hand's end, or a move made without the player. */
  private changed(): void {
    const game = this.game;
    for (const warning of game.takeWarnings()) this.message = warning;
    const obs = game.observation();
    if (obs !== null) {
      // Select the card just drawn from the stock, ready to throw it.
      const drawn = obs.hand.filter((c) => !this.held.includes(c));
      if (this.held.length && obs.hand.length === this.held.length + 1 && drawn.length === 1) {
        this.selected = obs.justTaken === null ? drawn[0]! : null;
      }
      this.held = obs.hand;
      // A hand in play: its end is still to be shown (a rematch's hand 1 too).
      if (obs.phase !== Phase.OVER) this.overShown = null;
    }
    const auto = game.automatic();
    this.thinking = auto?.opponent ?? false;
    this.savePrefs();
    this.render();
    for (const listener of this.shownListeners) listener();
    if (obs !== null && obs.phase === Phase.OVER && this.overShown !== obs.handNumber && !dialogOpen()) {
      this.overShown = obs.handNumber;
      this.showHandOver(obs);
    } else if (auto !== null) {
      this.runAutomatic();
    }
  }

  private runAutomatic(): void {
    if (this.autoPending) return;
    this.autoPending = true;
    const generation = this.generation;
    // Off the click handler: the page is drawn and answers while the computer thinks.
    window.setTimeout(() => {
      this.autoPending = false;
      if (generation !== this.generation) return;
      this.game.automatic()?.run(); // what is due now, not what was due before the pause
    }, this.delay);
  }

  private showHandOver(obs: Observation): void {
    const totals = this.game.totals;
    const next = totals ? "See the match's result" : this.game.online ? "Close" : "Next hand";
    handOverDialog(obs, next, this.game.them, () => this.next(), () => this.render());
    this.motion.reveal(document.querySelectorAll<HTMLElement>("#dialog .side.theirs .card"));
    if (this.game.botPlays) {
      // Nobody reads it at this seat: it moves on by itself, as a person would after a look.
      const shown = dialogCount();
      window.setTimeout(() => {
        if (dialogOpen() && dialogCount() === shown) this.next();
      }, Math.max(1500, 4 * this.delay));
    }
  }

  /** After a hand: the match's end, or the next deal. */
  private next(): void {
    const game = this.game;
    const obs = game.observation();
    if (obs === null || obs.phase !== Phase.OVER) return;
    closeDialog();
    const totals = game.totals;
    if (totals !== null) {
      const local = this.local;
      // The friend's offer, once made, is answered in its own window (next), not asked for again here.
      const again = local !== null ? () => this.restart(local.rules.name)
        : game.rematch === undefined || game.rematchOffered ? null : () => game.rematch?.();
      matchEndDialog(totals, obs.rules, obs.player, game.them, again, local === null ? "Rematch" : "New match");
      return;
    }
    this.order = [];
    this.selected = null;
    this.held = [];
    game.nextHand();
    this.render();
  }

  throwSelected(): void {
    const obs = this.game.observation();
    if (obs === null || !this.can("throw")) return;
    if (this.selected === null) {
      this.message = "Select a card to throw: ← → or click it.";
    } else if (this.selected === obs.justTaken) {
      this.message = `You just took the ${this.selected.glyph} from the pile: it can't go straight back. `
        + "Throw another card.";
    } else {
      this.act(new Discard(this.selected));
      return;
    }
    this.render();
  }

  knock(): void {
    const counts = this.game.knockCounts();
    if (!counts.size) {
      if (this.game.observation()?.phase === Phase.DISCARD && this.game.legal().length) {
        this.explainNoKnock();
      }
      return;
    }
    const [card] = knockChoice(counts, this.selected);
    const obs = this.game.observation()!;
    knockDialog(counts, card, (c) => knockLayouts(obs, c), this.game.them,
      (c, melds) => this.act(new Knock(c, melds)));
  }

  /** Knocking is refused, with the reason: what the best throw would leave. */
  private explainNoKnock(): void {
    const card = this.game.bestThrow();
    const why = card === null ? null : this.game.refusal(new Knock(card));
    if (why !== null) this.message = `You can't knock yet: ${refusalWords(why)}.`;
    this.render();
  }

  /** Take back the last throw while the computer has not seen it (its pause). */
  undo(): void {
    const local = this.local;
    if (local === null) return;
    if (!local.canUndo) {
      this.message = UNDO_NONE;
      this.render();
      return;
    }
    this.generation += 1; // the computer's pending move is dropped
    this.autoPending = false;
    this.shownHint = null;
    this.message = "";
    const card = local.undo(); // announced: changed() draws the position again
    this.selected = card;
    this.held = local.observation().hand;
    this.message = undone(card);
    this.render();
  }

  scoreSheet(): void {
    const game = this.game;
    const me = game.online ? game.observation()?.player ?? HUMAN_SEAT : HUMAN_SEAT;
    sheetDialog(sheetColumns(game.them), sheetRows(game.scoreSheet(), me, game.them),
      sheetNote(game.totals, me, game.them));
  }

  hint(): void {
    if (!this.game.hints) {
      this.message = NO_HINT_ONLINE;
      this.render();
      return;
    }
    const obs = this.game.observation();
    if (obs === null || !this.game.legal().length) return;
    const key = stateKey(obs);
    const game = this.game;
    this.message = "";
    byId("prompt").textContent = "Hint: thinking…";
    window.setTimeout(() => {
      const now = game.observation();
      if (game !== this.game || now === null || key !== stateKey(now) || !game.legal().length) return;
      this.shownHint = { view: this.game.hint(), key };
      this.render();
    }, 0);
  }

  private setStrength(vs: Strength): void {
    const local = this.local;
    if (local === null || vs === local.vs) return;
    const change = (): void => {
      local.setStrength(vs);
      this.message = `The computer now plays ${vs}.`;
      this.render();
    };
    const obs = this.game.observation();
    if (obs === null || (obs.handNumber === 1 && !obs.history.length)) {
      change(); // nothing played yet: nothing to ask about
      return;
    }
    // As the table asks (and New match here): a key pressed by mistake must not change the match in play.
    confirm("Strength", `Let the computer play ${vs} from its next move? The match goes on, with the scores as they are.`,
      `Play ${vs}`, change);
    this.render(); // the radio shows the strength in play until the answer
  }

  private rulesChosen(name: string): void {
    if (this.local === null || name === this.local.rules.name) return;
    confirm("New match", `Start a new match with the ${name} rules? The match in play is abandoned.`,
      "New match", () => this.restart(name));
    this.render(); // the radio shows the rules in play until the answer
  }

  newMatch(): void {
    const local = this.local;
    if (local === null) return;
    confirm("New match", "Start a new match? The match in play is abandoned.", "New match",
      () => this.restart(local.rules.name));
  }

  private restart(name: string): void {
    const local = this.local;
    if (local === null) return;
    this.generation += 1;
    this.autoPending = false;
    closeDialog();
    this.order = [];
    this.selected = null;
    this.held = [];
    this.shownHint = null;
    this.message = "";
    this.overShown = null;
    local.newMatch(PRESETS.get(name) ?? local.rules); // deals: changed() shows it
  }

  private setPause(ms: number): void {
    if (!PAUSES.includes(ms)) return;
    this.pause = ms;
    this.savePrefs();
    this.render();
  }

  private setSpeed(speed: Speed): void {
    this.motion.choose(speed);
    this.savePrefs();
    this.render();
  }

  private setGrouping(on: boolean): void {
    if (!on) this.order = this.shownOrder(); // start your own order from what you see
    this.grouping = on;
    this.message = "";
    this.savePrefs();
    this.render();
  }

  private shownOrder(): Card[] {
    const obs = this.game.observation();
    if (obs === null) return [];
    if (this.grouping) return grouped(obs.hand).flatMap((g) => g.cards as Card[]);
    return ownOrder(this.order, obs.hand);
  }

  select(step: number): void {
    const shown = this.shownOrder();
    if (!shown.length || this.game.observation()?.phase === Phase.OVER) return;
    const i = this.selected === null ? -1 : shown.indexOf(this.selected);
    this.selected = i < 0 ? shown[step > 0 ? 0 : shown.length - 1]! : shown[(i + step + shown.length) % shown.length]!;
    this.message = "";
    this.render();
    cardButton(this.selected)?.focus();
  }

  move(step: number): void {
    if (this.selected === null) return;
    if (this.grouping) this.setGrouping(false);
    this.order = moved(this.order, this.selected, step);
    this.savePrefs();
    this.render();
    cardButton(this.selected)?.focus();
  }

  fullScreen(): void {
    if (document.fullscreenElement) {
      void document.exitFullscreen();
      return;
    }
    // Where the browser refuses full screen, the table still fills the window.
    document.documentElement.requestFullscreen().catch(() => showFull(!byId("app").classList.contains("full")));
  }

  // -- the hand: clicks and drags -------------------------------------------------

  private cardOf(node: Element | null): Card | null {
    const button = node?.closest<HTMLElement>("#hand .card");
    if (!button) return null;
    return this.game.observation()?.hand.find((c) => c.toString() === button.dataset.card) ?? null;
  }

  private wireHand(): void {
    const hand = byId("hand");
    hand.addEventListener("click", (e) => {
      if (!this.dragEnded()) this.cardClicked(this.cardOf(e.target as Element));
    });
    this.dragEnded = wireDrag(hand, byId("discard"), {
      cardOf: (node) => this.cardOf(node),
      elementOf: (card) => cardButton(card),
      dropOnPile: (card) => {
        this.selected = card;
        this.throwSelected();
      },
      dropOnCard: (card, onto) => {
        if (this.grouping) this.setGrouping(false);
        this.order = movedBefore(this.order, card, onto);
        this.selected = card;
        this.savePrefs();
        this.render();
      },
    });
  }

  /** A click on a card selects it; a click on the selected card throws it. */
  private cardClicked(card: Card | null): void {
    if (card === null || this.game.observation()?.phase === Phase.OVER) return;
    if (card === this.selected && this.can("throw")) {
      this.throwSelected();
    } else {
      this.selected = card;
      this.message = "";
      this.render();
    }
  }

  // -- the actions of buttons and keys (KeyActions) -------------------------------

  take(): void { this.act(new DrawPile()); }
  stock(): void { this.act(new DrawStock()); }
  pass(): void { this.act(new Pass()); }
  layOff(): void { this.act(new LayOff()); }
  wholePile(): void { pileDialog(this.game.observation()?.pile ?? []); }
  toggleGrouping(): void { this.setGrouping(!this.grouping); }
  howToPlay(): void {
    const rules = this.game.rules;
    if (rules !== null) howToPlayDialog(rules);
  }
  keys(): void { keysDialog(); }
  strength(index: number): void { this.setStrength(STRENGTHS[index]![0]); }

  enter(card: Element | null): void {
    if (this.game.observation()?.phase === Phase.OVER) this.next();
    else if (card !== null) this.cardClicked(this.cardOf(card));
    else this.throwSelected();
  }

  nextRules(): void {
    if (this.local === null) return;
    const names = [...PRESETS.keys()];
    const i = names.indexOf(this.local.rules.name);
    this.rulesChosen(names[(i + 1) % names.length]!);
  }

  // -- the player's own settings --------------------------------------------------

  private loadPrefs(): void {
    try {
      const prefs = JSON.parse(this.store?.getItem(PREFS_KEY) ?? "null") as Prefs | null;
      if (prefs === null) return;
      this.grouping = prefs.grouping !== false;
      this.motion.choose(isSpeed(prefs.motion) ? prefs.motion : null);
      if (typeof prefs.pause === "number" && PAUSES.includes(prefs.pause)) this.pause = prefs.pause;
      const held = this.game.observation()?.hand ?? [];
      this.order = prefs.order.map((t) => held.find((c) => c.toString() === t)).filter((c): c is Card => !!c);
    } catch (exc) {
      if (!(exc instanceof SyntaxError || exc instanceof TypeError || exc instanceof GinError)) throw exc;
    }
  }

  private savePrefs(): void {
    try {
      const prefs: Prefs = { grouping: this.grouping, order: this.order.map(String), motion: this.motion.choice,
        ...(this.pause === null ? {} : { pause: this.pause }) };
      this.store?.setItem(PREFS_KEY, JSON.stringify(prefs));
    } catch {
      // Only the order of your cards is lost: the match is saved on its own.
    }
  }
}

/** Full screen on or off: the table's layout, and the button says how to leave it. */
function showFull(on: boolean): void {
  byId("app").classList.toggle("full", on);
  const button = byId("btn-full");
  button.textContent = on ? "Leave full screen" : "Full screen";
  // The browser's own full screen also ends with Esc; the board's stand-in only with F.
  button.title = !on ? "Full screen (F)" : document.fullscreenElement ? "Leave full screen (F or Esc)"
    : "Leave full screen (F)";
}

/** Identifies a moment of play, so a hint computed for it is never shown later. */
function stateKey(obs: Observation): string {
  return `${obs.handNumber}:${obs.history.length}`;
}

/** The engine's refusal ("player 0 cannot discard 7h in the discard phase: …") as
 * the player should read it: the reason after the colon, about "you". */
function refusalWords(message: string): string {
  const reason = message.includes(": ") ? message.slice(message.indexOf(": ") + 2) : message;
  return reason.replace(/^player 0 does not hold/, "you do not hold")
    .replace(/\b[A2-9TJQK][cdhs]\b/g, (text) => Card.parse(text).glyph); // Kc as K♣
}
