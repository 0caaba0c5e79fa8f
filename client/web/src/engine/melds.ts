/**
 * Melds and the exact best arrangement of a hand, as in gin/engine/melds.py, with the
 * same results and the same tie-break.
 *
 * A hand is a 52-bit {@link Mask}; the search splits it into its four 13-bit suit
 * masks. Runs are found by shifting a suit's mask, sets by a "three of four suits"
 * test. Once the sets are chosen, every block of three or more in a suit is melded
 * whole, so the exact search only tries choices of sets, and only when a set and a
 * run want the same card. For eleven cards, each choice's best discard is its
 * highest loose card.
 *
 * Tie-break (as gin/): among arrangements of equal deadwood the first choice of
 * sets wins, rank by rank from the ace: no set, then the set of four, then the sets
 * of three (dropping clubs, diamonds, hearts, spades); so a run wins a tie with a
 * set. A suit's block of run cards is one run, however long. Melds are listed runs
 * first (clubs to spades, lowest first), then sets in the order of their lowest
 * card's bit.
 */

import { type Card, cardsMask, maskCards } from "./cards.ts";
import { MalformedInput } from "./errors.ts";
import {
  bitCount, fromSuits, hiHalf, loHalf, lowestIndex, type Mask, meets, or, popcount32,
} from "./mask.ts";

/** A meld as its cards, lowest index first. */
export type Meld = Card[];

const SUIT = 0x1fff;
const RUN_START = 0x7ff; // a run of three may start at ace..jack
const SIX_START = 0xff; // a run of six may start at ace..eight
const SCALE = [1, 8192, 67108864, 549755813888]; // 2^(13 * suit)

const RANK_VALUE = Array.from({ length: 13 }, (_, r) => Math.min(r + 1, 10));

/** Card points of each 13-bit suit mask. */
const VALUE13 = (() => {
  const values = new Uint8Array(1 << 13);
  for (let sm = 1; sm < 1 << 13; sm++) {
    const low = sm & -sm;
    values[sm] = values[sm ^ low]! + RANK_VALUE[31 - Math.clz32(low)]!;
  }
  return values;
})();

/** The run cards of one suit: every block of three or more. */
function cover(sm: number): number {
  const starts = sm & (sm >>> 1) & (sm >>> 2) & RUN_START;
  return starts | (starts << 1) | (starts << 2);
}

/** Sum of the card values in a mask. */
export function maskValue(mask: Mask): number {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  return VALUE13[lo & SUIT]! + VALUE13[lo >>> 13]! + VALUE13[hi & SUIT]! + VALUE13[hi >>> 13]!;
}

/** Value of a card by its bit index. */
function indexValue(index: number): number {
  return RANK_VALUE[index % 13]!;
}

/** Value of a one-card mask. */
export function bitValue(bit: Mask): number {
  return RANK_VALUE[lowestIndex(bit) % 13]!;
}

// ---------------------------------------------------------------------------
// The search on four suit masks. A "quad" is [clubs, diamonds, hearts, spades].

/** The ranks of which the hand holds three or four cards. */
function threeRanks(c: number, d: number, h: number, s: number): number {
  return (c & d & (h | s)) | (h & s & (c | d));
}

/**
 * The choices of set cards worth trying (runs take the rest), flat, four suit
 * masks per choice: gin's `_set_choices`. A rank no run wants a card of is taken
 * whole; each contested rank is tried every way (no set, the set of four, each set
 * of three), no sets first, so that runs win ties.
 */
function setChoices(
  c: number, d: number, h: number, s: number, three: number,
): readonly number[] {
  if (!three) return NO_SETS;
  const rc = cover(c), rd = cover(d), rh = cover(h), rs = cover(s);
  if (!((c & three & rc) | (d & three & rd) | (h & three & rh) | (s & three & rs))) {
    return [c & three, d & three, h & three, s & three];
  }
  let choices = [0, 0, 0, 0];
  while (three) {
    const low = three & -three;
    three ^= low;
    const pc = c & low, pd = d & low, ph = h & low, ps = s & low;
    if (!((pc & rc) | (pd & rd) | (ph & rh) | (ps & rs))) {
      for (let i = 0; i < choices.length; i += 4) {
        choices[i] |= pc;
        choices[i + 1] |= pd;
        choices[i + 2] |= ph;
        choices[i + 3] |= ps;
      }
      continue;
    }
    const options = [0, 0, 0, 0, pc, pd, ph, ps];
    if (pc && pd && ph && ps) {
      options.push(0, pd, ph, ps, pc, 0, ph, ps, pc, pd, 0, ps, pc, pd, ph, 0);
    }
    const next: number[] = [];
    for (let i = 0; i < choices.length; i += 4) {
      for (let j = 0; j < options.length; j += 4) {
        next.push(choices[i]! | options[j]!, choices[i + 1]! | options[j + 1]!,
          choices[i + 2]! | options[j + 2]!, choices[i + 3]! | options[j + 3]!);
      }
    }
    choices = next;
  }
  return choices;
}

