// The browser's online peer without a browser: the relay client over a fake
// WebSocket, the storage (write-ahead, full storage, reload), the timers, and the
// worker's core over a small fake session. The real session in a real worker is
// tested in Chromium by tests/web/test_online_e2e.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import type { Action } from "../src/engine/actions.ts";
import { IllegalAction } from "../src/engine/errors.ts";
import type { HandResult } from "../src/engine/observation.ts";
import { STANDARD, type Ruleset } from "../src/engine/rules.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import { linkIdFor } from "../src/protocol/records/cosign.ts";
import type { MapKey, Value } from "../src/protocol/wire/msgpack.ts";
import type { PeerNotice, PeerView } from "../src/online/api.ts";
import { type EventLike, type FailureLike, PeerCore, type SessionLike, type SessionMaker } from "../src/online/core.ts";
import { boardOfPage, decodeSecret, encodeSecret, formatInvite, InvalidLink, linkIdHex, parseBoard, parseInvite, relayOfPage } from "../src/online/links.ts";
import { createOnline } from "../src/online/lobby.ts";
import type { PeerWorker } from "../src/online/peer.ts";
import { backoff, type HttpAnswer, paceFor, RelayClient, type RelayEvent, type SocketLike, type Timers } from "../src/online/relay.ts";
import { decodeState, encodeState, toBase64 } from "../src/online/state_codec.ts";
import { failureLines, failureTitle } from "../src/board/words.ts";

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i);
const SECRET_TEXT = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const ROOM = "R".repeat(32);
const TICKET = "T".repeat(32);
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const bytes = (value: string): Uint8Array => new TextEncoder().encode(value);

// ------------------------------------------------------------------ fakes

class FakeTimers implements Timers {
  time = 0;
  private next = 1;
  private readonly due = new Map<number, [number, () => void]>();
  now(): number { return this.time; }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, [this.time + ms, callback]);
    return id;
  }
  clearTimeout(handle: unknown): void { this.due.delete(handle as number); }
  /** Run every timer due within `ms`, in time order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const first = [...this.due.entries()].sort((a, b) => a[1][0] - b[1][0])[0];
      if (first === undefined || first[1][0] > end) break;
      this.due.delete(first[0]);
      this.time = first[1][0];
      first[1][1]();
    }
    this.time = end;
  }
}

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  readonly sent: string[] = [];
  closedWith: number | null = null;
  constructor(readonly url: string, private readonly journal: string[]) {}
  send(data: Uint8Array): void {
    this.sent.push(text(data));
    this.journal.push(`send ${text(data)}`);
  }
  close(code = 1000): void { this.closedWith = code; this.readyState = 3; }
  // The relay's side:
  welcome(fields: Record<string, unknown>): void {
    this.readyState = 1;
    this.onmessage?.({ data: JSON.stringify({ ticket: TICKET, grace: 120, ...fields }) });
  }
  control(type: string): void { this.onmessage?.({ data: JSON.stringify({ type }) }); }
  frame(value: string): void { this.onmessage?.({ data: bytes(value).buffer }); }
  drop(code = 1006, reason = ""): void { this.readyState = 3; this.onclose?.({ code, reason }); }
}

class MemoryStorage implements Storage {
  readonly items = new Map<string, string>();
  full = false;
  constructor(private readonly journal: string[]) {}
  get length(): number { return this.items.size; }
  key(i: number): string | null { return [...this.items.keys()][i] ?? null; }
  getItem(key: string): string | null { return this.items.get(key) ?? null; }
  setItem(key: string, value: string): void {
    if (this.full) throw new DOMException("full", "QuotaExceededError");
    this.items.set(key, value);
    this.journal.push(`save ${key.split(":")[0]}`);
  }
  removeItem(key: string): void { this.items.delete(key); }
  clear(): void { this.items.clear(); }
}

/** A session whose frames are words: "offer", "hello", "ack N", "pass"… */
class FakeSession implements SessionLike {
  readonly seat: number;
  unacknowledged = 0;
  received = 0;
  failure: FailureLike | null = null;
  ended = false;
  rules: Ruleset | null = STANDARD;
  rulesOffered: Ruleset | null = null;
  readonly handResults: readonly HandResult[] = [];
  abandoned: [number, number] | null = null;
  readonly identity = new Uint8Array(32);
  readonly identities = null; // no handshake here: the friend stays unknown
  readonly matchId = new Uint8Array(16); // the match its records name
  readonly rematch = null;
  get over(): boolean { return this.ended || this.failure !== null; }
  readonly declined = false;
  private out: Uint8Array[];
  private queued: EventLike[] = [];
  constructor(readonly role: "host" | "guest", readonly log: string[] = []) {
    this.seat = role === "host" ? 0 : 1;
    this.out = [bytes("offer"), ...(role === "host" && log.length === 0 ? [bytes("hello")] : [])];
  }
  dataToSend(): Uint8Array[] { const out = this.out; this.out = []; return out; }
  events(): EventLike[] { const out = this.queued; this.queued = []; return out; }
  resend(): Uint8Array[] { return [bytes("offer"), bytes(`resend ${this.log.length}`)]; }
  poll(): boolean { return false; }
  asPrevious(): null { return null; }
  observation(): null { return null; }
  legalActions(): Action[] { return []; }
  waitingFor(): "move" | null { return this.over ? null : "move"; }
  receive(frame: Uint8Array): void {
    this.received += 1;
    this.log.push(`in ${text(frame)}`);
    this.out.push(bytes(`ack ${this.received}`));
    if (text(frame) === "end") {
      this.ended = true;
      this.queued.push({ kind: "MatchOver", winner: 0, forfeitedBy: null });
    }
    const record = (hand: number) => ({ matchId: new Uint8Array(16), handNumber: hand, toJson: () => `{"hand":${hand}}` });
    if (text(frame) === "verified") this.queued.push({ kind: "HandVerified", handNumber: 1, record: record(1) });
    if (text(frame) === "cheat") {
      this.failure = { kind: "CheatDetected", who: "host", field: "seed", reason: "hand 2 failed its audit", proven: true };
      this.queued.push({ ...this.failure, kind: "CheatDetected", record: record(2) });
    }
  }
  act(action: Action): void {
    if (action.kind !== "pass") throw new IllegalAction(`cannot ${action.toString()} now`);
    this.log.push("pass");
    this.out.push(bytes("pass"));
  }
  acceptRules(): void {}
  declineRules(): void {}
  abandon(since: number, now: number): void {
    this.abandoned = [since, now];
    this.failure = { kind: "Abandoned", who: "guest", field: "move", reason: "abandoned by the guest", proven: false };
    this.queued.push({ ...this.failure, kind: "Abandoned", record: null });
  }
  toState(): Map<string, Value> { return new Map<string, Value>([["role", this.role], ["log", [...this.log]]]); }
}

