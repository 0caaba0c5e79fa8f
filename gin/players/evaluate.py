"""Hand evaluation shared by the computer players: all bit-mask arithmetic.

Cheap by design (a Normal decision is a few dozen mask operations), since the
simulator plays hundreds of hands a second and Hard must answer inside a UI.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gin.actions import Action, Discard, Knock
from gin.cards import Card, mask_cards
from gin.layoffs import layoff_closure
from gin.melds import Arrangement, all_arrangements, arrange_mask

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
    adjacent = loose & (loose >> 1) & NOT_KING
    for bit in bits(adjacent):
        outs = ((bit >> 1) & NOT_KING | (bit << 2) & NOT_ACE) & live
        total += (bit_value(bit) + bit_value(bit << 1)) * outs.bit_count()
    gaps = loose & (loose >> 2) & ~(loose >> 1) & _UP_TO_JACK
    for bit in bits(gaps):
        if bit << 1 & live:
            total += bit_value(bit) + bit_value(bit << 2)
    c, d, h, s = loose & _SUIT, loose >> 13 & _SUIT, loose >> 26 & _SUIT, loose >> 39
    pairs = (c & d) | ((c | d) & (h | s)) | (h & s)
    for rank_bit in bits(pairs):
        rank = rank_bit.bit_length() - 1
        same = ACES << rank
        total += _RANK_VALUE[rank] * (loose & same).bit_count() * (live & same).bit_count()
    return total


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


def best_knock(
    hand: int, legal: Sequence[Action], live: int
) -> tuple[Knock, Arrangement] | None:
    """The legal knock leaving least deadwood, with its melds chosen to leave the
    defender fewest lay-offs; None when no knock is legal.

    The knocker cannot see the defender's cards, so lay-offs are estimated by how
    many live cards could go onto the melds.
    """
    knocks = [a for a in legal if isinstance(a, Knock)]
    if not knocks:
        return None
    scored = [(arrange_mask(hand & ~k.card.mask).deadwood, i) for i, k in enumerate(knocks)]
    deadwood, index = min(scored)
    card = knocks[index].card
    rest = hand & ~card.mask
    options = [a for a in all_arrangements(rest, deadwood) if a.deadwood == deadwood]
    if len(options) <= 1:
        return Knock(card), arrange_mask(rest)
    chosen = min(options, key=lambda a: len(layoff_closure(live, a.meld_masks)))
    melds = tuple(mask_cards(m) for m in chosen.meld_masks)
    return Knock(card, melds), chosen


def discards(legal: Sequence[Action]) -> list[Card]:
    """The cards that may be thrown now."""
    return [a.card for a in legal if isinstance(a, Discard)]
