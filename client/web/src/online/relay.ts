/**
 * One seat in one room of a gin relay, over the browser's WebSocket: the twin of
 * client/net/transport.py (docs/running-a-relay.md is the protocol).
 *
 * The host's client asks for a room with a plain `GET /new` (an id and its seat
 * ticket, made from the relay's key alone), then takes seat 0 at `/j/ROOM?seat=0`
 * like the guest takes `/j/ROOM?seat=1`, so that behind a balancer of several relays
 * both reach the one the room is routed to. Both present a random seat token and the
 * relay's seat ticket once they have it, so the seat is theirs again after a drop or
 * a relay restart. A dropped connection is retried with exponential back-off and
 * jitter until an outage lasts `giveUpAfter` seconds, or at once ends when the relay
 * refuses the seat for good. While the other seat stays away, the client reconnects
 * now and then (`rerouteAfter`): if the balancer's choice of relay for the room
 * changed, the other seat may be waiting on another relay.
 *
 * It never queues a frame across a reconnect: `send` while disconnected sends
 * nothing, and the layer above re-sends what is unacknowledged after
 * "reconnected" and "peer-joined" (protocol.md §11.2).
 */

import { pyRepr } from "../engine/pyrepr.ts";

export type RelayEvent =
  | { readonly kind: "frame"; readonly data: Uint8Array }
  | { readonly kind: "connected"; readonly room: string; readonly ticket: string | null }
  | { readonly kind: "reconnected"; readonly attempts: number; readonly ticket: string | null }
  | { readonly kind: "waiting" } // the other seat was never taken, or was given up
  | { readonly kind: "peer-joined"; readonly returning: boolean }
  | { readonly kind: "peer-left"; readonly grace: number }
  // `left`: a welcome says the other seat's holder left for good while this one's grace had run out
  | { readonly kind: "peer-gone"; readonly left?: boolean }
  | { readonly kind: "reconnecting"; readonly attempt: number; readonly delay: number; readonly reason: string;
      readonly code: number | null } // the close code of the drop (null: not reached)
  | { readonly kind: "closed"; readonly code: number | null; readonly reason: string }; // always the last

/** The status and body of a plain HTTP answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** What the client needs of the browser's WebSocket (tests give a fake). */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

/** Timers and the clock, injectable so tests run without waiting. */
export interface Timers {
  now(): number; // milliseconds
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const BROWSER_TIMERS: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface RelayOptions {
  /** ws: or wss: address of the relay, with any path prefix, no trailing "/". */
  readonly relay: string;
  /** null: create a room (the host). */
  readonly room: string | null;
  readonly seat: number;
  readonly token: string;
  readonly ticket: string | null;
  /** Seconds an outage may last before the client gives up (the terminal's --give-up-after). */
  readonly giveUpAfter?: number;
  /** Seconds the other seat may stay away before this side reconnects (doubling, to 8×); null: never. */
  readonly rerouteAfter?: number | null;
  readonly openSocket?: (url: string) => SocketLike;
  /** A plain GET, for `/new` (tests give a fake). */
  readonly request?: (url: string, timeoutMs: number) => Promise<HttpAnswer>;
  readonly timers?: Timers;
  readonly random?: () => number;
}

// The relay's wire constants, as relay/wire.py names them (docs/running-a-relay.md,
// "Wire protocol"); the relay_wire conformance case holds this copy to that one.

/** Close codes on a relay connection. */
export const CLOSE = {
  LEFT: 1000, // from a client: it leaves for good, and its seat is freed at once
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002, // from a client: the relay broke this protocol
  TEXT_FRAME: 1003,
  INVALID_DATA: 1007,
  FLOOD: 1008,
  TOO_BIG: 1009,
  MANDATORY_EXTENSION: 1010,
  RECONNECTING: 4001, // from a client: it drops this connection to open another at once
  NO_PONG: 1011,
  TOO_SLOW: 1013,
  SUPERSEDED: 4000,
  BAD_REQUEST: 4400,
  UNKNOWN_ROOM: 4404,
  SEAT_TAKEN: 4409,
  ROOM_EXPIRED: 4410,
  TOO_MANY_CONNECTIONS: 4429,
  RELAY_FULL: 4503,
} as const;

/** Why the relay closed with CLOSE.SUPERSEDED: the seat's token is kept in this
 * browser's storage, so only another tab or window of it opens the match so (the
 * terminal says "another gin with the same save"). */
export const SUPERSEDED_REASON = "this match was opened in another tab or window of this browser";

/** Close codes after which retrying cannot help (the relay's table); 4409 is retried. */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE.LEFT, CLOSE.PROTOCOL_ERROR, CLOSE.TEXT_FRAME, CLOSE.INVALID_DATA, CLOSE.FLOOD, CLOSE.TOO_BIG,
  CLOSE.MANDATORY_EXTENSION, CLOSE.SUPERSEDED, CLOSE.BAD_REQUEST, CLOSE.UNKNOWN_ROOM, CLOSE.ROOM_EXPIRED,
]);

