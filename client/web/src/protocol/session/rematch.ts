/**
 * A rematch: the next match on the same link (protocol.md §7.1), a new session whose
 * `hello` names the match just finished as `prev` (the twin of
 * gin/protocol/session/rematch.py).
 */

import { MalformedInput } from "../../engine/errors.ts";
import { MATCH_ID_BYTES } from "../records/cosign.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import { firstDealerFor } from "./hand.ts";
import { equalBytes } from "../bytes.ts";
import type { Value } from "../wire/msgpack.ts";

/** The guest's words when it has no match for the host's `prev` (not a proven fault:
 * this gin may not be the one that played it), and the host's. */
export const NOT_PLAYED = "your friend offers a rematch of a match this gin did not play";
export const NOT_PLAYED_TOLD = "the guest's gin did not play the match this rematch continues";

/**
 * The match on this link that a rematch continues (§7.1): its id, which the rematch's
 * `hello` names as `prev`, and its loser, who deals the rematch's first hand. Each side
 * knows both from its own finished session.
 */
export class PreviousMatch {
  constructor(readonly matchId: Uint8Array, readonly loser: number) {
    if (!(matchId instanceof Uint8Array) || matchId.length !== MATCH_ID_BYTES || (loser !== 0 && loser !== 1)) {
      throw new MalformedInput("a previous match is a 16-byte match id and a seat, 0 or 1");
    }
  }

  toState(): Value[] {
    return [this.matchId, this.loser];
  }

  static fromState(value: Value): PreviousMatch {
    if (!(Array.isArray(value) && value.length === 2 && value[0] instanceof Uint8Array
      && typeof value[1] === "number")) {
      throw new MalformedInput("a saved previous match is [match id, loser]");
    }
    return new PreviousMatch(value[0], value[1]);
  }

  equals(other: PreviousMatch | null): boolean {
    return other !== null && equalBytes(this.matchId, other.matchId) && this.loser === other.loser;
  }
}

/** Why the guest expecting `rematch` refuses a `hello` whose `prev` is `prev` as the
 * host's protocol error (field `hello.prev`), or null. A `prev` the guest has no match
 * for is {@link NOT_PLAYED}, checked first. */
export function prevFault(prev: Uint8Array, rematch: PreviousMatch | null): string | null {
  if (equalBytes(prev, rematch === null ? new Uint8Array(0) : rematch.matchId)) return null;
  return `the host's hello continues match ${bytesToHex(prev) || "none"}, not this guest's last match on this link`;
}

/** The coin of §4; in a rematch the previous match's loser (the coin is still tossed
 * and checked, so a rematch's messages are those of any match). */
export function firstDealer(matchId: Uint8Array, hostNonce: Uint8Array, guestNonce: Uint8Array,
  rematch: PreviousMatch | null): number {
  return rematch === null ? firstDealerFor(matchId, hostNonce, guestNonce) : rematch.loser;
}
