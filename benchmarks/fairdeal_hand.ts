/**
 * One hand's fair-deal crypto as each role of an online match performs it, for
 * benchmarks/fairdeal_ts.ts (node) and benchmarks/fairdeal_browser.py (Chromium):
 * the calls gin/protocol/session/deal.py and session_flow.py make per hand, in their
 * order, on the TypeScript twins.
 *
 * The first shuffler (the dealer): message 1; checks message 2's signature, entries
 * and shuffle proof on arrival; message 3; opens its cards; the hand-end audit
 * trusting itself. The second: checks message 1; message 2 with its proof, signed;
 * checks message 3; opens its cards; the audit. A hand opens 30 positions on each
 * side: its own 10 dealt cards and the upcard, the other side's 10 (discards and the
 * show at the end) and 9 stock cards.
 *
 * `transcripts` builds what the other side sends (fixed seeds); `playRole` must run
 * where those were not computed (another worker), or the remembered results (the
 * decoded and encoded points, group.ts) would spare it work it does online.
 */

import * as cosign from "../client/web/src/protocol/records/cosign.ts";
import * as fd from "../client/web/src/protocol/deal/fairdeal.ts";
import * as g from "../client/web/src/protocol/deal/group.ts";
import * as sp from "../client/web/src/protocol/deal/shuffle_proof.ts";

export type Role = fd.Role;

/** Everything one hand puts on the wire, and both seeds (revealed at its end). */
export interface Transcript {
  handNumber: number;
  seeds: Record<Role, Uint8Array>;
  commitments: Record<Role, Uint8Array>;
  message1: Uint8Array[];
  message2: Uint8Array[];
  proof: Uint8Array;
  sig: Uint8Array;
  message3: Uint8Array[];
  /** Each side's per-position keys, as they arrive in "deal", "key", "move" and "show". */
  keys: Record<Role, readonly bigint[]>;
  deck: number[];
}

const MATCH_ID = new TextEncoder().encode("benchmark-match");
const OTHER: Record<Role, Role> = { first: "second", second: "first" };
const SECOND_SIGNER = new cosign.Signer(new Uint8Array(32).fill(2));

/** Distinct for every hand and role: no hand repeats another's work. */
const seedOf = (hand: number, role: Role): Uint8Array =>
  Uint8Array.from({ length: 32 }, (_, i) => [hand & 0xff, hand >> 8, fd.roleCode(role)][i] ?? i);

/** Hands 1..count of a match with fixed seeds. */
export function transcripts(count: number): Transcript[] {
  return Array.from({ length: count }, (_, i) => {
    const handNumber = i + 1;
    const seeds = { first: seedOf(handNumber, "first"), second: seedOf(handNumber, "second") };
    const first = fd.SeedMaterial.fromSeed(seeds.first);
    const second = fd.SeedMaterial.fromSeed(seeds.second);
    const ctx = fd.context(MATCH_ID, handNumber);
    const message1 = fd.buildMessage1(first);
    const [message2, proof] = fd.buildMessage2(second, message1, ctx);
    return {
      handNumber,
      seeds,
      commitments: {
        first: fd.commitment(seeds.first, MATCH_ID, handNumber, "first"),
        second: fd.commitment(seeds.second, MATCH_ID, handNumber, "second"),
      },
      message1,
      message2,
      proof,
      sig: SECOND_SIGNER.sign(cosign.message2Digest(1, ctx, message1, message2, proof)),
      message3: fd.buildMessage3(first, message2),
      keys: { first: first.positionKeys, second: second.positionKeys },
      deck: fd.deckOrder(first.permutation, second.permutation),
    };
  });
}

/** The 30 positions each side opens in the modelled hand: both hands, the upcard, 9 stock cards. */
export const OPENED = Array.from({ length: 30 }, (_, p) => p);

