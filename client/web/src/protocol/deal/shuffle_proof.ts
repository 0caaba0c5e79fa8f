/**
 * The shuffle proof (protocol.md §8.8), the twin of gin/protocol/deal/shuffle_proof.py:
 * the same statement, transcript and bytes (a proof is a function of the prover's
 * nonce key and the statement, so both implementations produce identical proofs).
 * Verification here is one Pippenger MSM of 4n + 5 points: the 2n + 2 equations
 * combined with weights derived from SHA-512 of the statement and the proof (a false
 * equation survives the sum with probability 1/L per try); a proof that fails it is
 * checked equation by equation, to say which fails in gin's words.
 */

import { sha512 } from "@noble/hashes/sha2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import { u16be } from "../bytes.ts";
import * as g from "./group.ts";

const tag = (label: string): Uint8Array => concatBytes(g.DOMAIN, Uint8Array.of(0), utf8ToBytes(label), Uint8Array.of(0));

/** 2n + 3 points and 2n + 1 scalars: 6 784 bytes for 52 cards. */
export const PROOF_BYTES = (4 * g.CARDS + 4) * g.POINT_BYTES;

/** A proof's bytes as its 32-byte points and scalars, as `deck` carries them. */
export function words(proof: Uint8Array): Uint8Array[] {
  return Array.from({ length: Math.ceil(proof.length / 32) }, (_, i) => proof.slice(32 * i, 32 * i + 32));
}

/** Bytes that are not a shuffle proof of the expected shape. */
export class ProofMalformed extends MalformedInput {}

export function statementHash(context: Uint8Array, inputs: Uint8Array[], outputs: Uint8Array[]): Uint8Array {
  const n = inputs.length;
  if (outputs.length !== n || n < 1 || n > 255) throw new MalformedInput("inputs and outputs must be 1..255 points each, as many");
  return sha512(concatBytes(tag("shuffle/statement"), u16be(context.length), context, Uint8Array.of(n), ...inputs, ...outputs));
}

const uHash = (hStmt: Uint8Array, k: Uint8Array): Uint8Array => sha512(concatBytes(tag("shuffle/u"), hStmt, k));

export function challenges(hU: Uint8Array, n: number): bigint[] {
  const prefix = concatBytes(tag("shuffle/u-i"), hU);
  return Array.from({ length: n }, (_, i) => g.hashToScalar(prefix, u16be(i)));
}

function challenge(hU: Uint8Array, chain: Uint8Array[], chainT: Uint8Array[], tSum: Uint8Array, tEnd: Uint8Array): bigint {
  return g.hashToScalar(tag("shuffle/challenge"), hU, ...chain, ...chainT, tSum, tEnd);
}

function nonce(key: Uint8Array, hStmt: Uint8Array, kind: string, index: number): bigint {
  const prefix = concatBytes(tag("shuffle/nonce"), key, hStmt, utf8ToBytes(kind));
  for (let i = index; ; i += 1 << 16) {
    const idx = new Uint8Array(4);
    new DataView(idx.buffer).setUint32(0, i);
    const value = g.hashToScalar(prefix, idx);
    if (value !== 0n) return value;
  }
}

export interface ShuffleProof {
  k: Uint8Array;
  chain: Uint8Array[]; // C_1 … C_n
  chainT: Uint8Array[]; // t̂_0 … t̂_{n-1}
  tSum: Uint8Array;
  tEnd: Uint8Array;
  sV: bigint[];
  sR: bigint[];
  sEnd: bigint;
}

export function proofToBytes(p: ShuffleProof): Uint8Array {
  return concatBytes(p.k, ...p.chain, ...p.chainT, p.tSum, p.tEnd, ...[...p.sV, ...p.sR, p.sEnd].map(g.scalarToBytes));
}