/** The relay's answer to `GET /new`: a room and the host's ticket. */
const NEW_ROOM: HttpAnswer = { status: 200, body: JSON.stringify({ room: ROOM, seat: 0, ticket: TICKET }) };

interface World {
  journal: string[];
  /** What the next `GET /new` gets (a rejected promise: the relay cannot be reached). */
  newRoom: () => Promise<HttpAnswer>;
  requests: string[];
  storage: MemoryStorage;
  timers: FakeTimers;
  sockets: FakeSocket[];
  sessions: FakeSession[];
  addresses: string[];
  restoredWith: Uint8Array[];
  /** Whether the match was stored when the page's address became each of `addresses`. */
  storedAtAddress: boolean[];
  /** The worker's replies held back (`world(…, …, true)`): a worker slow to start. */
  held: (() => void)[];
  online: ReturnType<typeof createOnline>;
}

function world(storage?: MemoryStorage, noWorker = false, holdWorker = false): World {
  const journal: string[] = [];
  const w: Partial<World> = {
    journal, timers: new FakeTimers(), sockets: [], sessions: [], addresses: [], restoredWith: [], requests: [],
    storedAtAddress: [], held: [],
    newRoom: () => Promise.resolve(NEW_ROOM),
  };
  w.storage = storage ?? new MemoryStorage(journal);
  const maker: SessionMaker = {
    create: (role) => { const s = new FakeSession(role); w.sessions!.push(s); return s; },
    restore: (secret, state: Map<MapKey, Value>) => {
      w.restoredWith!.push(secret);
      const s = new FakeSession(state.get("role") as "host" | "guest", [...(state.get("log") as string[])]);
      w.sessions!.push(s);
      return s;
    },
  };
  const makeWorker = (): PeerWorker => {
    if (noWorker) throw new DOMException("workers are not allowed here", "SecurityError");
    const core = new PeerCore(maker, (n) => new Uint8Array(n).fill(7));
    const worker: PeerWorker = {
      post: (request) => {
        const answer = (): void => worker.onReply?.(core.handle(request));
        if (holdWorker) w.held!.push(answer);
        else queueMicrotask(answer);
      },
      onReply: null, onError: null, terminate: () => {},
    };
    return worker;
  };
  w.online = createOnline({
    storage: w.storage,
    location: { origin: "http://relay.test:8765", pathname: "/" },
    setAddress: (url) => {
      w.addresses!.push(url);
      w.storedAtAddress!.push(w.storage!.getItem(`gin-online:${linkIdHex(SECRET)}`) !== null);
    },
    makeWorker,
    timers: w.timers!,
    randomBytes: () => SECRET.slice(),
    clock: () => 1_796_198_400_000 + w.timers!.now(), // 2026-12-02 08:00:00 UTC at the start
    relayOptions: {
      openSocket: (url) => { const s = new FakeSocket(url, journal); w.sockets!.push(s); return s; },
      request: (url) => { w.requests!.push(url); return w.newRoom!(); },
      random: () => 0.5,
    },
  });
  return w as World;
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

function watch(peer: { subscribe(l: (v: PeerView, n: readonly PeerNotice[]) => void): void }) {
  const seen = { view: null as PeerView | null, notices: [] as PeerNotice[] };
  peer.subscribe((view, notices) => { seen.view = view; seen.notices.push(...notices); });
  return seen;
}

// ------------------------------------------------------------------ links

test("invite links: the secret's text form, parsing, the relay of a page, the link id", () => {
  assert.equal(encodeSecret(SECRET), SECRET_TEXT);
  assert.deepEqual(decodeSecret(SECRET_TEXT), SECRET);
  const link = `https://example.org/gin/j/${ROOM}#${SECRET_TEXT}`;
  assert.deepEqual(parseInvite(link), { relay: "https://example.org/gin", room: ROOM, secret: SECRET, board: null });
  assert.equal(formatInvite(parseInvite(link)), link);
  // protocol.md §4, as gin.protocol.session.session.link_id_for computes it for bytes 0..31.
  assert.equal(linkIdHex(SECRET), "7e76fb6150f93321d41fa01bc2ceb9d4");
  assert.equal(linkIdHex(SECRET), bytesToHex(linkIdFor(SECRET))); // the session's own, in the worker
  assert.equal(relayOfPage({ origin: "http://h:1", pathname: "/" }), "http://h:1");
  assert.equal(relayOfPage({ origin: "http://h:1", pathname: "/gin/index.html" }), "http://h:1/gin");
  assert.equal(relayOfPage({ origin: "http://h:1", pathname: `/gin/j/${ROOM}` }), "http://h:1/gin");
  for (const [bad, says] of [
    [`https://example.org/j/${ROOM}`, "no secret"],
    [`https://example.org/j/${ROOM}#${SECRET_TEXT.slice(1)}`, "43 url-safe"],
    [`https://example.org/x/${ROOM}#${SECRET_TEXT}`, "/j/ROOM"],
    [`ftp://example.org/j/${ROOM}#${SECRET_TEXT}`, "http://"],
    [`https://example.org/j/short#${SECRET_TEXT}`, "room id"],
  ] as const) {
    assert.throws(() => parseInvite(bad), (exc: Error) => exc instanceof InvalidLink && exc.message.includes(says)
      && !exc.message.includes(SECRET_TEXT.slice(0, 10)), bad);
  }
});

test("a board's link names its relay and room, any origin, the secret after # (issue 27; as tests/client/net/test_links.py)", () => {
  const link = `https://board.example.org/gin/?relay=https://relay.example.org:8443/r&room=${ROOM}#${SECRET_TEXT}`;
  const invite = parseInvite(link);
  assert.deepEqual(invite, { relay: "https://relay.example.org:8443/r", room: ROOM, secret: SECRET, board: "https://board.example.org/gin/" });
  assert.equal(formatInvite(invite), link);
  assert.deepEqual(parseInvite(link.replace("#", "&bot=easy#")), invite);
  assert.deepEqual(parseInvite(link.replace("https://relay.example.org:8443/r", "https%3A%2F%2Frelay.example.org%3A8443%2Fr")), invite);
  assert.equal(parseInvite(`http://127.0.0.1:8001?relay=http://127.0.0.1:9000&room=${ROOM}#${SECRET_TEXT}`).board, "http://127.0.0.1:8001/");
  // The page's relay is the one its address names, and then it is a board of its own.
  const page = { origin: "https://board.example.org", pathname: "/gin/", search: "?relay=https://relay.example.org:8443/r&room=x" };
  assert.equal(relayOfPage(page), "https://relay.example.org:8443/r");
  assert.equal(boardOfPage(page), "https://board.example.org/gin/");
  assert.equal(boardOfPage({ origin: "http://h:1", pathname: `/j/${ROOM}`, search: "" }), null);
  assert.throws(() => relayOfPage({ ...page, search: "?relay=javascript:alert(1)" }), InvalidLink);
  assert.equal(parseBoard("https://board.example.org"), "https://board.example.org/");
  assert.throws(() => parseBoard("ftp://b.example/"), InvalidLink);
  for (const [bad, says] of [
    [`https://b.example/?relay=ftp://r.example&room=${ROOM}#${SECRET_TEXT}`, "http://"],
    [`https://b.example/?relay=r.example&room=${ROOM}#${SECRET_TEXT}`, "web address"],
    [`https://b.example/?relay=https://r.example&room=short#${SECRET_TEXT}`, "after room= must"],
    [`https://b.example/?relay=https://r.example#${SECRET_TEXT}`, "after room= must"],
    [`https://b.example/?relay=https://r.example&room=${ROOM}`, "no secret after '#'"],
  ] as const) {
    assert.throws(() => parseInvite(bad), (exc: Error) => exc instanceof InvalidLink && exc.message.includes(says)
      && !exc.message.includes(SECRET_TEXT.slice(0, 10)), bad);
  }
});

test("base64 as the browser's atob reads it, for every length's padding", () => {
  for (let n = 0; n < 70; n++) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 89 + n * 7) & 255);
    assert.equal(toBase64(data), btoa(String.fromCharCode(...data)), `length ${n}`);
  }
});

