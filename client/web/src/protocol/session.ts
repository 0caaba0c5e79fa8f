/**
 * The online session: one peer of a match played through the fair deal, sans
 * I/O — the twin of gin/session.py, method for method, frame for frame.
 *
 * A {@link Session} is a synchronous state machine with no I/O of its own. The
 * transport feeds it what arrives and sends what it produces; the interface feeds
 * it the local player's moves and shows its events. Every input returns nothing;
 * its output collects in two queues the caller drains: {@link Session.dataToSend}
 * (frames for the peer, in order) and {@link Session.events}.
 *
 * Inputs: `receive` (a frame), `act` (the local player's action), `poll` (the
 * time now: re-sends what the peer has not acknowledged, with back-off), `resend`
 * (after a reconnect) and `peerTimedOut` (the transport's timer ran out while
 * `waitingFor` named a message the peer owes). Any fault is final: the session
 * emits one Failure event, tells the peer (`abort`), and every later input throws
 * the same PeerFault. Only a proven fault forfeits the match.
 *
 * Write-ahead: the caller MUST save `toState()` after any call that queued frames
 * and before sending them. Given the same random bytes and inputs it sends
 * exactly the frames gin.session.Session sends.
 */

import { type Action, BigGin, Discard, DrawStock, Knock, parseAction } from "../engine/actions.ts";
import { Card } from "../engine/cards.ts";
import { GinError, IllegalAction, MalformedInput, PeerFault } from "../engine/errors.ts";
import { dealtPositions, type Hand, UPCARD_POSITION } from "../engine/hand.ts";
import { Match } from "../engine/match.ts";
import { type Observation, Phase } from "../engine/observation.ts";
import { pyRepr } from "../engine/pyrepr.ts";
import { Ruleset } from "../engine/rules.ts";
import type { Player } from "../players/index.ts";
import { auditRecord } from "./audit.ts";
import { equalBytes, fromBigInt, toBigInt } from "./bytes.ts";
import * as cosign from "./cosign.ts";
import * as ecc from "./ecc.ts";
import * as fd from "./fairdeal.ts";
import type { MapKey, Value } from "./msgpack.ts";
import { HandRecord, Score, Step } from "./records.ts";
import { coin, firstDealerFor, HandState, otherRole, rulesDigest } from "./session_hand.ts";
import {
  CardDrawn, CheatDetected, type Failure, FAILURES, FrameRejected, HandDealt, HandScored, HandVerified, MatchOver,
  MatchStarted, Moved, PeerAborted, PeerTimedOut, ProtocolError, RulesDeclined, RulesOffered, type SessionEvent,
} from "./session_events.ts";
import * as sp from "./shuffle_proof.ts";
import * as wire from "./wire.ts";

export { coin, firstDealerFor, rulesDigest } from "./session_hand.ts";

export const SEATS = ["host", "guest"] as const;
export type SessionRole = (typeof SEATS)[number];
export const NONCE_BYTES = 32;
export const KEY_BYTES = 32;
export const MAX_ACTION_CHARS = 256;
export const MAX_REASON_CHARS = 400;
export const MAX_FIELD_CHARS = 64;
export const MAX_RULE_NUMBER = 10_000;
export const HAND_KEYS = 11; // ten dealt cards and the upcard
export const STATE_VERSION = 2;
/** Re-send what the peer has not acknowledged after this long (s), doubling each time. */
export const RESEND_AFTER = 2.0;
export const MAX_RESEND_AFTER = 32.0;
export const ABORT_KINDS = ["cheat", "protocol", "tampered", "timeout", "declined"];
const MAX_HAND_NUMBER = 0xffffffff;

/** Fresh secret randomness: `n` bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** A saved session that does not replay to the state it claims: damaged on this machine (never the peer's fault). */
export class CorruptState extends MalformedInput {}

/** The peer's message is malformed or out of turn. */
class ProtocolFault extends PeerFault {}
/** The peer's message is well formed but breaks the rules or the fair deal. */
class CheatFault extends PeerFault {}

type LogEntry = Value[];
type Fields = [string, Value][];

const keyBytes = (key: bigint): Uint8Array => fromBigInt(key, KEY_BYTES);
/** Python's `text[:n]`: the first n code points. */
const clip = (text: string, n: number): string => Array.from(text).slice(0, n).join("");

/** One peer of an online match. See the module comment and protocol.md. */
export class Session {
  readonly role: SessionRole;
  readonly seat: number;
  readonly peer: number;
  readonly linkId: Uint8Array;
  matchId: Uint8Array | null = null; // once both signing keys are known
  private readonly proposed: Ruleset | null;
  private agreed: Ruleset | null;
  private offered: Ruleset | null = null; // custom rules awaiting the local player
  private randomBytes: RandomBytes;
  private nonce: Uint8Array | null = null;
  private signer: cosign.Signer | null = null;
  private peerKey: Uint8Array | null = null;
  private peerCoin: Uint8Array | null = null;
  private match: Match | null = null;
  private hand: HandState | null = null;
  private finished = false;
  private failed: Failure | null = null;
  private queuedEvents: SessionEvent[] = [];
  private outbox: Uint8Array[] = [];
  private log: LogEntry[] = []; // the inputs, replayed by fromState
  private muted = false; // while replaying a saved log: nothing is sealed
  private replayed: Uint8Array[] = []; // what the replay would have sent
  private resendAt: number | null = null;
  private resendAfter = RESEND_AFTER;
  private resendTiming: [number, number] = [RESEND_AFTER, MAX_RESEND_AFTER];
  private channel!: wire.SealedChannel;

