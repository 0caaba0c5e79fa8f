/**
 * What an online session tells its interface: events, and the ways a session
 * ends (the twin of gin/protocol/session/events.py).
 *
 * A session that stops emits one {@link Failure}. Its class says how much is
 * known, because only a proven fault may cost a player the match:
 *
 * - {@link CheatDetected} and {@link ProtocolError}: an authentic message of the
 *   peer (which only the peer can make) breaks the rules, the fair deal or the
 *   protocol: proven, and the peer forfeits (`proven` is true);
 * - {@link Unresolved}: something did not arrive in time ({@link PeerTimedOut})
 *   or a frame failed authentication ({@link FrameRejected}): the peer or the
 *   relay may have caused it, nobody forfeits, `who` names both;
 * - {@link Abandoned}: the local player ended the match because the peer stayed
 *   silent while it owed something: not a cheat, no forfeit; `record` is the local
 *   player's signed word of it (abandonment.ts); the peer, told so, ends with
 *   {@link ClaimedAbandoned}, a {@link PeerAborted};
 * - {@link PeerAborted}: the peer stopped and said why; what it said is shown as
 *   its claim, never as a verdict;
 * - {@link VersionMismatch}: the peer's gin speaks another protocol version: nobody
 *   is at fault, and the reason says which side must update.
 *
 * Every event has `kind`, its gin/ class name, so a switch on it is exhaustive.
 */

import type { Action } from "../../engine/actions.ts";
import type { Card } from "../../engine/cards.ts";
import type { HandResult } from "../../engine/observation.ts";
import type { Ruleset } from "../../engine/rules.ts";
import type { MatchTotals } from "../../engine/scoring.ts";
import type { AbandonmentRecord } from "../records/abandonment.ts";
import type { DealEvidence } from "../records/evidence.ts";
import type { HandRecord } from "../records/records.ts";

export class MatchStarted {
  readonly kind = "MatchStarted";
  /** `seat`: the local player's (0 host, 1 guest). */
  constructor(readonly rules: Ruleset, readonly seat: number, readonly firstDealer: number,
    readonly matchId: Uint8Array) {}
}

/** The host proposes custom rules (not a preset); the guest plays them only once its player accepts. */
export class RulesOffered {
  readonly kind = "RulesOffered";
  /** `rematch`: the `hello` continues the guest's last match on this link (§7.1). */
  constructor(readonly rules: Ruleset, readonly rematch = false) {}
}

export class HandDealt {
  readonly kind = "HandDealt";
  /** `cards`: the local player's ten cards. */
  constructor(readonly handNumber: number, readonly dealer: number, readonly cards: readonly Card[],
    readonly upcard: Card) {}
}

/** A move applied to the hand, by either seat (the knock once both have shown). */
export class Moved {
  readonly kind = "Moved";
  constructor(readonly seat: number, readonly action: Action) {}
}

/** The local player's stock draw, now opened. */
export class CardDrawn {
  readonly kind = "CardDrawn";
  constructor(readonly card: Card) {}
}

/** The hand is over in the engine; it is verified when both seeds are in. */
export class HandScored {
  readonly kind = "HandScored";
  constructor(readonly handNumber: number, readonly result: HandResult, readonly scores: readonly [number, number]) {}
}

/** The hand audited clean and both sides signed it. `record` is to be saved. */
export class HandVerified {
  readonly kind = "HandVerified";
  constructor(readonly handNumber: number, readonly record: HandRecord) {}
}

/** The match ended: by reaching the target (`totals`) or by a proven forfeit. */
export class MatchOver {
  readonly kind = "MatchOver";
  /** `forfeitedBy`: "host" or "guest" when the match was forfeited. */
  constructor(readonly winner: number, readonly totals: MatchTotals | null, readonly forfeitedBy: string | null) {}
}

/** The guest declined the host's offer of a rematch (§7.1): the series on this link ends here,
 * normally. Not a failure: nobody is at fault and nothing is forfeited. `reason`: the guest's words
 * ("you declined the rematch" on its side). */
export class RematchDeclined {
  readonly kind = "RematchDeclined";
  constructor(readonly by: string, readonly reason: string) {}
}

export type FailureKind =
  | "CheatDetected" | "ProtocolError" | "PeerTimedOut" | "FrameRejected" | "Abandoned" | "PeerAborted"
  | "ClaimedAbandoned" | "LeftOwing" | "VersionMismatch" | "RulesDeclined";

/**
 * The session stopped. `field` names what failed, `reason` says it in words.
 * `who`: for a proven fault the side at fault ("host" or "guest"); for an
 * unresolved one both possible causes ("guest or the relay"); for an abort the
 * side that ended the match.
 */
export abstract class Failure {
  abstract readonly kind: FailureKind;
  constructor(readonly who: string, readonly field: string, readonly reason: string) {}

  /** True: `who` is proven at fault and forfeits. */
  get proven(): boolean {
    return false;
  }
}

