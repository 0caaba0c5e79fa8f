/**
 * The online peer's worker side: one sans-I/O session (src/protocol/session/session.ts),
 * driven by {@link WorkerRequest}s, answered with what to store, send and show.
 * Kept apart from worker.ts (which only wires it to `postMessage`) so node tests
 * run it with any session that has the same shape.
 */

import { parseAction, type Action } from "../engine/actions.ts";
import { GinError } from "../engine/errors.ts";
import type { HandResult, Observation } from "../engine/observation.ts";
import { Ruleset } from "../engine/rules.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { MapKey, Value } from "../protocol/wire/msgpack.ts";
import type { FailureView, Owed, PeerNotice, RecordView } from "./api.ts";
import type { IdentityData, Snapshot, WorkerReply, WorkerRequest } from "./messages.ts";
import { fingerprint } from "../protocol/records/identity.ts";
import type { PreviousMatch } from "../protocol/session/rematch.ts";
import { decodeState, encodeState } from "./state_codec.ts";

export type RandomBytes = (n: number) => Uint8Array;

/** A hand record: `toJson()` is exactly what `gin audit` reads. */
export interface RecordLike {
  readonly matchId: Uint8Array;
  readonly handNumber: number;
  toJson(): string;
}

/** A session's Failure has the view's fields (`proven` as a getter, lost in a structured clone). */
export type FailureLike = FailureView;

/** The session's events, by their `kind` (gin/protocol/session/events.py's class names). */
export type EventLike =
  | { readonly kind: "MatchStarted"; readonly firstDealer: number }
  | { readonly kind: "RulesOffered"; readonly rules: Ruleset }
  | { readonly kind: "HandDealt"; readonly handNumber: number; readonly dealer: number }
  | { readonly kind: "Moved"; readonly seat: number; readonly action: Action }
  | { readonly kind: "CardDrawn"; readonly card: { toString(): string } }
  | { readonly kind: "HandScored"; readonly handNumber: number; readonly scores: readonly [number, number] }
  | { readonly kind: "HandVerified"; readonly handNumber: number; readonly record: RecordLike }
  | { readonly kind: "MatchOver"; readonly winner: number; readonly forfeitedBy: string | null }
  | { readonly kind: "RematchDeclined"; readonly by: string; readonly reason: string }
  | (FailureLike & { readonly kind: "CheatDetected" | "Abandoned"; readonly record: RecordLike | null })
  | (FailureLike & { readonly kind: "ProtocolError" | "PeerTimedOut" | "FrameRejected" | "PeerAborted" | "ClaimedAbandoned" | "LeftOwing"
    | "VersionMismatch" | "RulesDeclined" });

/** What the worker needs of a session (src/protocol/session/session.ts's Session has it). */
export interface SessionLike {
  readonly role: "host" | "guest";
  readonly seat: number;
  readonly unacknowledged: number;
  readonly received: number;
  readonly failure: FailureLike | null;
  readonly over: boolean;
  /** The guest declined the rematch: the session ended normally, unplayed. */
  readonly declined: boolean;
  readonly rules: Ruleset | null;
  readonly rulesOffered: Ruleset | null;
  readonly handResults: readonly HandResult[];
  readonly rematch: PreviousMatch | null;
  readonly identity: Uint8Array;
  readonly matchId: Uint8Array | null;
  /** (the host's, the guest's) identities, once the handshake told them. */
  readonly identities: readonly [Uint8Array, Uint8Array] | null;
  dataToSend(): Uint8Array[];
  events(): EventLike[];
  resend(): Uint8Array[];
  poll(now: number): boolean;
  observation(): Observation | null;
  legalActions(): Action[];
  waitingFor(): Owed | null;
  receive(frame: Uint8Array): void;
  act(action: Action): void;
  acceptRules(): void;
  declineRules(reason?: string): void;
  abandon(since: number, now: number): void;
  toState(): Map<string, Value>;
  asPrevious(): PreviousMatch | null;
}

export interface SessionMaker {
  create(role: "host" | "guest", secret: Uint8Array, rules: Ruleset | null, randomBytes: RandomBytes,
    identity: Uint8Array, rematch?: PreviousMatch | null): SessionLike;
  restore(secret: Uint8Array, state: Map<MapKey, Value>, randomBytes: RandomBytes, identity: Uint8Array): SessionLike;
}

/** A record's file name: gin, the match id, the hand ("gin-3f9a…-hand-02.json"); `suffix`
 * "-failed" for a failed hand's evidence, "-abandoned" for an abandonment record. */
export function recordName(record: RecordLike, suffix = ""): string {
  return `gin-${bytesToHex(record.matchId)}-hand-${String(record.handNumber).padStart(2, "0")}${suffix}.json`;
}

const identityData = (key: Uint8Array): IdentityData => ({ hex: bytesToHex(key), words: fingerprint(key) });

export function failureView(failure: FailureLike): FailureView {
  return { kind: failure.kind, who: failure.who, field: failure.field, reason: failure.reason, proven: failure.proven };
}

export class PeerCore {
  private session: SessionLike | null = null;

  constructor(private readonly maker: SessionMaker, private readonly randomBytes: RandomBytes) {}