const NO_SETS: readonly number[] = Object.freeze([0, 0, 0, 0]);

/** The offset in `choices` of the best choice: the first melding most points. */
function bestSets(c: number, d: number, h: number, s: number, choices: readonly number[]): number {
  if (choices.length === 4) return 0;
  let bestValue = -1;
  let best = 0;
  for (let i = 0; i < choices.length; i += 4) {
    const sc = choices[i]!, sd = choices[i + 1]!, sh = choices[i + 2]!, ss = choices[i + 3]!;
    const value = VALUE13[sc | cover(c ^ sc)]! + VALUE13[sd | cover(d ^ sd)]!
      + VALUE13[sh | cover(h ^ sh)]! + VALUE13[ss | cover(s ^ ss)]!;
    if (value > bestValue) {
      bestValue = value;
      best = i;
    }
  }
  return best;
}

/** Melds from set cards and run cards (suit quads): runs first, then sets. */
function splitMelds(
  sc: number, sd: number, sh: number, ss: number,
  rc: number, rd: number, rh: number, rs: number,
): Mask[] {
  const melds: Mask[] = [];
  const runs = [rc, rd, rh, rs];
  for (let suit = 0; suit < 4; suit++) {
    let r = runs[suit]!;
    while (r) {
      const low = r & -r;
      const block = ((r + low) ^ r) & r;
      melds.push(block * SCALE[suit]!);
      r ^= block;
    }
  }
  // Sets in the order of their lowest card's bit, as gin/ lists them.
  let ranks = sc | sd | sh | ss;
  while (ranks) {
    const first = sc & ranks || sd & ranks || sh & ranks || ss & ranks;
    const low = first & -first;
    melds.push(fromSuits(sc & low, sd & low, sh & low, ss & low));
    ranks ^= low;
  }
  return melds;
}

/** A hand laid out: its melds (as masks) and its deadwood. */
export class Arrangement {
  constructor(
    readonly meldMasks: readonly Mask[],
    readonly deadwoodMask: Mask,
    readonly deadwood: number,
  ) {}

  get melds(): Meld[] {
    return this.meldMasks.map(maskCards);
  }

  get deadwoodCards(): Card[] {
    return maskCards(this.deadwoodMask);
  }
}

/** What discarding one card of an eleven-card hand leaves. */
export class DiscardOption {
  constructor(
    /** The card thrown, as a one-card mask. */
    readonly bit: Mask,
    /** Least deadwood of the ten cards left. */
    readonly deadwood: number,
    /** Their loose cards, as {@link arrangeMask} lays them out. */
    readonly deadwoodMask: Mask,
  ) {}
}

function arrangeSuits(c: number, d: number, h: number, s: number): Arrangement {
  const three = threeRanks(c, d, h, s);
  let sc = 0, sd = 0, sh = 0, ss = 0;
  if (three) {
    const choices = setChoices(c, d, h, s, three);
    const i = bestSets(c, d, h, s, choices);
    sc = choices[i]!; sd = choices[i + 1]!; sh = choices[i + 2]!; ss = choices[i + 3]!;
  }
  const xc = c ^ sc, xd = d ^ sd, xh = h ^ sh, xs = s ^ ss;
  const rc = cover(xc), rd = cover(xd), rh = cover(xh), rs = cover(xs);
  const lc = xc ^ rc, ld = xd ^ rd, lh = xh ^ rh, ls = xs ^ rs;
  const deadwood = VALUE13[lc]! + VALUE13[ld]! + VALUE13[lh]! + VALUE13[ls]!;
  if (!(sc | sd | sh | ss | rc | rd | rh | rs)) {
    return new Arrangement([], fromSuits(c, d, h, s), deadwood);
  }
  return new Arrangement(splitMelds(sc, sd, sh, ss, rc, rd, rh, rs),
    fromSuits(lc, ld, lh, ls), deadwood);
}

/** The best arrangement of the cards in `mask` (any number of cards). */
export function arrangeMask(mask: Mask): Arrangement {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  return arrangeSuits(lo & SUIT, lo >>> 13, hi & SUIT, hi >>> 13);
}

/** Where {@link looseInto} writes (no array per call: it runs for every discard). */
const LOOSE = new Int32Array(4);