/** Parse; ProofMalformed for a wrong length, an invalid or identity point, a scalar ≥ L. */
export function proofFromBytes(data: Uint8Array, n = g.CARDS): ShuffleProof {
  const size = (4 * n + 4) * 32;
  if (!(data instanceof Uint8Array) || data.length !== size) throw new ProofMalformed(`a shuffle proof of ${n} entries is ${size} bytes`);
  const words = Array.from({ length: 4 * n + 4 }, (_, i) => data.slice(32 * i, 32 * i + 32));
  const points = words.slice(0, 2 * n + 3);
  points.forEach((p, where) => {
    try {
      g.decode(p);
    } catch {
      throw new ProofMalformed(`proof point ${where} is not a valid element`);
    }
  });
  let values: bigint[];
  try {
    values = words.slice(2 * n + 3).map(g.scalarFromBytes);
  } catch {
    throw new ProofMalformed("a proof scalar is not canonical");
  }
  return {
    k: points[0]!, chain: points.slice(1, n + 1), chainT: points.slice(n + 1, 2 * n + 1),
    tSum: points[2 * n + 1]!, tEnd: points[2 * n + 2]!,
    sV: values.slice(0, n), sR: values.slice(n, 2 * n), sEnd: values[2 * n]!,
  };
}

/** A proof that outputs[j] = keys[j]·inputs[permutation[j]] (constant-time multiplications). */
export function prove(context: Uint8Array, inputs: Uint8Array[], outputs: Uint8Array[],
  permutation: readonly number[], keys: readonly bigint[], nonceKey: Uint8Array): ShuffleProof {
  const n = inputs.length;
  const sorted = [...permutation].sort((a, b) => a - b);
  if (sorted.some((v, i) => v !== i) || sorted.length !== n || keys.length !== n || outputs.length !== n) {
    throw new MalformedInput("the permutation must be one of 0..n-1, with n keys and n outputs");
  }
  const Y = outputs.map(g.decode);
  inputs.forEach(g.decode);
  const hStmt = statementHash(context, inputs, outputs);
  const inverseKeys = keys.map(g.inv);
  const kappa = inverseKeys.reduce((acc, b) => g.mod(acc * b), 1n);
  const rKappa = nonce(nonceKey, hStmt, "k", 0);
  const K = g.pedersen(kappa, rKappa);
  const kBytes = g.encode(K);
  const hU = uHash(hStmt, kBytes);
  const u = challenges(hU, n);
  const v = Array.from({ length: n }, (_, j) => g.mod(u[permutation[j]!]! * inverseKeys[j]!));
  const rHat = Array.from({ length: n }, (_, j) => nonce(nonceKey, hStmt, "r", j));
  const omega = Array.from({ length: n }, (_, j) => nonce(nonceKey, hStmt, "v", j));
  const omegaHat = Array.from({ length: n }, (_, j) => nonce(nonceKey, hStmt, "w", j));
  const omegaEnd = nonce(nonceKey, hStmt, "d", 0);
  // C_{j+1} = r̂_j·G + v_j·C_j from C_0 = H is p_{j+1}·H + ρ_{j+1}·G with p_{j+1} = v_j·p_j and
  // ρ_{j+1} = v_j·ρ_j + r̂_j; likewise t̂_j = ω̂_j·G + ω_j·C_j = ω_j·p_j·H + (ω̂_j + ω_j·ρ_j)·G:
  // every point of the chain is two multiplications through G's and H's tables, not one
  // of a point met for the first time, and all 2n are encoded in one batch (encodePedersen).
  const chainPairs: [bigint, bigint][] = [];
  const chainTPairs: [bigint, bigint][] = [];
  let p = 1n;
  let rho = 0n;
  for (let j = 0; j < n; j++) {
    chainTPairs.push([g.mod(omega[j]! * p), g.mod(omegaHat[j]! + omega[j]! * rho)]);
    p = g.mod(v[j]! * p);
    rho = g.mod(v[j]! * rho + rHat[j]!);
    chainPairs.push([p, rho]);
  }
  const encoded = g.encodePedersen([...chainPairs, ...chainTPairs]);
  const chainBytes = encoded.slice(0, n);
  const chainT = encoded.slice(n);
  const productU = u.reduce((acc, x) => g.mod(acc * x), 1n);
  const d = g.mod(rho - productU * rKappa);
  const tSumBytes = g.encode(g.msmSecret(Y, omega));
  const tEnd = g.encode(g.mulBase(omegaEnd));
  const e = challenge(hU, chainBytes, chainT, tSumBytes, tEnd);
  return {
    k: kBytes, chain: chainBytes, chainT, tSum: tSumBytes, tEnd,
    sV: omega.map((w, j) => g.mod(w + e * v[j]!)),
    sR: omegaHat.map((w, j) => g.mod(w + e * rHat[j]!)),
    sEnd: g.mod(omegaEnd + e * d),
  };
}

