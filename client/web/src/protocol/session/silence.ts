/**
 * When the peer falls silent (protocol.md §11.3): the failure of a plain timeout, when
 * `Session.abandon` may be called, and the failure it ends with, carrying the claimant's
 * signed record (§10.3). The twin of gin/protocol/session/silence.py.
 */

import { IllegalAction, MalformedInput } from "../../engine/errors.ts";
import { AbandonmentRecord, MAX_TIME } from "../records/abandonment.ts";
import { SEATS } from "../records/records.ts";
import { Abandoned, PeerTimedOut } from "./events.ts";
import { HANDSHAKE, type Owed } from "../wire/messages.ts";
import type { MatchFlow } from "./flow.ts";
import { waitingFor } from "./table.ts";

/** What the peer owes did not arrive in time: unproven, and no record. */
export function timedOut(flow: MatchFlow): PeerTimedOut {
  const [owed, peer] = [waitingFor(flow), SEATS[flow.peer]];
  const what = owed === "seed" ? "seed" : `${owed} message`;
  return new PeerTimedOut(`${peer} or the relay`, String(owed),
    `the ${peer}'s ${what} did not arrive in time: the ${peer} withheld it, or the relay dropped it`);
}

/** MalformedInput for times that are not UTC seconds in order; IllegalAction, naming the state,
 * when the peer owes nothing. */
export function check(flow: MatchFlow, since: number, now: number): void {
  if (!Number.isInteger(since) || !Number.isInteger(now) || !(0 <= since && since <= now && now <= MAX_TIME)) {
    throw new MalformedInput(`abandon times must be UTC seconds, 0 <= since <= now <= ${MAX_TIME}: got ${since}, ${now}`);
  }
  if (waitingFor(flow) === null) {
    const why = flow.over ? "the match is over" : flow.offered !== null ? "custom rules await your answer"
      : "it is your move";
    throw new IllegalAction(`${flow.role} cannot end the match as abandoned by the ${SEATS[flow.peer]}: `
      + `it owes nothing now (${why})`);
  }
}

/** The failure of ending the match at `now` while the peer has owed what it owes since `since`,
 * having had `delivered` (count, hash chain) messages from it; its record is signed, unless the
 * handshake has not yet made a match id. */
export function abandoned(flow: MatchFlow, since: number, now: number, delivered: readonly [number, Uint8Array]): Abandoned {
  const [owed, peer] = [String(waitingFor(flow)), SEATS[flow.peer]!];
  const matchId = flow.matchId;
  if (matchId === null) { // the match never began: nothing to sign
    return new Abandoned(peer, owed, `Abandoned by the ${peer}: it did not answer the start of the match `
      + `(its ${owed}) in ${now - since} s; not a cheat, and not proven`);
  }
  const seen = flow.observation(); // its scores are the match's, with a scored hand counted
  const record = new AbandonmentRecord({
    matchId, ...flow.keys!.binding(),
    handNumber: HANDSHAKE.includes(owed as Owed) ? 0 : flow.state().number, owedSeat: flow.peer, owed, since,
    claimed: now, received: delivered[0], receivedDigest: delivered[1],
    scores: seen === null ? [0, 0] : [seen.scores[0], seen.scores[1]], claimant: flow.seat,
  }).signed((digest) => flow.keys!.signer.sign(digest));
  const words = record.words();
  return new Abandoned(peer, owed, words[0]!.toUpperCase() + words.slice(1), record);
}