/** The deadwood cards of the best arrangement (gin's `_loose`), into {@link LOOSE}. */
function looseInto(c: number, d: number, h: number, s: number): void {
  const three = threeRanks(c, d, h, s);
  if (three) {
    const choices = setChoices(c, d, h, s, three);
    const i = bestSets(c, d, h, s, choices);
    c ^= choices[i]!; d ^= choices[i + 1]!; h ^= choices[i + 2]!; s ^= choices[i + 3]!;
  }
  LOOSE[0] = c ^ cover(c);
  LOOSE[1] = d ^ cover(d);
  LOOSE[2] = h ^ cover(h);
  LOOSE[3] = s ^ cover(s);
}

/** Bit index of the loose card a player throws: highest value, then rank, then suit. */
function highestCard(c: number, d: number, h: number, s: number): number {
  const rank = 31 - Math.clz32(c | d | h | s);
  const bit = 1 << rank;
  if (s & bit) return 39 + rank;
  if (h & bit) return 26 + rank;
  if (d & bit) return 13 + rank;
  return rank;
}

/**
 * Best discard (as a one-card mask) of an eleven-card mask and the arrangement it
 * leaves. For each choice of sets, with the runs taken whole, the best discard is
 * the highest loose card. A hand melded whole tries every discard.
 */
export function discardMask(mask: Mask): [Mask, Arrangement] {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  const c = lo & SUIT, d = lo >>> 13, h = hi & SUIT, s = hi >>> 13;
  const choices = setChoices(c, d, h, s, threeRanks(c, d, h, s));
  let bestCost = maskValue(mask) + 1;
  let bestIndex = -1;
  let sc = 0, sd = 0, sh = 0, ss = 0, rc = 0, rd = 0, rh = 0, rs = 0;
  let lc = 0, ld = 0, lh = 0, ls = 0;
  for (let i = 0; i < choices.length; i += 4) {
    sc = choices[i]!; sd = choices[i + 1]!; sh = choices[i + 2]!; ss = choices[i + 3]!;
    rc = cover(c ^ sc); rd = cover(d ^ sd); rh = cover(h ^ sh); rs = cover(s ^ ss);
    lc = c ^ sc ^ rc; ld = d ^ sd ^ rd; lh = h ^ sh ^ rh; ls = s ^ ss ^ rs;
    if (!(lc | ld | lh | ls)) {
      let best: DiscardOption | undefined;
      for (const option of discardTable(mask)) {
        if (best === undefined || ginDiscardBefore(option, best)) best = option;
      }
      const bit = best!.bit;
      return [bit, arrangeMask(mask - bit)];
    }
    const index = highestCard(lc, ld, lh, ls);
    const cost = VALUE13[lc]! + VALUE13[ld]! + VALUE13[lh]! + VALUE13[ls]! - indexValue(index);
    if (cost < bestCost) {
      bestCost = cost;
      bestIndex = index;
    }
  }
  const bestBit = 2 ** bestIndex;
  if (choices.length === 4) { // the arrangement is at hand (and equals arrangeMask's)
    return [bestBit, new Arrangement(splitMelds(sc, sd, sh, ss, rc, rd, rh, rs),
      fromSuits(lc, ld, lh, ls) - bestBit, bestCost)];
  }
  return [bestBit, arrangeMask(mask - bestBit)];
}

/** Among discards of a hand melded whole: least deadwood, then the highest card. */
function ginDiscardBefore(a: DiscardOption, b: DiscardOption): boolean {
  if (a.deadwood !== b.deadwood) return a.deadwood < b.deadwood;
  const va = bitValue(a.bit), vb = bitValue(b.bit);
  if (va !== vb) return va > vb;
  return a.bit > b.bit;
}

/**
 * Every discard of `mask` (lowest card first) and the best arrangement it leaves:
 * each `deadwoodMask` equals `arrangeMask(mask - bit).deadwoodMask`. A card no
 * meld can use leaves the hand's own layout less that card; with one choice of
 * sets, the layout after a discard is those sets less the card (less its rank if
 * three are no longer left) and the runs of the rest.
 */