/**
 * Why `proof` does not show `outputs` to be a per-position-key shuffle of `inputs`
 * in `context`; null when it does. One MSM: α(Σ s_j Y_j − e X̂ − t_C) + Σ β_j(ŝ_j G +
 * s_j C_j − t̂_j − e C_{j+1}) + γ(s_D G − t_D − e (C_n − Πu K)) must be the identity.
 */
export function verify(context: Uint8Array, inputs: Uint8Array[], outputs: Uint8Array[], proof: ShuffleProof): string | null {
  const n = inputs.length;
  if (outputs.length !== n || proof.chain.length !== n || proof.chainT.length !== n || proof.sV.length !== n || proof.sR.length !== n) {
    return "the proof has the wrong number of entries";
  }
  const hStmt = statementHash(context, inputs, outputs);
  const hU = uHash(hStmt, proof.k);
  const u = challenges(hU, n);
  const e = challenge(hU, proof.chain, proof.chainT, proof.tSum, proof.tEnd);
  if (e === 0n) return "the challenge is zero";
  // Batch weights: from the whole transcript, so nobody chooses them.
  const seed = sha512(concatBytes(tag("shuffle/batch"), hU, proofToBytes(proof)));
  const beta = Array.from({ length: n }, (_, j) => g.hashToScalar(seed, u16be(j)));
  const gamma = g.hashToScalar(seed, u16be(0xffff));
  const productU = u.reduce((acc, x) => g.mod(acc * x), 1n);
  const points: g.Point[] = [];
  const scalars: bigint[] = [];
  const put = (p: g.Point, k: bigint): void => { points.push(p); scalars.push(g.mod(k)); };
  outputs.forEach((y, j) => put(g.decode(y), proof.sV[j]!));
  inputs.forEach((x, i) => put(g.decode(x), -e * u[i]!));
  put(g.decode(proof.tSum), -1n);
  put(g.G, beta.reduce((acc, b, j) => acc + b * proof.sR[j]!, 0n) + gamma * proof.sEnd);
  put(g.generatorH(), beta[0]! * proof.sV[0]!);
  for (let j = 1; j <= n; j++) {
    const next = j < n ? beta[j]! * proof.sV[j]! : -gamma * e;
    put(g.decode(proof.chain[j - 1]!), next - beta[j - 1]! * e);
  }
  proof.chainT.forEach((t, j) => put(g.decode(t), -beta[j]!));
  put(g.decode(proof.tEnd), -gamma);
  put(g.decode(proof.k), gamma * e * productU);
  return g.msm(points, scalars).is0() ? null : failing(inputs, outputs, proof, u, e, productU);
}

/** Which equation fails, checked one by one in gin's order and words. */
function failing(inputs: Uint8Array[], outputs: Uint8Array[], proof: ShuffleProof, u: bigint[], e: bigint,
  productU: bigint): string {
  const sum = (points: g.Point[], scalars: bigint[]): g.Point => g.msm(points, scalars);
  const xHat = sum(inputs.map(g.decode), u);
  const left = sum(outputs.map(g.decode), proof.sV);
  if (!left.equals(g.decode(proof.tSum).add(g.mulPublic(xHat, e)))) {
    return "the outputs are not the inputs' re-keyed permutation (sum check)";
  }
  let previous = g.generatorH();
  for (let j = 0; j < proof.chain.length; j++) {
    const link = g.decode(proof.chain[j]!);
    const lhs = g.G.multiplyUnsafe(proof.sR[j]!).add(g.mulPublic(previous, proof.sV[j]!));
    if (!lhs.equals(g.decode(proof.chainT[j]!).add(g.mulPublic(link, e)))) return `product chain link ${j} does not hold`;
    previous = link;
  }
  const end = previous.subtract(g.mulPublic(g.decode(proof.k), productU));
  if (!g.G.multiplyUnsafe(proof.sEnd).equals(g.decode(proof.tEnd).add(g.mulPublic(end, e)))) {
    return "the product of the chain is not the permuted challenges' (product check)";
  }
  return "the proof's equations do not hold"; // the batch failed where no equation does: never
}
