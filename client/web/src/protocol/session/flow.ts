/**
 * The match as one peer of an online session plays it (the game half of the session;
 * the twin of gin/protocol/session/flow.py): its {@link Stage} and the state the
 * stage's handlers read and change.
 *
 * The handlers (session_start.ts, session_deal.ts, session_moves.ts) take a
 * {@link MatchFlow} and the input, put what to send and what to report in its
 * {@link Output}, and return the next stage; which of them runs in which stage is
 * session_table.ts's table. A message that breaks the protocol throws a
 * {@link ProtocolFault}, one that cheats a {@link CheatFault}; the session turns them
 * into failures.
 */

import type { Action } from "../../engine/actions.ts";
import type { Card } from "../../engine/cards.ts";
import { GinError, PeerFault } from "../../engine/errors.ts";
import type { Hand } from "../../engine/hand.ts";
import type { Match } from "../../engine/match.ts";
import type { HandResult, Observation } from "../../engine/observation.ts";
import type { Ruleset } from "../../engine/rules.ts";
import type { DealEvidence } from "../records/evidence.ts";
import * as fd from "../deal/fairdeal.ts";
import type { Identity } from "../records/identity.ts";
import type { MessageType, Owed } from "../wire/messages.ts";
import type { Value } from "../wire/msgpack.ts";
import { HandRecord, Score } from "../records/records.ts";
import { type Failure, Moved, type SessionEvent } from "./events.ts";
import type { HandState } from "./hand.ts";
import type { MatchKeys } from "./handshake.ts";
import { PreviousMatch } from "./rematch.ts";
import type * as wire from "../wire/channel.ts";

export const SEATS = ["host", "guest"] as const;
export type SessionRole = (typeof SEATS)[number];
export const MAX_ACTION_CHARS = 256;
export const MAX_REASON_CHARS = 400;
export const MAX_FIELD_CHARS = 64;
export const HAND_KEYS = 11; // ten dealt cards and the upcard

/** Where one peer's match is: what the peer owes, or what the local player decides. */
export const Stage = {
  NEW: "new", // nothing sent yet
  HELLO: "hello", // the guest awaits the host's hello
  WELCOME: "welcome", // the host awaits the guest's welcome
  RULES: "rules", // the guest's player decides on the offered rules or rematch
  START: "start", // the guest awaits the host's start
  COMMIT: "commit", // a hand begins: the peer's commitment is owed
  DECK: "deck", // a deck message is owed (§7.2)
  DEAL: "deal", // the peer's keys of the deal are owed
  PLAY: "play", // the local player's move
  MOVE: "move", // the peer's move
  KEY: "key", // the key of the card we drew from the stock
  SHOW: "show", // the peer's cards, shown after our knock
  SEED: "seed", // the hand is over: the peer's seed and signature
  OVER: "over", // the match ended normally
  FAILED: "failed", // the match ended by a failure
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];

/** What the peer owes in each stage (§7), or null: the local player's turn, or the end. */
export const OWES: Readonly<Record<Stage, Owed | null>> = {
  new: null, hello: "hello", welcome: "welcome", rules: null, start: "start", commit: "commit", deck: "deck",
  deal: "deal", play: null, move: "move", key: "key", show: "show", seed: "seed", over: null, failed: null,
};

/** The peer's message is malformed or out of turn. */
export class ProtocolFault extends PeerFault {}
/** The peer's message is well formed but breaks the rules or the fair deal; `evidence`,
 * when the peer signed what proves it (a refused message 2). */
export class CheatFault extends PeerFault {
  constructor(message: string, who: string, field: string, readonly evidence: DealEvidence | null = null) {
    super(message, who, field);
  }
}

/** A message's fields, in the order they are packed. */
export type Fields = [string, Value][];

/** What the handlers of one input produced: messages to send, in order, events for the
 * interface, and the failure that ends the match, if any (reported last). */
export class Output {
  readonly sends: [MessageType, Fields][] = [];
  readonly events: SessionEvent[] = [];
  failure: Failure | null = null;
}

/** One peer's match: its stage, its keys, the engine's match and the hand's fair-deal
 * state. `random(n)` draws fresh randomness (logged by the session: a restored session
 * replays it); `unacknowledged()` counts our messages the peer has not acknowledged (a
 * claim that we fell silent can be a lost frame's doing while it is not 0). */
export class MatchFlow {
  readonly seat: number;
  readonly peer: number;
  agreed: Ruleset | null;
  offered: Ruleset | null = null; // custom rules awaiting the local player
  declined = false; // a rematch the guest declined: a normal end (RematchDeclined)
  keys: MatchKeys | null = null; // drawn by begin
  stage: Stage = Stage.NEW;
  out = new Output();
  nonce: Uint8Array | null = null;
  peerCoin: Uint8Array | null = null;
  match: Match | null = null;
  hand: HandState | null = null;

