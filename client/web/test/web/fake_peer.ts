/**
 * A fake online peer for the board's tests (never shipped): it implements the
 * board's contract (src/online/api.ts) over a local Match, the friend's seat
 * played by the computer, with no relay, no crypto and no worker. Tests steer it
 * through its methods (in the browser, `window.fake`): the friend arrives or
 * leaves, the connection drops, custom rules are offered, a hand fails its check.
 * Each finished hand is "verified" and gets a record (fake JSON, not gin's format).
 */

import { parseAction } from "../../src/engine/actions.ts";
import { GinError, MalformedInput } from "../../src/engine/errors.ts";
import { shuffledDeck } from "../../src/engine/hand.ts";
import { Match } from "../../src/engine/match.ts";
import { Phase } from "../../src/engine/observation.ts";
import { Ruleset } from "../../src/engine/rules.ts";
import type {
  Connection, FailureView, Online, OnlinePeer, Owed, PeerNotice, PeerView, RecordView, RulesData, StoredMatch,
} from "../../src/online/api.ts";
import * as players from "../../src/players/index.ts";
import { Rand } from "../../src/rand.ts";

type Listener = (view: PeerView, notices: readonly PeerNotice[]) => void;

/** What a test may set up before the page starts (`window.fakeSetup`). */
export interface FakeSetup {
  /** The deck stream's seed (the same decks every run). */
  seed?: number;
  /** Milliseconds before the friend's moves and the next deal (0 in most tests). */
  friendDelay?: number;
  /** The friend arrives at once (a host's friend opens the link; a guest finds the host). */
  arrive?: boolean;
  /** Custom rules the host offers a guest (RulesData), asked for on arrival. */
  offer?: RulesData;
  /** What `stored()` reports. */
  stored?: StoredMatch[];
}

export class FakePeer implements OnlinePeer {
  connection: Connection;
  link: string | null;
  rules: RulesData | null;
  rulesOffered: RulesData | null = null;
  match: Match | null = null;
  failure: FailureView | null = null;
  verified: number[] = [];
  records: RecordView[] = [];
  left = false;
  over = false;
  /** The friend came once (the handshake told who they are). */
  met = false;
  /** The friend's grace is over (`graceOver()`), until the player answers. */
  grace: { owed: Owed; since: number } | null = null;
  /** The grace the player kept waiting past (the friend still owes it): abandon() may end it. */
  kept: { owed: Owed; since: number } | null = null;
  /** How the player answered the grace (for tests). */
  readonly answers: string[] = [];
  /** Every action text this side sent with act() (for tests). */
  readonly sent: string[] = [];
  private readonly listeners: Listener[] = [];
  private readonly friend = players.get("easy");
  private readonly decks: Rand;
  private pending: PeerNotice[] = [];

  constructor(readonly role: "host" | "guest", link: string, rules: RulesData | null, private readonly setup: FakeSetup) {
    this.link = role === "host" ? link : null;
    this.rules = rules;
    this.connection = role === "host" ? "waiting" : "connecting";
    this.decks = new Rand(setup.seed ?? 1);
    if (setup.arrive) queueMicrotask(() => this.arrive());
  }

  get seat(): number {
    return this.role === "host" ? 0 : 1;
  }