  /**
   * `role` "host" (seat 0, proposes `rules`) or "guest" (seat 1; `rules` null
   * plays a preset the host proposes, and custom rules once its player accepts
   * them after RulesOffered; a Ruleset insists on it). `secret` is the 32-byte
   * invite secret; `randomBytes(n)` supplies fresh secret randomness. The offer
   * frame and, for the host, its `hello` are queued at once.
   */
  constructor(role: SessionRole, secret: Uint8Array, rules: Ruleset | null, randomBytes: RandomBytes,
    restoring = false) {
    if (role !== "host" && role !== "guest") {
      throw new MalformedInput(`session role must be 'host' or 'guest', got ${pyRepr(role)}`);
    }
    if (role === "host" && rules === null) {
      throw new MalformedInput("the host proposes the ruleset: rules must be given");
    }
    this.role = role;
    this.seat = SEATS.indexOf(role);
    this.peer = 1 - this.seat;
    this.linkId = cosign.linkIdFor(secret);
    this.proposed = rules;
    this.agreed = rules;
    this.randomBytes = randomBytes;
    if (restoring) {
      this.muted = true;
    } else {
      this.channel = new wire.SealedChannel(secret, role, this.fresh(wire.EPOCH_BYTES));
      this.outbox.push(this.channel.offer());
    }
    this.begin();
  }

  private begin(): void {
    this.signer = new cosign.Signer(this.random(cosign.KEY_SEED_BYTES));
    if (this.role === "host") {
      this.nonce = this.random(NONCE_BYTES);
      this.send("hello", [["rules", rulesValue(this.agreed!)], ["coin", coin(this.linkId, this.nonce)],
        ["key", this.signer.public]]);
    }
  }

  // -- queues and queries ----------------------------------------------------------

  /** Frames to send, oldest first; the queue is emptied. */
  dataToSend(): Uint8Array[] {
    const out = this.outbox;
    this.outbox = [];
    return out;
  }

  /** Events since the last call, oldest first; the queue is emptied. */
  events(): SessionEvent[] {
    const out = this.queuedEvents;
    this.queuedEvents = [];
    return out;
  }

  /** Our offer and every message the peer has not acknowledged, to send again after a reconnect. */
  resend(): Uint8Array[] {
    return this.channel.resend();
  }

  /** Re-send after `first` seconds without an ack, doubling up to `longest` (§5.4: 2 and 32). */
  setResendTiming(first: number, longest: number): void {
    if (!(0 < first && first <= longest)) {
      throw new MalformedInput("resend timing must satisfy 0 < first <= longest");
    }
    this.resendTiming = [first, longest];
    this.resendAfter = first;
  }

  /**
   * The time is `now` (seconds, any fixed origin): queue a re-send of what the
   * peer has not acknowledged when it has waited long enough (§5.4). True when a
   * re-send was queued.
   */
  poll(now: number): boolean {
    if (this.channel.keyed && !this.channel.pending) {
      this.resendAt = null;
      this.resendAfter = this.resendTiming[0];
    } else if (this.resendAt === null) {
      this.resendAt = now + this.resendAfter;
    } else if (now >= this.resendAt) {
      this.outbox.push(...this.channel.resend());
      this.resendAfter = Math.min(2 * this.resendAfter, this.resendTiming[1]);
      this.resendAt = now + this.resendAfter;
      return true;
    }
    return false;
  }

  /** Messages sent that the peer has not acknowledged yet. */
  get unacknowledged(): number {
    return this.channel.pending;
  }

  /** Frames received from the peer so far (the next sequence number expected). */
  get received(): number {
    return Number(this.channel.nextReceiveSeq);
  }

  get failure(): Failure | null {
    return this.failed;
  }

  /** The match is finished (normally or by a failure): no more input is taken. */
  get over(): boolean {
    return this.finished || this.failed !== null;
  }

  /** The agreed ruleset (for a guest, null until the host's hello). */
  get rules(): Ruleset | null {
    return this.agreed;
  }

  /** The host's custom rules while they await the local player's answer. */
  get rulesOffered(): Ruleset | null {
    return this.offered;
  }

  /** What the local player sees, or null before the first deal. */
  observation(): Observation | null {
    if (this.match === null || this.match.hand === null) return null;
    return this.match.observation(this.seat);
  }

  /** The local player's legal actions; empty unless it is its move now. */
  legalActions(): Action[] {
    if (this.localRefusal() !== null) return [];
    return this.match!.legalActions();
  }

  /**
   * The message type the peer owes now, or null (our move, or the match is
   * over). The transport runs its timer while this is not null.
   */
  waitingFor(): string | null {
    if (this.over) return null;
    if (this.match === null) {
      if (this.role === "host") return "welcome";
      if (this.offered !== null) return null; // the local player is deciding on the rules
      return this.peerCoin === null ? "hello" : "start";
    }
    const hs = this.state();
    if (!hs.commits.has(otherRole(hs.role))) return "commit";
    const owed = hs.owedBeforeDeal();
    if (owed !== null) return owed;
    if (!hs.dealt) return "deal";
    const hand = this.engine();
    if (hand.phase === Phase.OVER) return "seed";
    if (hs.drawPending !== null) return "key";
    if (hs.knockPending !== null) return "show";
    return hand.turn === this.peer ? "move" : null;
  }

  // -- inputs ----------------------------------------------------------------------

  /** Take one frame from the transport. Duplicates, early frames and frames of another epoch are answered, never faults. */
  receive(frame: Uint8Array): void {
    this.checkAlive();
    const pending = this.channel.pending;
    let got: wire.Received;
    try {
      got = this.channel.receive(frame);
    } catch (exc) {
      if (!(exc instanceof wire.ChannelFault)) throw exc;
      const entry: LogEntry = ["reject", exc.field, exc.message, exc.proven];
      this.log.push(entry);
      this.rejected(entry);
      return;
    }
    if (this.channel.pending < pending) { // progress: back-off starts again
      this.resendAt = null;
      this.resendAfter = this.resendTiming[0];
    }
    if (got.message !== null) {
      this.log.push(["in", got.message]);
      this.deliver(got.message);
    }
    this.outbox.push(...got.replies);
  }