test("the stored state round-trips through its text form", () => {
  const state = new Map<string, Value>([["v", 2], ["log", [["in", new Uint8Array([1, 2, 3])], ["act", "pass"]]]]);
  assert.deepEqual(decodeState(encodeState(state)), state);
  assert.throws(() => decodeState("not base64!"), /not base64/);
});

test("reconnect delays grow to 30 s with half of each jittered", () => {
  assert.deepEqual([1, 2, 3, 8, 20].map((n) => backoff(n, () => 0)), [0.25, 0.5, 1, 15, 15]);
  assert.deepEqual([1, 2, 8].map((n) => backoff(n, () => 0.999999)).map((d) => Math.round(d * 100) / 100), [0.5, 1, 30]);
});

// ------------------------------------------------------------------ the peer

test("a host opens a room, shows the link in its address, and stores its state before sending", async () => {
  const w = world();
  const peer = w.online.host(STANDARD.toDict());
  const seen = watch(peer);
  await settle();
  // A room from GET /new, then seat 0 like any seat (behind a balancer: where the room is routed).
  assert.equal(w.requests.length, 1);
  const token = /^http:\/\/relay\.test:8765\/new\?token=([0-9a-f]{32})$/.exec(w.requests[0]!)![1];
  const socket = w.sockets[0]!;
  assert.equal(socket.url, `ws://relay.test:8765/j/${ROOM}?seat=0&token=${token}&ticket=${TICKET}`);
  assert.deepEqual(socket.sent, []); // not welcomed yet, so no save, so nothing sent
  socket.welcome({ type: "joined", room: ROOM, seat: 0, peer: "absent" });
  await settle();
  const link = `http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`;
  assert.deepEqual(w.addresses, [link]);
  assert.equal(seen.view?.link, link);
  assert.equal(seen.view?.connection, "waiting");
  assert.deepEqual(socket.sent, ["offer", "hello"]);
  // The identity key is made on first use and kept, before the match is.
  assert.deepEqual(w.journal.slice(0, 4), ["save gin-identity", "save gin-online", "send offer", "send hello"]);
  socket.control("peer_joined");
  socket.frame("welcome");
  await settle();
  assert.equal(seen.view?.connection, "connected");
  // The peer (re)joined: everything unacknowledged again; then the welcome's ack, saved first.
  assert.deepEqual(w.journal.slice(4), ["send offer", "send resend 0", "save gin-online", "send ack 1"]);
  // The secret is in the page's address only: never in storage, never in a request.
  for (const value of [...w.storage.items.values(), ...w.sockets.map((s) => s.url)]) {
    assert.ok(!value.includes(SECRET_TEXT) && !value.includes(SECRET_TEXT.replace(/-/g, "+")), value);
  }
  const entry = JSON.parse(w.storage.getItem(`gin-online:${linkIdHex(SECRET)}`)!);
  assert.equal(entry.role, "host");
  assert.equal(entry.ticket, TICKET);
});