export function discardTable(mask: Mask): DiscardOption[] {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  const q = [lo & SUIT, lo >>> 13, hi & SUIT, hi >>> 13];
  const c = q[0]!, d = q[1]!, h = q[2]!, s = q[3]!;
  const three = threeRanks(c, d, h, s);
  const choices = setChoices(c, d, h, s, three);
  const i = bestSets(c, d, h, s, choices);
  const left: number[] = [];
  const free: number[] = [];
  for (let suit = 0; suit < 4; suit++) {
    const rest = q[suit]! ^ choices[i + suit]!;
    left.push(rest ^ cover(rest));
    free.push(left[suit]! & ~three & ~cover(q[suit]!));
  }
  const leftValue = VALUE13[left[0]!]! + VALUE13[left[1]!]! + VALUE13[left[2]!]! + VALUE13[left[3]!]!;
  const sets = choices.length === 4 ? choices : null;
  const options: DiscardOption[] = [];
  for (let suit = 0; suit < 4; suit++) {
    let todo = q[suit]!;
    while (todo) {
      const low = todo & -todo;
      todo ^= low;
      const rank = 31 - Math.clz32(low);
      const bit = low * SCALE[suit]!;
      if (low & free[suit]!) {
        options.push(new DiscardOption(bit, leftValue - RANK_VALUE[rank]!,
          fromSuits(left[0]!, left[1]!, left[2]!, left[3]!) - bit));
        continue;
      }
      // The hand less this card, suit by suit (scalars: this runs for every card).
      const a0 = suit === 0 ? c ^ low : c, a1 = suit === 1 ? d ^ low : d;
      const a2 = suit === 2 ? h ^ low : h, a3 = suit === 3 ? s ^ low : s;
      let l0: number, l1: number, l2: number, l3: number;
      if (sets === null) {
        looseInto(a0, a1, a2, a3);
        l0 = LOOSE[0]!; l1 = LOOSE[1]!; l2 = LOOSE[2]!; l3 = LOOSE[3]!;
      } else {
        let k0 = sets[0]!, k1 = sets[1]!, k2 = sets[2]!, k3 = sets[3]!;
        if (low & sets[suit]!) {
          const count = (k0 & low ? 1 : 0) + (k1 & low ? 1 : 0) + (k2 & low ? 1 : 0) + (k3 & low ? 1 : 0);
          if (count === 4) {
            if (suit === 0) k0 ^= low; else if (suit === 1) k1 ^= low; else if (suit === 2) k2 ^= low; else k3 ^= low;
          } else {
            k0 &= ~low; k1 &= ~low; k2 &= ~low; k3 &= ~low;
          }
        }
        const r0 = a0 ^ k0, r1 = a1 ^ k1, r2 = a2 ^ k2, r3 = a3 ^ k3;
        l0 = r0 ^ cover(r0); l1 = r1 ^ cover(r1); l2 = r2 ^ cover(r2); l3 = r3 ^ cover(r3);
      }
      options.push(new DiscardOption(bit, VALUE13[l0]! + VALUE13[l1]! + VALUE13[l2]! + VALUE13[l3]!,
        fromSuits(l0, l1, l2, l3)));
    }
  }
  return options;
}

/** The entry of {@link discardTable} for throwing card `bit` of `mask`. */
export function discardOption(mask: Mask, bit: Mask): DiscardOption {
  const table = discardTable(mask);
  const option = table.find((o) => o.bit === bit);
  if (option === undefined) throw new MalformedInput("the card thrown is not in the hand");
  return option;
}

/** For each card bit of `mask`, the least deadwood left after discarding it. */
export function discardDeadwoods(mask: Mask): Map<Mask, number> {
  return new Map(discardTable(mask).map((o) => [o.bit, o.deadwood]));
}

/**
 * Whether one arrangement alone leaves `mask` its least deadwood (a sufficient
 * test): no card is in both a run and a set and no run is six long.
 */
export function hasOneLayout(mask: Mask): boolean {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  const q = [lo & SUIT, lo >>> 13, hi & SUIT, hi >>> 13];
  const three = threeRanks(q[0]!, q[1]!, q[2]!, q[3]!);
  for (const sm of q) {
    const starts = sm & (sm >>> 1) & (sm >>> 2) & RUN_START;
    if (cover(sm) & three & sm || starts & (starts >>> 3) & SIX_START) return false;
  }
  return true;
}

/** Every run of three or more inside one suit's 13-bit mask. */
function runs13(sm: number): number[] {
  const runs: number[] = [];
  for (let start = 0; start < 11; start++) {
    let length = 0;
    while (start + length < 13 && (sm >>> (start + length)) & 1) {
      length += 1;
      if (length >= 3) runs.push(((1 << length) - 1) << start);
    }
  }
  return runs;
}