  view(): PeerView {
    const match = this.match;
    const hand = match?.hand ?? null;
    const myMove = hand !== null && hand.phase !== Phase.OVER && match!.turn === this.seat && this.failure === null;
    const friendMove = hand !== null && hand.phase !== Phase.OVER && match!.turn !== this.seat;
    return {
      role: this.role,
      seat: this.seat,
      connection: this.connection,
      link: this.link,
      rules: this.rules,
      rulesOffered: this.rulesOffered,
      observation: hand === null ? null : match!.observation(this.seat).toDict(),
      legal: myMove ? match!.legalActions().map(String) : [],
      waitingFor: this.failure !== null || match?.over ? null
        : this.rulesOffered !== null ? null
        : match === null ? (this.role === "host" ? "welcome" : "hello")
        : friendMove ? "move" : hand?.phase === Phase.OVER ? "seed" : null,
      scores: match === null ? [0, 0] : [match.scores[0]!, match.scores[1]!],
      results: match === null ? [] : match.results.map((result) => result.toDict()),
      verified: [...this.verified],
      records: [...this.records],
      over: match?.over === true || this.failure !== null || this.over,
      failure: this.failure,
      graceOver: this.grace,
      mayAbandon: this.kept !== null && this.failure === null,
      // Fixed words: the fake peer has no keys; a friend is known once they came.
      identity: { mine: "maple otter pebble quilt robin", friend: !this.met ? null : "lemon harbor violin tulip kayak",
        friendText: !this.met ? null : "your friend: lemon harbor violin tulip kayak (new: you have not played "
          + "this identity before)", changed: false },
      rematch: false, rematchWanted: false, matches: 0,
    };
  }

  private emit(...notices: PeerNotice[]): void {
    this.pending.push(...notices);
    const batch = this.pending;
    this.pending = [];
    const view = this.view();
    for (const listener of this.listeners) listener(view, batch);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
    listener(this.view(), []);
  }

  act(action: string): void {
    this.sent.push(action);
    const match = this.match;
    if (match === null || this.failure !== null || match.turn !== this.seat) {
      this.emit({ kind: "notice", text: `refused: ${action} (not your move)` });
      return;
    }
    try {
      match.apply(this.seat, parseAction(action));
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      this.emit({ kind: "notice", text: `refused: ${exc.message}` });
      return;
    }
    this.moved(this.seat, action);
  }

  acceptRules(): void {
    this.rules = this.rulesOffered;
    this.rulesOffered = null;
    this.start();
  }

  rematch(): void {} // the fake peer plays one match

  declineRules(): void {
    this.rulesOffered = null;
    this.fail({ kind: "RulesDeclined", who: "this browser", field: "rules", reason: "You declined the host's custom rules.", proven: false });
  }

  keepWaiting(): void {
    this.answers.push("keep waiting");
    this.kept = this.grace;
    this.grace = null;
    this.emit();
  }

  abandon(): void {
    const grace = this.grace ?? this.kept;
    if (grace === null) return;
    this.answers.push("abandon");
    this.grace = this.kept = null;
    const friend = this.role === "host" ? "guest" : "host";
    const hand = this.match?.handNumber ?? 0;
    this.records.push({
      hand, name: `gin-fake-hand-${String(hand).padStart(2, "0")}-abandoned.json`, failed: false, abandoned: true,
      json: JSON.stringify({ fake: true, abandoned: friend, owed: grace.owed, since: grace.since }),
    });
    this.fail({ kind: "Abandoned", who: friend, field: grace.owed, proven: false,
      reason: `Abandoned by the ${friend}: it owed its ${grace.owed} for hand ${hand} since 2026-12-02 08:00:00 UTC; `
        + `the ${this.role} ended the match at 08:05:00 (after 300 s). This is the ${this.role}'s signed word: `
        + `not a cheat, and not proven (the ${friend} may have withheld it, or the relay dropped it)` });
  }

  leave(): void {
    this.left = true;
    this.connection = "closed";
    this.emit();
  }

  // -- what tests steer --------------------------------------------------------------

  /** The friend comes (or comes back). */
  arrive(): void {
    this.connection = "connected";
    this.met = true;
    if (this.match !== null) {
      this.emit();
      return;
    }
    if (this.role === "guest" && this.setup.offer !== undefined && this.rules === null) {
      this.rulesOffered = this.setup.offer;
      this.emit({ kind: "rules-offered", rules: this.setup.offer });
      return;
    }
    this.rules ??= Ruleset.fromDict({ name: "standard" }).toDict();
    this.start();
  }