/** The `type` of each control message (a JSON text frame from the relay). */
export const CONTROL = {
  CREATED: "created", // the welcome on a WebSocket /new (older clients)
  JOINED: "joined",
  PEER_JOINED: "peer_joined",
  PEER_RECONNECTED: "peer_reconnected",
  PEER_LEFT: "peer_left",
  PEER_GONE: "peer_gone",
  ERROR: "error",
} as const;

/** A connection's first message is one of these, before any frame. */
export const WELCOMES: ReadonlySet<unknown> = new Set([CONTROL.CREATED, CONTROL.JOINED]);

const WELCOME_FIELDS = ["room", "seat", "peer", "grace", "max_frame", "rate", "burst", "ticket"] as const;

/** The fields of each control message besides `type`, in the order the relay sends them. */
export const CONTROL_FIELDS = {
  [CONTROL.CREATED]: WELCOME_FIELDS,
  [CONTROL.JOINED]: WELCOME_FIELDS,
  [CONTROL.PEER_JOINED]: [],
  [CONTROL.PEER_RECONNECTED]: [],
  [CONTROL.PEER_LEFT]: ["grace"],
  [CONTROL.PEER_GONE]: [],
  [CONTROL.ERROR]: ["code", "reason"],
} as const;

/** The fields of the JSON a plain `GET /new` answers: a room, its seat (0) and that seat's ticket. */
export const NEW_ROOM_FIELDS = ["room", "seat", "ticket"] as const;

/** A welcome's `peer`: the other seat's state. */
export const PEER = { CONNECTED: "connected", AWAY: "away", ABSENT: "absent", LEFT: "left" } as const;

/** A welcome as read from the relay: only its known fields, each yet to be checked. */
type Welcome = { readonly [F in "type" | (typeof WELCOME_FIELDS)[number]]?: unknown };

const TICKET = /^[A-Za-z0-9_-]{32}$/;
const ROOM_ID = /^[A-Za-z0-9_-]{32}$/;
const OPEN = 1;
// Below the relay's flood limit, as the terminal paces (client/net/transport.py's pace_for):
// a share of the rate and burst its welcome states, or these (under a default relay's
// 20 frames/s, bursts of 100) when it states none.
const SEND_RATE = 15;
const SEND_BURST = 50;
const RATE_SHARE = 0.75;
const BURST_SHARE = 0.5;

/** The send rate (frames/s) and burst for a relay whose welcome is `hello`. */
export function paceFor(hello: Welcome): [number, number] {
  const { rate, burst } = hello;
  const positive = (x: unknown): x is number => typeof x === "number" && x > 0 && x < 1e9;
  return positive(rate) && positive(burst) ? [RATE_SHARE * rate, Math.max(1, BURST_SHARE * burst)]
    : [SEND_RATE, SEND_BURST];
}
const OPEN_TIMEOUT_MS = 10_000;
const REROUTE_AFTER = 10;

