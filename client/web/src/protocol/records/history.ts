/**
 * The history of an invite link (protocol.md §9): the records given together, grouped by
 * link id, must be one history of one pair of players (the twin of gin/protocol/records/history.py).
 *
 * Anyone holding a link can play both seats with keys of their own and mint a whole match
 * whose every record verifies; what they cannot do is make it the link's history. So the
 * matches of one link must all name the same two identities, at most one of them may begin
 * the link (`previous` null), and each other match continues a different match before it.
 * Records whose identities do not vouch for their keys (audit step 0) fail on their own
 * and take no part. Pure.
 */

import { bytesToHex } from "@noble/hashes/utils.js";

import { equalBytes } from "../bytes.ts";
import type { Bound } from "./envelope.ts";
import { bindingRefusal, fingerprint } from "./identity.ts";

interface LinkMatch {
  matchId: Uint8Array;
  identities: readonly [Uint8Array, Uint8Array];
  previous: Uint8Array | null;
  items: number[];
}

const describe = (m: LinkMatch): string =>
  `match ${bytesToHex(m.matchId)} (identities ${m.identities.map(fingerprint).join(" / ")})`;

/** What the history says of one record: a conflict of its link (it cannot be verified),
 * or what the records given cannot prove of the match before it. */
export interface Placement {
  conflict: string | null;
  unproven: string | null;
}

/** Each record's place in its link's history, by index; a record not listed has its
 * place (the link's only match, or one that continues a match given). */
export function place(items: readonly Bound[]): Map<number, Placement> {
  const links = new Map<string, Map<string, LinkMatch>>();
  items.forEach((x, i) => {
    if (bindingRefusal(x.matchId, x.linkId, x.signingKeys, x.identities, x.vouches, x.previous) !== null) return;
    const link = bytesToHex(x.linkId);
    if (!links.has(link)) links.set(link, new Map());
    const matches = links.get(link)!;
    const id = bytesToHex(x.matchId);
    if (!matches.has(id)) matches.set(id, { matchId: x.matchId, identities: x.identities, previous: x.previous, items: [] });
    matches.get(id)!.items.push(i);
  });
  const out = new Map<number, Placement>();
  for (const [link, matches] of links) {
    const clash = conflict([...matches.values()]);
    for (const match of matches.values()) {
      if (clash !== null) {
        const text = `records of link ${link} do not form one history: ${clash}; at most one is the real match`;
        for (const i of match.items) out.set(i, { conflict: text, unproven: null });
      } else if (match.previous !== null && !matches.has(bytesToHex(match.previous))) {
        const text = `the match before (match ${bytesToHex(match.previous)}, which this match continues) is not `
          + "among these records";
        for (const i of match.items) out.set(i, { conflict: null, unproven: text });
      }
    }
  }
  return out;
}

/** Why the matches of one link are not one history, or null. */
function conflict(matches: LinkMatch[]): string | null {
  const beginning = matches.filter((m) => m.previous === null);
  if (beginning.length > 1) return `${describe(beginning[0]!)} and ${describe(beginning[1]!)} both begin it`;
  const first = matches[0]!;
  for (const other of matches.slice(1)) {
    if (!equalBytes(other.identities[0], first.identities[0]) || !equalBytes(other.identities[1], first.identities[1])) {
      return `${describe(first)} and ${describe(other)} name other players`;
    }
  }
  const seen = new Map<string, LinkMatch>();
  for (const match of matches) {
    if (match.previous === null) continue;
    const before = bytesToHex(match.previous);
    const earlier = seen.get(before);
    if (earlier !== undefined) return `${describe(earlier)} and ${describe(match)} both continue match ${before}`;
    seen.set(before, match);
  }
  return null;
}
