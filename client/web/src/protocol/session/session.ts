/**
 * The online session: one peer of a match played through the fair deal, sans
 * I/O — the twin of gin/protocol/session/session.py (and of its session_*.py beside it, file
 * for file), method for method, frame for frame.
 *
 * A {@link Session} is a synchronous state machine with no I/O of its own. The
 * transport feeds it what arrives and sends what it produces; the interface feeds
 * it the local player's moves and shows its events. Every input returns nothing;
 * its output collects in two queues the caller drains: {@link Session.dataToSend}
 * (frames for the peer, in order) and {@link Session.events}.
 *
 * Inputs: `receive` (a frame), `act` (the local player's action), `poll` (the
 * time now: re-sends what the peer has not acknowledged, with back-off), `resend`
 * (after a reconnect), `abandon` (the grace for what `waitingFor` names ran out and the
 * local player ends the match as abandoned by the peer, with a signed record) and
 * `peerTimedOut` (the same without a claim). Any fault is final: the session
 * emits one Failure event, tells the peer (`abort`), and every later input throws
 * the same PeerFault. Only a proven fault forfeits the match.
 *
 * The session owns the sealed channel, the input log and the failure; the match
 * itself (handshake, deal, moves, hand end) is its {@link MatchFlow}.
 *
 * Write-ahead: the caller MUST save `toState()` after any call that queued frames
 * and before sending them. Given the same random bytes and inputs it sends
 * exactly the frames gin.protocol.session.session.Session sends.
 */

import { type Action, parseAction } from "../../engine/actions.ts";
import { IllegalAction, MalformedInput, PeerFault } from "../../engine/errors.ts";
import type { HandResult, Observation } from "../../engine/observation.ts";
import { pyRepr } from "../../engine/pyrepr.ts";
import { Ruleset } from "../../engine/rules.ts";
import * as cosign from "../records/cosign.ts";
import type { MapKey, Value } from "../wire/msgpack.ts";
import type { Owed } from "../wire/messages.ts";
import {
  CheatFault, type Fields, MatchFlow, MAX_FIELD_CHARS, MAX_REASON_CHARS, ProtocolFault, rulesValue, SEATS,
  type SessionRole, Stage,
} from "./flow.ts";
import { Identity } from "../records/identity.ts";
import { PreviousMatch } from "./rematch.ts";
import {
  Abandoned, CheatDetected, type Failure, FrameRejected, MatchOver, PeerAborted, PeerTimedOut, ProtocolError,
  RulesDeclined, type SessionEvent, VersionMismatch,
} from "./events.ts";
import {
  checkChannel,
  CorruptState,
  failureEntry,
  LoggedRandom,
  type LogEntry,
  readFailure,
  readState,
  STATE_VERSION,
} from "./log.ts";
import * as silence from "./silence.ts";
import * as table from "./table.ts";
import * as wire from "../wire/channel.ts";

export { linkIdFor } from "../records/cosign.ts";
export { coin, firstDealerFor, rulesDigest } from "./hand.ts";
export { SEATS, type SessionRole } from "./flow.ts";

export { STATE_VERSION } from "./log.ts";
/** Re-send what the peer has not acknowledged after this long (s), doubling each time. */
export const RESEND_AFTER = 2.0;
export const MAX_RESEND_AFTER = 32.0;

/** Fresh secret randomness: `n` bytes. */
export type RandomBytes = (n: number) => Uint8Array;

export { CorruptState } from "./log.ts";

/** Python's `text[:n]`: the first n code points. */
const clip = (text: string, n: number): string => Array.from(text).slice(0, n).join("");

/** Set only while {@link Session.fromState} builds the session it replays the log into. */
let restoring = false;

/** One peer of an online match. See the module comment and protocol.md. */
export class Session {
  readonly role: SessionRole;
  readonly seat: number;
  readonly peer: number;
  readonly linkId: Uint8Array;
  private readonly flow: MatchFlow;
  private randomBytes: RandomBytes;
  private failed: Failure | null = null;
  private queuedEvents: SessionEvent[] = [];
  private outbox: Uint8Array[] = [];
  private log: LogEntry[] = []; // the inputs, replayed by fromState
  private muted = false; // while replaying a saved log: nothing is sealed
  private replayed: Uint8Array[] = []; // what the replay would have sent
  /** Messages delivered from the peer and their hash chain (§5), kept here so a replay rebuilds them. */
  private delivered: [number, Uint8Array] = [0, new Uint8Array(32)];
  private resendAt: number | null = null;
  private resendAfter = RESEND_AFTER;
  private resendTiming: [number, number] = [RESEND_AFTER, MAX_RESEND_AFTER];
  private channel!: wire.SealedChannel;

