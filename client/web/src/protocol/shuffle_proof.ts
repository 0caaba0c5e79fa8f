/**
 * A cut-and-choose proof that message 2 is a shuffle of message 1 (protocol.md
 * §8.9), the twin of gin/protocol/shuffle_proof.py.
 *
 * For each round r the second shuffler derives a shadow from the round seed (a
 * permutation σ and keys c_i, as a seed derives them): S[i] = E_{c_i}(m1[σ[i]]).
 * The first shuffler answers with one random bit per round. Bit 0: the round seed
 * is revealed and the shadow rebuilt from message 1. Bit 1: τ = σ⁻¹ ∘ πB and
 * d_j = b_j · c_{τ[j]}⁻¹ are revealed and m2[j] = E_{d_j}(S[τ[j]]) is checked.
 */

import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { equalBytes } from "./bytes.ts";
import * as ecc from "./ecc.ts";
import * as fd from "./fairdeal.ts";

export const ROUNDS = 4;

/** The seed of shadow `round`: block("shadow" ‖ u8(r), seed, 0). */
export function roundSeed(seed: Uint8Array, round: number): Uint8Array {
  return fd.deriveBytes(concatBytes(utf8ToBytes("shadow"), Uint8Array.of(round)), seed);
}

/** The ROUNDS shadows of the second shuffler's message 2. */
export function shadows(second: fd.SeedMaterial, message1: readonly Uint8Array[]): fd.Deck[] {
  return Array.from({ length: ROUNDS }, (_, r) =>
    fd.buildMessage2(fd.SeedMaterial.fromSeed(roundSeed(second.seed, r)), message1));
}

/** One round's answer: the round seed (bit 0), or τ and the keys d (bit 1). */
export interface Opening {
  seed: Uint8Array | null;
  tau: readonly number[];
  keys: readonly bigint[];
}

/** The answers to `challenge` (bit r for round r). */
export function openRounds(second: fd.SeedMaterial, challenge: number): Opening[] {
  return Array.from({ length: ROUNDS }, (_, r) => {
    const seed = roundSeed(second.seed, r);
    if (!((challenge >> r) & 1)) return { seed, tau: [], keys: [] };
    const shadow = fd.SeedMaterial.fromSeed(seed);
    const where = new Map(shadow.permutation.map((source, i) => [source, i])); // σ⁻¹
    const tau = second.permutation.map((p) => where.get(p)!);
    const keys = tau.map((t, j) => ecc.product(second.positionKeys[j]!, ecc.inverse(shadow.positionKeys[t]!)));
    return { seed: null, tau, keys };
  });
}

function isPermutation(tau: readonly number[]): boolean {
  const sorted = [...tau].sort((a, b) => a - b);
  return sorted.length === fd.DECK_SIZE && sorted.every((v, i) => v === i);
}

/**
 * Why a round's opening fails to link the shadow to message 1 (bit 0) or to
 * message 2 (bit 1); null when it holds.
 */
export function checkRound(message1: readonly Uint8Array[], message2: readonly Uint8Array[],
  shadow: readonly Uint8Array[], bit: number, opening: Opening): string | null {
  if (bit === 0) {
    if (opening.seed === null || opening.tau.length || opening.keys.length) return "expected the round seed";
    const rebuilt = fd.buildMessage2(fd.SeedMaterial.fromSeed(opening.seed), message1);
    const bad = rebuilt.findIndex((entry, i) => !equalBytes(entry, shadow[i]!));
    return bad < 0 ? null : `the shadow's entry ${bad} is not what its seed makes`;
  }
  if (opening.seed !== null || !isPermutation(opening.tau) || opening.keys.length !== fd.DECK_SIZE) {
    return "expected a permutation of the 52 positions and 52 keys";
  }
  for (let j = 0; j < fd.DECK_SIZE; j++) {
    const t = opening.tau[j]!;
    let entry: Uint8Array;
    try {
      entry = ecc.mul(shadow[t]!, opening.keys[j]!);
    } catch (exc) {
      if (exc instanceof ecc.InvalidScalar) return `key ${j} is not a scalar`;
      if (exc instanceof ecc.InvalidPoint) return `the shadow's entry ${t} is not a point`;
      throw exc;
    }
    if (!equalBytes(entry, message2[j]!)) return `message2[${j}] is not the shadow's entry ${t} re-keyed`;
  }
  return null;
}