/** A plain GET with the browser's fetch, given up after `timeoutMs`. */
async function fetchAnswer(url: string, timeoutMs: number): Promise<HttpAnswer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error("no answer in time")), timeoutMs);
  try {
    const response = await fetch(url, { cache: "no-store", signal: abort.signal, headers: { Accept: "application/json" } });
    return { status: response.status, body: await response.text() };
  } finally {
    clearTimeout(timer);
  }
}

/** What a taken seat (4409) means, by seat: the terminal's words (client/net/transport.py). */
export function seatTakenWords(seat: number): string {
  return seat === 1
    ? "someone has already joined with this link (maybe you, in another browser or on another device): "
      + "only two can play, so ask your friend for a new link"
    : "someone else holds the host's seat of this match (is it open in another tab or program?)";
}

/** A random seat token: 32 lowercase hex digits. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Delay before attempt n (s): min(30, 0.5·2^(n−1)), half of it jittered ("equal jitter"). */
export function backoff(attempt: number, random: () => number): number {
  const base = Math.min(30, 0.5 * 2 ** (attempt - 1));
  return base / 2 + (random() * base) / 2;
}

export class RelayClient {
  room: string | null;
  ticket: string | null;
  readonly seat: number;
  readonly token: string;
  private socket: SocketLike | null = null; // welcomed: frames flow
  private pending: SocketLike | null = null; // opened, no welcome yet
  private finished = false;
  /** The relay answered the plain GET /new with 404 or 426: it makes rooms on a WebSocket to /new. */
  private oldRelay = false;
  private everConnected = false;
  private attempt = 0;
  private outageSince: number | null = null;
  private retry: unknown = null;
  private openTimer: unknown = null;
  private queue: Uint8Array[] = [];
  private maxFrame: number | null = null; // the relay's limit, from its welcome
  private sendRate = SEND_RATE;
  private sendBurst = SEND_BURST;
  private tokens = SEND_BURST;
  private tokensAt: number | null = null;
  private pacer: unknown = null;
  private alone: unknown = null; // while the other seat is away: when to go and look for it
  private reroutes = 0; // such reconnects in a row
  private rerouting: SocketLike | null = null; // closed by this side to reconnect at once
  private quiet = false; // the next welcome ends a reroute: no "reconnected"
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly openSocket: (url: string) => SocketLike;
  private readonly giveUpAfter: number;
  private readonly rerouteAfter: number | null;
  private readonly request: (url: string, timeoutMs: number) => Promise<HttpAnswer>;

  constructor(private readonly options: RelayOptions, private readonly listener: (event: RelayEvent) => void) {
    this.room = options.room;
    this.seat = options.seat;
    this.token = options.token;
    this.ticket = options.ticket;
    this.timers = options.timers ?? BROWSER_TIMERS;
    this.random = options.random ?? Math.random;
    this.giveUpAfter = options.giveUpAfter ?? 300;
    this.rerouteAfter = options.rerouteAfter === undefined ? REROUTE_AFTER : options.rerouteAfter;
    this.request = options.request ?? fetchAnswer;
    this.openSocket = options.openSocket ?? ((url) => {
      const socket = new WebSocket(url) as unknown as SocketLike;
      return socket;
    });
  }

  get connected(): boolean {
    return this.socket !== null;
  }

  start(): void {
    this.open();
  }

  /** Send one frame to the other seat; false (nothing sent) while disconnected. */
  send(data: Uint8Array): boolean {
    if (this.socket === null || this.finished) return false;
    if (this.maxFrame !== null && data.length > this.maxFrame) {
      // The relay would close for good (1009) and seem at fault: say what happened here.
      this.socket.close(CLOSE.LEFT, "frame too large for this relay");
      this.finish(CLOSE.TOO_BIG, `a frame of ${data.length} bytes is over the relay's limit of ${this.maxFrame}`);
      return false;
    }
    this.queue.push(data);
    this.pump();
    return true;
  }