test("a host's link shows once its match is stored, though the relay's room came before the worker's session", async () => {
  // A second tab that opened the link before the match was stored joined as the guest, and
  // the host was connected to itself (the worker, with libsodium, can be slower than the relay).
  const w = world(undefined, false, true);
  const seen = watch(w.online.host(STANDARD.toDict()));
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 0, peer: "absent" });
  await settle();
  assert.deepEqual(w.addresses, []);
  assert.equal(seen.view?.link ?? null, null);
  assert.deepEqual(w.sockets[0]!.sent, []);
  while (w.held.length > 0) w.held.shift()!();
  await settle();
  const link = `http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`;
  assert.deepEqual(w.addresses, [link]);
  assert.deepEqual(w.storedAtAddress, [true]);
  assert.equal(seen.view?.link, link);
  assert.deepEqual(w.sockets[0]!.sent, ["offer", "hello"]);
  // The second tab now continues the match as its host.
  const again = world(w.storage);
  watch(again.online.join(link));
  await settle();
  assert.equal(again.sessions[0]?.role, "host");
});

test("a host whose first attempts fail gets its room and link when a retry is welcomed", async () => {
  const w = world();
  w.newRoom = () => Promise.reject(new TypeError("Failed to fetch")); // the relay is not up yet
  const seen = watch(w.online.host(STANDARD.toDict()));
  await settle();
  assert.equal(seen.view?.connection, "reconnecting");
  assert.equal(w.sockets.length, 0);
  w.newRoom = () => Promise.resolve(NEW_ROOM);
  w.timers.advance(375);
  await settle();
  w.sockets[0]!.drop(1006); // the room is known now: only its seat is retried
  w.timers.advance(750); // the second attempt of the same outage
  assert.equal(w.requests.length, 2);
  w.sockets[1]!.welcome({ type: "joined", room: ROOM, seat: 0, peer: "absent" });
  await settle();
  const link = `http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`;
  assert.equal(seen.view?.link, link);
  assert.deepEqual(w.addresses, [link]);
  assert.deepEqual(w.sockets[1]!.sent, ["offer", "hello"]); // saved, so sent
});

test("a refused new room is retried or not as the relay's code says; nonsense ends it", async () => {
  const run = async (answers: HttpAnswer[]): Promise<[RelayEvent[], number]> => {
    const events: RelayEvent[] = [];
    const timers = new FakeTimers();
    let asked = 0;
    const client = new RelayClient({
      relay: "wss://relay.test/gin", room: null, seat: 0, token: "a".repeat(32), ticket: null, timers, random: () => 0.5,
      openSocket: (url) => new FakeSocket(url, []),
      request: (url) => {
        assert.equal(url, `https://relay.test/gin/new?token=${"a".repeat(32)}`);
        return Promise.resolve(answers[Math.min(asked++, answers.length - 1)]!);
      },
    }, (event) => events.push(event));
    client.start();
    for (let i = 0; i < 3; i++) {
      await settle();
      timers.advance(1000);
    }
    return [events, asked];
  };
  const error = (status: number, code: number, reason: string): HttpAnswer =>
    ({ status, body: JSON.stringify({ type: "error", code, reason }) });
  const [busy, askedBusy] = await run([error(429, 4429, "too many new rooms from your address; try again in 6 s"), NEW_ROOM]);
  assert.deepEqual(busy[0], { kind: "reconnecting", attempt: 1, delay: 0.375, code: 4429,
    reason: "the relay refused a new room: too many new rooms from your address; try again in 6 s (code 4429)" });
  assert.equal(askedBusy, 2);
  const [bad, askedBad] = await run([error(400, 4400, "token must be 32 lowercase hex digits")]);
  assert.deepEqual(bad, [{ kind: "closed", code: 4400, reason: "the relay refused a new room: token must be 32 lowercase hex digits" }]);
  assert.equal(askedBad, 1);
  const [odd] = await run([{ status: 200, body: "<html>" }]);
  assert.deepEqual(odd, [{ kind: "closed", code: 1002, reason: "the relay's answer to a new room is not a gin relay's: '<html>'" }]);
  const [gone] = await run([{ status: 410, body: "gone\n" }]);
  assert.deepEqual(gone, [{ kind: "closed", code: null, reason: "the relay answered HTTP 410: gone" }]);
});

