/**
 * The online peer on the page's thread: the {@link OnlinePeer} of api.ts (lobby.ts
 * makes it). It holds the relay's websocket (relay.ts), the timers and the browser's
 * storage (store.ts); the session itself runs in a Web Worker (worker.ts, core.ts)
 * so the deck's crypto never freezes the page. The twin of client/net/peer.py.
 *
 * Write-ahead (protocol.md §5.4, §11.2): the session's state is stored before the
 * frames it produced are sent. When storage refuses, nothing more is sent (re-sends
 * included) and the player is told; the save is retried every 2 s, and after
 * 120 s of failures the match ends as this browser's fault, everything sent still
 * covered by the last save, so it can be continued later.
 */

import type { Connection, FailureView, OnlinePeer, Owed, PeerNotice, PeerView, RecordView } from "./api.ts";
import { boardOfPage, formatInvite, type Invite, type PageLocation, websocketBase } from "./links.ts";
import { describeFriend, type Friend, type LocalIdentity, meetFriend } from "./identity.ts";
import type { Snapshot, WorkerReply, WorkerRequest } from "./messages.ts";
import { failure, friendLeftReason } from "./outcome.ts";
import { CLOSE, RelayClient, type RelayEvent, type RelayOptions, seatTakenWords, type Timers } from "./relay.ts";
import { listening, rematchDue, undecided } from "./rematch.ts";
import { type MatchEntry, type MatchStore, StoreError } from "./store.ts";

/** The worker, or anything that answers requests in order (tests run core.ts in-process). */
export interface PeerWorker {
  post(request: WorkerRequest): void;
  onReply: ((reply: WorkerReply) => void) | null;
  /** The worker failed (its script did not load, or it threw). */
  onError: ((message: string) => void) | null;
  terminate(): void;
}

export interface PeerSettings {
  /** How often the session is told the time, to re-send what is unacknowledged (s). */
  readonly pollEvery: number;
  /** A message the peer's program sends by itself (keys, deck, seed): allows for reconnects (s). */
  readonly replyTimeout: number;
  /** A person thinking about a move (s). */
  readonly moveTimeout: number;
  /** Seconds a relay outage may last before giving up (the terminal's --give-up-after). */
  readonly giveUpAfter: number;
  readonly saveRetry: number;
  readonly saveGiveUp: number;
  /** After the match, stay this long so a frame lost in a drop can still be re-sent (s). */
  readonly linger: number;
}

export const DEFAULT_SETTINGS: PeerSettings = {
  pollEvery: 1, replyTimeout: 180, moveTimeout: 900, giveUpAfter: 300, saveRetry: 2, saveGiveUp: 120, linger: 3,
};

/** What the peer needs of the page; tests give fakes. */
export interface PeerEnvironment {
  readonly storage: Storage | null;
  readonly location: PageLocation;
  /** Show the invite link in the page's own address, so a reload finds the match. */
  readonly setAddress: (url: string) => void;
  readonly makeWorker: () => PeerWorker;
  readonly timers: Timers;
  readonly randomBytes: (n: number) => Uint8Array;
  /** The wall clock an abandonment record's times come from (ms since 1970; Date.now by default). */
  readonly clock?: () => number;
  readonly relayOptions?: Partial<RelayOptions>;
  readonly settings?: Partial<PeerSettings>;
}

type Listener = (view: PeerView, notices: readonly PeerNotice[]) => void;

/** One online match as this browser plays it, over the relay and the worker's session: the twin of client/net/peer.py's OnlineMatch. */
export class OnlineMatch implements OnlinePeer {
  private readonly settings: PeerSettings;
  private readonly listeners: Listener[] = [];
  private connection: Connection = "connecting";
  private link: string | null = null;
  private snapshot: Snapshot | null = null;
  private records: RecordView[];
  private localFailure: FailureView | null = null;
  private relay: RelayClient | null = null;
  private worker: PeerWorker | null = null;
  private state: string | null = null;
  private room: string | null;
  private unsaved: Uint8Array[] = [];
  private saveFailingSince: number | null = null;
  private retry: unknown = null;
  private poller: unknown = null;
  private timer: unknown = null;
  private timerKey: string | null = null;
  /** What the friend owes now ("type:received"), since when (UTC s), and the question put. */
  private owedKey: string | null = null;
  private owedSince = 0;
  private grace: { readonly owed: Owed; readonly since: number } | null = null;
  private kept = false; // the player kept waiting past the grace on what is still owed
  private peerSeen = false;
  private friendGone = false; // the relay gave the friend's seat up, and nobody took it since
  private friendLeft = false; // the relay's welcome: the friend left for good while this seat was given up
  private welcomed = false; // the relay welcomed this page at least once
  private ended = false; // closed: nothing more is sent
  private superseded = false; // another tab of this browser took the match over
  private overAt: number | null = null;
  private pendingNotices: PeerNotice[] = [];
  private friend: Friend | null = null;
  private wantRematch = false; // the player asked for the next match on this link
  private switching = false; // a "rematch" request awaits its reply
  private matches = 0; // matches finished normally in this page
  private lastOver: Snapshot | null = null; // shown while a guest's next session listens for an offer

