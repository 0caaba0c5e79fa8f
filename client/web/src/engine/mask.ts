/**
 * Sets of cards as 52-bit masks held in a plain number.
 *
 * gin/ keeps a hand in a Python int; here the same 52-bit integer is a JS number
 * (exact up to 2^53). JS bitwise operators work on 32 bits, so these helpers split
 * a mask into two 26-bit halves (clubs and diamonds low, hearts and spades high),
 * or into the four 13-bit suit masks the meld search works on.
 */

/** A set of cards: bit `suit * 13 + rank - 1` for each card. */
export type Mask = number;

const HALF = 67108864; // 2^26
const SUIT = 0x1fff;

/** The high 26 bits (hearts, spades). */
export function hiHalf(m: Mask): number {
  return (m / HALF) | 0;
}

/** The low 26 bits (clubs, diamonds). */
export function loHalf(m: Mask): number {
  return m - ((m / HALF) | 0) * HALF;
}

/** A mask from its four 13-bit suit masks (clubs, diamonds, hearts, spades). */
export function fromSuits(c: number, d: number, h: number, s: number): Mask {
  return ((s << 13) | h) * HALF + ((d << 13) | c);
}

/** One suit's 13-bit part of a mask (0 clubs .. 3 spades). */
export function suitBits(m: Mask, suit: number): number {
  const half = suit < 2 ? loHalf(m) : hiHalf(m);
  return (suit & 1 ? half >>> 13 : half) & SUIT;
}

export function and(a: Mask, b: Mask): Mask {
  return (hiHalf(a) & hiHalf(b)) * HALF + (loHalf(a) & loHalf(b));
}

export function or(a: Mask, b: Mask): Mask {
  return (hiHalf(a) | hiHalf(b)) * HALF + (loHalf(a) | loHalf(b));
}

export function xor(a: Mask, b: Mask): Mask {
  return (hiHalf(a) ^ hiHalf(b)) * HALF + (loHalf(a) ^ loHalf(b));
}

/** `a & ~b`. */
export function andNot(a: Mask, b: Mask): Mask {
  return (hiHalf(a) & ~hiHalf(b)) * HALF + (loHalf(a) & ~loHalf(b));
}

/** Whether two masks share a card. */
export function meets(a: Mask, b: Mask): boolean {
  return (hiHalf(a) & hiHalf(b)) !== 0 || (loHalf(a) & loHalf(b)) !== 0;
}

/** The number of set bits of a 32-bit value. */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** The number of cards in a mask. */
export function bitCount(m: Mask): number {
  return popcount32(hiHalf(m)) + popcount32(loHalf(m));
}

/** The bit index (0..51) of the lowest card of a non-empty mask. */
export function lowestIndex(m: Mask): number {
  const lo = loHalf(m);
  if (lo) return 31 - Math.clz32(lo & -lo);
  const hi = hiHalf(m);
  return 26 + 31 - Math.clz32(hi & -hi);
}

/** The bit index (0..51) of the highest card of a non-empty mask. */
export function highestIndex(m: Mask): number {
  const hi = hiHalf(m);
  if (hi) return 26 + 31 - Math.clz32(hi);
  return 31 - Math.clz32(loHalf(m));
}

/** The mask of the single card at bit `index`. */
export function bit(index: number): Mask {
  return 2 ** index;
}

/** The bit indices of a mask, lowest first. */
export function indices(m: Mask): number[] {
  const out: number[] = [];
  let lo = loHalf(m);
  let hi = hiHalf(m);
  while (lo) {
    const low = lo & -lo;
    out.push(31 - Math.clz32(low));
    lo ^= low;
  }
  while (hi) {
    const low = hi & -hi;
    out.push(57 - Math.clz32(low));
    hi ^= low;
  }
  return out;
}

/** The one-card masks of a mask, lowest first (Python's `_bits`). */
export function bits(m: Mask): Mask[] {
  return indices(m).map((i) => 2 ** i);
}

/** The bitwise union of masks. */
export function union(masks: Iterable<Mask>): Mask {
  let hi = 0;
  let lo = 0;
  for (const m of masks) {
    hi |= hiHalf(m);
    lo |= loHalf(m);
  }
  return hi * HALF + lo;
}

/** Every card: (1 << 52) - 1. */
export const FULL: Mask = 2 ** 52 - 1;
