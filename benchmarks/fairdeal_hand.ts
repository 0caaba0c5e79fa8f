/**
 * One hand's fair-deal crypto as each role of an online match performs it, for
 * benchmarks/fairdeal_ts.ts (node) and benchmarks/fairdeal_browser.py (Chromium):
 * the calls gin/protocol/session_deal.py and session_flow.py make per hand, in their order,
 * on the TypeScript twins.
 *
 * The first shuffler (the dealer): message 1; checks message 2; message 3 after
 * the shadows; checks the four proof rounds; opens its cards; the hand-end audit
 * trusting itself. The second: checks message 1; message 2 and the four shadows;
 * answers the challenge; checks message 3; opens its cards; the audit.
 * A hand opens 30 positions on each side: its own 10 dealt cards and the upcard,
 * the other side's 10 (discards and the show at the end) and 9 stock cards.
 *
 * `transcripts` builds what the other side sends (fixed seeds, challenges with two
 * bits set: the expected case); `playRole` must run where those were not computed
 * (another worker), or the remembered results would spare it work it does online.
 */

import * as ecc from "../client/web/src/protocol/ecc.ts";
import * as vt from "../client/web/src/protocol/ecc_vartime.ts";
import * as fd from "../client/web/src/protocol/fairdeal.ts";
import * as sp from "../client/web/src/protocol/shuffle_proof.ts";

export type Role = fd.Role;

/** Everything one hand puts on the wire, and both seeds (revealed at its end). */
export interface Transcript {
  handNumber: number;
  seeds: Record<Role, Uint8Array>;
  commitments: Record<Role, Uint8Array>;
  message1: Uint8Array[];
  message2: Uint8Array[];
  message3: Uint8Array[];
  shadows: Uint8Array[][];
  challenge: number;
  openings: sp.Opening[];
  /** Each side's per-position keys, as they arrive in "deal", "key", "move" and "show". */
  keys: Record<Role, readonly bigint[]>;
  deck: number[];
}

const MATCH_ID = new TextEncoder().encode("benchmark-match");
const CHALLENGES = [0b0101, 0b1010, 0b0011, 0b1100, 0b0110, 0b1001];
const OTHER: Record<Role, Role> = { first: "second", second: "first" };

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
    const message1 = fd.buildMessage1(first);
    const message2 = fd.buildMessage2(second, message1);
    const challenge = CHALLENGES[i % CHALLENGES.length]!;
    return {
      handNumber,
      seeds,
      commitments: {
        first: fd.commitment(seeds.first, MATCH_ID, handNumber, "first"),
        second: fd.commitment(seeds.second, MATCH_ID, handNumber, "second"),
      },
      message1,
      message2,
      message3: fd.buildMessage3(first, message2),
      shadows: sp.shadows(second, message1),
      challenge,
      openings: sp.openRounds(second, challenge),
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
  fd.commitment(mine.seed, MATCH_ID, t.handNumber, role);
  let message3: readonly Uint8Array[];
  if (role === "first") {
    const message1 = fd.buildMessage1(mine);
    const message2 = fd.validateMessage(t.message2, "message2");
    message3 = fd.buildMessage3(mine, message2);
    for (let r = 0; r < sp.ROUNDS; r++) {
      const why = sp.checkRound(message1, message2, t.shadows[r]!, (t.challenge >> r) & 1, t.openings[r]!);
      if (why !== null) throw new Error(`proof round ${r}: ${why}`);
    }
  } else {
    const message1 = fd.validateMessage(t.message1, "message1");
    fd.buildMessage2(mine, message1);
    sp.shadows(mine, message1);
    sp.openRounds(mine, t.challenge);
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

/** One hand played as `role`: milliseconds, and the multiplications and square roots it took. */
export interface Played {
  ms: number;
  work: ecc.Work;
}

/** `clock` reads milliseconds: the wall clock unless the caller has a CPU clock. */
export function timeHand(role: Role, t: Transcript, clock: () => number = () => performance.now()): Played {
  const before = ecc.workDone();
  const start = clock();
  playRole(role, t);
  const ms = clock() - start;
  const after = ecc.workDone();
  return {
    ms,
    work: {
      variable: after.variable - before.variable, windowed: after.windowed - before.windowed,
      decoded: after.decoded - before.decoded, tables: after.tables - before.tables,
    },
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The kernels timed apart, with the calls per timing (a tenth of a second or
 * more): noble's constant-time multiply (ecc.mul before this round), wNAF on a
 * point met for the first time (its odd multiples included), through a card
 * point's window table, and building one card's table.
 */
export const KERNEL_CALLS = { noble: 208, fresh: 520, windowed: 2080, table: 104 } as const;

export type KernelName = keyof typeof KERNEL_CALLS;

interface KernelInputs {
  points: ReturnType<typeof ecc.point>[];
  affine: vt.Affine[];
  tables: vt.Affine[][];
  keys: readonly bigint[];
}

let inputs: KernelInputs | undefined;

/** The card points decoded, their tables and 52 keys: built before any kernel is timed. */
export function prepareKernels(): void {
  const points = ecc.cardPoints().map((x) => ecc.point(x));
  const affine = points.map((p) => p.toAffine());
  inputs = { points, affine, tables: affine.map((a) => vt.windowTable(a)), keys: transcripts(1)[0]!.keys.first };
}

/** `calls` multiplications (or tables) by kernel `name`, cycling over the 52 card points. */
export function runKernel(name: KernelName, calls: number): void {
  if (inputs === undefined) prepareKernels();
  const { points, affine, tables, keys } = inputs!;
  for (let n = 0; n < calls; n++) {
    const i = n % 52;
    if (name === "noble") points[i]!.multiply(keys[i]!);
    else if (name === "fresh") vt.mulOdd(vt.oddMultiples(affine[i]!), keys[i]!);
    else if (name === "windowed") vt.mulWindowed(tables[i]!, keys[i]!);
    else vt.windowTable(affine[i]!);
  }
}

export function kernelsLine(ms: Record<KernelName, number>): string {
  return `one multiplication: noble's constant-time multiply ${ms.noble.toFixed(2)} ms, ` +
    `wNAF on a fresh point ${ms.fresh.toFixed(2)} ms, through a card window table ` +
    `${ms.windowed.toFixed(2)} ms (building one: ${ms.table.toFixed(1)} ms)`;
}

/** The summary line of `role`'s hands: the first (cold) and the median of the rest. */
export function roleLine(role: Role, played: readonly Played[], unit = "ms"): string {
  const rest = played.slice(1).map((p) => p.ms);
  const w = played[played.length - 1]!.work;
  return `${role} shuffler, one hand: ${median(rest).toFixed(0)} ${unit} ` +
    `(${Math.min(...rest).toFixed(0)}–${Math.max(...rest).toFixed(0)}), the match's first hand ` +
    `${played[0]!.ms.toFixed(0)} ${unit} (it builds ${played[0]!.work.tables} card tables); ` +
    `${w.variable + w.windowed} multiplications (${w.windowed} through card tables), ` +
    `${w.decoded} square roots`;
}