  /** Leave for good (close code 1000: the relay frees the seat at once). */
  close(): void {
    if (this.finished) return;
    const socket = this.socket ?? this.pending;
    this.socket = this.pending = null;
    socket?.close(CLOSE.LEFT, "player left");
    this.finish(CLOSE.LEFT, "closed by this side");
  }

  private url(): string {
    // A relay older than the plain GET /new makes the room on a WebSocket to /new.
    if (this.room === null) return `${this.options.relay}/new?token=${this.token}`;
    const url = `${this.options.relay}/j/${this.room}?seat=${this.seat}&token=${this.token}`;
    return this.ticket === null ? url : `${url}&ticket=${this.ticket}`;
  }

  /** `GET /new`: a room and this seat's ticket, then the seat like any other. */
  private create(): void {
    const url = `${this.options.relay.replace(/^ws/, "http")}/new?token=${this.token}`;
    this.request(url, OPEN_TIMEOUT_MS).then((answer) => this.created(answer), (exc: unknown) => {
      if (!this.finished) this.dropped(null, `cannot reach the relay: ${exc instanceof Error ? exc.message : String(exc)}`);
    });
  }

  private created(answer: HttpAnswer): void {
    if (this.finished) return;
    if (answer.status === 404 || answer.status === 426) { // a relay older than the plain GET /new
      this.oldRelay = true;
      this.open();
      return;
    }
    const body = control(answer.body);
    if (answer.status === 200) {
      if (body !== null && NEW_ROOM_FIELDS.every((field) => field in body) && typeof body.room === "string" && ROOM_ID.test(body.room) && body.seat === this.seat
        && typeof body.ticket === "string" && TICKET.test(body.ticket)) {
        this.room = body.room;
        this.ticket = body.ticket;
        this.open();
      } else {
        this.finish(CLOSE.PROTOCOL_ERROR, `the relay's answer to a new room is not a gin relay's: ${pyRepr(answer.body.slice(0, 80))}`);
      }
      return;
    }
    if (body !== null && body.type === CONTROL.ERROR && typeof body.code === "number") {
      this.dropped(body.code, `the relay refused a new room: ${String(body.reason ?? "refused")}`);
      return;
    }
    const said = answer.body.trim().slice(0, 200);
    const why = `the relay answered HTTP ${answer.status}${said === "" ? "" : `: ${said}`}`;
    // 5xx and 429 come from an overloaded or restarting relay or proxy.
    if (answer.status >= 500 || answer.status === 408 || answer.status === 429) this.dropped(null, why);
    else this.finish(null, why);
  }

