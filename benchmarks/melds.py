"""Speed of the exact meld search: prints figures, asserts nothing.

Mean µs per call of best_arrangement (10 cards) and best_discard (11 cards) on
20,000 hands of three kinds: random, dense (ranks 4..8 only, where sets and runs
fight over cards) and hands met in real play (a greedy player drawing from the
stock). Fixed seeds; each figure is the median of several runs, with the result
caches cleared before every run and the played hands distinct, so each hand is
searched for real (best_arrangement on Cards does not cache at all).

    python benchmarks/melds.py [--hands 20000] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from gin.engine.cards import DECK, mask_cards
from gin.engine.melds import arrange_mask, best_arrangement, best_discard, discard_mask


def random_hands(rng: random.Random, n: int, size: int) -> list[int]:
    return [sum(1 << i for i in rng.sample(range(52), size)) for _ in range(n)]


def dense_hands(rng: random.Random, n: int, size: int) -> list[int]:
    pool = [c.index for c in DECK if 4 <= c.rank <= 8]
    return [sum(1 << i for i in rng.sample(pool, size)) for _ in range(n)]


def played_hands(rng: random.Random, n: int, size: int) -> list[int]:
    """Distinct hands from greedy play: draw from the stock, throw the best discard
    (distinct, so that the mask API's cache never answers for the search)."""
    out: list[int] = []
    seen: set[int] = set()
    while len(out) < n:
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << i for i in deck[:10])
        for card in deck[10:40]:
            hand |= 1 << card
            if size == 11 and hand not in seen:
                seen.add(hand)
                out.append(hand)
            bit, _ = discard_mask(hand)
            hand ^= bit
            if size == 10 and hand not in seen:
                seen.add(hand)
                out.append(hand)
    return out[:n]


def mean_us(fn: Callable[[Any], object], hands: Sequence[object], runs: int) -> float:
    """Median over ``runs`` of the mean µs of ``fn`` over ``hands`` (each a mask, or
    a tuple of Cards for the Card API: converted before the clock starts)."""
    samples = []
    for _ in range(runs):
        arrange_mask.cache_clear()
        discard_mask.cache_clear()
        start = time.perf_counter()
        for hand in hands:
            fn(hand)
        samples.append((time.perf_counter() - start) / len(hands) * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"mean µs per call, {args.hands} hands, median of {args.runs} runs, cache cleared")
    print(f"{'hands':<8} {'10: mask API':>13} {'10: cards API':>14} "
          f"{'11: mask API':>13} {'11: cards API':>14}")
    for label, make in (("random", random_hands), ("dense", dense_hands),
                        ("played", played_hands)):
        ten = make(random.Random(1), args.hands, 10)
        eleven = make(random.Random(2), args.hands, 11)
        figures = (
            mean_us(arrange_mask, ten, args.runs),
            mean_us(best_arrangement, [mask_cards(h) for h in ten], args.runs),
            mean_us(discard_mask, eleven, args.runs),
            mean_us(best_discard, [mask_cards(h) for h in eleven], args.runs),
        )
        print(f"{label:<8} " + " ".join(f"{f:>13.2f}" for f in figures))


if __name__ == "__main__":
    main()