/**
 * The peer broke the rules or the fair deal, or refused to reveal its seed.
 * `record` is the evidence, when there is some anyone can check: the hand's record
 * when the hand-end audit found it, or the signed message 2 whose proof failed.
 */
export class CheatDetected extends Failure {
  readonly kind = "CheatDetected";
  constructor(who: string, field: string, reason: string, readonly record: HandRecord | DealEvidence | null = null) {
    super(who, field, reason);
  }

  override get proven(): boolean {
    return true;
  }
}

/** An authentic message of the peer that is malformed or not owed now. */
export class ProtocolError extends Failure {
  readonly kind = "ProtocolError";
  override get proven(): boolean {
    return true;
  }
}

/** A fault the peer or the relay may have caused: no forfeit, no cheat verdict. */
export abstract class Unresolved extends Failure {}

/** What the peer owed did not arrive in time: not sent, or not delivered. */
export class PeerTimedOut extends Unresolved {
  readonly kind = "PeerTimedOut";
}

/** A frame failed authentication or framing: altered by the relay, or sent bad. */
export class FrameRejected extends Unresolved {
  readonly kind = "FrameRejected";
}

/**
 * The local player ended the match: the peer (`who`) owed `field` and stayed silent past
 * the grace period. Silence is not a verdict: no forfeit, no cheat. `record` is the signed
 * abandonment record to keep, null when the handshake had not yet made a match id.
 */
export class Abandoned extends Failure {
  readonly kind = "Abandoned";
  constructor(who: string, field: string, reason: string, readonly record: AbandonmentRecord | null = null) {
    super(who, field, reason);
  }
}

/** The peer ended the match; `reason` quotes what it said, never as a verdict. */
export class PeerAborted extends Failure {
  readonly kind: "PeerAborted" | "ClaimedAbandoned" | "LeftOwing" = "PeerAborted";
}

/** The peer ended the match as abandoned by this side (an `abort` of kind `abandoned`): this
 * side was silent past the peer's grace. The peer's claim, quoted; no forfeit. */
export class ClaimedAbandoned extends PeerAborted {
  override readonly kind = "ClaimedAbandoned" as const;
}

/** The peer ended the match as abandoned by this side while it was the peer that owed the
 * next message (`field` names it): its claim does not hold against this side's own state, so
 * the peer left the match. Counted as abandoned by the peer; nothing is proven. */
export class LeftOwing extends PeerAborted {
  override readonly kind = "LeftOwing" as const;
}

/** A message of another protocol version arrived: the two gins cannot play each other.
 * `who` is "nobody"; `reason` says which side must update. */
export class VersionMismatch extends Failure {
  readonly kind = "VersionMismatch";
}

/** The local player declined the host's custom rules: the match never began. */
export class RulesDeclined extends Failure {
  readonly kind = "RulesDeclined";
}

export type SessionEvent =
  | MatchStarted | RulesOffered | HandDealt | Moved | CardDrawn | HandScored | HandVerified | MatchOver
  | RematchDeclined | CheatDetected | ProtocolError | PeerTimedOut | FrameRejected | Abandoned | PeerAborted
  | ClaimedAbandoned | LeftOwing | VersionMismatch | RulesDeclined;

/** Each failure class by its name (what a saved session stores). */
export const FAILURES: ReadonlyMap<string, new (who: string, field: string, reason: string) => Failure> = new Map<
  string, new (who: string, field: string, reason: string) => Failure>([
  ["CheatDetected", CheatDetected],
  ["ProtocolError", ProtocolError],
  ["PeerTimedOut", PeerTimedOut],
  ["FrameRejected", FrameRejected],
  ["Abandoned", Abandoned],
  ["PeerAborted", PeerAborted],
  ["ClaimedAbandoned", ClaimedAbandoned],
  ["LeftOwing", LeftOwing],
  ["VersionMismatch", VersionMismatch],
  ["RulesDeclined", RulesDeclined],
]);

/** What an `abort` from the `peer` ends the match as, given what the peer `owed` (`waitingFor`)
 * and whether it had acknowledged every message of ours. */
export function abortFailure(peer: string, owed: string | null, why: string, field: string, reason: string,
  allAcknowledged: boolean): Failure {
  if (owed === "seed" && why !== "tampered") {
    return new CheatDetected(peer, "seed", `the ${peer} refused to reveal its seed (a failed audit); it said: ${reason}`);
  }
  if (why === "abandoned" && owed !== null && allAcknowledged) {
    // The claimant itself owed the next message and had every one of ours: this side was not the silent one.
    return new LeftOwing(peer, owed, `the ${peer} left the match while the next message was its own (${owed}); `
      + `it claimed you had gone silent, saying: ${reason}`);
  }
  const kind = why === "abandoned" ? ClaimedAbandoned : PeerAborted;
  return new kind(peer, field, `the ${peer} ended the match (${why}), saying: ${reason}`);
}
