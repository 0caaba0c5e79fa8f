/**
 * The fair-deal bookkeeping of the hand in play, beside the engine's Hand, and the
 * handshake's derivations (§4): the twin of gin/protocol/session/hand.py.
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import type { Action } from "../../engine/actions.ts";
import type { Ruleset } from "../../engine/rules.ts";
import { canonicalJson, DOMAIN } from "../records/cosign.ts";
import * as fd from "../deal/fairdeal.ts";
import type { Step } from "../records/records.ts";

export const otherRole = (role: fd.Role): fd.Role => (role === "first" ? "second" : "first");

/** SHA-256 of the ruleset's canonical JSON: what the guest agrees to (§4, §7.1). */
export function rulesDigest(rules: Ruleset): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("rules\x00"), utf8ToBytes(canonicalJson(rules.toDict()))));
}

/** The host's commitment to its nonce (§4). */
export function coin(linkId: Uint8Array, nonce: Uint8Array): Uint8Array {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("coin\x00"), linkId, nonce));
}

/** The seat that deals the first hand: a coin both sides toss (§4, §7.1). */
export function firstDealerFor(matchId: Uint8Array, hostNonce: Uint8Array, guestNonce: Uint8Array): number {
  return sha256(concatBytes(DOMAIN, utf8ToBytes("first-dealer\x00"), matchId, hostNonce, guestNonce))[0]! & 1;
}

/** The fair-deal state of the hand in play. */
export class HandState {
  readonly role: fd.Role;
  readonly mine: fd.SeedMaterial;
  readonly commits = new Map<fd.Role, Uint8Array>();
  readonly messages: (fd.Deck | null)[] = [null, null, null];
  dealt = false;
  readonly keysSent = new Set<number>(); // positions whose key we gave the peer
  readonly peerPositions = new Set<number>(); // positions the peer was dealt or drew
  drawPending: number | null = null; // our stock draw, awaiting the peer's key
  knockPending: Action | null = null; // our knock, awaiting the peer's show
  theirSeed: Uint8Array | null = null;
  proof: Uint8Array | null = null; // the digest of message 2's proof, once checked
  mySignature: Uint8Array | null = null;
  readonly steps: Step[] = [];

  constructor(readonly number: number, readonly dealer: number, me: number, seed: Uint8Array,
    readonly matchId: Uint8Array) {
    this.role = me === dealer ? "first" : "second";
    this.mine = fd.SeedMaterial.fromSeed(seed);
    this.commits.set(this.role, fd.commitment(seed, matchId, number, this.role));
  }

  /** The deck message (1..3) the peer owes next (§7.2), or null. */
  expectedDeck(): number | null {
    const [m1, m2, m3] = this.messages;
    if (this.role === "second") return m1 === null ? 1 : (m3 === null ? 3 : null);
    return m1 !== null && m2 === null ? 2 : null;
  }
}