  /** Play the local player's move. IllegalAction (nothing changes) if not allowed. */
  act(action: Action): void {
    this.checkAlive();
    let why = this.localRefusal();
    if (why === null) why = this.engine().refusal(this.seat, action);
    if (why !== null) throw new IllegalAction(`${this.role} cannot ${action} now: ${why}`);
    this.log.push(["act", String(action)]);
    this.doAct(action);
  }

  /** The local player accepts the offered custom rules: the match goes on. */
  acceptRules(): void {
    this.checkAlive();
    if (this.offered === null) throw new IllegalAction("no rules are waiting to be accepted");
    this.log.push(["accept"]);
    this.accept();
  }

  /** The local player declines the offered custom rules: the match ends unplayed. `reason` is what the local failure says. */
  declineRules(reason = "you declined the host's custom rules"): void {
    this.checkAlive();
    if (this.offered === null) throw new IllegalAction("no rules are waiting to be declined");
    this.offered = null;
    this.send("abort", [["why", "declined"], ["field", "hello.rules"],
      ["reason", "the guest declined the host's custom rules"]]);
    this.fail(new RulesDeclined("guest", "hello.rules", reason));
  }

  /**
   * The peer did not send what `waitingFor` names in time. Unproven (not sent, or
   * not delivered): the session ends without a forfeit. Nothing when nothing is owed.
   */
  peerTimedOut(): void {
    this.checkAlive();
    if (this.waitingFor() === null) return;
    this.log.push(["timeout"]);
    this.timedOut();
  }

  // -- persistence -------------------------------------------------------------------

  /**
   * Plain msgpack-able data, field for field gin's `to_state` (holds this hand's
   * secret seed and the signing key: keep it private). Write-ahead (§11.2):
   * persist after every input whose call queued frames, and before sending them.
   */
  toState(): Map<string, Value> {
    const failure = this.failed;
    return new Map<string, Value>([
      ["v", STATE_VERSION],
      ["role", this.role],
      ["rules", this.proposed === null ? null : rulesValue(this.proposed)],
      ["channel", this.channel.toState()],
      ["log", this.log.map((entry) => [...entry])],
      ["failure", failure === null ? null : [failure.kind, failure.who, failure.field, failure.reason]],
    ]);
  }

  /**
   * Rebuild a session from {@link toState}: the log is replayed and must lead
   * exactly to the saved channel; the channel starts a new epoch (fresh keys from
   * `randomBytes`). Its offer and unacknowledged messages are queued.
   * CorruptState (a local fault) for anything that does not check.
   */
  static fromState(secret: Uint8Array, state: ReadonlyMap<MapKey, Value>, randomBytes: RandomBytes): Session {
    try {
      return Session.restore(secret, state, randomBytes);
    } catch (exc) {
      if (exc instanceof CorruptState) throw exc;
      if (exc instanceof Error) {
        throw new CorruptState(`the saved session is damaged (${exc.name}: ${exc.message})`);
      }
      throw exc;
    }
  }

  private static restore(secret: Uint8Array, state: ReadonlyMap<MapKey, Value>, randomBytes: RandomBytes): Session {
    if (!(state instanceof Map)) throw new CorruptState("the saved session is not a map");
    const reader = new wire.Message("session-state", STATE_VERSION, state, "");
    reader.only("v", "role", "rules", "channel", "log", "failure");
    reader.integer("v", STATE_VERSION, STATE_VERSION);
    const role: SessionRole = reader.text("role", 5, SEATS) === "host" ? "host" : "guest";
    const savedRules = state.get("rules") ?? null;
    const rules = savedRules === null ? null : Ruleset.fromDict(plain(savedRules));
    const log = readLog(reader.array("log", 1 << 20));
    const channel = state.get("channel");
    if (!(channel instanceof Map)) throw new CorruptState("session state: 'channel' must be a map");
    const drawn = log.filter((entry) => entry[0] === "rand").map((entry) => entry[1] as Uint8Array);
    let used = 0;
    const loggedRandom = (n: number): Uint8Array => {
      const value = drawn[used++];
      if (value === undefined || value.length !== n) throw new CorruptState("the log's random draws do not replay");
      return value;
    };
    const session = new Session(role, secret, rules, loggedRandom, true);
    let received = 0;
    for (const entry of log) {
      if (entry[0] === "in") {
        received += 1;
        session.deliver(entry[1] as Uint8Array);
      } else if (entry[0] === "act") {
        session.doAct(parseAction(entry[1] as string));
      } else if (entry[0] === "timeout") {
        session.timedOut();
      } else if (entry[0] === "accept") {
        session.accept();
      } else if (entry[0] === "reject") {
        session.rejected(entry);
      }
    }
    if (used < drawn.length) throw new CorruptState("the log holds random draws the replay did not use");
    const failure = readFailure(state.get("failure") ?? null);
    if (session.failed !== null && failure === null) {
      // A damaged log can make an honest peer's message look like a cheat.
      throw new CorruptState(`the saved moves do not replay (they would fail as '${session.failed.reason}')`);
    }
    session.randomBytes = randomBytes; // the new epoch is fresh, not replayed
    const restored = wire.SealedChannel.fromState(secret, channel, session.fresh(wire.EPOCH_BYTES));
    const sent = session.replayed;
    let sentDigest: Uint8Array = new Uint8Array(32);
    let receivedDigest: Uint8Array = new Uint8Array(32);
    for (const message of sent) sentDigest = wire.chain(sentDigest, message);
    for (const entry of log) if (entry[0] === "in") receivedDigest = wire.chain(receivedDigest, entry[1] as Uint8Array);
    if (restored.nextSendSeq !== BigInt(sent.length) || !equalBytes(restored.sentDigest, sentDigest)
      || restored.nextReceiveSeq !== BigInt(received) || !equalBytes(restored.receivedDigest, receivedDigest)
      || restored.pendingMessages().some(([seq, message]) => !equalBytes(sent[Number(seq)]!, message))) {
      throw new CorruptState("the saved channel does not match the saved moves");
    }
    session.channel = restored;
    session.log = log.map((entry) => [...entry]);
    session.muted = false;
    session.replayed = [];
    session.queuedEvents = [];
    session.outbox = restored.resend();
    if (failure !== null) session.failed = failure;
    return session;
  }