  /**
   * `role` "host" (seat 0, proposes `rules`) or "guest" (seat 1; `rules` null
   * plays a preset the host proposes, and custom rules once its player accepts
   * them after RulesOffered; a Ruleset insists on it). `secret` is the 32-byte
   * invite secret; `randomBytes(n)` supplies fresh secret randomness. `identity` is the
   * 32 secret bytes of the player's long-term identity key (identity.ts), which the
   * client keeps: it vouches for this match's signing key. `rematch`: the match on this
   * link that this one continues (§7.1), from this side's own finished session
   * ({@link asPrevious}): the host's `hello` names it, the guest requires that, and its
   * loser deals first. The offer frame and, for the host, its `hello` are queued at once.
   */
  constructor(role: SessionRole, secret: Uint8Array, rules: Ruleset | null, randomBytes: RandomBytes,
    identity: Uint8Array, rematch: PreviousMatch | null = null) {
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
    this.randomBytes = randomBytes;
    this.flow = new MatchFlow(role, this.linkId, rules, new Identity(identity), (n) => this.random(n),
      () => this.channel.pending, rematch);
    if (restoring) {
      this.muted = true;
    } else {
      this.channel = new wire.SealedChannel(secret, role, this.fresh(wire.EPOCH_BYTES));
      this.outbox.push(this.channel.offer());
    }
    this.local("begin");
  }

  /** The match id, once both signing keys are known. */
  get matchId(): Uint8Array | null {
    return this.flow.matchId;
  }

  /** (the host's, the guest's) identity public keys, once both are known. */
  get identities(): [Uint8Array, Uint8Array] | null {
    const keys = this.flow.keys;
    return keys === null || keys.matchId === null ? null : keys.identities;
  }

  /** Our identity public key. */
  get identity(): Uint8Array {
    return this.flow.identity.public;
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
    return this.flow.over;
  }

  /** The guest declined the rematch (a RematchDeclined event): over, normally, unplayed. */
  get declined(): boolean {
    return this.flow.declined;
  }

  /** The agreed ruleset (for a guest, null until the host's hello). */
  get rules(): Ruleset | null {
    return this.flow.agreed;
  }

  /** The host's custom rules or rematch while they await the local player's answer
   * ({@link rematch} says which). */
  get rulesOffered(): Ruleset | null {
    return this.flow.offered;
  }

  /** The match this one continues, as the session was given it, or null. */
  get rematch(): PreviousMatch | null {
    return this.flow.rematch;
  }

  /** Its id and loser once the match has ended normally: what a rematch's session on this
   * link is given (null after a failure: no rematch follows). */
  asPrevious(): PreviousMatch | null {
    return this.failed !== null ? null : this.flow.asPrevious();
  }

  /** Every finished hand of the match, in order (the score sheet's source). */
  get handResults(): readonly HandResult[] {
    return this.flow.results();
  }

  /** What the local player sees, or null before the first deal. */
  observation(): Observation | null {
    return this.flow.observation();
  }

  /** The local player's legal actions; empty unless it is its move now. */
  legalActions(): Action[] {
    return table.legalActions(this.flow);
  }

  /**
   * The message type the peer owes now, or null (our move, or the match is
   * over). The transport runs its timer while this is not null.
   */
  waitingFor(): Owed | null {
    return table.waitingFor(this.flow);
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
    // The acknowledgement goes out before whatever the message makes us send, so that a
    // message we send in answer (an abort among them) reaches the peer acknowledged.
    this.outbox.push(...got.replies);
    if (got.message !== null) {
      this.log.push(["in", got.message]);
      this.deliver(got.message);
    }
  }

  /** Play the local player's move. IllegalAction (nothing changes) if not allowed. */
  act(action: Action): void {
    this.checkAlive();
    const why = table.refusal(this.flow, action);
    if (why !== null) throw new IllegalAction(`${this.role} cannot ${action} now: ${why}`);
    this.log.push(["act", String(action)]);
    this.local("act", action);
  }

  /** The local player accepts the offered custom rules: the match goes on. */
  acceptRules(): void {
    this.checkAlive();
    if (!table.allows(this.flow, "accept")) throw new IllegalAction(table.NOTHING_OFFERED.accept);
    this.log.push(["accept"]);
    this.local("accept");
  }

  /** The local player declines the offered custom rules (a RulesDeclined failure) or rematch (RematchDeclined: a
   * normal end, nobody at fault); the match ends unplayed. `reason` is what this side's event says (null: "you
   * declined …"). */
  declineRules(reason: string | null = null): void {
    this.checkAlive();
    if (!table.allows(this.flow, "decline")) throw new IllegalAction(table.NOTHING_OFFERED.decline);
    if (this.rematch !== null) this.log.push(["decline"]); // no failure keeps it: the log replays it on restore
    this.local("decline", reason);
  }

