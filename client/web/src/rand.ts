/**
 * A portable random stream, the twin of gin/rand.py: xoshiro128** seeded by
 * splitmix32. The same seed gives the same numbers in both languages, so a
 * computer player's decision is a function of (observation, seed) in both.
 */

const TWO32 = 4294967296;

const GOLDEN = 0x9e3779b9;

/** One splitmix32 step from `state`: add the increment, mix, return the output. */
export function mix32(state: number): number {
  let z = (state + GOLDEN) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** `seed` if it is a whole number in [0, 2^32); RangeError naming it otherwise. */
export function checkSeed(seed: number): number {
  if (!Number.isInteger(seed) || seed < 0 || seed >= TWO32) {
    throw new RangeError(`a seed is a whole number in [0, 2^32), got ${seed}`);
  }
  return seed;
}

/**
 * A 32-bit seed from a seed and 32-bit words, for a stream per decision:
 * `h = seed`, then `h = mix32(h ^ word)` for each word.
 */
export function derive(seed: number, ...words: number[]): number {
  let h = checkSeed(seed);
  for (const word of words) h = mix32((h ^ word) >>> 0);
  return h;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}


export class Rand {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** A stream from a seed in [0, 2^32). */
  constructor(seed: number) {
    let state = checkSeed(seed);
    const next = (): number => {
      const out = mix32(state);
      state = (state + GOLDEN) >>> 0;
      return out;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  /** The next 32-bit output, in [0, 2^32). */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** A whole number in [0, n), unbiased (outputs at or above the last multiple of n are redrawn). */
  below(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > TWO32) {
      throw new RangeError(`below(n) needs a whole n in [1, 2^32], got ${n}`);
    }
    const limit = TWO32 - (TWO32 % n);
    for (;;) {
      const x = this.nextU32();
      if (x < limit) return x % n;
    }
  }

  /** A float in [0, 1) with 53 random bits. */
  random(): number {
    const a = this.nextU32() >>> 5;
    const b = this.nextU32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** Shuffle in place: Fisher–Yates from the end, swapping i with below(i + 1). */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const x = items[i]!;
      items[i] = items[j]!;
      items[j] = x;
    }
    return items;
  }

  /** One item, uniformly: `items[below(length)]`. */
  choice<T>(items: readonly T[]): T {
    if (!items.length) throw new RangeError("choice from an empty list");
    return items[this.below(items.length)]!;
  }
}
