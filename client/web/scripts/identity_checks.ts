/**
 * The identity cases of the corpus (gin/conformance/identity_cases.py): `identity` — a
 * key's public half, its five words, the audit's identities line, a vouch and the match
 * ids it makes, byte for byte; `history` — which records of the links given conflict,
 * or cannot prove the match before, word for word.
 */

import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

import * as cosign from "../src/protocol/records/cosign.ts";
import type { Bound } from "../src/protocol/records/envelope.ts";
import { place } from "../src/protocol/records/history.ts";
import { fingerprint, Identity, identitiesText, vouchDigest } from "../src/protocol/records/identity.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };

const show = (x: unknown): string => JSON.stringify(x);

function same(name: string, expected: unknown, actual: unknown): string | null {
  return show(expected) === show(actual) ? null : `${name}: expected ${show(expected)}, the TS side gives ${show(actual)}`;
}

const pair = (value: Json): [Uint8Array, Uint8Array] => {
  const [a, b] = value as [string, string];
  return [hexToBytes(a), hexToBytes(b)];
};

function checkIdentity(c: CaseObject): string | null {
  const seed = hexToBytes(c.seed as string);
  const previous = hexToBytes(c.previous as string);
  const me = new Identity(seed);
  const other = new Identity(seed.slice().reverse());
  const link = cosign.linkIdFor(seed);
  const key = new cosign.Signer(seed.map((b) => b ^ 0x5a)).public;
  const ids: [Uint8Array, Uint8Array] = [me.public, other.public];
  return same("public key", c.public, bytesToHex(me.public))
    ?? same("words", c.words, fingerprint(me.public))
    ?? same("identities line", c.text, identitiesText(ids))
    ?? same("vouch digest", c.vouch_digest, bytesToHex(vouchDigest(link, 1, key, previous)))
    ?? same("vouch", c.vouch, bytesToHex(me.vouch(link, 1, key, previous)))
    ?? same("match id", c.match_id, bytesToHex(cosign.matchIdFor(link, [key, key], ids, previous)));
}

function checkHistory(c: CaseObject): string | null {
  const items: Bound[] = (c.items as CaseObject[]).map((x) => ({
    matchId: hexToBytes(x.match_id as string),
    linkId: hexToBytes(x.link as string),
    signingKeys: pair(x.signing_keys!),
    identities: pair(x.identities!),
    vouches: pair(x.vouches!),
    previous: x.previous === null ? null : hexToBytes(x.previous as string),
  }));
  const placements = Object.fromEntries([...place(items)].map(([i, p]) => [String(i), [p.conflict, p.unproven]]));
  return same(`history (${String(c.name)})`, c.placements, placements);
}

export const IDENTITY_CHECKS: Record<string, (c: CaseObject) => string | null> = {
  identity: checkIdentity,
  history: checkHistory,
};
