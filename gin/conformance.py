"""The conformance corpus: cases from fixed seeds that the TypeScript engine
(``client/web``) must answer exactly as gin/ does.

``python -m gin.conformance OUT_DIR`` writes JSON-lines files (one case per line,
each with a ``kind``); ``npm run conformance -- FILE...`` checks them against the
TS engine. The format is documented in ``docs/conformance.md``.

Building the cases is pure (generators of plain dicts, randomness from seeded
``random.Random``); only the command at the bottom writes files, as the command
line of this one module.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from gin.cards import DECK, mask_cards
from gin.melds import arrange_mask, discard_mask

Case = dict[str, Any]


def _texts(mask: int) -> list[str]:
    return [str(c) for c in mask_cards(mask)]


def arrange_case(mask: int) -> Case:
    """The arrangement case of a hand of 10 cards, or of 11 (after its best discard)."""
    cards = _texts(mask)
    if mask.bit_count() == 11:
        bit, arrangement = discard_mask(mask)
        return {
            "kind": "arrange",
            "cards": cards,
            "deadwood": arrangement.deadwood,
            "discard": _texts(bit)[0],
            "melds": [_texts(m) for m in arrangement.meld_masks],
            "deadwood_cards": _texts(arrangement.deadwood_mask),
        }
    arrangement = arrange_mask(mask)
    return {
        "kind": "arrange",
        "cards": cards,
        "deadwood": arrangement.deadwood,
        "melds": [_texts(m) for m in arrangement.meld_masks],
        "deadwood_cards": _texts(arrangement.deadwood_mask),
    }


def _random_hand(rng: random.Random, size: int, pool: list[int]) -> int:
    return sum(1 << i for i in rng.sample(pool, size))


def _played_hands(rng: random.Random, n: int) -> Iterator[int]:
    """Hands met in play, 11 cards then 10 alternately: a greedy player draws from
    the stock and throws its best discard."""
    made = 0
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << i for i in deck[:10])
        for card in deck[10:40]:
            hand |= 1 << card
            yield hand
            bit, _ = discard_mask(hand)
            hand ^= bit
            yield hand
            made += 2
            if made >= n:
                return


def arrange_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` hands of each kind and size: random, dense (ranks 4 to 8, where sets
    and runs fight over cards) and from play; 10 and 11 cards."""
    rng = random.Random(f"gin-conformance:arrange:{seed}")
    every = list(range(52))
    dense = [c.index for c in DECK if 4 <= c.rank <= 8]
    for size in (10, 11):
        for _ in range(n):
            yield arrange_case(_random_hand(rng, size, every))
        for _ in range(n):
            yield arrange_case(_random_hand(rng, size, dense))
    for hand in _played_hands(rng, 2 * n):
        yield arrange_case(hand)


def corpus(scale: int = 1) -> dict[str, Iterator[Case]]:
    """The files of the corpus by name, each an iterator of cases. ``scale`` 1 is
    the size CI checks; larger multiplies the counts."""
    return {
        "arrange.jsonl": arrange_cases(2000 * scale),
    }


if __name__ == "__main__":  # pragma: no cover - the command line, exercised by the test
    import argparse
    import json
    import pathlib

    parser = argparse.ArgumentParser(
        prog="python -m gin.conformance",
        description="Write the conformance corpus (JSON lines) for the TypeScript engine.",
    )
    parser.add_argument("out_dir", type=pathlib.Path, help="folder for the .jsonl files")
    parser.add_argument("--scale", type=int, default=1, help="multiply the case counts")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, cases in corpus(args.scale).items():
        count = 0
        with open(args.out_dir / name, "w", encoding="utf-8") as out:
            for case in cases:
                out.write(json.dumps(case, separators=(",", ":")) + "\n")
                count += 1
        print(f"{args.out_dir / name}: {count} cases")