  /** The peer did not send what `waitingFor` names in time: unproven, the session ends without a
   * forfeit or a record. Nothing when nothing is owed. */
  peerTimedOut(): void {
    this.checkAlive();
    if (this.waitingFor() === null) return;
    this.log.push(["timeout"]);
    this.timedOut();
  }

  /** End the match as abandoned by the peer, which has owed what `waitingFor` names since `since`,
   * at `now` (UTC seconds: the caller's clock); see session_silence.ts. IllegalAction when nothing is owed. */
  abandon(since: number, now: number): void {
    this.checkAlive();
    silence.check(this.flow, since, now);
    this.log.push(["abandon", since, now]);
    this.abandoned(since, now);
  }

  // -- persistence -------------------------------------------------------------------

  /**
   * Plain msgpack-able data, field for field gin's `to_state` (holds this hand's
   * secret seed and the signing key: keep it private). Write-ahead (§11.2):
   * persist after every input whose call queued frames, and before sending them.
   */
  toState(): Map<string, Value> {
    return new Map<string, Value>([
      ["v", STATE_VERSION],
      ["role", this.role],
      ["rules", this.flow.proposed === null ? null : rulesValue(this.flow.proposed)],
      ["rematch", this.rematch === null ? null : this.rematch.toState()],
      ["channel", this.channel.toState()],
      ["log", this.log.map((entry) => [...entry])],
      ["failure", this.failed === null ? null : failureEntry(this.failed)],
    ]);
  }

  /**
   * Rebuild a session from {@link toState}: the log is replayed and must lead
   * exactly to the saved channel; the channel starts a new epoch (fresh keys from
   * `randomBytes`). Its offer and unacknowledged messages are queued. `identity` is the
   * player's identity key, as for a new session (the save does not hold it).
   * CorruptState (a local fault) for anything that does not check.
   */
  static fromState(secret: Uint8Array, state: ReadonlyMap<MapKey, Value>, randomBytes: RandomBytes,
    identity: Uint8Array): Session {
    try {
      return Session.restore(secret, state, randomBytes, identity);
    } catch (exc) {
      if (exc instanceof CorruptState) throw exc;
      if (exc instanceof Error) {
        throw new CorruptState(`the saved session is damaged (${exc.name}: ${exc.message})`);
      }
      throw exc;
    }
  }