  constructor(readonly role: SessionRole, readonly linkId: Uint8Array, readonly proposed: Ruleset | null,
    readonly identity: Identity, readonly random: (n: number) => Uint8Array,
    readonly unacknowledged: () => number, readonly rematch: PreviousMatch | null = null) {
    this.seat = SEATS.indexOf(role);
    this.peer = 1 - this.seat;
    this.agreed = proposed;
  }

  /** What the handlers produced since the last call; emptied. */
  take(): Output {
    const out = this.out;
    this.out = new Output();
    return out;
  }

  send(msgType: MessageType, fields: Fields): void {
    this.out.sends.push([msgType, fields]);
  }

  emit(event: SessionEvent): void {
    this.out.events.push(event);
  }

  /** End the match with `failure` (the session tells the peer): the next stage. */
  fail(failure: Failure): Stage {
    this.out.failure = failure;
    return Stage.FAILED;
  }

  /** The match id, once both sides' keys are known. */
  get matchId(): Uint8Array | null {
    return this.keys?.matchId ?? null;
  }

  /** Finished normally or by a failure. */
  get over(): boolean {
    return this.stage === Stage.OVER || this.stage === Stage.FAILED;
  }

  /** Finished normally. */
  get finished(): boolean {
    return this.stage === Stage.OVER;
  }

  /** What the local player sees, or null before the first deal. */
  observation(): Observation | null {
    if (this.match === null || this.match.hand === null) return null;
    return this.match.observation(this.seat);
  }

  /** Every finished hand of the match, in order. */
  results(): readonly HandResult[] {
    return this.match === null ? [] : this.match.results;
  }

  /** What a rematch of this match needs, once it has ended normally (§7.1). */
  asPrevious(): PreviousMatch | null {
    const totals = this.match === null || !this.finished ? null : this.match.totals;
    return totals === null ? null : new PreviousMatch(this.matchId!, 1 - totals.winner);
  }

  /** The engine's hand in play. */
  engine(): Hand {
    return this.match!.hand!;
  }

  /** The fair-deal state of the hand in play. */
  state(): HandState {
    return this.hand!;
  }

  /** After a move: the hand's end, the peer's move or ours. */
  turn(): Stage {
    const hand = this.engine();
    if (hand.result !== null) return Stage.SEED;
    return hand.turn === this.peer ? Stage.MOVE : Stage.PLAY;
  }

  /** The deck position of a card whose place is known. */
  positionOf(card: Card): number {
    const hand = this.engine();
    for (let p = 0; p < fd.DECK_SIZE; p++) if (hand.cardAt(p) === card) return p;
    throw new GinError(`${card} is at no known position`);
  }

  // -- what the handlers share -------------------------------------------------------------

  /** Schema of a hand message: only `h` and `names`, and `h` the hand in play. */
  handFields(msg: wire.Message, ...names: string[]): void {
    msg.only("h", ...names);
    const number = msg.integer("h", 0, fd.MAX_HAND_NUMBER);
    const hs = this.state();
    if (number !== hs.number) {
      throw this.protocol(`${msg.type}: hand ${number}, but hand ${hs.number} is in play`, `${msg.type}.h`);
    }
  }

  protocol(message: string, field: string): ProtocolFault {
    return new ProtocolFault(message, SEATS[this.peer], field);
  }

  cheat(message: string, field: string, evidence: DealEvidence | null = null): CheatFault {
    return new CheatFault(message, SEATS[this.peer], field, evidence);
  }

  /** Play `action` for `seat` in the engine and tell the interface. */
  apply(seat: number, action: Action): void {
    this.match!.apply(seat, action);
    this.emit(new Moved(seat, action));
  }

  /** The hand in play as its record. Before the peer's seed arrives the record is only
   * signed: its digest leaves the seeds out (their commitments bind them). */
  record(): HandRecord {
    const hs = this.state();
    const hand = this.engine();
    const [m1, m2, m3] = hs.messages;
    const theirs = hs.theirSeed ?? new Uint8Array(fd.SEED_BYTES);
    const seeds: [Uint8Array, Uint8Array] = hs.role === "first" ? [hs.mine.seed, theirs] : [theirs, hs.mine.seed];
    return new HandRecord({
      rules: this.match!.rules,
      matchId: this.matchId!,
      handNumber: hs.number,
      dealer: hs.dealer,
      commitments: [hs.commits.get("first")!, hs.commits.get("second")!],
      messages: [m1!, m2!, m3!],
      proof: hs.proof!,
      steps: [...hs.steps],
      seeds,
      score: Score.of(hand.result!),
      scores: [this.match!.scores[0], this.match!.scores[1]],
      ...this.keys!.binding(),
    });
  }
}

/** A ruleset as a message (or a saved session) carries it: its fields, in gin's order. */
export function rulesValue(rules: Ruleset): Map<string, Value> {
  return new Map(Object.entries(rules.toDict()));
}
