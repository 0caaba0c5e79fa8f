/**
 * Rematches on one invite link (protocol.md §7.1) as the page's peer decides them: when
 * the next session is built after a match that ended normally, and what is owed meanwhile
 * (the twin of client/net/rematch.py).
 */

import type { Snapshot } from "./messages.ts";

/**
 * The next session is to be built now: the match ended normally and the friend has all
 * of it (nothing unacknowledged, so its frames stop here: a late one reaches the new
 * session, which answers an old epoch's frame with an offer). A host builds it when its
 * player asked; a guest at once, to hear the friend's offer (and accepts it if asked).
 */
export function rematchDue(snap: Snapshot | null, role: "host" | "guest", wanted: boolean,
  connected: boolean): boolean {
  return snap !== null && (wanted || role === "guest") && connected && snap.over && snap.rematchable
    && snap.unacknowledged === 0;
}

/** The rematch's handshake waits on a person (the host's offer, the guest's answer): no
 * timer runs against the friend meanwhile, as for custom rules. */
export function undecided(snap: Snapshot): boolean {
  return snap.rematch && !snap.over
    && (snap.rulesOffered !== null || snap.waitingFor === "hello" || snap.waitingFor === "welcome");
}

/** A guest's session listening for an offer that may never come: nothing of it is kept
 * (the stored match stays the finished one's note), since nothing was sent but an offer. */
export function listening(snap: Snapshot | null, role: "host" | "guest"): boolean {
  return snap !== null && role === "guest" && snap.rematch && snap.waitingFor === "hello"
    && snap.rulesOffered === null;
}
