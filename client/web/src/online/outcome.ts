/**
 * How an online match ended beyond the session's own failures: the failures the
 * connection and this browser add, and the words for a friend who left for good while
 * this side was away. The twin of client/net/outcome.py.
 */

import type { FailureView } from "./api.ts";

/** A failure this side found (the connection, the storage, the link), proven of nobody. */
export function failure(kind: string, who: string, field: string, reason: string): FailureView {
  return { kind, who, field, reason, proven: false };
}

/** Why a match cannot go on whose friend left for good while this side was away (the
 * terminal's words: client/net/outcome.py friend_left). */
export function friendLeftReason(role: "host" | "guest", owedMove: boolean): string {
  return `Your friend (the ${role === "host" ? "guest" : "host"}) left this match for good while you were away, `
    + "so it cannot go on" + (owedMove ? "; you owed your move, so once their grace ran out they may have ended "
    + "it as abandoned by you (their word, not a verdict)" : "") + ".";
}
