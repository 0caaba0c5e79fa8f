/**
 * What the page and the online peer's worker say to each other (plain data, by
 * structured clone). The page sends one {@link WorkerRequest} per input; the worker
 * answers each with one {@link WorkerReply}, in order.
 */

import type { PeerNotice, PeerView, RecordView, RulesData } from "./api.ts";

export type WorkerRequest =
  | { readonly op: "start"; readonly role: "host" | "guest"; readonly secret: Uint8Array; readonly rules: RulesData | null;
      readonly identity: Uint8Array }
  | { readonly op: "restore"; readonly secret: Uint8Array; readonly state: string; readonly identity: Uint8Array }
  | { readonly op: "receive"; readonly frame: Uint8Array }
  | { readonly op: "act"; readonly action: string }
  | { readonly op: "accept" }
  | { readonly op: "rematch"; readonly secret: Uint8Array; readonly identity: Uint8Array } // the next match on the link
  | { readonly op: "decline" }
  | { readonly op: "poll"; readonly now: number } // seconds, any fixed origin
  | { readonly op: "abandon"; readonly since: number; readonly now: number } // UTC seconds: end it as abandoned
  | { readonly op: "resend" }; // after a reconnect, or the peer (re)joined

/** Audit files together, as gin audit does (the board's "Check records" window, in
 * a worker of its own): the one reply is audit_report.ts's ReportData. */
export interface AuditRequest {
  readonly op: "audit";
  readonly files: readonly { readonly name: string; readonly file: Blob }[];
}

/** The session as the page shows it: the view's session part, and what the timers need. */
export type Snapshot = Pick<PeerView, "role" | "seat" | "rules" | "rulesOffered" | "observation" | "legal"
  | "waitingFor" | "scores" | "results" | "over" | "failure" | "rematch" | "declined"> & {
  readonly unacknowledged: number;
  /** The match ended normally: a rematch may follow. */
  readonly rematchable: boolean;
  /** Messages delivered from the peer so far: a new one restarts the timer on what it owes. */
  readonly received: number;
  /** This seat's identity and, once the handshake told it, the friend's (hex and words). */
  readonly identities: { readonly mine: IdentityData; readonly friend: IdentityData | null;
    readonly match: string | null };
};

/** An identity public key as the page shows it. */
export interface IdentityData {
  readonly hex: string;
  readonly words: string;
}

export interface WorkerReply {
  /** Frames to send, only after `state` is stored (write-ahead, protocol.md §5.4). */
  readonly frames: readonly Uint8Array[];
  /** The session's state when this input changed it (else null): store it before sending. */
  readonly state: string | null;
  readonly notices: readonly PeerNotice[];
  /** Records of hands verified by this input. */
  readonly records: readonly RecordView[];
  /** null only when no session could be made (see the "failed" notice). */
  readonly snapshot: Snapshot | null;
}
