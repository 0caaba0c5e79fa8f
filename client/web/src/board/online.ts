/**
 * An online match as the table plays it: the {@link Play} of this browser's seat,
 * following the online peer's {@link PeerView}. The observation is rebuilt from
 * the view (Observation.fromDict), the legal actions parsed from their texts, and
 * the player's moves sent with `peer.act`; the peer deals, checks and scores.
 * Nothing here is trusted more than the peer: the view is only presented.
 */

import { type Action, Knock, parseAction } from "../engine/actions.ts";
import { type Card, cardsMask } from "../engine/cards.ts";
import { GinError, IllegalAction } from "../engine/errors.ts";
import { knockLimitRefusal } from "../engine/hand.ts";
import { discardDeadwoods } from "../engine/melds.ts";
import { HandResult, Observation, Phase } from "../engine/observation.ts";
import { Ruleset } from "../engine/rules.ts";
import { matchTotals, matchWinner, type MatchTotals } from "../engine/scoring.ts";
import type { OnlinePeer, PeerNotice, PeerView } from "../online/api.ts";
import { pageStorage } from "../online/store.ts";
import { plainFailure, plainNotice } from "../online/text.ts";
import * as players from "../players/index.ts";
import { bestThrow, knockCounts } from "./game.ts";
import type { AutoMove, HintView, Play } from "./play.ts";
import { friendKey, matchEntry, RecordBook, type TextStore } from "./record.ts";
import { scoreSheet, type SheetRow } from "./scoresheet.ts";
import { failureTitle, statusWords, turnWords } from "./words.ts";

export const FRIEND = "Your friend";

/** Identifies a moment of play: a move in flight is settled once it changes. */
function momentOf(obs: Observation | null): string {
  return obs === null ? "" : `${obs.handNumber}:${obs.history.length}:${obs.phase}`;
}

/** A hand record's JSON (gin/protocol/records/records.py's to_dict), or null if it is not an object. */
function readRecord(json: string): { link?: unknown } | null {
  try {
    const data: unknown = JSON.parse(json);
    return data !== null && typeof data === "object" ? data : null;
  } catch {
    return null;
  }
}

/** The host's offered rules, or null when there are none or they cannot be read. */
function readable(offer: unknown): Ruleset | null {
  if (offer === null) return null;
  try {
    return Ruleset.fromDict(offer);
  } catch (exc) {
    if (!(exc instanceof GinError)) throw exc;
    return null;
  }
}

export class OnlineGame implements Play {
  readonly online = true;
  readonly them = FRIEND;
  readonly botPlays: boolean;
  /** The latest view of the peer (the board reads the connection, records… from it);
   * set in the constructor, since subscribe calls back at once with the current view. */
  view!: PeerView;
  private obs: Observation | null = null;
  private legalActions: Action[] = [];
  private rulesInPlay: Ruleset | null = null;
  private offered: Ruleset | null = null;
  private results: HandResult[] = [];
  /** The moment at which this seat sent a move not yet seen in a view. */
  private sentAt: string | null = null;
  private readonly warnings: string[] = [];
  private readonly listeners: (() => void)[] = [];
  private readonly viewListeners: ((view: PeerView, notices: readonly PeerNotice[]) => void)[] = [];

  /** `bot`: the computer that plays this seat (`?bot=LEVEL`), or null for the person. */
  /** `records`: where your record is kept (this page's storage; a map in tests). */
  constructor(readonly peer: OnlinePeer, private readonly bot: players.Player | null = null,
              private readonly records: TextStore | null = pageStorage()) {
    this.botPlays = bot !== null;
    peer.subscribe((view, notices) => this.update(view, notices));
    if (this.view === undefined) throw new Error("the online peer did not report its view on subscribe");
  }

  /** Called with each new view and its notices, after the table was told. */
  onView(listener: (view: PeerView, notices: readonly PeerNotice[]) => void): void {
    this.viewListeners.push(listener);
    listener(this.view, []);
  }

  private update(given: PeerView, told: readonly PeerNotice[]): void {
    // What a view quotes (a friend's abort, the relay's words, a failure's field) is
    // shown without control or format characters, as the terminal shows it.
    const view = given.failure === null ? given : { ...given, failure: plainFailure(given.failure) };
    const notices = told.map(plainNotice);
    this.view = view;
    try {
      // The friend's rematch offer leaves the finished match on the table (its result
      // still to be seen) until the player answers it; declined, it stays there.
      const offered = view.rematch && view.observation === null && (view.rulesOffered !== null || view.declined === true);
      if (!(offered && this.obs?.phase === Phase.OVER && this.totals !== null)) {
        this.obs = view.observation === null ? null : Observation.fromDict(view.observation);
        this.rulesInPlay = view.rules === null ? null : Ruleset.fromDict(view.rules);
        this.results = view.results.map((result) => HandResult.fromDict(result));
      }
      this.legalActions = view.legal.map(parseAction);
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      // The peer runs this page's own code: a view it cannot read is a bug here.
      this.legalActions = [];
      this.warnings.push(`This page could not read the match's state: ${exc.message}`);
    }
    this.offered = readable(view.rulesOffered); // rules that cannot be read are declined (friend.ts)
    if (this.sentAt !== null && (this.sentAt !== momentOf(this.obs) || notices.some((n) => n.kind === "notice"))) {
      this.sentAt = null; // the move was applied, or refused with a notice
    }
    for (const n of notices) if (n.kind === "notice") this.warnings.push(n.text);
    const over = notices.find((n) => n.kind === "match-over");
    if (over !== undefined) this.record(over.winner);
    const ended = notices.find((n) => n.kind === "failed")?.failure.kind;
    if (ended === "Abandoned" || ended === "ClaimedAbandoned" || ended === "LeftOwing") {
      this.record(null, ended === "ClaimedAbandoned" ? "you" : "friend");
    }
    // A computer in this seat ends the match at once when the friend's grace runs out
    // (after this view has been shown: the answer is a view of its own).
    if (this.bot !== null && notices.some((n) => n.kind === "grace-over")) queueMicrotask(() => this.peer.abandon());
    // A computer guest (?bot=) accepts the rematch its friend may offer.
    if (over !== undefined && over.forfeitBy === null && this.botPlays && view.role === "guest") this.peer.rematch();
    for (const listener of this.listeners) listener();
    for (const listener of this.viewListeners) listener(view, notices);
  }

