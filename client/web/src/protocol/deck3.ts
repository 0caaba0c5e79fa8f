/** Protocol v3's deck messages over ristretto255 (prototype), the twin of gin/protocol/deck3.py. */

import { sha512 } from "@noble/hashes/sha2.js";

import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { u32be } from "./bytes.ts";
import { derivePermutation, deckOrder } from "./fairdeal.ts";
import * as g from "./group3.ts";
import * as sp from "./shuffle_proof3.ts";

export const DECK_SIZE = g.CARDS;

export function deriveScalar(label: Uint8Array, seed: Uint8Array): bigint {
  const prefix = concatBytes(g.DOMAIN, Uint8Array.of(0), label, Uint8Array.of(0), seed);
  for (let counter = 0; ; counter++) {
    const value = g.hashToScalar(prefix, u32be(counter));
    if (value !== 0n) return value;
  }
}

export class SeedMaterial {
  private constructor(
    readonly seed: Uint8Array,
    readonly permutation: number[],
    readonly deckKey: bigint,
    readonly positionKeys: bigint[],
    readonly nonceKey: Uint8Array,
  ) {}

  static fromSeed(seed: Uint8Array): SeedMaterial {
    return new SeedMaterial(seed, derivePermutation(seed), deriveScalar(utf8ToBytes("deck-key"), seed),
      Array.from({ length: DECK_SIZE }, (_, k) => deriveScalar(concatBytes(utf8ToBytes("position-key"), Uint8Array.of(k)), seed)),
      sha512(concatBytes(g.DOMAIN, utf8ToBytes("\0shuffle-nonce-key\0"), seed)));
  }
}

export function context(matchId: Uint8Array, handNumber: number): Uint8Array {
  return concatBytes(Uint8Array.of(matchId.length >> 8, matchId.length & 0xff), matchId, u32be(handNumber));
}

export function buildMessage1(first: SeedMaterial): Uint8Array[] {
  const points = g.cardPoints();
  return first.permutation.map((c) => g.encode(g.mul(points[c]!, first.deckKey)));
}

export function buildMessage2(second: SeedMaterial, message1: Uint8Array[], ctx: Uint8Array): [Uint8Array[], sp.ShuffleProof] {
  const m2 = second.permutation.map((src, j) => g.encode(g.mul(g.decode(message1[src]!), second.positionKeys[j]!)));
  return [m2, sp.prove(ctx, message1, m2, second.permutation, second.positionKeys, second.nonceKey)];
}

export function buildMessage3(first: SeedMaterial, message2: Uint8Array[]): Uint8Array[] {
  const undo = g.inv(first.deckKey);
  return message2.map((x, k) => g.encode(g.mul(g.decode(x), g.mod(undo * first.positionKeys[k]!))));
}

export function openCard(final: Uint8Array[], position: number, ownKey: bigint, theirKey: bigint): number | null {
  return g.cardOf(g.mul(g.decode(final[position]!), g.inv(g.mod(g.checkSecret(ownKey) * g.checkSecret(theirKey)))));
}

export { deckOrder };
