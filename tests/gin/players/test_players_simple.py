"""The simple player's meld search against a literal transcription of OpenSpiel's
AllMeldGroups/BestMeldGroup (every path of the depth-first search, the first of
the most melded points wins): the pruned search must pick the same group."""

import random

from gin.engine.cards import cards_mask
from gin.engine.hand import shuffled_deck
from gin.engine.melds import arrange_mask
from gin.players.simple import _bot_to_ours, _meld_list, _ours_to_bot, best_group


def _all_paths(melds: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    paths: list[list[tuple[int, int]]] = []

    def walk(meld: tuple[int, int], options: list[tuple[int, int]],
             path: list[tuple[int, int]]) -> None:
        path.append(meld)
        children = [m for m in options if not m[0] & meld[0]]
        if not children:
            paths.append(list(path))
        for child in children:
            walk(child, children, path)
        path.pop()

    for meld in melds:
        walk(meld, melds, [])
    return paths


def _literal_best(mask: int) -> tuple[int, ...]:
    bot = _ours_to_bot(mask)
    melds = _meld_list([i for i in range(52) if bot >> i & 1])
    best, best_value = [], 0
    for path in _all_paths(melds):
        value = sum(points for _, points in path)
        if value > best_value:
            best, best_value = path, value
    return tuple(_bot_to_ours(m) for m, _ in best)


def test_numbering_round_trips() -> None:
    for i in range(52):
        assert _bot_to_ours(_ours_to_bot(1 << i)) == 1 << i
    assert _ours_to_bot(1 << 39) == 1  # our ace of spades is the bot's card 0


def test_pruned_search_picks_the_literal_first_best_group() -> None:
    rng = random.Random(4)
    checked = 0
    for _ in range(400):
        deck = shuffled_deck(rng)
        # Dense hands (few suits, few ranks) are where groups tie and compete.
        pool = [c for c in deck if c.rank <= 8 and c.suit <= 2][:18]
        mask = cards_mask(pool[: rng.choice((10, 11))])
        group = best_group(mask)
        assert group == _literal_best(mask)
        melded = sum(group)
        assert sum(m.bit_count() for m in group) == melded.bit_count()
        assert arrange_mask(mask).deadwood == sum(
            min(i % 13 + 1, 10) for i in range(52) if (mask & ~melded) >> i & 1)
        checked += bool(group)
    assert checked > 300
