"""Melds: the worked examples of the seeds, and the exact search against brute force."""

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gin import DECK, Card, best_arrangement, best_discard, parse_cards
from gin.engine.cards import mask_cards
from gin.engine.melds import (
    all_arrangements,
    arrange_mask,
    discard_option,
    discard_table,
    has_one_layout,
    is_meld_mask,
)


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def test_set_beats_run_for_5_6_7_hearts_with_two_sevens() -> None:
    # 000: "The set wins that one." 5-6-7h with 7s 7d (a king makes ten points more).
    a = best_arrangement(cards("5h 6h 7h 7s 7d Kc"))
    assert a.melds == (tuple(cards("7d 7h 7s")),)
    assert a.deadwood == 5 + 6 + 10


def test_run_beats_set_for_2_3_4_hearts_with_two_deuces() -> None:
    # 000: melding the deuces leaves seventeen, running the hearts fourteen.
    hand = cards("2h 3h 4h 2s 2d Kc")
    a = best_arrangement(hand)
    assert a.melds == (tuple(cards("2h 3h 4h")),)
    assert a.deadwood == 14
    # The other arrangement exists and costs seventeen.
    assert sorted(x.deadwood for x in all_arrangements(sum(c.mask for c in hand))) == [14, 17]


def test_ace_is_low_only() -> None:
    assert best_arrangement(cards("Ah 2h 3h")).deadwood == 0
    assert best_arrangement(cards("Qh Kh Ah")).deadwood == 21  # 000: 21 points of deadwood
    assert best_arrangement(cards("Kh Ah 2h")).deadwood == 13


def test_rules_page_example_three_sevens_and_a_club_run() -> None:
    # 003: "Three 7s and a run of clubs ... 1 + 3 + 9 + 10 = 23."
    a = best_arrangement(cards("7c 7d 7h 4c 5c 6c Ad 3s 9h Ks"))
    assert a.deadwood == 23
    assert len(a.melds) == 2


def test_eleven_cards_knock_needs_the_exact_minimum_over_discards() -> None:
    discard, a = best_discard(cards("2d 3c 3s 4d 4s 5c 5d 5s 6c 6d 6s"))
    assert a.deadwood == 10
    assert discard.rank == 6


def test_four_card_set_and_long_run_partition() -> None:
    a = best_arrangement(cards("7c 7d 7h 7s 8h 9h Th Jh Qh Kh"))
    assert a.deadwood == 0


def test_tie_break_run_before_set_and_a_block_is_one_run() -> None:
    # 3-4-5 of hearts or three fours: 8 deadwood either way; the documented
    # tie-break takes the run. A suit's block of six is one run.
    a = best_arrangement(cards("3h 4h 5h 4s 4d"))
    assert (a.deadwood, a.melds) == (8, (tuple(cards("3h 4h 5h")),))
    a = best_arrangement(cards("Ac 2c 3c 4c 5c 6c 9d 9h 9s Kd"))
    assert a.melds == (tuple(cards("Ac 2c 3c 4c 5c 6c")), tuple(cards("9d 9h 9s")))
    assert a.deadwood == 10


def test_run_across_suits_is_two_runs() -> None:
    # Jack-queen-king of clubs and ace-two-three of diamonds sit side by side in a
    # mask; they are still two runs.
    a = best_arrangement(cards("Jc Qc Kc Ad 2d 3d"))
    assert a.melds == (tuple(cards("Jc Qc Kc")), tuple(cards("Ad 2d 3d")))


def test_gin_discard_keeps_every_card_melded() -> None:
    # Eleven cards all in melds: throw the highest card that leaves gin.
    discard, a = best_discard(cards("Ac 2c 3c 4c 5h 6h 7h 8h 9s Ts Js"))
    assert (a.deadwood, str(discard)) == (0, "8h")


def _reference_melds(hand: list[Card]) -> list[tuple[int, int]]:
    """Every meld among ``hand``'s cards, by trying every group of three or more:
    its mask and its points."""
    masks = [c.mask for c in hand]
    melds = []
    for size in range(3, len(hand) + 1):
        for combo in combinations(range(len(hand)), size):
            m = 0
            for i in combo:
                m |= masks[i]
            if _is_meld_reference([hand[i] for i in combo]):
                melds.append((m, sum(hand[i].value for i in combo)))
    return melds