  /** The friend's grace runs out for what it owes (the friend's move, say). */
  graceOver(owed: Owed = "move"): void {
    this.grace = { owed, since: 1_796_198_400 };
    this.emit({ kind: "grace-over", ...this.grace });
  }

  setConnection(connection: Connection): void {
    this.connection = connection;
    this.emit();
  }

  fail(failure: FailureView): void {
    this.failure = failure;
    this.emit({ kind: "failed", failure });
  }

  /** End as the real peer does for a finished match's link: over, before any deal, with a note. */
  closeFinished(text: string): void {
    this.connection = "closed";
    this.over = true;
    this.emit({ kind: "notice", text });
  }

    notice(text: string): void {
    this.emit({ kind: "notice", text });
  }

  // -- the match ----------------------------------------------------------------------

  private start(): void {
    this.match = new Match(Ruleset.fromDict(this.rules), 1);
    this.emit({ kind: "match-started", firstDealer: 1 });
    this.deal();
  }

  private deal(): void {
    const match = this.match!;
    match.deal(shuffledDeck(this.decks));
    this.emit({ kind: "hand-dealt", hand: match.handNumber, dealer: match.dealer });
    this.friendTurn();
  }

  private moved(seat: number, action: string): void {
    const match = this.match!;
    this.pending.push({ kind: "moved", seat, action });
    if (match.hand!.phase === Phase.OVER) {
      const obs = match.observation(this.seat);
      const hand = obs.handNumber;
      this.pending.push({ kind: "hand-scored", hand, scores: [obs.scores[0]!, obs.scores[1]!] });
      this.verified.push(hand);
      this.records.push({
        hand,
        name: `gin-fake-hand-${String(hand).padStart(2, "0")}.json`,
        json: JSON.stringify({ fake: true, hand, history: obs.history.map((e) => [e.player, e.kind]) }),
        failed: false,
      });
      this.pending.push({ kind: "hand-verified", hand });
      if (match.over) this.pending.push({ kind: "match-over", winner: match.totals!.winner, forfeitBy: null });
      this.emit();
      if (!match.over) this.later(() => this.deal());
      return;
    }
    this.emit();
    this.friendTurn();
  }

  private friendTurn(): void {
    const match = this.match!;
    if (match.hand!.phase === Phase.OVER || match.turn === this.seat) return;
    this.later(() => {
      if (this.failure !== null || this.match !== match || match.turn === this.seat) return;
      const other = 1 - this.seat;
      const action = this.friend.choose(match.observation(other), match.legalActions());
      match.apply(other, action);
      this.moved(other, String(action));
    });
  }

  private later(run: () => void): void {
    const delay = this.setup.friendDelay ?? 0;
    setTimeout(run, delay);
  }
}

export class FakeOnline implements Online {
  /** The peers made, newest last. */
  readonly peers: FakePeer[] = [];

  constructor(private readonly setup: FakeSetup = {}) {}

  get peer(): FakePeer | undefined {
    return this.peers.at(-1);
  }

  host(rules: RulesData): OnlinePeer {
    Ruleset.fromDict(rules); // as the real peer: bad rules are refused here
    const peer = new FakePeer("host", `${location.origin}/j/FAKEROOM#fake-secret-0123456789`, rules, this.setup);
    this.peers.push(peer);
    return peer;
  }

  join(link: string): OnlinePeer {
    if (!/\/j\/[^/#]+#.+$/.test(link)) throw new MalformedInput(`not an invite link: ${link}`);
    const kept = (this.setup.stored ?? []).find((m) => m.link === link.split("#")[0]); // kept without its secret
    const peer = new FakePeer(kept?.role ?? "guest", link, null, this.setup);
    this.peers.push(peer);
    return peer;
  }

  stored(): readonly StoredMatch[] {
    return this.setup.stored ?? [];
  }

  forget(link: string): void {
    this.setup.stored = (this.setup.stored ?? []).filter((m) => m.link !== link);
  }
}