  // -- internals: sending, failing ---------------------------------------------------

  /** Fresh randomness that is not logged: a restored session draws it anew. */
  private fresh(n: number): Uint8Array {
    const value = this.randomBytes(n);
    if (!(value instanceof Uint8Array) || value.length !== n) {
      throw new MalformedInput(`random_bytes(${n}) must return ${n} bytes`);
    }
    return value;
  }

  private random(n: number): Uint8Array {
    const value = this.fresh(n).slice();
    this.log.push(["rand", value]);
    return value;
  }

  private send(msgType: string, fields: Fields): void {
    const message = wire.pack(msgType, new Map(fields));
    if (this.muted) this.replayed.push(message);
    else this.outbox.push(...this.channel.send(message));
  }

  private emit(event: SessionEvent): void {
    this.queuedEvents.push(event);
  }

  private checkAlive(): void {
    const f = this.failed;
    if (f !== null) throw new PeerFault(`the session has failed: ${f.reason}`, f.who, f.field);
  }

  /** End the session; tell the peer why (unless it ended it), so it does not wait. */
  private fail(failure: Failure): void {
    this.failed = failure;
    this.emit(failure as SessionEvent);
    const peer = SEATS[this.peer];
    if (failure.proven) this.emit(new MatchOver(this.seat, null, peer));
    if (failure instanceof PeerAborted || failure instanceof RulesDeclined) return; // the abort is sent already
    const why = failure instanceof PeerTimedOut ? "timeout"
      : failure instanceof FrameRejected ? "tampered"
        : failure instanceof CheatDetected ? "cheat" : "protocol";
    this.send("abort", [["why", why], ["field", clip(failure.field, MAX_FIELD_CHARS)],
      ["reason", clip(failure.reason, MAX_REASON_CHARS)]]);
  }

  /** A frame the channel refused: ["reject", field, text, proven] of the log. */
  private rejected(entry: LogEntry): void {
    const [, field, text, proven] = entry as [string, string, string, boolean];
    const peer = SEATS[this.peer];
    if (proven) {
      this.fail(new ProtocolError(peer, field, `the ${peer} broke the framing: ${text}`));
    } else {
      this.fail(new FrameRejected(`${peer} or the relay`, field,
        `a frame from the ${peer} was rejected (${text}): the relay altered or injected it, `
        + `or the ${peer} sent a bad frame`));
    }
  }

  private timedOut(): void {
    const owed = this.waitingFor();
    const peer = SEATS[this.peer];
    const what = owed === "seed" ? "seed" : `${owed} message`;
    this.fail(new PeerTimedOut(`${peer} or the relay`, String(owed),
      `the ${peer}'s ${what} did not arrive in time: the ${peer} withheld it, or the relay dropped it`));
  }

  // -- internals: accessors ----------------------------------------------------------

  private engine(): Hand {
    return this.match!.hand!;
  }

  private state(): HandState {
    return this.hand!;
  }

  private localRefusal(): string | null {
    if (this.over) return "the match is over";
    if (this.hand === null || !this.hand.dealt) return "the hand is not dealt yet";
    const owed = this.waitingFor();
    if (owed !== null) return `waiting for ${SEATS[this.peer]}'s ${owed}`;
    return null;
  }

  private positionOf(card: Card): number {
    const hand = this.engine();
    for (let p = 0; p < fd.DECK_SIZE; p++) if (hand.cardAt(p) === card) return p;
    throw new GinError(`${card} is at no known position`);
  }

  private protocol(message: string, field: string): ProtocolFault {
    return new ProtocolFault(message, SEATS[this.peer], field);
  }

  private cheat(message: string, field: string): CheatFault {
    return new CheatFault(message, SEATS[this.peer], field);
  }

  // -- internals: the message loop ---------------------------------------------------

  private deliver(plaintext: Uint8Array): void {
    if (this.finished) return; // the match is over: nothing more is owed (a late abort changes nothing)
    const peer = SEATS[this.peer];
    try {
      const msg = wire.unpack(plaintext);
      if (!MESSAGE_TYPES.has(msg.type)) throw this.protocol(`unknown message type ${pyRepr(msg.type)}`, "t");
      const owed = this.waitingFor();
      if (msg.type !== "abort" && msg.type !== owed) {
        throw this.protocol(`unexpected ${pyRepr(msg.type)} message while waiting for ${owed ?? "the local player"}`, "t");
      }
      this.handle(msg);
    } catch (exc) {
      if (exc instanceof wire.MalformedMessage) this.fail(new ProtocolError(peer, exc.field, exc.message));
      else if (exc instanceof ProtocolFault) this.fail(new ProtocolError(peer, exc.field, exc.message));
      else if (exc instanceof PeerFault) this.fail(new CheatDetected(peer, exc.field, exc.message));
      else throw exc;
    }
  }

  private handle(msg: wire.Message): void {
    switch (msg.type) {
      case "hello": return this.onHello(msg);
      case "welcome": return this.onWelcome(msg);
      case "start": return this.onStart(msg);
      case "commit": return this.onCommit(msg);
      case "deck": return this.onDeck(msg);
      case "shuffle": return this.onShuffle(msg);
      case "challenge": return this.onChallenge(msg);
      case "proof": return this.onProof(msg);
      case "deal": return this.onDeal(msg);
      case "move": return this.onMove(msg);
      case "key": return this.onKey(msg);
      case "show": return this.onShow(msg);
      case "seed": return this.onSeed(msg);
      default: return this.onAbort(msg);
    }
  }

  private handFields(msg: wire.Message, ...names: string[]): void {
    msg.only("h", ...names);
    const number = msg.integer("h", 0, MAX_HAND_NUMBER);
    const hs = this.state();
    if (number !== hs.number) {
      throw this.protocol(`${msg.type}: hand ${number}, but hand ${hs.number} is in play`, `${msg.type}.h`);
    }
  }