  constructor(
    private readonly env: PeerEnvironment,
    private readonly store: MatchStore,
    private readonly role: "host" | "guest",
    /** `board`: the board the friend's link opens (null: the relay's own page). */
    private readonly invite: { relay: string; room: string | null; secret: Uint8Array; board?: string | null },
    private readonly linkId: string,
    private token: string,
    private ticket: string | null,
    private readonly me: LocalIdentity | null = null,
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...env.settings };
    if (me?.warning != null) this.pendingNotices.push({ kind: "notice", text: me.warning });
    this.room = invite.room;
    this.records = store.records(linkId);
    if (invite.room !== null) this.link = formatInvite(invite as Invite);
    try {
      this.worker = env.makeWorker();
    } catch (exc) {
      // No worker here (an old browser, a page policy): say so, connect nowhere.
      this.worker = null;
      this.localFailure = failure("LocalError", "this browser", "worker",
        `this browser cannot run the online peer (${exc instanceof Error ? exc.message : String(exc)})`);
      this.ended = true;
      this.connection = "closed";
      return;
    }
    this.worker.onReply = (reply) => this.onReply(reply);
    this.worker.onError = (message) => this.fail(failure("LocalError", "this browser", "worker",
      `the online peer stopped in this browser: ${message}`));
  }

  /** Make the session (new or from storage), then connect to the relay. */
  begin(request: WorkerRequest): void {
    if (this.worker === null) return;
    this.worker.post(request);
    this.relay = new RelayClient({
      relay: websocketBase(this.invite.relay), room: this.room, seat: this.role === "host" ? 0 : 1,
      token: this.token, ticket: this.ticket, giveUpAfter: this.settings.giveUpAfter, timers: this.env.timers,
      ...this.env.relayOptions,
    }, (event) => this.onRelay(event));
    this.relay.start();
    this.poller = this.env.timers.setTimeout(() => this.tick(), this.settings.pollEvery * 1000);
  }

  /** A peer that only says why it cannot play (a finished match, a bad link). */
  static closed(role: "host" | "guest", why: FailureView | null, notice: string | null, records: RecordView[]): OnlinePeer {
    const view: PeerView = {
      role, seat: role === "host" ? 0 : 1, connection: "closed", link: null, rules: null, rulesOffered: null,
      observation: null, legal: [], waitingFor: null, scores: [0, 0], results: [], verified: verifiedHands(records, lastMatch(records)),
      records, over: true, failure: why, identity: { mine: null, friend: null, friendText: null, changed: false },
      rematch: false, rematchWanted: false, matches: 0,
    };
    const notices: PeerNotice[] = [
      ...(why === null ? [] : [{ kind: "failed", failure: why } as const]),
      ...(notice === null ? [] : [{ kind: "notice", text: notice } as const]),
    ];
    return {
      subscribe: (listener) => listener(view, notices),
      act: () => {}, acceptRules: () => {}, declineRules: () => {}, keepWaiting: () => {}, abandon: () => {},
      rematch: () => {}, leave: () => {},
    };
  }

  // -- the board's calls -----------------------------------------------------------

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
    listener(this.view(), []);
  }

  act(action: string): void {
    this.post({ op: "act", action });
  }

  acceptRules(): void {
    this.post({ op: "accept" });
  }

  declineRules(): void {
    this.post({ op: "decline" });
  }

  keepWaiting(): void {
    if (this.grace === null) return; // moot: the friend answered meanwhile
    this.grace = null;
    this.kept = true;
    this.restartTimer();
    this.tell([]);
  }

  abandon(): void {
    if (this.grace === null && !this.kept) return; // moot: the friend answered meanwhile
    this.grace = null;
    this.kept = false;
    const since = Math.floor(this.owedSince);
    this.post({ op: "abandon", since, now: Math.max(since, Math.floor(this.utcNow())) });
  }

  private utcNow(): number {
    return (this.env.clock ?? Date.now)() / 1000;
  }

  rematch(): void {
    this.wantRematch = true;
    this.nextMatch();
    this.tell([]);
  }

  /** The next session on this link, when due (rematch.ts); a guest's accepts the offer (onReply). */
  private nextMatch(): void {
    if (this.ended || this.switching || !rematchDue(this.snapshot, this.role, this.wantRematch, this.relay?.connected ?? false)) return;
    this.overAt = null;
    this.switching = true; // until the worker's reply shows the new session
    if (this.role === "host") this.wantRematch = false;
    this.post({ op: "rematch", secret: this.invite.secret, identity: this.me?.secret ?? new Uint8Array(0) });
  }

  leave(): void {
    this.close();
    if (!this.superseded) this.store.remove(this.linkId); // else the other tab's match
    this.tell([]);
  }

  // -- the worker's answers ----------------------------------------------------------

  private post(request: WorkerRequest): void {
    if (!this.ended || request.op === "receive") this.worker?.post(request);
  }

  private onReply(reply: WorkerReply): void {
    const notices = [...this.pendingNotices, ...reply.notices];
    this.pendingNotices = [];
    if (reply.snapshot !== null) this.snapshot = reply.snapshot;
    if (reply.snapshot?.over) this.lastOver = reply.snapshot;
    else if (reply.snapshot) this.switching = false;
    this.matches += notices.filter((n) => n.kind === "match-over" && n.forfeitBy === null).length;
    if (this.wantRematch && reply.snapshot?.rematch && reply.snapshot.rulesOffered !== null) {
      this.wantRematch = false; // the guest asked first: the friend's offer is accepted
      this.post({ op: "accept" });
    }
    this.meet(notices);
    if (this.endIfLeft()) return;
    if (reply.snapshot === null) {
      // No session could be made: nothing to send, nothing to keep.
      const failed = notices.find((n) => n.kind === "failed");
      if (failed !== undefined && failed.kind === "failed") this.localFailure = failed.failure;
      this.close();
      this.tell(notices);
      return;
    }
    if (reply.records.length > 0) {
      this.records = [...this.records, ...reply.records];
      try {
        this.store.saveRecords(this.linkId, this.records);
      } catch (exc) {
        if (!(exc instanceof StoreError)) throw exc;
        notices.push({ kind: "notice", text: `${exc.message} The hand's record can still be downloaded from this page.` });
      }
    }
    if (reply.state !== null) this.state = reply.state;
    if (reply.state !== null || this.unsaved.length > 0) {
      this.unsaved.push(...reply.frames);
      if (this.save(notices)) this.transmit(this.unsaved.splice(0));
      this.showLink();
    } else {
      this.transmit(reply.frames);
    }
    this.restartTimer();
    this.nextMatch();
    this.tell(notices);
  }

  /** A host's link, once its room is known and its match stored (or storing it was tried):
   * a tab of this browser that opens the link then continues this match as its host. Shown
   * earlier, before the worker had made the session, a second tab found nothing stored and
   * joined as the guest, and the host was connected to itself. */
  private showLink(): void {
    if (this.link !== null || this.room === null || this.state === null) return;
    this.link = formatInvite({ ...this.invite, room: this.room });
    // This page's own address names the match in this page's form, which a reload opens.
    this.env.setAddress(formatInvite({ ...this.invite, room: this.room, board: boardOfPage(this.env.location) }));
  }

  /** Store the state; false (frames held, a retry scheduled) when storage refused. */
  private save(notices: PeerNotice[]): boolean {
    // A host before the relay gave it a room, or before the worker made the session:
    // nothing was sent yet, so nothing needs covering.
    if (this.room === null || this.state === null) return false;
    const over = (this.snapshot?.over ?? false) || listening(this.snapshot, this.role);
    try {
      // Once over, the state (and its secrets) goes; a note of the end stays.
      this.store.save(this.linkId, this.entry(over ? null : this.state, over ? this.outcome() : null));
    } catch (exc) {
      if (!(exc instanceof StoreError)) throw exc;
      if (over) return true; // nothing to resume from any more: play needs no save
      const now = this.env.timers.now();
      if (this.saveFailingSince === null) {
        this.saveFailingSince = now;
        const s = this.settings;
        notices.push({ kind: "notice", text: `${exc.message} Nothing more is sent to your friend until the match `
          + `is saved: trying again every ${s.saveRetry} s, for up to ${s.saveGiveUp} s.` });
      }
      if (this.retry === null && !this.ended) {
        this.retry = this.env.timers.setTimeout(() => this.retrySaving(), this.settings.saveRetry * 1000);
      }
      if ((now - this.saveFailingSince) / 1000 >= this.settings.saveGiveUp) {
        this.fail(failure("LocalError", "this browser", "storage",
          `the match could not be saved for ${Math.round((now - this.saveFailingSince) / 1000)} s (${exc.message}); `
          + "nothing unsaved was sent, so it can be continued from the last save"));
      }
      return false;
    }
    if (this.saveFailingSince !== null) {
      this.saveFailingSince = null;
      notices.push({ kind: "notice", text: "The match is saved again; play goes on." });
    }
    return true;
  }

  private retrySaving(): void {
    this.retry = null;
    if (this.ended || this.saveFailingSince === null) return;
    const notices: PeerNotice[] = [];
    if (this.save(notices)) {
      this.unsaved = [];
      this.post({ op: "resend" }); // everything unacknowledged: a superset of what waited
    }
    this.tell(notices);
  }

  /** What the store keeps of this match: where it is played, and its state or its end. */
  private entry(state: string | null, finished: string | null): Omit<MatchEntry, "format" | "savedAt"> {
    return { role: this.role, relay: this.invite.relay, room: this.room!, token: this.token, ticket: this.ticket,
      state, finished };
  }

  private transmit(frames: readonly Uint8Array[]): void {
    if (this.ended) return;
    for (const frame of frames) this.relay?.send(frame); // false while disconnected: re-sent later
  }

  private outcome(): string {
    const snap = this.snapshot;
    if (snap?.failure) return `${snap.failure.kind}: ${snap.failure.reason}`;
    return "the match is over";
  }

  // -- the relay -------------------------------------------------------------------

  private onRelay(event: RelayEvent): void {
    switch (event.kind) {
      case "frame":
        this.post({ op: "receive", frame: event.data });
        return;
      case "connected":
        this.welcomed = true;
        this.ticket = event.ticket;
        if (this.room === null) this.room = event.room;
        // Frames held until the room was known: stored now, then sent.
        if (this.save(this.pendingNotices) && this.unsaved.length > 0) this.transmit(this.unsaved.splice(0));
        this.showLink();
        this.connection = this.absent();
        break;
      case "reconnected":
        this.ticket = event.ticket;
        this.connection = this.absent();
        this.post({ op: "resend" });
        break;
      case "waiting":
        this.connection = this.absent();
        break;
      case "peer-joined":
        // After a relay restart a returning peer looks new: re-send either way.
        this.peerSeen = true;
        this.friendGone = false;
        this.connection = "connected";
        this.post({ op: "resend" });
        break;
      case "peer-left":
        this.friendGone = false;
        this.connection = "peer-left";
        break;
      case "peer-gone":
        this.friendLeft ||= event.left === true;
        if (this.endIfLeft()) return;
        this.friendGone = true;
        this.connection = "peer-gone";
        break;
      case "reconnecting":
        if (event.code === CLOSE.SEAT_TAKEN && this.ticket === null && !this.welcomed) {
          // Someone else holds this seat, and without the relay's ticket this page can
          // never win it back: say so instead of retrying. Nothing was ever sent from
          // here, so nothing is kept either.
          this.store.remove(this.linkId);
          const words = seatTakenWords(this.role === "host" ? 0 : 1);
          this.fail(failure("SeatTaken", "", "", `${words[0]!.toUpperCase()}${words.slice(1)}.`));
          return;
        }
        if (!this.welcomed && event.attempt === 1) {
          // Never reached: a wrong relay in the link, one that is down, or one that refuses
          // boards from other sites. Said once; it keeps trying, and nothing is lost.
          this.pendingNotices.push({ kind: "notice", text: `The relay at ${this.invite.relay} cannot be reached `
            + `(${event.reason}). This page keeps trying; if it goes on, check the relay's address in the link, `
            + "or whether that relay lets boards from other sites play on it." });
        }
        this.connection = "reconnecting";
        break;
      case "closed":
        this.connection = "closed";
        if (event.code === CLOSE.SUPERSEDED) {
          // Another tab took the seat with this browser's token: it plays on, and keeps
          // the stored match; nobody is at fault, and leaving here must not forget it.
          this.superseded = true;
          this.localFailure = failure("OpenedElsewhere", "nobody", "connection",
            `${event.reason[0]!.toUpperCase()}${event.reason.slice(1)}, which plays it now: `
            + "this page stops here (close it, and go on in the other).");
          this.pendingNotices.push({ kind: "failed", failure: this.localFailure });
        } else if (!this.ended && !(this.snapshot?.over ?? false)) {
          // A relay that closed for good is the one that ended it; one never reached
          // again may be down, or this device's network may be.
          const who = event.code === null ? "the relay or this device's network" : "the relay";
          this.localFailure = failure("ConnectionFailed", who, "connection",
            `the relay connection ended: ${event.reason}; the match is kept in this browser: open the link again to continue`);
          this.pendingNotices.push({ kind: "failed", failure: this.localFailure });
        }
        this.close();
        break;
    }
    // Back in touch: the peer gets its whole time again (as the terminal does).
    if (event.kind === "connected" || event.kind === "reconnected" || event.kind === "peer-joined") this.stopTimer();
    this.restartTimer();
    const notices = this.pendingNotices;
    this.pendingNotices = [];
    this.tell(notices);
  }

  /** Back to a match the friend left for good meanwhile (the relay kept that word, and the
   * stored session says the match was under way): it cannot go on. */
  private endIfLeft(): boolean {
    const snap = this.snapshot;
    if (!this.friendLeft || this.ended || snap === null || snap.over || snap.received === 0) return false;
    const why = failure("FriendLeft", this.role === "host" ? "guest" : "host", "connection",
      friendLeftReason(this.role, snap.legal.length > 0));
    // As gin join does: the stored match becomes the note of its end, so the link says so
    // from now on, even after the relay has forgotten the room.
    try {
      this.store.save(this.linkId, this.entry(null, `${why.kind}: ${why.reason}`));
    } catch (exc) {
      if (!(exc instanceof StoreError)) throw exc; // the match still ends here; only the note is lost
    }
    this.fail(why);
    return true;
  }

  /** The friend is not there: gone if the relay gave their seat up (a welcome after a
   * reconnect says only "absent"), else still to come. */
  private absent(): Connection {
    return this.friendGone ? "peer-gone" : "waiting";
  }

  // -- timers ----------------------------------------------------------------------

  private tick(): void {
    this.poller = null;
    if (this.ended) return;
    const snap = this.snapshot;
    if (snap !== null && snap.failure === null && this.relay?.connected) {
      this.post({ op: "poll", now: this.env.timers.now() / 1000 });
    }
    if (snap?.over) {
      // Stay so the friend can still ask for our last messages; after a normal end, for a rematch.
      const now = this.env.timers.now();
      this.overAt ??= now;
      const waited = (now - this.overAt) / 1000;
      if (!snap.rematchable && waited >= this.settings.linger && (snap.failure !== null || snap.unacknowledged === 0
        || waited >= this.settings.replyTimeout)) {
        this.close();
        this.tell([]);
        return;
      }
    }
    this.poller = this.env.timers.setTimeout(() => this.tick(), this.settings.pollEvery * 1000);
  }

  /** The grace on what the peer owes (protocol.md §11.3): runs while connected and owed; when
   * it runs out the board is asked (a "grace-over" notice): keep waiting, or abandon. */
  private restartTimer(): void {
    const snap = this.snapshot;
    const owed = snap === null || snap.over || undecided(snap) ? null : snap.waitingFor;
    const owedKey = owed === null ? null : `${owed}:${snap!.received}`;
    if (owedKey !== this.owedKey) [this.owedKey, this.owedSince, this.grace, this.kept] = [owedKey, this.utcNow(), null, false];
    if (this.grace !== null) return; // the player is asked: the clock waits for the answer
    // The friend has joined, on this page or before it (a resumed match), or made the link this
    // guest joins: its absence counts against its grace, for it may never come back (to say it
    // ended the match). A host waits for its guest to open the link.
    const met = this.peerSeen || (snap !== null && snap.received > 0) || this.role === "guest";
    if (owed === null || !met || !this.relay?.connected || this.ended) {
      this.stopTimer();
      return;
    }
    const key = `${owed}:${snap!.received}`;
    if (key === this.timerKey && this.timer !== null) return; // still waiting for the same thing
    this.stopTimer();
    const seconds = owed === "move" ? this.settings.moveTimeout : this.settings.replyTimeout;
    this.timerKey = key;
    this.timer = this.env.timers.setTimeout(() => {
      this.timer = this.timerKey = null;
      this.grace = { owed, since: this.owedSince };
      this.tell([{ kind: "grace-over", owed, since: this.owedSince }]);
    }, seconds * 1000);
  }

  private stopTimer(): void {
    if (this.timer !== null) this.env.timers.clearTimeout(this.timer);
    this.timer = this.timerKey = null;
  }

  // -- ending ----------------------------------------------------------------------

  private fail(why: FailureView): void {
    this.localFailure = why;
    this.close();
    this.tell([{ kind: "failed", failure: why }]);
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.connection = "closed";
    this.stopTimer();
    for (const handle of [this.poller, this.retry]) if (handle !== null) this.env.timers.clearTimeout(handle);
    this.poller = this.retry = null;
    this.relay?.close();
    // The worker keeps the session's secrets only as long as it is needed.
    this.worker?.terminate();
    this.worker = null;
  }

  /** Note the friend's identity in the known friends, once the handshake told it. */
  private meet(notices: PeerNotice[]): void {
    const ids = this.snapshot?.identities;
    if (this.friend !== null || ids?.friend == null || ids.match === null) return;
    const met = meetFriend(this.env.storage, this.linkId, ids.friend, ids.match);
    this.friend = met.friend;
    // Who the friend is shows in the side (view.identity), not as a notice on the prompt line.
    for (const text of met.warnings) notices.push({ kind: "notice", text });
  }

  private view(): PeerView {
    const snap = listening(this.snapshot, this.role) ? this.lastOver ?? this.snapshot : this.snapshot;
    return {
      role: this.role,
      seat: this.role === "host" ? 0 : 1,
      // Until the worker has read the session back (a reload), whether the friend had come
      // is not known: "waiting" would say they are still to open the link (issue 28 item 9).
      connection: this.snapshot === null && this.connection === "waiting" ? "connecting" : this.connection,
      link: this.role === "host" ? this.link : null,
      rules: snap?.rules ?? null,
      rulesOffered: snap?.rulesOffered ?? null,
      observation: snap?.observation ?? null,
      legal: this.ended ? [] : snap?.legal ?? [],
      waitingFor: snap?.waitingFor ?? null,
      scores: snap?.scores ?? [0, 0],
      results: snap?.results ?? [],
      verified: verifiedHands(this.records, snap?.identities.match ?? null),
      records: [...this.records],
      over: (snap?.over ?? false) || this.localFailure !== null,
      declined: snap?.declined ?? false,
      failure: snap?.failure ?? this.localFailure,
      graceOver: this.grace,
      mayAbandon: this.kept && !this.ended,
      identity: { mine: snap?.identities.mine.words ?? null, friend: this.friend?.words ?? null,
        friendText: this.friend === null ? null : describeFriend(this.friend), changed: this.friend?.was != null },
      rematch: snap?.rematch ?? false, rematchWanted: this.wantRematch, matches: this.matches,
    };
  }

  private tell(notices: readonly PeerNotice[]): void {
    const view = this.view();
    for (const listener of this.listeners) listener(view, notices);
  }
}

/** The match (hex id) of the last record kept: a closed link's last match. */
function lastMatch(records: readonly RecordView[]): string | null {
  return /^gin-([0-9a-f]+)-/.exec(records.at(-1)?.name ?? "")?.[1] ?? null;
}

/** The hands of match `match` (hex id) whose whole deck was verified: those with a record
 * (named for the match, core.ts recordName), not a failed one's evidence. */
function verifiedHands(records: readonly RecordView[], match: string | null): number[] {
  return records.filter((record) => !record.failed && !record.abandoned && record.name.startsWith(`gin-${match}-`))
    .map((record) => record.hand);
}