  // -- Play ------------------------------------------------------------------------

  get rules(): Ruleset | null {
    return this.rulesInPlay;
  }

  get rulesOnOffer(): Ruleset | null {
    return this.offered;
  }

  opponentLabel(): string {
    return `${FRIEND} (${this.view.role === "host" ? "guest" : "host"})`;
  }

  observation(): Observation | null {
    return this.obs;
  }

  legal(): Action[] {
    if (this.sentAt !== null || this.view.failure !== null || this.obs === null) return [];
    return this.legalActions;
  }

  knockCounts(): Map<Card, number> {
    return this.obs === null ? new Map() : knockCounts(this.obs, this.legal());
  }

  bestThrow(): Card | null {
    return this.obs === null ? null : bestThrow(this.obs);
  }

  /** Whether `action` is among the peer's legal actions (a knock with any melds
   * counts when that card may knock: the peer checks the melds). */
  refusal(action: Action): string | null {
    const obs = this.obs;
    if (obs === null) return "no hand is in play";
    const text = String(action);
    const legal = this.legal();
    if (!legal.length) return obs.phase === Phase.OVER ? "the hand is over" : `it is ${FRIEND.toLowerCase()}'s turn`;
    if (legal.some((a) => String(a) === text)) return null;
    if (action instanceof Knock) {
      if (legal.some((a) => a instanceof Knock && a.card === action.card)) return null;
      const left = discardDeadwoods(cardsMask(obs.hand)).get(action.card.mask);
      const why = left === undefined ? null : knockLimitRefusal(action.card, left, obs.knockLimit);
      if (why !== null) return why;
    }
    return "that move is not allowed now";
  }

  /** No hint against a person: the friend has none either, and could not know of one. */
  readonly hints = false;

  hint(): HintView {
    throw new IllegalAction("there is no hint in an online match");
  }

  play(action: Action): void {
    const why = this.refusal(action);
    if (why !== null) throw new IllegalAction(why);
    this.sentAt = momentOf(this.obs);
    this.peer.act(String(action));
    for (const listener of this.listeners) listener(); // the table stops offering moves until the peer answers
  }

  automatic(): AutoMove | null {
    const bot = this.bot;
    const obs = this.obs;
    const legal = this.legal();
    if (bot === null || obs === null || !legal.length) return null;
    return { opponent: false, run: () => this.play(bot.choose(obs, legal)) };
  }

  /** Add the match to your record (record.ts), the friend known by its identity: won or
   * lost by `winner`, or (winner null) `abandoned` by the friend or by you. */
  private record(winner: number | null, abandoned: "friend" | "you" | null = null): void {
    let link = "";
    for (const r of this.view.records) {
      const data = r.failed || r.abandoned ? null : readRecord(r.json);
      if (typeof data?.link === "string") link = data.link; // the peer wrote it: unreadable is a bug there
    }
    // This match's hands only: the link's records hold every match played on it.
    this.warnings.push(...new RecordBook(this.records).add(matchEntry(friendKey(this.view.identity.friend, link), this.view.seat, winner,
      this.results, this.totals, new Date().toISOString(), abandoned)));
  }

  get rematchOffered(): boolean {
    return this.view.rematch && this.view.rulesOffered !== null;
  }

  /** Another match on the same link (protocol.md §7.1), once this one is over. */
  rematch(): void {
    this.peer.rematch();
  }

  nextHand(): void {
    // The peers deal the next hand between them; nothing to do here.
  }

  holdUp(): string | null {
    const obs = this.obs;
    const view = this.view;
    if (obs === null || this.legal().length || view.failure !== null || view.over) return null;
    if (!obs.myTurn) {
      // The friend's move: "thinking" only while they are there to think.
      return view.connection === "connected" || obs.phase === Phase.OVER ? null : statusWords(view);
    }
    const owed = turnWords({ ...view, legal: [], connection: "connected" });
    const held = owed && owed !== "Your friend's move" ? `${owed}…` : "Sending your move…";
    return view.connection === "reconnecting" ? `${held} (${statusWords(view).toLowerCase()})` : held;
  }

  stopped(): string | null {
    const failure = this.view.failure;
    return failure === null ? null : `${failureTitle(failure)}. No more moves are played.`;
  }

  scoreSheet(): SheetRow[] {
    return scoreSheet(this.results);
  }

  get totals(): MatchTotals | null {
    const obs = this.obs;
    const rules = this.rulesInPlay;
    if (obs === null || rules === null || obs.phase !== Phase.OVER) return null;
    return matchWinner(obs.scores, rules) === null ? null : matchTotals(obs.scores, obs.handsWon, rules);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  takeWarnings(): string[] {
    return this.warnings.splice(0);
  }
}