  private open(): void {
    if (this.room === null && !this.oldRelay) {
      this.create();
      return;
    }
    let socket: SocketLike;
    try {
      socket = this.openSocket(this.url());
    } catch (exc) {
      this.dropped(null, `cannot open a connection to the relay: ${String(exc)}`);
      return;
    }
    socket.binaryType = "arraybuffer";
    this.pending = socket;
    let welcomed = false;
    this.openTimer = this.timers.setTimeout(() => {
      if (!welcomed && this.pending === socket) socket.close(CLOSE.RECONNECTING, "no welcome in time"); // not 1000: that gives the seat up
    }, OPEN_TIMEOUT_MS);
    socket.onmessage = (ev) => {
      if (this.finished) return;
      const data = ev.data;
      if (!welcomed) {
        if (typeof data !== "string") {
          this.refuse(socket, "not a gin relay", "the relay sent a binary frame before its welcome");
          return;
        }
        const hello = control(data);
        if (hello === null) {
          this.refuse(socket, "not a gin relay", `the relay sent an unreadable control message: ${pyRepr(data.slice(0, 80))}`);
          return;
        }
        if (hello.type === CONTROL.ERROR) return; // the close that follows says why
        welcomed = true;
        this.timers.clearTimeout(this.openTimer);
        this.welcome(socket, hello);
        return;
      }
      if (typeof data === "string") {
        const message = control(data);
        if (message === null) {
          this.refuse(socket, "bad control message", `the relay sent an unreadable control message: ${pyRepr(data.slice(0, 80))}`);
          return;
        }
        this.control(message);
      } else if (data instanceof ArrayBuffer) {
        this.listener({ kind: "frame", data: new Uint8Array(data) });
      }
    };
    socket.onclose = (ev) => {
      this.timers.clearTimeout(this.openTimer);
      if (this.socket !== socket && this.pending !== socket) return;
      this.socket = this.pending = null;
      if (this.rerouting === socket) {
        this.rerouting = null; // at once, and quietly: a failure is an outage as any
        this.quiet = true;
        this.open();
        return;
      }
      this.dropped(ev.code, ev.reason || (welcomed ? "connection lost" : "cannot reach the relay"));
    };
    socket.onerror = () => {}; // a close event follows with the code
  }

  private welcome(socket: SocketLike, hello: Welcome): void {
    if (!WELCOMES.has(hello.type) || hello.seat !== this.seat || typeof hello.room !== "string") {
      this.pending = null;
      socket.close(CLOSE.PROTOCOL_ERROR, "unexpected welcome");
      this.finish(CLOSE.PROTOCOL_ERROR, "the relay's welcome was not a gin relay's");
      return;
    }
    this.pending = null;
    this.socket = socket;
    this.room = hello.room;
    if (typeof hello.ticket === "string" && TICKET.test(hello.ticket)) this.ticket = hello.ticket;
    [this.sendRate, this.sendBurst] = paceFor(hello);
    this.maxFrame = typeof hello.max_frame === "number" && hello.max_frame > 0 ? hello.max_frame : null;
    this.tokens = Math.min(this.tokens, this.sendBurst);
    const attempts = this.attempt;
    this.attempt = 0;
    this.outageSince = null;
    this.queue = [];
    // The first welcome ever is "connected", even after failed attempts: only it
    // brings the host its room (and so its invite link). After a reroute there is no
    // "reconnected": the peer was away, and its timers keep running; the welcome's
    // peer state says whether it is there now ("peer-joined": re-send).
    if (!this.everConnected) this.listener({ kind: "connected", room: hello.room, ticket: this.ticket });
    else if (!this.quiet) this.listener({ kind: "reconnected", attempts, ticket: this.ticket });
    this.quiet = false;
    this.everConnected = true;
    if (hello.peer === PEER.CONNECTED) this.listener({ kind: "peer-joined", returning: false });
    else if (hello.peer === PEER.AWAY) this.listener({ kind: "peer-left", grace: Number(hello.grace) || 0 });
    else if (hello.peer === PEER.LEFT) this.listener({ kind: "peer-gone", left: true });
    else this.listener({ kind: "waiting" });
    this.peerThere(hello.peer === PEER.CONNECTED);
  }

  /** The other seat came or went: while it is away, go and look for it now and then. */
  private peerThere(there: boolean): void {
    if (this.alone !== null) this.timers.clearTimeout(this.alone);
    this.alone = null;
    if (there) this.reroutes = 0;
    const socket = this.socket;
    if (there || this.rerouteAfter === null || socket === null) return;
    this.alone = this.timers.setTimeout(() => {
      this.alone = null;
      if (this.finished || this.socket !== socket) return;
      this.reroutes += 1;
      this.rerouting = socket;
      socket.close(CLOSE.RECONNECTING, "the other seat is away: reconnecting");
    }, this.rerouteAfter * 1000 * 2 ** Math.min(this.reroutes, 3));
  }