  private onHello(msg: wire.Message): void {
    msg.only("rules", "coin", "key");
    const rules = readRules(msg);
    if (this.proposed !== null && !rules.equals(this.proposed)) {
      throw this.protocol(`the host proposes the ${rules.name} rules ${pyRepr(rules.toDict())}, which `
        + "this guest did not agree to", "hello.rules");
    }
    this.peerCoin = msg.blob("coin", 32);
    this.peerKey = msg.blob("key", cosign.KEY_BYTES);
    this.matchId = cosign.matchIdFor(this.linkId, this.peerKey, this.signer!.public);
    if (this.proposed === null && !rules.isPreset) { // shown, then accepted (§7.1)
      this.offered = rules;
      this.emit(new RulesOffered(rules));
    } else {
      this.welcome(rules);
    }
  }

  private accept(): void {
    const rules = this.offered!;
    this.offered = null;
    this.welcome(rules);
  }

  private welcome(rules: Ruleset): void {
    this.agreed = rules;
    this.nonce = this.random(NONCE_BYTES);
    this.send("welcome", [["rules", rulesDigest(rules)], ["nonce", this.nonce], ["key", this.signer!.public]]);
  }

  private onWelcome(msg: wire.Message): void {
    msg.only("rules", "nonce", "key");
    if (!equalBytes(msg.blob("rules", 32), rulesDigest(this.agreed!))) {
      throw this.protocol("the guest agreed to another ruleset", "welcome.rules");
    }
    const guestNonce = msg.blob("nonce", NONCE_BYTES);
    this.peerKey = msg.blob("key", cosign.KEY_BYTES);
    if (equalBytes(this.peerKey, this.signer!.public)) {
      throw this.protocol("the guest's signing key is the host's", "welcome.key");
    }
    this.matchId = cosign.matchIdFor(this.linkId, this.signer!.public, this.peerKey);
    this.send("start", [["nonce", this.nonce!]]);
    this.startMatch(firstDealerFor(this.matchId, this.nonce!, guestNonce));
  }

  private onStart(msg: wire.Message): void {
    msg.only("nonce");
    const hostNonce = msg.blob("nonce", NONCE_BYTES);
    if (!equalBytes(coin(this.linkId, hostNonce), this.peerCoin!)) {
      throw this.cheat("the host's nonce does not open its coin commitment", "start.nonce");
    }
    this.startMatch(firstDealerFor(this.matchId!, hostNonce, this.nonce!));
  }

  private startMatch(firstDealer: number): void {
    this.match = new Match(this.agreed!, firstDealer);
    this.emit(new MatchStarted(this.agreed!, this.seat, firstDealer, this.matchId!));
    this.startHand();
  }

  private startHand(): void {
    const number = this.hand === null ? 1 : this.hand.number + 1;
    const hs = new HandState(number, this.match!.dealer, this.seat, this.random(fd.SEED_BYTES), this.matchId!);
    this.hand = hs;
    this.send("commit", [["h", number], ["c", hs.commits.get(hs.role)!]]);
  }

  private onCommit(msg: wire.Message): void {
    this.handFields(msg, "c");
    const hs = this.state();
    hs.commits.set(otherRole(hs.role), msg.blob("c", 32));
    if (hs.role === "first") { // commitments exchanged: the first shuffle may go
      const message1 = fd.buildMessage1(hs.mine);
      hs.messages[0] = message1;
      this.send("deck", [["h", hs.number], ["n", 1], ["deck", [...message1]]]);
    }
  }

  private onDeck(msg: wire.Message): void {
    this.handFields(msg, "n", "deck");
    const hs = this.state();
    const n = msg.integer("n", 1, 3);
    if (n !== hs.expectedDeck()) {
      throw this.protocol(`deck message ${n} while waiting for message ${hs.expectedDeck() ?? "None"}`, "deck.n");
    }
    const entries = msg.blobs("deck", fd.DECK_SIZE, { minLen: fd.DECK_SIZE, size: 32 });
    let deck: fd.Deck;
    try {
      deck = fd.validateMessage(entries, `message${n}`);
    } catch (exc) {
      if (!(exc instanceof fd.MalformedDeck)) throw exc;
      throw this.cheat(exc.message, exc.position === null ? exc.field : `${exc.field}[${exc.position}]`);
    }
    hs.messages[n - 1] = deck;
    if (n === 1) { // the second shuffle, and the shadows that prove it (§8.9)
      const message2 = fd.buildMessage2(hs.mine, deck);
      hs.messages[1] = message2;
      this.send("deck", [["h", hs.number], ["n", 2], ["deck", [...message2]]]);
      const shadows = sp.shadows(hs.mine, deck);
      this.send("shuffle", [["h", hs.number], ["s", shadows.flat()]]);
    } else if (n === 3) {
      this.sendDeal();
    }
  }

  private onShuffle(msg: wire.Message): void {
    this.handFields(msg, "s");
    const hs = this.state();
    const size = sp.ROUNDS * fd.DECK_SIZE;
    const flat = msg.blobs("s", size, { minLen: size, size: ecc.COORD_BYTES });
    hs.shadows = Array.from({ length: sp.ROUNDS }, (_, r) => flat.slice(r * fd.DECK_SIZE, (r + 1) * fd.DECK_SIZE));
    hs.challenge = this.random(1)[0]! % (1 << sp.ROUNDS);
    this.send("challenge", [["h", hs.number], ["c", hs.challenge]]);
    const message3 = fd.buildMessage3(hs.mine, hs.messages[1]!);
    hs.messages[2] = message3;
    this.send("deck", [["h", hs.number], ["n", 3], ["deck", [...message3]]]);
  }

