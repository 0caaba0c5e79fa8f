/**
 * The contract between the board (main thread) and the online peer.
 *
 * The online peer is a full peer of protocol.md: the sans-I/O session
 * (src/protocol/session/session.ts) runs in a Web Worker so the page never freezes while
 * the deck is shuffled and checked; a thin main-thread part holds the relay's
 * websocket, the timers and the browser's storage (write-ahead: the session's
 * state is stored before the frames it produced are sent). The board only presents
 * what a {@link PeerView} says and calls the {@link OnlinePeer} methods; it never
 * touches the session, the relay or the storage itself.
 *
 * Everything here is plain data (it crosses the worker boundary by structured
 * clone): cards and actions as their text forms, the observation as
 * `Observation.toDict()` (rebuilt with `Observation.fromDict`), rules as
 * `Ruleset.toDict()` (rebuilt with `Ruleset.fromDict`).
 */

import type { HandResultData } from "../engine/observation.ts";
import type { Owed } from "../protocol/wire/messages.ts";

export type { Owed } from "../protocol/wire/messages.ts";

/** `Observation.toDict()`: gin's field names, cards as text. */
export type ObservationData = Record<string, unknown>;
/** `Ruleset.toDict()`: gin's field names. */
export type RulesData = Record<string, string | number | boolean | null>;

/** How the link to the peer stands, as the board shows it. */
export type Connection =
  | "connecting" // opening the relay's websocket
  | "waiting" // in the room, the friend has not come (yet, or back)
  | "connected" // both in the room, frames flowing
  | "reconnecting" // the relay's connection dropped; trying again with back-off
  | "peer-left" // the relay says the friend's connection closed; it keeps their seat for them
  | "peer-gone" // the relay gave the friend's seat up (they left); waiting in case they come back
  | "closed"; // the match ended or was given up; nothing more is sent

/** A failure as the session states it (gin/protocol/session/events.py's Failure kinds). */
export interface FailureView {
  /** "CheatDetected" | "ProtocolError" | "PeerTimedOut" | "FrameRejected" | "Abandoned" (this side ended it: the
   * friend fell silent) | "PeerAborted" | "ClaimedAbandoned" (the friend ended it so) | "LeftOwing" (the friend said so
   * while it owed the next message itself: it left) | "VersionMismatch"
   * | "RulesDeclined" | "LocalError" | "ConnectionFailed"
   * | "OpenedElsewhere" (another tab or window of this browser took the match over)
   * | "SeatTaken" (someone else holds this seat: the link was used already). */
  readonly kind: string;
  /** Who is at fault, as proven: "host", "guest", "host or the relay", "guest or the relay", "the relay",
   * "this browser", or "nobody"; "" when no fault is named (a used link). */
  readonly who: string;
  /** The protocol field that failed (for example "deal.keys", "seed"). */
  readonly field: string;
  /** Plain text for the player: never markup. */
  readonly reason: string;
  /** True when the fault is proven (a cheat or a protocol breach): the match is forfeited. */
  readonly proven: boolean;
}

/** One verified hand (or the evidence of one that failed): its record in exactly the
 * format `gin audit` reads. */
export interface RecordView {
  readonly hand: number;
  /** The record's file name, for example "gin-3f9a…-hand-02.json". */
  readonly name: string;
  /** The record's JSON text (gin/protocol/records/records.py's HandRecord.to_json). */
  readonly json: string;
  /** The evidence of a hand that failed its hand-end audit (named …-failed.json, as the
   * terminal saves it): `gin audit` shows what failed and who is at fault. */
  readonly failed: boolean;
  /** An abandonment record (…-abandoned.json): this side's signed word that the friend fell silent. */
  readonly abandoned?: boolean;
}

/** Something that happened, in order, for messages and animations. */
export type PeerNotice =
  | { readonly kind: "match-started"; readonly firstDealer: number }
  | { readonly kind: "rules-offered"; readonly rules: RulesData }
  | { readonly kind: "hand-dealt"; readonly hand: number; readonly dealer: number }
  | { readonly kind: "moved"; readonly seat: number; readonly action: string }
  | { readonly kind: "card-drawn"; readonly card: string }
  | { readonly kind: "hand-scored"; readonly hand: number; readonly scores: readonly [number, number] }
  | { readonly kind: "hand-verified"; readonly hand: number } // the whole deck checked against the commitments
  | { readonly kind: "match-over"; readonly winner: number; readonly forfeitBy: string | null }
  | { readonly kind: "failed"; readonly failure: FailureView }
  // The friend has owed `owed` since `since` (UTC seconds) past its grace: keepWaiting or abandon.
  | { readonly kind: "grace-over"; readonly owed: Owed; readonly since: number }
  | { readonly kind: "notice"; readonly text: string }; // plain text (storage full, relay said …)