  /** The relay broke its own protocol: close and end for good (1002), as the terminal does. */
  private refuse(socket: SocketLike, closeReason: string, why: string): void {
    if (this.pending === socket) this.pending = null;
    socket.close(CLOSE.PROTOCOL_ERROR, closeReason);
    this.finish(CLOSE.PROTOCOL_ERROR, why);
  }

  private control(message: Record<string, unknown>): void {
    // Types this version does not know are ignored, so relays can add new ones.
    switch (message.type) {
      case CONTROL.PEER_JOINED: this.listener({ kind: "peer-joined", returning: false }); break;
      case CONTROL.PEER_RECONNECTED: this.listener({ kind: "peer-joined", returning: true }); break;
      case CONTROL.PEER_LEFT: this.listener({ kind: "peer-left", grace: Number(message.grace) || 0 }); break;
      case CONTROL.PEER_GONE: this.listener({ kind: "peer-gone" }); break;
      default: return;
    }
    this.peerThere(message.type === CONTROL.PEER_JOINED || message.type === CONTROL.PEER_RECONNECTED);
  }

  private dropped(code: number | null, reason: string): void {
    if (this.finished) return;
    this.queue = [];
    this.quiet = false;
    this.peerThere(false); // no socket: only stops the search
    if (code !== null && FINAL_CLOSE_CODES.has(code)) {
      this.finish(code, reason);
      return;
    }
    const now = this.timers.now();
    this.outageSince ??= now;
    const left = this.giveUpAfter * 1000 - (now - this.outageSince);
    if (left <= 0) {
      // No close code: the relay refused nothing, it could not be reached (as the terminal says).
      this.finish(null, `gave up after trying for ${this.giveUpAfter} s: ${reason}`);
      return;
    }
    this.attempt += 1;
    const delay = Math.min(backoff(this.attempt, this.random), left / 1000);
    const why = code === null ? reason : code === CLOSE.SEAT_TAKEN
      ? `${seatTakenWords(this.seat)} (the relay says: ${reason}, code ${code})` : `${reason} (code ${code})`;
    this.listener({ kind: "reconnecting", attempt: this.attempt, delay, reason: why, code });
    this.retry = this.timers.setTimeout(() => {
      this.retry = null;
      if (!this.finished) this.open();
    }, delay * 1000);
  }

  private finish(code: number | null, reason: string): void {
    if (this.finished) return;
    this.finished = true;
    // A newer connection took this seat with this browser's token: not the relay's doing.
    if (code === CLOSE.SUPERSEDED) reason = SUPERSEDED_REASON;
    this.queue = [];
    if (this.retry !== null) this.timers.clearTimeout(this.retry);
    if (this.pacer !== null) this.timers.clearTimeout(this.pacer);
    if (this.alone !== null) this.timers.clearTimeout(this.alone);
    this.listener({ kind: "closed", code, reason });
  }

  /** Token bucket: frames leave at most `sendRate` a second after a burst of `sendBurst`. */
  private pump(): void {
    if (this.pacer !== null) return;
    const now = this.timers.now();
    if (this.tokensAt !== null) {
      this.tokens = Math.min(this.sendBurst, this.tokens + ((now - this.tokensAt) / 1000) * this.sendRate);
    }
    this.tokensAt = now;
    // A token refilled over 1/15 s adds up to 0.9999…: count it whole.
    while (this.queue.length > 0 && this.tokens >= 1 - 1e-9) {
      const socket = this.socket;
      if (socket === null || socket.readyState !== OPEN) {
        this.queue = [];
        return;
      }
      socket.send(this.queue.shift()!);
      this.tokens -= 1;
    }
    if (this.queue.length > 0) {
      this.pacer = this.timers.setTimeout(() => {
        this.pacer = null;
        this.pump();
      }, Math.max(4, Math.ceil(((1 - this.tokens) / this.sendRate) * 1000)));
    }
  }
}

function control(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