  private onChallenge(msg: wire.Message): void {
    this.handFields(msg, "c");
    const hs = this.state();
    hs.challenge = msg.integer("c", 0, (1 << sp.ROUNDS) - 1);
    const openings = sp.openRounds(hs.mine, hs.challenge);
    this.send("proof", [
      ["h", hs.number],
      ["seeds", openings.filter((o) => o.seed !== null).map((o) => o.seed!)],
      ["tau", openings.flatMap((o) => [...o.tau])],
      ["keys", openings.flatMap((o) => o.keys.map(keyBytes))],
    ]);
  }

  private onProof(msg: wire.Message): void {
    this.handFields(msg, "seeds", "tau", "keys");
    const hs = this.state();
    const challenge = hs.challenge!;
    const ones = [0, 1, 2, 3].filter((r) => (challenge >> r) & 1).length;
    const seeds = msg.blobs("seeds", sp.ROUNDS - ones, { minLen: sp.ROUNDS - ones, size: fd.SEED_BYTES });
    const size = ones * fd.DECK_SIZE;
    const taus = msg.integers("tau", size, 0, fd.DECK_SIZE - 1, size);
    const keys = msg.blobs("keys", size, { minLen: size, size: KEY_BYTES });
    const [m1, m2] = hs.messages;
    let opened = 0;
    let seedAt = 0;
    for (let r = 0; r < sp.ROUNDS; r++) {
      const bit = (challenge >> r) & 1;
      let opening: sp.Opening;
      if (bit) {
        const part = [opened * fd.DECK_SIZE, (opened + 1) * fd.DECK_SIZE] as const;
        opening = { seed: null, tau: taus.slice(...part), keys: keys.slice(...part).map(toBigInt) };
        opened += 1;
      } else {
        opening = { seed: seeds[seedAt++]!, tau: [], keys: [] };
      }
      const why = sp.checkRound(m1!, m2!, hs.shadows![r]!, bit, opening);
      if (why !== null) {
        throw this.cheat(`proof[${r}]: message 2 is not proven a shuffle of message 1: ${why}`, `proof[${r}]`);
      }
    }
    hs.shuffleProven = true;
    this.sendDeal();
  }

  private sendDeal(): void {
    const hs = this.state();
    const positions = [...dealtPositions(this.peer === hs.dealer), UPCARD_POSITION];
    const keys = positions.map((p) => hs.mine.positionKeys[p]!);
    for (const p of positions) hs.keysSent.add(p);
    hs.steps.push(new Step(this.seat, null, positions.map((p, i) => [p, keys[i]!] as const)));
    this.send("deal", [["h", hs.number], ["keys", keys.map(keyBytes)]]);
  }

  private onDeal(msg: wire.Message): void {
    this.handFields(msg, "keys");
    const hs = this.state();
    const keys = msg.blobs("keys", HAND_KEYS, { minLen: HAND_KEYS, size: KEY_BYTES });
    const positions = [...dealtPositions(this.seat === hs.dealer), UPCARD_POSITION];
    const deck: (Card | null)[] = new Array<Card | null>(fd.DECK_SIZE).fill(null);
    const pairs: (readonly [number, bigint])[] = [];
    positions.forEach((pos, i) => {
      deck[pos] = this.open(pos, keys[i]!, `deal.keys[${i}]`);
      pairs.push([pos, toBigInt(keys[i]!)]);
    });
    let hand: Hand;
    try {
      hand = this.match!.deal(deck);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.cheat(`the dealt cards are corrupt: ${exc.message}`, "deal.keys");
    }
    hs.dealt = true;
    for (const p of dealtPositions(this.peer === hs.dealer)) hs.peerPositions.add(p);
    hs.steps.push(new Step(this.peer, null, pairs));
    this.emit(new HandDealt(hs.number, hs.dealer, hand.cards(this.seat), hand.pile[hand.pile.length - 1]!));
  }

  /** The card at `position`, opened with our key and the peer's; a cheat if not. */
  private open(position: number, key: Uint8Array, field: string): Card {
    const hs = this.state();
    let index: number;
    try {
      index = fd.openCard(hs.messages[2]!, position, hs.mine.positionKeys[position]!, toBigInt(key), otherRole(hs.role));
    } catch (exc) {
      if (!(exc instanceof PeerFault)) throw exc;
      throw this.cheat(`${field}: ${exc.message}`, field);
    }
    return Card.fromIndex(index);
  }

  /** Open and reveal the peer's hidden positions listed in `pos`/`keys`. */
  private revealAll(msg: wire.Message, name: string, maxKeys: number): (readonly [number, bigint])[] {
    const hs = this.state();
    const hand = this.engine();
    const positions = msg.integers("pos", maxKeys, 0, fd.DECK_SIZE - 1);
    const keys = msg.blobs("keys", maxKeys, { size: KEY_BYTES });
    if (positions.length !== keys.length) {
      throw this.protocol(`${name}: ${positions.length} positions but ${keys.length} keys`, `${name}.keys`);
    }
    const pairs: (readonly [number, bigint])[] = [];
    positions.forEach((pos, i) => {
      const field = `${name}.pos[${i}]`;
      if (!hs.peerPositions.has(pos) || hand.cardAt(pos) !== null) {
        throw this.cheat(`${field}: position ${pos} is not a hidden card of ${SEATS[this.peer]}`, field);
      }
      const card = this.open(pos, keys[i]!, `${name}.keys[${i}]`);
      try {
        hand.reveal(pos, card);
      } catch (exc) {
        if (!(exc instanceof MalformedInput)) throw exc;
        throw this.cheat(`${field}: ${exc.message}`, field);
      }
      pairs.push([pos, toBigInt(keys[i]!)]);
    });
    return pairs;
  }