/** Every run and set contained in `mask`, in gin's order (runs by suit, then sets). */
export function candidateMelds(mask: Mask): Mask[] {
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  const q = [lo & SUIT, lo >>> 13, hi & SUIT, hi >>> 13];
  const melds: Mask[] = [];
  for (let suit = 0; suit < 4; suit++) {
    const sm = q[suit]!;
    if (sm & (sm >>> 1) & (sm >>> 2) & RUN_START) {
      for (const run of runs13(sm)) melds.push(run * SCALE[suit]!);
    }
  }
  let three = threeRanks(q[0]!, q[1]!, q[2]!, q[3]!);
  while (three) {
    const low = three & -three;
    three ^= low;
    const bits: Mask[] = [];
    for (let suit = 0; suit < 4; suit++) if (q[suit]! & low) bits.push(low * SCALE[suit]!);
    if (bits.length === 4) {
      const whole = bits[0]! + bits[1]! + bits[2]! + bits[3]!;
      melds.push(whole);
      for (const b of bits) melds.push(whole - b);
    } else {
      melds.push(bits[0]! + bits[1]! + bits[2]!);
    }
  }
  return melds;
}

/** One combination of pairwise disjoint melds. */
export interface MeldCombination {
  used: Mask;
  value: number;
  chosen: Mask[];
}

/** Every set of pairwise disjoint melds, in gin's order (depth first, as listed). */
export function* meldCombinations(melds: readonly Mask[]): Generator<MeldCombination> {
  const stack: [number, Mask, number, Mask[]][] = [[0, 0, 0, []]];
  const n = melds.length;
  while (stack.length) {
    const [start, used, value, chosen] = stack.pop()!;
    yield { used, value, chosen };
    for (let j = n - 1; j >= start; j--) {
      const meld = melds[j]!;
      if (!meets(meld, used)) {
        stack.push([j + 1, or(used, meld), value + maskValue(meld), [...chosen, meld]]);
      }
    }
  }
}

/**
 * Every maximal arrangement (no further meld fits), optionally bounded: for
 * choosing among arrangements of equal deadwood.
 */
export function allArrangements(mask: Mask, maxDeadwood: number | null = null): Arrangement[] {
  const total = maskValue(mask);
  const melds = candidateMelds(mask);
  const out: Arrangement[] = [];
  for (const { used, value, chosen } of meldCombinations(melds)) {
    if (melds.some((m) => !meets(m, used))) continue; // not maximal
    const deadwood = total - value;
    if (maxDeadwood === null || deadwood <= maxDeadwood) {
      out.push(new Arrangement(chosen, mask - used, deadwood));
    }
  }
  return out;
}

/** Whether a mask is a single legal set or run. */
export function isMeldMask(mask: Mask): boolean {
  const n = bitCount(mask);
  if (n < 3) return false;
  const lo = loHalf(mask);
  const hi = hiHalf(mask);
  const q = [lo & SUIT, lo >>> 13, hi & SUIT, hi >>> 13];
  if (popcount32(q[0]! | q[1]! | q[2]! | q[3]!) === 1) return n <= 4;
  for (let suit = 0; suit < 4; suit++) {
    const sm = q[suit]!;
    if (sm) {
      if (sm * SCALE[suit]! !== mask) return false;
      const low = sm & -sm;
      return ((sm + low) & sm) === 0; // one unbroken block of ranks
    }
  }
  return false;
}

/** The mask of a legal meld, or MalformedInput naming the cards. */
export function checkMeld(cards: Iterable<Card>): Mask {
  const list = [...cards];
  const mask = cardsMask(list);
  if (bitCount(mask) !== list.length || !isMeldMask(mask)) {
    throw new MalformedInput(
      `'${list.join(" ")}' is not a meld: a set is 3-4 cards of one rank, `
      + "a run 3+ cards in sequence in one suit (ace low, no wrap-around)");
  }
  return mask;
}

/** The exact least-deadwood arrangement of up to ten (or more) cards. */
export function bestArrangement(cards: Iterable<Card>): Arrangement {
  return arrangeMask(distinctMask(cards));
}

/**
 * For eleven cards: the discard that leaves least deadwood, and that arrangement.
 * Among equal results the first choice of sets wins, throwing its highest loose card.
 */
export function bestDiscard(cards: Iterable<Card>): [Card, Arrangement] {
  const list = [...cards];
  const mask = distinctMask(list);
  if (list.length !== 11) {
    throw new MalformedInput(`best_discard needs 11 cards, got ${list.length}`);
  }
  const [bit, arrangement] = discardMask(mask);
  return [maskCards(bit)[0]!, arrangement];
}

/** Deadwood points of the best arrangement. */
export function deadwood(cards: Iterable<Card>): number {
  return bestArrangement(cards).deadwood;
}

function distinctMask(cards: Iterable<Card>): Mask {
  const list = [...cards];
  const mask = cardsMask(list);
  if (bitCount(mask) !== list.length) {
    throw new MalformedInput(`the same card appears twice in ${list.join(" ")}`);
  }
  return mask;
}