test("a relay older than the plain GET /new (404, or 426 for its WebSocket-only route) makes the room on a WebSocket", async () => {
  for (const status of [404, 426]) {
    const sockets: FakeSocket[] = [];
    const events: RelayEvent[] = [];
    const client = new RelayClient({
      relay: "wss://relay.test/gin", room: null, seat: 0, token: "a".repeat(32), ticket: null, timers: new FakeTimers(),
      openSocket: (url) => { const s = new FakeSocket(url, []); sockets.push(s); return s; },
      request: () => Promise.resolve({ status, body: status === 426 ? "Upgrade Required\n" : "not found\n" }),
    }, (event) => events.push(event));
    client.start();
    await settle();
    assert.equal(sockets.length, 1, String(status));
    assert.equal(sockets[0]!.url, `wss://relay.test/gin/new?token=${"a".repeat(32)}`);
    sockets[0]!.welcome({ type: "created", room: ROOM, seat: 0, peer: "absent", ticket: TICKET });
    assert.ok(events.some((e) => e.kind === "connected"), JSON.stringify(events));
    assert.ok(!events.some((e) => e.kind === "closed"));
  }
});

test("while the other seat stays away, the client reconnects now and then to be routed afresh", () => {
  const timers = new FakeTimers();
  const sockets: FakeSocket[] = [];
  const events: RelayEvent[] = [];
  const client = new RelayClient({
    relay: "ws://relay.test", room: ROOM, seat: 1, token: "a".repeat(32), ticket: null, timers, rerouteAfter: 10,
    openSocket: (url) => { const s = new FakeSocket(url, []); sockets.push(s); return s; },
  }, (event) => events.push(event));
  client.start();
  sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  timers.advance(60_000);
  assert.equal(sockets.length, 1); // the peer is there: nothing to look for
  sockets[0]!.control("peer_left");
  timers.advance(9_999);
  assert.equal(sockets[0]!.closedWith, null);
  timers.advance(1);
  assert.equal(sockets[0]!.closedWith, 4001); // not 1000, which would give the seat up
  sockets[0]!.drop(4001, "the other seat is away: reconnecting");
  assert.equal(sockets.length, 2); // at once, and with the seat's ticket
  assert.equal(sockets[1]!.url, `ws://relay.test/j/${ROOM}?seat=1&token=${"a".repeat(32)}&ticket=${TICKET}`);
  sockets[1]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "absent" });
  timers.advance(19_999); // the second look waits twice as long
  assert.equal(sockets.length, 2);
  timers.advance(1);
  sockets[1]!.drop(4001);
  sockets[2]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" }); // found
  timers.advance(600_000);
  assert.equal(sockets.length, 3);
  // Quietly: no "reconnecting", and no "reconnected", which would give the away peer its whole time again.
  assert.deepEqual(events.filter((e) => e.kind === "reconnecting" || e.kind === "reconnected"), []);
  assert.deepEqual(events.slice(-2), [{ kind: "waiting" }, { kind: "peer-joined", returning: false }]);
});

test("a hand that failed its audit is offered as evidence, never counted as verified", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  w.sockets[0]!.frame("verified");
  w.sockets[0]!.frame("cheat");
  await settle();
  assert.deepEqual(seen.view?.records.map((r) => [r.hand, r.failed]), [[1, false], [2, true]]);
  assert.deepEqual(seen.view?.verified, [1]);
  // The same once the match is reopened from this browser's storage.
  const again = watch(world(w.storage).online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  assert.deepEqual(again.view?.verified, [1]);
});

/** A host in a world of its own whose friend's welcome has come: its match stored, to reload. */
async function hostWelcomed(): Promise<World> {
  const first = world();
  first.online.host(STANDARD.toDict());
  await settle();
  first.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 0, peer: "connected" });
  first.sockets[0]!.frame("welcome");
  await settle();
  return first;
}

test("a reload continues the stored match in its role, with the seat's token and ticket", async () => {
  const first = await hostWelcomed();
  const token = /token=([0-9a-f]{32})/.exec(first.sockets[0]!.url)![1];
  // The same storage, a new page on the link in the address bar.
  const again = world(first.storage);
  const peer = again.online.join(first.addresses[0]!);
  const seen = watch(peer);
  await settle();
  assert.deepEqual(again.restoredWith, [SECRET]);
  assert.equal(again.sessions[0]!.role, "host");
  assert.deepEqual(again.sessions[0]!.log, ["in welcome"]);
  assert.equal(again.sockets[0]!.url, `ws://relay.test:8765/j/${ROOM}?seat=0&token=${token}&ticket=${TICKET}`);
  assert.equal(seen.view?.role, "host");
  assert.deepEqual(again.online.stored().map((m) => [m.role, m.link]), [["host", `http://relay.test:8765/j/${ROOM}`]]);
  // That link has no secret: joining it says where to find the whole link.
  const lacking = watch(again.online.join(again.online.stored()[0]!.link));
  assert.match(lacking.view!.failure!.reason, /kept in this browser, but not its secret/);
  // Its whole link lost for good, the player forgets it: nothing of it is kept.
  again.online.forget(`http://relay.test:8765/j/${ROOM}`);
  assert.deepEqual(again.online.stored(), []);
  assert.equal(Array.from({ length: first.storage.length }, (_, i) => first.storage.key(i))
    .filter((key) => key !== null && key.includes(linkIdHex(SECRET))).length, 0);
});