  private onMove(msg: wire.Message): void {
    this.handFields(msg, "a", "pos", "keys");
    const hs = this.state();
    const hand = this.engine();
    const peer = SEATS[this.peer];
    const text = msg.text("a", MAX_ACTION_CHARS);
    let action: Action;
    try {
      action = parseAction(text);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.protocol(exc.message, "move.a");
    }
    const allowed = action instanceof Knock || action instanceof BigGin ? HAND_KEYS : action instanceof Discard ? 1 : 0;
    const pairs = this.revealAll(msg, "move", allowed);
    if (action instanceof Discard && pairs.length) {
      const shown = hand.cardAt(pairs[0]![0]);
      if (shown !== action.card) {
        throw this.cheat(`move.keys[0]: opens ${shown}, not the discarded ${action.card}`, "move.keys[0]");
      }
    }
    const why = hand.refusal(this.peer, action);
    if (why !== null) throw this.cheat(`${peer} cannot ${action}: ${why}`, "move.a");
    hs.steps.push(new Step(this.peer, action, pairs));
    const drawn = hand.nextStockPosition;
    this.apply(this.peer, action);
    if (action instanceof DrawStock) { // announced: only now may the key go (§7.4)
      hs.peerPositions.add(drawn);
      const key = hs.mine.positionKeys[drawn]!;
      hs.keysSent.add(drawn);
      hs.steps.push(new Step(this.seat, null, [[drawn, key]]));
      this.send("key", [["h", hs.number], ["pos", drawn], ["key", keyBytes(key)]]);
    } else if (action instanceof Knock || action instanceof BigGin) {
      const shown = this.unrevealedKeys();
      hs.steps.push(new Step(this.seat, null, shown));
      this.send("show", [["h", hs.number], ["pos", shown.map(([p]) => p)], ["keys", shown.map(([, k]) => keyBytes(k))]]);
    }
    this.afterMove();
  }

  private onKey(msg: wire.Message): void {
    this.handFields(msg, "pos", "key");
    const hs = this.state();
    const pos = msg.integer("pos", 0, fd.DECK_SIZE - 1);
    if (pos !== hs.drawPending) {
      throw this.protocol(`key for position ${pos}, but the card drawn is at ${hs.drawPending ?? "None"}`, "key.pos");
    }
    const key = msg.blob("key", KEY_BYTES);
    const card = this.open(pos, key, "key.key");
    try {
      this.engine().reveal(pos, card);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      throw this.cheat(`key.key: ${exc.message}`, "key.key");
    }
    hs.drawPending = null;
    hs.steps.push(new Step(this.peer, null, [[pos, toBigInt(key)]]));
    this.emit(new CardDrawn(card));
  }

  private onShow(msg: wire.Message): void {
    this.handFields(msg, "pos", "keys");
    const hs = this.state();
    const pairs = this.revealAll(msg, "show", HAND_KEYS);
    const hidden = this.engine().hiddenCount(this.peer);
    if (hidden) throw this.cheat(`show: ${hidden} of ${SEATS[this.peer]}'s cards are still hidden`, "show.pos");
    hs.steps.push(new Step(this.peer, null, pairs));
    const action = hs.knockPending!;
    hs.knockPending = null;
    this.apply(this.seat, action);
    this.afterMove();
  }

  private onSeed(msg: wire.Message): void {
    this.handFields(msg, "seed", "sig");
    const hs = this.state();
    const peer = SEATS[this.peer];
    hs.theirSeed = msg.blob("seed", fd.SEED_BYTES);
    const signature = msg.blob("sig", cosign.SIGNATURE_BYTES);
    const record = this.record();
    const report = auditRecord(record, this.seat);
    if (!report.ok) {
      const first = report.findings[0]!;
      this.fail(new CheatDetected(first.who, first.where, String(first), record));
      return;
    }
    if (!cosign.verify(this.peerKey!, cosign.handDigest(record), signature)) {
      throw this.protocol(`the ${peer}'s signature does not sign this hand as played`, "seed.sig");
    }
    const signatures: [Uint8Array, Uint8Array] = this.seat === 0
      ? [hs.mySignature!, signature] : [signature, hs.mySignature!];
    this.emit(new HandVerified(hs.number, record.with({ signatures })));
    const totals = this.match!.totals;
    if (totals !== null) {
      this.finished = true;
      this.emit(new MatchOver(totals.winner, totals, null));
    } else {
      this.startHand();
    }
  }

  private onAbort(msg: wire.Message): void {
    msg.only("why", "field", "reason");
    const why = msg.text("why", 16, ABORT_KINDS);
    const field = msg.text("field", MAX_FIELD_CHARS);
    const reason = msg.text("reason", MAX_REASON_CHARS);
    const peer = SEATS[this.peer];
    if (this.waitingFor() === "seed" && why !== "tampered") {
      this.fail(new CheatDetected(peer, "seed", `the ${peer} refused to reveal its seed (a failed audit); it said: ${reason}`));
    } else {
      this.fail(new PeerAborted(peer, field, `the ${peer} ended the match (${why}), saying: ${reason}`));
    }
  }

  // -- internals: local moves and the hand's end -------------------------------------

  private doAct(action: Action): void {
    const hs = this.state();
    const hand = this.engine();
    let pairs: (readonly [number, bigint])[] = [];
    if (action instanceof Discard) {
      const pos = this.positionOf(action.card);
      pairs = hs.keysSent.has(pos) ? [] : [[pos, hs.mine.positionKeys[pos]!]];
    } else if (action instanceof Knock || action instanceof BigGin) {
      pairs = this.unrevealedKeys();
    }
    for (const [p] of pairs) hs.keysSent.add(p);
    hs.steps.push(new Step(this.seat, action, pairs));
    this.send("move", [["h", hs.number], ["a", String(action)], ["pos", pairs.map(([p]) => p)],
      ["keys", pairs.map(([, k]) => keyBytes(k))]]);
    if (action instanceof Knock || action instanceof BigGin) {
      hs.knockPending = action; // applied once the defender has shown its cards
      return;
    }
    if (action instanceof DrawStock) hs.drawPending = hand.nextStockPosition;
    this.apply(this.seat, action);
    this.afterMove();
  }

