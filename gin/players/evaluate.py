"""Hand evaluation shared by the computer players: all bit-mask arithmetic.

Cheap by design (a Normal decision is a few dozen mask operations), since the
simulator plays hundreds of hands a second and Hard must answer inside a UI.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from gin.engine.actions import Action, Discard, Knock
from gin.engine.cards import Card, mask_cards
from gin.engine.layoffs import layoff_closure
from gin.engine.melds import (
    Arrangement,
    all_arrangements,
    arrange_mask,
    discard_option,
    has_one_layout,
)

_SUIT = 0x1FFF
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))
# Bit positions by rank within each suit, for shifts that must not cross suits.
NOT_KING = sum(0x0FFF << (13 * s) for s in range(4))
NOT_ACE = sum(0x1FFE << (13 * s) for s in range(4))
_UP_TO_JACK = sum(0x07FF << (13 * s) for s in range(4))
ACES = sum(1 << (13 * s) for s in range(4))  # the four aces; shift by rank


def bits(mask: int) -> Iterable[int]:
    """The single-bit masks of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def bit_value(bit: int) -> int:
    return _RANK_VALUE[(bit.bit_length() - 1) % 13]


def potential(loose: int, live: int) -> int:
    """How close the loose cards are to melding, given the live cards.

    Sums, over every two-card start of a meld among ``loose`` (a pair, two in a
    row, or two with a gap) and every live card that would complete it, the
    points that meld would save. Zero for a hand with nothing to wait for.
    """
    total = 0
    # Runs, from a cached table per suit, in the suits with two in a row or a gap.
    near = loose & (loose >> 1 & NOT_KING | loose >> 2 & _UP_TO_JACK)
    if near:
        for shift in (0, 13, 26, 39):
            if near >> shift & _SUIT:
                alive = live >> shift & _SUIT
                for points, cards in _suit_outs(loose >> shift & _SUIT):
                    total += points * (cards & alive).bit_count()
    c, d, h, s = loose & _SUIT, loose >> 13 & _SUIT, loose >> 26 & _SUIT, loose >> 39
    pairs = (c & d) | ((c | d) & (h | s)) | (h & s)
    while pairs:  # sets: a pair waits for the other cards of its rank
        rank_bit = pairs & -pairs
        pairs ^= rank_bit
        rank = rank_bit.bit_length() - 1
        same = ACES << rank
        total += _RANK_VALUE[rank] * (loose & same).bit_count() * (live & same).bit_count()
    return total


def potential_without(loose: int, live: int, bit: int, whole: int) -> int:
    """``potential(loose ^ bit, live)`` for a card ``bit`` of ``loose``, given
    ``whole == potential(loose, live)``: only the starts with ``bit`` are lost (in
    its suit's runs and its rank's set), so a player scoring each discard of one
    set of loose cards needs one full :func:`potential`."""
    index = bit.bit_length() - 1
    rank = index % 13
    shift = index - rank
    alive = live >> shift
    for points, cards in _suit_loss((loose >> shift & _SUIT) << 4 | rank):
        whole -= points * (cards & alive).bit_count()
    same = ACES << rank
    held = (loose & same).bit_count()
    if held >= 2:  # the set term, value * held * live, counts from a pair up
        whole -= _RANK_VALUE[rank] * (live & same).bit_count() * (2 if held == 2 else 1)
    return whole


@lru_cache(maxsize=1 << 13)
def _suit_loss(key: int) -> tuple[tuple[int, int], ...]:
    """What :func:`_suit_outs` of a suit (``key >> 4``) loses with the card of rank
    ``key & 15``, in the same form. Keyed by one int: a tuple key costs more."""
    suit, rank = key >> 4, key & 15
    lost = _suit_worth(suit)
    after = _suit_worth(suit & ~(1 << rank))
    return _grouped([points - left for points, left in zip(lost, after, strict=True)])


@lru_cache(maxsize=1 << 13)
def _suit_outs(suit: int) -> tuple[tuple[int, int], ...]:
    """The run part of :func:`potential` in one suit (13-bit masks), as weights on
    the cards: ``(points, cards)`` pairs, each live card of ``cards`` being worth
    ``points``."""
    return _grouped(_suit_worth(suit))