  private static restore(secret: Uint8Array, state: ReadonlyMap<MapKey, Value>, randomBytes: RandomBytes,
    identity: Uint8Array): Session {
    const saved = readState(state);
    const drawn = new LoggedRandom(saved.log);
    restoring = true;
    let session: Session;
    try {
      session = new Session(saved.role, secret, saved.rules, drawn.draw, identity, saved.rematch);
    } finally {
      restoring = false;
    }
    for (const entry of saved.log) {
      if (entry[0] === "in") {
        session.deliver(entry[1] as Uint8Array);
      } else if (entry[0] === "act") {
        session.local("act", parseAction(entry[1] as string));
      } else if (entry[0] === "timeout") {
        session.timedOut();
      } else if (entry[0] === "abandon") {
        session.abandoned(entry[1] as number, entry[2] as number);
      } else if (entry[0] === "accept") {
        session.local("accept");
      } else if (entry[0] === "decline") {
        session.local("decline", null);
      } else if (entry[0] === "reject") {
        session.rejected(entry);
      }
    }
    drawn.checkAllUsed();
    const failure = readFailure(state.get("failure") ?? null);
    if (session.failed !== null && failure === null) {
      // A damaged log can make an honest peer's message look like a cheat.
      throw new CorruptState(`the saved moves do not replay (they would fail as '${session.failed.reason}')`);
    }
    session.randomBytes = randomBytes; // the new epoch is fresh, not replayed
    const restored = wire.SealedChannel.fromState(secret, saved.channel, session.fresh(wire.EPOCH_BYTES));
    checkChannel(restored, session.replayed, session.delivered);
    session.channel = restored;
    session.log = saved.log.map((entry) => [...entry]);
    session.muted = false;
    session.replayed = [];
    session.queuedEvents = [];
    session.outbox = restored.resend();
    const replayedFailure = session.failed === null ? null : failureEntry(session.failed);
    if (failure !== null && JSON.stringify(replayedFailure) !== JSON.stringify(failureEntry(failure))) {
      session.failed = failure; // else the replayed one, with its record
      session.flow.stage = Stage.FAILED;
    }
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

  /** Fresh randomness, logged: a restored session replays it. */
  private random(n: number): Uint8Array {
    const value = this.fresh(n).slice();
    this.log.push(["rand", value]);
    return value;
  }

  /** Pack and seal one message (protected: the tests' cheaters send through it). */
  protected send(msgType: string, fields: Fields, version = wire.PROTOCOL_VERSION): void {
    const message = wire.pack(msgType, new Map(fields), version);
    if (this.muted) this.replayed.push(message);
    else this.outbox.push(...this.channel.send(message));
  }

  private emit(event: SessionEvent): void {
    this.queuedEvents.push(event);
  }

  private local(action: table.LocalAction, arg: unknown = null): void {
    table.local(this.flow, action, arg);
    this.drain();
  }

  /** Send and report what the flow's handlers produced, its failure last. */
  private drain(): void {
    const out = this.flow.take();
    for (const [msgType, fields] of out.sends) this.send(msgType, fields);
    this.queuedEvents.push(...out.events);
    if (out.failure !== null) this.fail(out.failure);
  }

  private checkAlive(): void {
    const f = this.failed;
    if (f !== null) throw new PeerFault(`the session has failed: ${f.reason}`, f.who, f.field);
  }

  /** End the session; tell the peer why (unless it ended it), so it does not wait. */
  private fail(failure: Failure): void {
    this.failed = failure;
    this.flow.stage = Stage.FAILED;
    this.emit(failure as SessionEvent);
    const peer = SEATS[this.peer];
    if (failure.proven) this.emit(new MatchOver(this.seat, null, peer));
    if (failure instanceof PeerAborted || failure instanceof RulesDeclined) return; // the abort is sent already
    const why = failure instanceof PeerTimedOut ? "timeout" : failure instanceof Abandoned ? "abandoned"
      : failure instanceof FrameRejected ? "tampered"
        : failure instanceof CheatDetected ? "cheat" : "protocol";
    this.send("abort", [["why", why], ["field", clip(failure.field, MAX_FIELD_CHARS)],
      ["reason", clip(failure.reason, MAX_REASON_CHARS)]]);
  }

  /** A message of another protocol version: say who must update, here and there (§6.3). */
  private otherVersion(exc: wire.UnsupportedVersion): void {
    const [failure, abort] = versionMismatch(exc.version);
    this.failed = failure;
    this.flow.stage = Stage.FAILED;
    this.emit(failure);
    if (exc.msgType !== "abort") this.send("abort", abort, Math.min(exc.version, wire.PROTOCOL_VERSION));
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
    this.fail(silence.timedOut(this.flow));
  }

  private abandoned(since: number, now: number): void {
    this.fail(silence.abandoned(this.flow, since, now, this.delivered));
  }

  // -- internals: the message loop ---------------------------------------------------

  private deliver(plaintext: Uint8Array): void {
    this.delivered = [this.delivered[0] + 1, wire.chain(this.delivered[1], plaintext)];
    if (this.flow.finished) return; // the match is over: nothing more is owed (a late abort changes nothing)
    const peer = SEATS[this.peer];
    try {
      table.receive(this.flow, wire.unpack(plaintext));
    } catch (exc) {
      this.drain(); // what the handler produced before the fault goes first
      if (exc instanceof wire.UnsupportedVersion) this.otherVersion(exc);
      else if (exc instanceof wire.MalformedMessage) this.fail(new ProtocolError(peer, exc.field, exc.message));
      else if (exc instanceof ProtocolFault) this.fail(new ProtocolError(peer, exc.field, exc.message));
      else if (exc instanceof CheatFault) this.fail(new CheatDetected(peer, exc.field, exc.message, exc.evidence));
      else if (exc instanceof PeerFault) this.fail(new CheatDetected(peer, exc.field, exc.message));
      else throw exc;
      return;
    }
    this.drain();
  }
}

/**
 * The failure of meeting a peer of protocol `theirs`, and the `abort` that tells it, in
 * words for that peer (sent in its version when it is older: v2's abort has the same fields).
 */
export function versionMismatch(theirs: number): [VersionMismatch, Fields] {
  const ours = wire.PROTOCOL_VERSION;
  const [friend, you] = theirs < ours ? ["your friend", "you"] : ["you", "your friend"];
  return [new VersionMismatch("nobody", "v", `your friend's gin speaks protocol ${theirs}; this gin speaks ${ours}: `
    + `${friend} must update gin to play this match`),
  [["why", "protocol"], ["field", "v"], ["reason", `this gin speaks protocol ${ours}, yours speaks ${theirs}: `
    + `${you} must update gin to play this match`]]];
}