  /** Our keys for every card we hold that the peer cannot open yet. */
  private unrevealedKeys(): (readonly [number, bigint])[] {
    const hs = this.state();
    const positions = this.engine().cards(this.seat).map((c) => this.positionOf(c)).sort((a, b) => a - b);
    const pairs = positions.filter((p) => !hs.keysSent.has(p)).map((p) => [p, hs.mine.positionKeys[p]!] as const);
    for (const [p] of pairs) hs.keysSent.add(p);
    return pairs;
  }

  private apply(seat: number, action: Action): void {
    this.match!.apply(seat, action);
    this.emit(new Moved(seat, action));
  }

  private afterMove(): void {
    const hand = this.engine();
    if (hand.result === null) return;
    const hs = this.state();
    const scores = this.match!.scores;
    this.emit(new HandScored(hs.number, hand.result, [scores[0], scores[1]]));
    hs.mySignature = this.signer!.sign(cosign.handDigest(this.record()));
    this.send("seed", [["h", hs.number], ["seed", hs.mine.seed], ["sig", hs.mySignature]]);
  }

  private record(): HandRecord {
    const hs = this.state();
    const hand = this.engine();
    const [m1, m2, m3] = hs.messages;
    // Before the peer's seed arrives the record is only signed: its digest leaves
    // the seeds out (their commitments bind them).
    const theirs = hs.theirSeed ?? new Uint8Array(fd.SEED_BYTES);
    const seeds: [Uint8Array, Uint8Array] = hs.role === "first" ? [hs.mine.seed, theirs] : [theirs, hs.mine.seed];
    const keys: [Uint8Array, Uint8Array] = this.seat === 0
      ? [this.signer!.public, this.peerKey!] : [this.peerKey!, this.signer!.public];
    return new HandRecord({
      rules: this.match!.rules,
      matchId: this.matchId!,
      handNumber: hs.number,
      dealer: hs.dealer,
      commitments: [hs.commits.get("first")!, hs.commits.get("second")!],
      messages: [m1!, m2!, m3!],
      steps: [...hs.steps],
      seeds,
      score: Score.of(hand.result!),
      scores: [this.match!.scores[0], this.match!.scores[1]],
      linkId: this.linkId,
      signingKeys: keys,
    });
  }
}

/** The message types a peer may send (§6.2). */
const MESSAGE_TYPES: ReadonlySet<string> = new Set([
  "hello", "welcome", "start", "commit", "deck", "shuffle", "challenge", "proof", "deal", "move", "key", "show",
  "seed", "abort",
]);

/** A ruleset as a message carries it: its fields, in gin's order. */
function rulesValue(rules: Ruleset): Map<string, Value> {
  return new Map(Object.entries(rules.toDict()));
}

/** A msgpack map as plain JSON-like data (text keys only), for Ruleset.fromDict. */
function plain(value: Value): unknown {
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [typeof k === "string" ? k : String(k), plain(v)]));
  }
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

function readRules(msg: wire.Message): Ruleset {
  const rules = msg.submap("rules");
  for (const [name, value] of rules.fields) {
    if (typeof value === "boolean" || value === null) continue;
    if (typeof value === "number" || typeof value === "bigint") rules.integer(name as string, 0, MAX_RULE_NUMBER);
    else rules.text(name as string, 32);
  }
  try {
    return Ruleset.fromDict(plain(rules.fields as Map<MapKey, Value>));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    throw new wire.MalformedMessage(`message 'hello': field 'rules': ${exc.message}`, "rules");
  }
}

function readFailure(value: Value): Failure | null {
  if (value === null) return null;
  if (!(Array.isArray(value) && value.length === 4 && typeof value[0] === "string" && FAILURES.has(value[0])
    && value.every((x) => typeof x === "string"))) {
    throw new CorruptState("session state: 'failure' must be [kind, who, field, reason]");
  }
  const [kind, who, field, reason] = value as string[];
  return new (FAILURES.get(kind!)!)(who!, field!, reason!);
}

const LOG_KINDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["rand", ["bytes"]], ["in", ["bytes"]], ["act", ["string"]], ["timeout", []], ["accept", []],
  ["reject", ["string", "string", "boolean"]],
]);

function readLog(entries: Value[]): LogEntry[] {
  return entries.map((entry, i) => {
    const want = Array.isArray(entry) && typeof entry[0] === "string" ? LOG_KINDS.get(entry[0]) : undefined;
    if (!(Array.isArray(entry) && want !== undefined && entry.length === 1 + want.length
      && want.every((w, j) => (w === "bytes" ? entry[j + 1] instanceof Uint8Array : typeof entry[j + 1] === w)))) {
      throw new CorruptState(`session state: log[${i}] is not a valid entry`);
    }
    return [...entry];
  });
}

// --- two sessions in one process -----------------------------------------------------

/** Hand each session's queued frames to the other until both are quiet (tests, benchmarks); the bytes moved. */
export function pump(a: Session, b: Session): number {
  let moved = 0;
  for (;;) {
    const frames: [Uint8Array, Session][] = [
      ...a.dataToSend().map((f): [Uint8Array, Session] => [f, b]),
      ...b.dataToSend().map((f): [Uint8Array, Session] => [f, a]),
    ];
    if (!frames.length) return moved;
    for (const [frame, target] of frames) {
      moved += frame.length;
      if (!target.over) target.receive(frame);
    }
  }
}

/**
 * Play a whole match between two sessions, `players[seat]` choosing each move;
 * the guest accepts the host's rules, custom ones too. Stops when both are over
 * or neither can move (a failure); returns the wire bytes.
 */
export function playLocal(host: Session, guest: Session, players: readonly Player[]): number {
  let moved = pump(host, guest);
  if (guest.rulesOffered !== null) {
    guest.acceptRules();
    moved += pump(host, guest);
  }
  while (!(host.over && guest.over)) {
    const session = [host, guest].find((s) => s.legalActions().length);
    if (session === undefined) return moved;
    session.act(players[session.seat]!.choose(session.observation()!, session.legalActions()));
    moved += pump(host, guest);
  }
  return moved;
}