def _brute_force(hand: list[Card], melds: list[tuple[int, int]] | None = None) -> int:
    """Independent reference: try every way to peel one meld off recursively.
    ``melds``: the melds of a bigger hand holding these cards (those of cards not in
    ``hand`` are left out), found once for all its discards."""
    total = sum(c.value for c in hand)
    cards = sum(c.mask for c in hand)
    melds = [m for m in (_reference_melds(hand) if melds is None else melds)
             if m[0] & ~cards == 0]
    best = 0

    def go(start: int, used: int, value: int) -> None:
        nonlocal best
        best = max(best, value)
        for j in range(start, len(melds)):
            m, v = melds[j]
            if not m & used:
                go(j + 1, used | m, value + v)

    go(0, 0, 0)
    return total - best


def _is_meld_reference(group: list[Card]) -> bool:
    if len({c.rank for c in group}) == 1:
        return 3 <= len(group) <= 4
    if len({c.suit for c in group}) != 1:
        return False
    ranks = sorted(c.rank for c in group)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


hands = st.lists(st.sampled_from(DECK), min_size=0, max_size=10, unique=True)
# Dense hands: few ranks, all suits, where sets and runs fight over cards.
dense = st.lists(
    st.sampled_from([c for c in DECK if 4 <= c.rank <= 8]), min_size=6, max_size=10, unique=True
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands, dense))
def test_best_arrangement_equals_brute_force(hand: list[Card]) -> None:
    a = best_arrangement(hand)
    assert a.deadwood == _brute_force(hand)


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands, dense))
def test_arrangement_is_a_valid_partition(hand: list[Card]) -> None:
    a = best_arrangement(hand)
    seen: list[Card] = [c for meld in a.melds for c in meld] + list(a.deadwood_cards)
    assert sorted(seen) == sorted(hand)
    assert all(is_meld_mask(sum(c.mask for c in meld)) for meld in a.melds)
    assert a.deadwood == sum(c.value for c in a.deadwood_cards)


eleven = st.lists(st.sampled_from(DECK), min_size=11, max_size=11, unique=True)
# Eleven of the twenty cards of ranks 4..8: rich in overlapping melds and in gins.
dense_eleven = st.lists(
    st.sampled_from([c for c in DECK if 4 <= c.rank <= 8]), min_size=11, max_size=11, unique=True
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.one_of(eleven, dense_eleven))
def test_best_discard_is_minimum_over_all_eleven(hand: list[Card]) -> None:
    discard, a = best_discard(hand)
    melds = _reference_melds(hand)  # once: each discard keeps those without its card
    expected = min(_brute_force([c for c in hand if c != d], melds) for d in hand)
    assert a.deadwood == expected
    rest = [c for c in hand if c != discard]
    assert arrange_mask(sum(c.mask for c in rest)).deadwood == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 8), st.lists(st.integers(0, 19), min_size=11, max_size=11, unique=True))
def test_discard_table_equals_arranging_each_ten_card_hand(low: int, picks: list[int]) -> None:
    # Eleven of the twenty cards of five ranks in a row: rich in overlapping melds.
    _check_discard_table(sum(1 << (13 * (p % 4) + low + p // 4) for p in picks))


@settings(max_examples=300, deadline=None)
@given(eleven)
def test_discard_table_on_random_hands(hand: list[Card]) -> None:
    _check_discard_table(sum(c.mask for c in hand))


def _check_discard_table(hand: int) -> None:
    table = discard_table(hand)
    assert [o.bit for o in table] == [c.mask for c in mask_cards(hand)]
    for option in table:
        assert discard_option(hand, option.bit) == option
        best = arrange_mask(hand & ~option.bit)
        assert (option.deadwood, option.deadwood_mask) == (best.deadwood, best.deadwood_mask)


@st.composite
def _meldy_hands(draw: st.DrawFn) -> int:
    """Up to 13 cards, mostly runs and sets that touch: where layouts compete."""
    mask = 0
    for _ in range(draw(st.integers(0, 3))):
        rank = draw(st.integers(0, 12))
        if draw(st.booleans()):
            base = 13 * draw(st.integers(0, 3))
            mask |= sum(1 << base + r for r in range(rank, min(13, rank + draw(st.integers(3, 7)))))
        else:
            mask |= sum(1 << 13 * s + rank for s in draw(st.sets(st.integers(0, 3), min_size=3)))
    mask |= sum(1 << i for i in draw(st.sets(st.integers(0, 51), max_size=5)))
    return mask if mask.bit_count() <= 13 else 0


@given(_meldy_hands())
def test_a_hand_said_to_have_one_best_layout_has_one(mask: int) -> None:
    if has_one_layout(mask):
        least = arrange_mask(mask).deadwood
        assert sum(a.deadwood == least for a in all_arrangements(mask, least)) <= 1