test("a reload does not say the friend is still to come before the stored match is read back (issue 28 item 9)", async () => {
  // The relay's welcome ("absent") came before the worker's restored session: the line said
  // "Waiting for your friend to open the link" for a friend met before the page's reload.
  const first = await hostWelcomed();
  const again = world(first.storage, false, true);
  const seen = watch(again.online.join(first.addresses[0]!));
  await settle();
  again.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 0, peer: "absent" });
  await settle();
  assert.equal(seen.view?.connection, "connecting");
  while (again.held.length > 0) again.held.shift()!();
  await settle();
  assert.equal(again.sessions[0]!.role, "host");
  assert.equal(seen.view?.connection, "waiting"); // read back: the board words it (statusWords)
});

test("a guest joins the link's room in seat 1, the link in the page's address", async () => {
  const w = world();
  const peer = w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`);
  const seen = watch(peer);
  await settle();
  assert.deepEqual(w.addresses, [`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`]);
  assert.match(w.sockets[0]!.url, new RegExp(`^ws://relay.test:8765/j/${ROOM}\\?seat=1&token=[0-9a-f]{32}$`));
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  assert.equal(seen.view?.role, "guest");
  assert.equal(seen.view?.link, null);
  assert.deepEqual(w.sockets[0]!.sent, ["offer", "resend 0"]);
  // The friend's seat dropped (kept for them), then given up: "away", then "left".
  w.sockets[0]!.onmessage?.({ data: JSON.stringify({ type: "peer_left", grace: 120 }) });
  assert.equal(seen.view?.connection, "peer-left");
  w.sockets[0]!.control("peer_gone");
  assert.equal(seen.view?.connection, "peer-gone");
  assert.deepEqual(seen.notices.filter((n) => n.kind === "notice"), []); // the connection line says it
});

test("with storage full nothing is sent and the player is told; the save is retried, then play goes on", async () => {
  const w = world();
  const peer = w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`);
  const seen = watch(peer);
  await settle();
  const socket = w.sockets[0]!;
  socket.welcome({ type: "joined", room: ROOM, seat: 1, peer: "absent" });
  await settle();
  assert.deepEqual(socket.sent, []); // made before the relay answered: re-sent when the friend comes
  w.storage.full = true;
  socket.frame("hello");
  await settle();
  assert.deepEqual(socket.sent, []);
  const told = seen.notices.filter((n) => n.kind === "notice").map((n) => (n as { text: string }).text);
  assert.match(told.join(" "), /storage for the site is full.*Nothing more is sent/);
  w.timers.advance(2000);
  await settle();
  assert.deepEqual(socket.sent, []); // still full
  w.storage.full = false;
  w.timers.advance(2000);
  await settle();
  assert.deepEqual(socket.sent, ["offer", "resend 1"]);
  assert.match(JSON.stringify(seen.notices), /saved again; play goes on/);
  assert.equal(seen.view?.failure, null);
});

test("storage that keeps failing ends the match as this browser's fault, after sending nothing unsaved", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "absent" });
  await settle();
  w.storage.full = true;
  w.sockets[0]!.frame("hello");
  await settle();
  for (let i = 0; i < 61; i++) {
    w.timers.advance(2000);
    await settle();
  }
  assert.equal(seen.view?.failure?.who, "this browser");
  assert.match(seen.view!.failure!.reason, /could not be saved for 12\d s/);
  assert.equal(seen.view?.connection, "closed");
  assert.deepEqual(w.sockets[0]!.sent, []);
});

test("a dropped connection is retried with the seat's ticket, and what is unacknowledged is re-sent", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  w.sockets[0]!.drop(1001, "relay shutting down");
  await settle();
  assert.equal(seen.view?.connection, "reconnecting");
  w.timers.advance(375); // backoff(1) with jitter 0.5
  assert.equal(w.sockets.length, 2);
  assert.match(w.sockets[1]!.url, new RegExp(`&ticket=${TICKET}$`));
  w.sockets[1]!.drop(1006); // the relay is still down
  w.timers.advance(750);
  w.sockets[2]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  assert.equal(seen.view?.connection, "connected");
  assert.deepEqual(w.sockets[2]!.sent, ["offer", "resend 0", "offer", "resend 0"]);
});

test("a refusal for good ends the connection; an outage past the give-up time too", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.onmessage?.({ data: JSON.stringify({ type: "error", code: 4404, reason: "unknown room" }) });
  w.sockets[0]!.drop(4404, "unknown room");
  await settle();
  assert.equal(w.sockets.length, 1);
  assert.equal(seen.view?.connection, "closed");
  assert.match(seen.view!.failure!.reason, /unknown room/);
  assert.equal(seen.view?.failure?.who, "the relay");
  assert.equal(seen.view?.failure?.proven, false);
  // The match stays kept: the link can be opened again later.
  assert.notEqual(JSON.parse(w.storage.getItem(`gin-online:${linkIdHex(SECRET)}`)!).state, null);

  const v = world();
  const gone = watch(v.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  v.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  v.sockets[0]!.drop(1006);
  for (let i = 1; i < 40 && gone.view?.connection !== "closed"; i++) {
    v.timers.advance(30_000);
    v.sockets.at(-1)!.drop(1006);
    await settle();
  }
  assert.equal(gone.view?.connection, "closed");
  assert.match(gone.view!.failure!.reason, /gave up after trying for 300 s/);
  assert.equal(gone.view?.failure?.who, "the relay or this device's network");
  assert.ok(v.timers.now() >= 300_000 && v.timers.now() <= 330_000);
});

test("a used link (the seat taken, 4409) says someone has already joined and stops, keeping nothing", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.onmessage?.({ data: JSON.stringify({ type: "error", code: 4409, reason: "seat 1 is taken" }) });
  w.sockets[0]!.drop(4409, "seat 1 is taken");
  await settle();
  w.timers.advance(60_000);
  assert.equal(w.sockets.length, 1); // not retried
  assert.equal(seen.view?.connection, "closed");
  assert.equal(seen.view?.failure?.kind, "SeatTaken");
  assert.match(seen.view!.failure!.reason, /^Someone has already joined with this link .*ask your friend for a new link\.$/);
  assert.equal(seen.view?.failure?.who, "");
  assert.equal(w.storage.getItem(`gin-online:${linkIdHex(SECRET)}`), null);

  // A seat once held here (a ticket) is retried: after a relay restart its holder wins it back.
  const v = world();
  const held = watch(v.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  v.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  v.sockets[0]!.drop(4409, "seat 1 is taken");
  await settle();
  assert.equal(held.view?.connection, "reconnecting");
  assert.equal(held.view?.failure, null);
});

/** A guest whose friend is there and owes its move (since `since`, UTC seconds). */
async function owedAMove() {
  const w = world();
  const peer = w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`);
  const seen = watch(peer);
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  return { w, peer, seen, since: 1_796_198_400 + w.timers.now() / 1000 }; // owed since the view said so
}