/** The crypto `role` performs for hand `t`; throws if anything fails to verify. */
export function playRole(role: Role, t: Transcript): void {
  const mine = fd.SeedMaterial.fromSeed(t.seeds[role]);
  const ctx = fd.context(MATCH_ID, t.handNumber);
  fd.commitment(mine.seed, MATCH_ID, t.handNumber, role);
  let message3: readonly Uint8Array[];
  if (role === "first") {
    const message1 = fd.buildMessage1(mine);
    if (!cosign.verify(SECOND_SIGNER.public, cosign.message2Digest(1, ctx, message1, t.message2, t.proof), t.sig)) {
      throw new Error("message 2's signature");
    }
    const why = fd.message2Refusal(ctx, message1, t.message2, t.proof);
    if (why !== null) throw new Error(`message 2: ${why.join(": ")}`);
    message3 = fd.buildMessage3(mine, t.message2);
  } else {
    const message1 = fd.validateMessage(t.message1, "message1");
    const [message2, proof] = fd.buildMessage2(mine, message1, ctx);
    SECOND_SIGNER.sign(cosign.message2Digest(1, ctx, message1, message2, proof));
    message3 = fd.validateMessage(t.message3, "message3");
  }
  const revealed: [Role, number, bigint][] = [];
  for (const position of OPENED) {
    const key = t.keys[OTHER[role]][position]!;
    const card = fd.openCard(message3, position, mine.positionKeys[position]!, key, OTHER[role]);
    if (card !== t.deck[position]) throw new Error(`position ${position} opened to the wrong card`);
    revealed.push([OTHER[role], position, key], [role, position, mine.positionKeys[position]!]);
  }
  const report = fd.auditHand({
    matchId: MATCH_ID, handNumber: t.handNumber,
    firstSeed: t.seeds.first, secondSeed: t.seeds.second,
    firstCommitment: t.commitments.first, secondCommitment: t.commitments.second,
    message1: t.message1, message2: t.message2, message3: t.message3,
    revealedKeys: revealed, trust: role,
  });
  if (!report.ok) throw new Error(`audit: ${report.deviations.join("; ")}`);
}

/** One hand played as `role`: milliseconds by `clock` (the wall clock unless the caller has a CPU clock). */
export function timeHand(role: Role, t: Transcript, clock: () => number = () => performance.now()): number {
  const start = clock();
  playRole(role, t);
  return clock() - start;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The kernels timed apart, with the calls per timing (a tenth of a second or more):
 * noble's constant-time multiply of a point met for the first time (the second's
 * message 2 and its proof's commitments), the variable-time one (the verifier's
 * checks), a Pedersen commitment x·H + y·G through G's and H's tables (the proof makes 105), the
 * deck messages' multiplication of an encoding (group.ts mulBytes: libsodium's when the
 * worker loaded it, else noble's with the encodings), a whole proof and a whole verification.
 */
export const KERNEL_CALLS = { constant: 104, variable: 104, pedersen: 520, bytes: 104, prove: 1, verify: 2 } as const;

export type KernelName = keyof typeof KERNEL_CALLS;

let inputs: { points: g.Point[]; keys: readonly bigint[]; hand: Transcript; second: fd.SeedMaterial; ctx: Uint8Array }
  | undefined;

/** Points met for the first time (message 1's), 52 keys and a hand: built before any kernel is timed. */
export function prepareKernels(): void {
  const hand = transcripts(1)[0]!;
  g.prepare(); // G's and H's tables, built once per worker
  inputs = { points: hand.message1.map(g.decode), keys: hand.keys.first, hand,
    second: fd.SeedMaterial.fromSeed(hand.seeds.second), ctx: fd.context(MATCH_ID, hand.handNumber) };
}

/** `calls` runs of kernel `name`, cycling over 52 points. */
export function runKernel(name: KernelName, calls: number): void {
  if (inputs === undefined) prepareKernels();
  const { points, keys, hand, second, ctx } = inputs!;
  for (let n = 0; n < calls; n++) {
    const i = n % 52;
    if (name === "constant") g.mul(points[i]!.add(g.G), keys[i]!); // a point never multiplied before
    else if (name === "variable") g.mulPublic(points[i]!.add(g.G), keys[i]!);
    else if (name === "pedersen") g.pedersen(keys[i]!, keys[51 - i]!);
    else if (name === "bytes") g.mulBytes(hand.message2[i]!, keys[i]!);
    else if (name === "prove") sp.prove(ctx, hand.message1, hand.message2, second.permutation, second.positionKeys, second.nonceKey);
    else sp.verify(ctx, hand.message1, hand.message2, sp.proofFromBytes(hand.proof));
  }
}

export function kernelsLine(ms: Record<KernelName, number>): string {
  return `one multiplication: noble's constant-time multiply ${ms.constant.toFixed(2)} ms, variable-time ` +
    `${ms.variable.toFixed(2)} ms; a Pedersen commitment ${ms.pedersen.toFixed(2)} ms; of an encoding ` +
    `(the deck messages') ${ms.bytes.toFixed(2)} ms; the proof: prove ` +
    `${ms.prove.toFixed(0)} ms, verify ${ms.verify.toFixed(0)} ms (${sp.PROOF_BYTES} bytes)`;
}

/** The summary line of `role`'s hands: the first (cold: its code is compiled) and the median of the rest. */
export function roleLine(role: Role, played: readonly number[], unit = "ms"): string {
  const rest = played.slice(1);
  return `${role} shuffler, one hand: ${median(rest).toFixed(0)} ${unit} ` +
    `(${Math.min(...rest).toFixed(0)}–${Math.max(...rest).toFixed(0)}), the match's first hand ` +
    `${played[0]!.toFixed(0)} ${unit}`;
}