  handle(request: WorkerRequest): WorkerReply {
    const notices: PeerNotice[] = [];
    if (request.op === "start" || request.op === "restore") {
      try {
        this.session = request.op === "start"
          ? this.maker.create(request.role, request.secret,
            request.rules === null ? null : Ruleset.fromDict(request.rules), this.randomBytes, request.identity)
          : this.maker.restore(request.secret, decodeState(request.state), this.randomBytes, request.identity);
      } catch (exc) {
        if (!(exc instanceof GinError)) throw exc;
        const failure: FailureView = {
          kind: "LocalError", who: "this browser", field: request.op === "start" ? "rules" : "storage",
          reason: request.op === "start" ? exc.message
            : `the match kept in this browser cannot be continued: ${exc.message}`,
          proven: false,
        };
        return { frames: [], state: null, notices: [{ kind: "failed", failure }], records: [], snapshot: null };
      }
      return this.output(this.session.dataToSend(), notices, true);
    }
    const session = this.session;
    if (session === null) throw new Error(`"${request.op}" before the session was made`);
    if (request.op === "rematch") {
      // The next match continues this one (protocol.md §7.1), on the rules just played.
      const previous = session.asPrevious();
      if (previous === null) {
        notices.push({ kind: "notice", text: "No rematch: the match has not ended normally" });
        return this.output([], notices, false);
      }
      this.session = this.maker.create(session.role, request.secret, session.rules, this.randomBytes,
        request.identity, previous);
      return this.output(this.session.dataToSend(), notices, true);
    }
    // Re-sent frames are the kept messages again: the last save covers them.
    if (request.op === "resend") return this.output(session.resend(), notices, false, false);
    if (request.op === "poll") {
      if (session.failure !== null || !session.poll(request.now)) return this.output([], notices, false);
      return this.output(session.dataToSend(), notices, false);
    }
    try {
      switch (request.op) {
        case "receive":
          // After a normal end frames still count: the peer may ask for our last
          // messages again. After a failure nothing more is taken.
          if (session.failure === null) session.receive(request.frame);
          break;
        case "act": session.act(parseAction(request.action)); break;
        case "accept": session.acceptRules(); break;
        case "decline": session.declineRules(); break;
        case "abandon": session.abandon(request.since, request.now); break;
      }
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      notices.push({ kind: "notice", text: exc.message }); // refused: nothing changed
    }
    return this.output(session.dataToSend(), notices, false);
  }

  /** Turn what the session queued into a reply; the state goes along when anything happened. */
  private output(frames: Uint8Array[], notices: PeerNotice[], always: boolean, framesChange = true): WorkerReply {
    const session = this.session!;
    const events = session.events();
    const records: RecordView[] = [];
    for (const event of events) this.translate(event, notices, records);
    const changed = always || (framesChange && frames.length > 0) || events.length > 0;
    return {
      frames,
      state: changed ? encodeState(session.toState()) : null,
      notices,
      records,
      snapshot: this.snapshot(session),
    };
  }

  private translate(event: EventLike, notices: PeerNotice[], records: RecordView[]): void {
    switch (event.kind) {
      case "MatchStarted": notices.push({ kind: "match-started", firstDealer: event.firstDealer }); break;
      case "RulesOffered": notices.push({ kind: "rules-offered", rules: event.rules.toDict() }); break;
      case "HandDealt":
        notices.push({ kind: "hand-dealt", hand: event.handNumber, dealer: event.dealer });
        break;
      case "Moved": notices.push({ kind: "moved", seat: event.seat, action: event.action.toString() }); break;
      case "CardDrawn": notices.push({ kind: "card-drawn", card: event.card.toString() }); break;
      case "HandScored":
        notices.push({ kind: "hand-scored", hand: event.handNumber, scores: [event.scores[0], event.scores[1]] });
        break;
      case "HandVerified":
        records.push({ hand: event.handNumber, name: recordName(event.record), json: event.record.toJson(), failed: false });
        notices.push({ kind: "hand-verified", hand: event.handNumber });
        break;
      case "MatchOver": notices.push({ kind: "match-over", winner: event.winner, forfeitBy: event.forfeitedBy }); break;
      case "RematchDeclined": break; // the snapshot says it (declined): a normal end, no failure
      default:
        // The hand-end audit's evidence, or the signed word that the friend fell silent:
        // kept like a verified hand's record (gin saves it too).
        if ((event.kind === "CheatDetected" || event.kind === "Abandoned") && event.record !== null) {
          const record = event.record;
          const failed = event.kind === "CheatDetected";
          records.push({ hand: record.handNumber, name: recordName(record, failed ? "-failed" : "-abandoned"),
            json: record.toJson(), failed, ...(failed ? {} : { abandoned: true }) });
        }
        notices.push({ kind: "failed", failure: failureView(event) });
    }
  }

  private snapshot(session: SessionLike): Snapshot {
    const observation = session.observation();
    // The observation's scores are the match's: they count a hand as soon as it is scored.
    const scores = observation === null ? [0, 0] : [observation.scores[0], observation.scores[1]];
    return {
      role: session.role,
      seat: session.seat,
      rules: session.rules?.toDict() ?? null,
      rulesOffered: session.rulesOffered?.toDict() ?? null,
      observation: observation?.toDict() ?? null,
      legal: session.legalActions().map((action) => action.toString()),
      waitingFor: session.waitingFor(),
      scores: [scores[0], scores[1]],
      results: session.handResults.map((result) => result.toDict()),
      over: session.over,
      declined: session.declined,
      failure: session.failure === null ? null : failureView(session.failure),
      unacknowledged: session.unacknowledged,
      rematch: session.rematch !== null,
      rematchable: session.asPrevious() !== null,
      received: session.received,
      identities: { mine: identityData(session.identity),
        friend: session.identities === null ? null : identityData(session.identities[1 - session.seat]!),
        match: session.matchId === null ? null : bytesToHex(session.matchId) },
    };
  }
}