test("what the peer owes has a grace: then the board is asked, and may end it as abandoned", async () => {
  const { w, peer, seen, since } = await owedAMove();
  w.timers.advance(600_000);
  w.sockets[0]!.control("peer_reconnected"); // the friend's connection came back: its time starts again
  await settle();
  w.timers.advance(899_000);
  await settle();
  assert.ok(!seen.notices.some((n) => n.kind === "grace-over"));
  w.timers.advance(2_000);
  await settle();
  assert.deepEqual(seen.notices.filter((n) => n.kind === "grace-over"), [{ kind: "grace-over", owed: "move", since }]);
  assert.deepEqual(seen.view?.graceOver, { owed: "move", since });
  assert.equal(seen.view?.failure, null); // nothing ends until the player says so
  peer.keepWaiting(); // another grace: asked again after it
  await settle();
  assert.equal(seen.view?.graceOver, null);
  w.timers.advance(901_000);
  await settle();
  assert.equal(seen.notices.filter((n) => n.kind === "grace-over").length, 2);
  peer.abandon();
  await settle();
  assert.deepEqual(w.sessions[0]!.abandoned, [Math.floor(since), Math.floor(since + 2402)]);
  const ended = seen.view as PeerView | null; // (asserted failure-free above)
  assert.equal(ended?.failure?.kind, "Abandoned");
  assert.equal(ended?.over, true);
});

test("after keep waiting the player may still end the match, before another grace runs out", async () => {
  const { w, peer, seen, since } = await owedAMove();
  w.timers.advance(901_000);
  await settle();
  assert.equal(seen.view?.mayAbandon, false);
  peer.keepWaiting();
  await settle();
  assert.equal(seen.view?.graceOver, null);
  assert.equal(seen.view?.mayAbandon, true); // the board offers to end it from the side
  w.timers.advance(60_000);
  peer.abandon();
  await settle();
  assert.deepEqual(w.sessions[0]!.abandoned, [Math.floor(since), Math.floor(since + 961)]);
  assert.equal(seen.view?.failure?.kind, "Abandoned");
  assert.equal(seen.view?.mayAbandon, false);
});

test("an illegal move is refused with a notice and changes nothing", async () => {
  const w = world();
  const peer = w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`);
  const seen = watch(peer);
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  const sent = w.sockets[0]!.sent.length;
  peer.act("stock");
  await settle();
  assert.equal(w.sockets[0]!.sent.length, sent);
  assert.match(JSON.stringify(seen.notices), /cannot stock now/);
  peer.act("pass");
  await settle();
  assert.equal(w.sockets[0]!.sent.at(-1), "pass");
});

test("a finished match keeps no secrets, and its link says it is over", async () => {
  const w = world();
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  w.sockets[0]!.frame("end");
  await settle();
  assert.equal(seen.view?.over, true);
  const entry = JSON.parse(w.storage.getItem(`gin-online:${linkIdHex(SECRET)}`)!);
  assert.equal(entry.state, null);
  assert.equal(entry.finished, "the match is over");
  const again = world(w.storage);
  const told = watch(again.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  assert.equal(again.sockets.length, 0);
  assert.equal(told.view?.over, true);
  assert.match(JSON.stringify(told.notices), /is over/);
  assert.deepEqual(again.online.stored(), []);
});

test("a second tab of the match takes the seat: the first names it, blames nobody, and keeps the match", async () => {
  const first = world();
  const link = `http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`;
  const peer = first.online.join(link);
  const seen = watch(peer);
  await settle();
  first.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  // Another tab: the same storage, so the same seat token; the relay closes the older.
  const second = world(first.storage);
  second.online.join(link);
  await settle();
  const token = (url: string): string => /token=([0-9a-f]{32})/.exec(url)![1]!;
  assert.equal(token(second.sockets[0]!.url), token(first.sockets[0]!.url));
  first.sockets[0]!.drop(4000, "replaced by a newer connection for this seat");
  await settle();
  first.timers.advance(60_000);
  await settle();
  assert.equal(first.sockets.length, 1); // no reconnecting: that would take the seat back
  assert.equal(seen.view?.connection, "closed");
  const failure = seen.view!.failure!;
  assert.equal(failure.kind, "OpenedElsewhere");
  assert.equal(failure.who, "nobody");
  assert.equal(failure.reason, "This match was opened in another tab or window of this browser, which plays it now: "
    + "this page stops here (close it, and go on in the other).");
  assert.doesNotMatch(failure.reason, /relay/);
  assert.equal(failureTitle(failure), "This match was opened in another tab");
  assert.deepEqual(failureLines(failure).at(-1), "At fault: nobody.");
  // Closing this page's match leaves the other tab's stored match alone.
  peer.leave();
  assert.notEqual(first.storage.getItem(`gin-online:${linkIdHex(SECRET)}`), null);
});

test("leaving closes the seat for good (code 1000) and forgets the match", async () => {
  const w = world();
  const peer = w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`);
  await settle();
  w.sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  await settle();
  peer.leave();
  assert.equal(w.sockets[0]!.closedWith, 1000);
  assert.equal(w.storage.getItem(`gin-online:${linkIdHex(SECRET)}`), null);
});