def _suit_worth(suit: int) -> list[int]:
    """By rank, the points a live card of that rank would save in ``suit``'s runs."""
    worth = [0] * 13
    for rank in range(12):
        if suit >> rank & 3 == 3:  # two in a row: either end completes a run
            for out in (rank - 1, rank + 2):
                if 0 <= out <= 12:
                    worth[out] += _RANK_VALUE[rank] + _RANK_VALUE[rank + 1]
        if rank <= 10 and suit >> rank & 7 == 5:  # two with a gap: the middle card
            worth[rank + 1] += _RANK_VALUE[rank] + _RANK_VALUE[rank + 2]
    return worth


def _grouped(worth: list[int]) -> tuple[tuple[int, int], ...]:
    """``worth`` by rank as ``(points, cards)`` pairs, one per distinct nonzero worth."""
    grouped: dict[int, int] = {}
    for rank, points in enumerate(worth):
        if points:
            grouped[points] = grouped.get(points, 0) | 1 << rank
    return tuple(grouped.items())


@lru_cache(maxsize=52)
def meld_partners(bit: int) -> tuple[tuple[int, int], ...]:
    """Every pair of other cards that would make a three-card meld with ``bit``."""
    index = bit.bit_length() - 1
    rank, base = index % 13, index - index % 13
    others = [1 << (13 * s + rank) for s in range(4) if 13 * s + rank != index]
    pairs = [(others[0], others[1]), (others[0], others[2]), (others[1], others[2])]
    for lo in (rank - 2, rank - 1, rank):
        if lo >= 0 and lo + 2 <= 12:
            run = [1 << (base + r) for r in range(lo, lo + 3) if r != rank]
            pairs.append((run[0], run[1]))
    return tuple(pairs)


def melds_with(bit: int, hand: int) -> bool:
    """Whether ``bit`` makes a meld with two cards of ``hand`` (a cheap test that
    must pass before a card can end up in a meld of ``hand | bit``)."""
    index = bit.bit_length() - 1
    rank = index % 13
    if (hand & ~bit & ACES << rank).bit_count() >= 2:  # a set
        return True
    suit = (hand | bit) >> (index - rank) & _SUIT
    return bool((suit & suit >> 1 & suit >> 2) << 2 >> rank & 7)  # a run from rank-2..rank


def least_knock(hand: int, legal: Sequence[Action]) -> tuple[int, Knock] | None:
    """The legal knock leaving least deadwood, and that deadwood; None when no
    knock is legal. Cheap: the melds to declare are chosen by :func:`declare`."""
    knocks = [a for a in legal if isinstance(a, Knock)]
    if not knocks:
        return None
    least = None
    for knock in knocks:
        deadwood = discard_option(hand, knock.card.mask).deadwood
        if least is None or deadwood < least[0]:
            least = deadwood, knock
    return least


def declare(hand: int, knock: Knock, deadwood: int, live: int) -> tuple[Knock, Arrangement]:
    """``knock`` with its melds chosen to leave the defender fewest lay-offs.

    The knocker cannot see the defender's cards, so lay-offs are estimated by how
    many live cards could go onto the melds. ``deadwood`` is the least the cards
    kept can leave.
    """
    rest = hand & ~knock.card.mask
    if has_one_layout(rest):  # nothing to choose: skip the search of every layout
        return knock, arrange_mask(rest)
    options = [a for a in all_arrangements(rest, deadwood) if a.deadwood == deadwood]
    if len(options) <= 1:
        return knock, arrange_mask(rest)
    chosen = min(options, key=lambda a: len(layoff_closure(live, a.meld_masks)))
    return Knock(knock.card, tuple(mask_cards(m) for m in chosen.meld_masks)), chosen


def best_knock(
    hand: int, legal: Sequence[Action], live: int
) -> tuple[Knock, Arrangement] | None:
    """The legal knock leaving least deadwood, declared by :func:`declare`; None
    when no knock is legal."""
    least = least_knock(hand, legal)
    return None if least is None else declare(hand, least[1], least[0], live)


def discards(legal: Sequence[Action]) -> list[Card]:
    """The cards that may be thrown now."""
    return [a.card for a in legal if isinstance(a, Discard)]