/** Everything the board needs to draw the online match now. */
export interface PeerView {
  readonly role: "host" | "guest";
  /** This browser's seat: 0 host, 1 guest. */
  readonly seat: number;
  readonly connection: Connection;
  /** The invite link (host only; null for a guest): http[s]://RELAY/j/ROOM#SECRET, or
   * http[s]://BOARD?relay=RELAY&room=ROOM#SECRET for a board of another origin. */
  readonly link: string | null;
  /** The agreed rules (null until the guest has them). */
  readonly rules: RulesData | null;
  /** Custom rules the host proposes, awaiting this (guest) player's answer. */
  readonly rulesOffered: RulesData | null;
  /** What this seat sees; null before the first deal. */
  readonly observation: ObservationData | null;
  /** The legal actions now, as action texts; empty unless it is this seat's move. */
  readonly legal: readonly string[];
  /** The message the peer owes now ("move", "deck", "seed", …) or null. */
  readonly waitingFor: Owed | null;
  /** Match scores so far, by seat. */
  readonly scores: readonly [number, number];
  /** Every finished hand of the match, in order (the score sheet's source). */
  readonly results: readonly HandResultData[];
  /** Hands whose whole deck was verified at hand end. */
  readonly verified: readonly number[];
  readonly records: readonly RecordView[];
  readonly over: boolean;
  /** The guest declined the host's rematch offer: the series on this link ended there, a normal end
   * (over, no failure, nobody at fault). */
  readonly declined?: boolean;
  readonly failure: FailureView | null;
  /** While the friend's grace is over (protocol.md §11.3): what it owes, since when (UTC
   * seconds); the board asks its player to keep waiting or end the match as abandoned. */
  readonly graceOver?: { readonly owed: Owed; readonly since: number } | null;
  /** The player kept waiting past the friend's grace and the friend still owes the same:
   * {@link OnlinePeer.abandon} may end the match now, without waiting out another grace. */
  readonly mayAbandon?: boolean;
  /** Who plays: both identities' fingerprints (protocol.md §4), once known. */
  readonly identity: IdentityView;
  /** This match is a rematch on the link (protocol.md §7.1): an offer is the friend's rematch. */
  readonly rematch: boolean;
  /** The local player asked for a rematch: it starts (host) or is accepted (guest) once both are ready. */
  readonly rematchWanted: boolean;
  /** Matches finished normally in this page (`document.body.dataset.matches`). */
  readonly matches: number;
}

/** This player's identity and the friend's, as five words each (null until known). */
export interface IdentityView {
  readonly mine: string | null;
  readonly friend: string | null;
  /** How the friend stands: new, known, or an identity that changed on this link. */
  readonly friendText: string | null;
  /** The friend's identity on this link is not the one it showed before. */
  readonly changed: boolean;
}

/** The board's handle on one online match. */
export interface OnlinePeer {
  /** Called with the new view and what happened since the last call; at once with the current view. */
  subscribe(listener: (view: PeerView, notices: readonly PeerNotice[]) => void): void;
  /** Play an action (its text form). An illegal one is refused with a "notice", nothing changes. */
  act(action: string): void;
  acceptRules(): void;
  declineRules(): void;
  /** After a "grace-over": give the friend another grace period. */
  keepWaiting(): void;
  /** After a "grace-over" (or while `mayAbandon`): end the match as abandoned by the friend
   * (a signed record is kept). */
  abandon(): void;
  /** After a match that ended normally, play another on the same link (protocol.md §7.1):
   * the host offers it, a guest accepts the friend's offer (at once if it comes later). */
  rematch(): void;
  /** Leave for good: tells the peer, closes the connection, forgets the stored match. */
  leave(): void;
}

/** An online match kept in this browser's storage, to continue after a reload. */
export interface StoredMatch {
  readonly role: "host" | "guest";
  /**
   * The invite link of the match without its secret (`http[s]://RELAY/j/ROOM`):
   * the secret is never stored, so `join` needs the whole link (the page's own
   * address, after a reload, or the link the friend sent) to continue it.
   */
  readonly link: string;
  /** When its state was last stored (ms since 1970). */
  readonly savedAt: number;
}

/** Where the board gets an {@link OnlinePeer} (src/online/lobby.ts makes one of peer.ts). */
export interface Online {
  /** Open a room on this page's relay and wait there for the friend; the friend's link
   * opens `board` (null: the relay's own page; absent: this page's board). */
  host(rules: RulesData, board?: string | null): OnlinePeer;
  /** Join (or, when this browser keeps that match, resume) the match of an invite link. */
  join(link: string): OnlinePeer;
  /** The online matches this browser keeps, newest first. */
  stored(): readonly StoredMatch[];
  /** Drop a kept match (its {@link StoredMatch.link}) whose invite link is lost: its
   * state and records leave this browser, and it is no longer offered. */
  forget(link: string): void;
}