test("a browser that cannot start the worker is told so, and connects nowhere", async () => {
  const w = world(undefined, true);
  const seen = watch(w.online.join(`http://relay.test:8765/j/${ROOM}#${SECRET_TEXT}`));
  await settle();
  assert.equal(w.sockets.length, 0);
  assert.equal(seen.view?.connection, "closed");
  assert.equal(seen.view?.failure?.who, "this browser");
  assert.match(seen.view!.failure!.reason, /cannot run the online peer \(workers are not allowed here\)/);
});

test("a link of another relay is not joined by this page's lobby (the board opens a page for it), and says so", () => {
  const w = world();
  const seen = watch(w.online.join(`https://elsewhere.example/j/${ROOM}#${SECRET_TEXT}`));
  assert.equal(w.sockets.length, 0);
  assert.deepEqual(w.addresses, []);
  assert.match(seen.view!.failure!.reason,
    /for the relay at https:\/\/elsewhere\.example, and this page plays on http:\/\/relay\.test:8765: use Join with a link/);
});

test("frames leave at a share of the limits the relay's welcome states: half its burst, 3/4 of its rate", () => {
  const timers = new FakeTimers();
  const sockets: FakeSocket[] = [];
  const client = new RelayClient({
    relay: "ws://relay.test", room: ROOM, seat: 1, token: "a".repeat(32), ticket: null, timers,
    openSocket: (url) => { const s = new FakeSocket(url, []); sockets.push(s); return s; },
  }, () => {});
  client.start();
  sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected", rate: 40, burst: 10 });
  for (let i = 0; i < 40; i++) assert.equal(client.send(bytes(`m${i}`)), true);
  assert.equal(sockets[0]!.sent.length, 5);
  timers.advance(1000);
  assert.equal(sockets[0]!.sent.length, 35);
  assert.deepEqual(paceFor({ rate: 500, burst: 5000 }), [375, 2500]); // gin host's relay
  assert.deepEqual(paceFor({ rate: true, burst: 10 }), [15, 50]); // nonsense: the defaults
});

test("a relay that breaks its protocol, or a frame over its limit, ends the connection for good, saying so", () => {
  const run = (relayDoes: (socket: FakeSocket, client: RelayClient) => void): RelayEvent[] => {
    const events: RelayEvent[] = [];
    const sockets: FakeSocket[] = [];
    const client = new RelayClient({
      relay: "ws://relay.test", room: ROOM, seat: 1, token: "a".repeat(32), ticket: null, timers: new FakeTimers(),
      openSocket: (url) => { const s = new FakeSocket(url, []); sockets.push(s); return s; },
    }, (event) => events.push(event));
    client.start();
    relayDoes(sockets[0]!, client);
    assert.equal(sockets.length, 1); // not retried
    assert.equal(sockets[0]!.closedWith !== null, true);
    return events;
  };
  const last = (events: RelayEvent[]) => events.at(-1)!;
  assert.deepEqual(last(run((s) => s.frame("early"))),
    { kind: "closed", code: 1002, reason: "the relay sent a binary frame before its welcome" });
  assert.deepEqual(last(run((s) => s.onmessage?.({ data: "<html>" }))),
    { kind: "closed", code: 1002, reason: "the relay sent an unreadable control message: '<html>'" });
  assert.deepEqual(last(run((s) => {
    s.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
    s.onmessage?.({ data: "[1, 2" });
  })), { kind: "closed", code: 1002, reason: "the relay sent an unreadable control message: '[1, 2'" });
  assert.deepEqual(last(run((s, client) => {
    s.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected", max_frame: 4 });
    assert.equal(client.send(bytes("12345")), false);
  })), { kind: "closed", code: 1009, reason: "a frame of 5 bytes is over the relay's limit of 4" });
});

test("frames leave below the relay's flood limit: a burst of 50, then 15 a second", () => {
  const timers = new FakeTimers();
  const journal: string[] = [];
  const sockets: FakeSocket[] = [];
  const client = new RelayClient({
    relay: "ws://relay.test", room: ROOM, seat: 1, token: "a".repeat(32), ticket: null, timers,
    openSocket: (url) => { const s = new FakeSocket(url, journal); sockets.push(s); return s; },
  }, () => {});
  client.start();
  sockets[0]!.welcome({ type: "joined", room: ROOM, seat: 1, peer: "connected" });
  for (let i = 0; i < 80; i++) assert.equal(client.send(bytes(`m${i}`)), true);
  assert.equal(sockets[0]!.sent.length, 50);
  timers.advance(1000);
  assert.equal(sockets[0]!.sent.length, 65);
  timers.advance(1000);
  assert.equal(sockets[0]!.sent.length, 80);
  assert.deepEqual(sockets[0]!.sent.slice(48, 52), ["m48", "m49", "m50", "m51"]); // in order
  // Disconnected, nothing is queued: the session re-sends after reconnecting.
  sockets[0]!.drop(1006);
  assert.equal(client.send(bytes("lost")), false);
});
