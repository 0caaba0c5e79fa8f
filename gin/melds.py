"""Melds and the exact best arrangement of a hand.

A hand is a 52-bit mask (see :mod:`gin.cards`). Runs are found by shifting each
suit's 13-bit mask, sets by a bitwise "three of four suits" test, and the best
arrangement by one pass over every combination of pairwise disjoint melds — no
rule of thumb about sets before runs. The same pass serves all eleven discards of
an eleven-card hand: for a combination, the best discard is the highest loose card
outside it.

Tie-break (documented, deterministic): among arrangements of equal deadwood the
first found wins. Melds are listed runs first (clubs to spades, lower start first,
shorter first), then sets (ace to king, the four-card set before its three-card
subsets); combinations are explored depth first, choosing melds in that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from typing import NamedTuple

from gin.cards import DECK, Card, cards_mask, mask_cards
from gin.errors import MalformedInput

Meld = tuple[Card, ...]

_SUIT = 0x1FFF
# Bits where a run of three may start: ranks ace..jack of every suit, so that a
# shifted test never wraps from one suit's king into the next suit's ace.
_RUN_START = sum(0x7FF << (13 * s) for s in range(4))
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))


def _suit_values() -> tuple[int, ...]:
    # Each mask's value is its lowest card's plus the rest's, already computed.
    values = [0] * (1 << 13)
    for sm in range(1, 1 << 13):
        low = sm & -sm
        values[sm] = values[sm ^ low] + _RANK_VALUE[low.bit_length() - 1]
    return tuple(values)


@cache
def _runs13(sm: int) -> tuple[int, ...]:
    """Every run of three or more inside one suit's 13-bit mask (computed on demand:
    building all 8,192 at import would slow the program's start)."""
    runs = []
    for start in range(11):
        length = 0
        while start + length < 13 and sm >> (start + length) & 1:
            length += 1
            if length >= 3:
                runs.append(((1 << length) - 1) << start)
    return tuple(runs)


_VALUE13 = _suit_values()


def mask_value(mask: int) -> int:
    """Sum of the card values in a mask."""
    return (
        _VALUE13[mask & _SUIT]
        + _VALUE13[mask >> 13 & _SUIT]
        + _VALUE13[mask >> 26 & _SUIT]
        + _VALUE13[mask >> 39]
    )


def _highest_card(mask: int) -> int:
    """Bit of the loose card a player throws: the highest value, then highest rank, suit."""
    ranks = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _SUIT
    rank = ranks.bit_length() - 1
    for suit in (3, 2, 1, 0):
        bit = 1 << (13 * suit + rank)
        if mask & bit:
            return bit
    raise AssertionError("empty mask")  # pragma: no cover - callers pass non-empty masks


def _has_meld(mask: int) -> bool:
    """Fast test: is there any run or set in the mask?"""
    if mask & (mask >> 1) & (mask >> 2) & _RUN_START:
        return True
    c, d, h, s = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39
    return bool((c & d & (h | s)) | (h & s & (c | d)))


def candidate_melds(mask: int) -> list[int]:
    """Every run and set contained in ``mask``, in the documented order."""
    melds: list[int] = []
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_START
    if starts:
        for s in range(4):
            if starts >> (13 * s) & _SUIT:
                shift = 13 * s
                melds.extend(run << shift for run in _runs13(mask >> shift & _SUIT))
    c, d, h, s_ = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39
    three = (c & d & (h | s_)) | (h & s_ & (c | d))
    while three:
        low = three & -three
        three ^= low
        rank = low.bit_length() - 1
        bits = [b << rank for b in (1, 1 << 13, 1 << 26, 1 << 39) if mask & (b << rank)]
        if len(bits) == 4:
            whole = bits[0] | bits[1] | bits[2] | bits[3]
            melds.append(whole)
            melds.extend(whole ^ b for b in bits)
        else:
            melds.append(bits[0] | bits[1] | bits[2])
    return melds


def meld_combinations(melds: list[int]) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """Every set of pairwise disjoint melds as (melded mask, melded value, melds)."""
    stack: list[tuple[int, int, int, tuple[int, ...]]] = [(0, 0, 0, ())]
    n = len(melds)
    while stack:
        start, used, value, chosen = stack.pop()
        yield used, value, chosen
        for j in range(n - 1, start - 1, -1):
            meld = melds[j]
            if not meld & used:
                stack.append((j + 1, used | meld, value + mask_value(meld), (*chosen, meld)))


class Arrangement(NamedTuple):
    """A hand laid out: its melds (as masks) and its deadwood.

    ``melds`` and ``deadwood_cards`` give the cards; ``deadwood`` the points.
    (A named tuple rather than a frozen dataclass: it is built in the hot path.)
    """

    meld_masks: tuple[int, ...]
    deadwood_mask: int
    deadwood: int

    @property
    def melds(self) -> tuple[Meld, ...]:
        return tuple(mask_cards(m) for m in self.meld_masks)

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        return mask_cards(self.deadwood_mask)


def union(masks: Iterable[int]) -> int:
    """The bitwise union of masks."""
    out = 0
    for m in masks:
        out |= m
    return out


def _search(mask: int, melds: list[int], discarding: bool) -> tuple[int, int]:
    """The cheapest cover of ``mask`` by disjoint melds: (melded mask, deadwood).

    When ``discarding`` the deadwood is after throwing the highest loose card, and
    a cover must leave one loose card to throw. One depth-first pass, no tuples
    of melds built on the way (this is the hot path); ties keep the first found.
    """
    total = mask_value(mask)
    values = [mask_value(m) for m in melds]
    n = len(melds)
    best_cost, best_used = total + 1, 0
    stack = [(0, 0, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        start, used, value = pop()
        cost = total - value
        if discarding:
            loose = mask ^ used
            ranks = (loose | loose >> 13 | loose >> 26 | loose >> 39) & _SUIT
            cost = cost - _RANK_VALUE[ranks.bit_length() - 1] if loose else best_cost
        if cost < best_cost:
            best_cost, best_used = cost, used
        for j in range(n - 1, start - 1, -1):
            meld = melds[j]
            if not meld & used:
                push((j + 1, used | meld, value + values[j]))
    return best_used, best_cost


def _disjoint_union(melds: list[int]) -> int | None:
    """The union of the melds if no two share a card (the common case), else None."""
    used = 0
    for meld in melds:
        if used & meld:
            return None
        used |= meld
    return used


def _partition(melds: list[int], used: int) -> tuple[int, ...]:
    """The melds (in list order) that exactly tile ``used``."""
    inside = [m for m in melds if not m & ~used]

    def tile(rest: int, start: int) -> tuple[int, ...] | None:
        if not rest:
            return ()
        for j in range(start, len(inside)):
            meld = inside[j]
            if not meld & ~rest:
                found = tile(rest ^ meld, j + 1)
                if found is not None:
                    return (meld, *found)
        return None

    return tile(used, 0) or ()


@lru_cache(maxsize=1 << 16)
def arrange_mask(mask: int) -> Arrangement:
    """The best arrangement of the cards in ``mask`` (any number of cards)."""
    if not _has_meld(mask):
        return Arrangement((), mask, mask_value(mask))
    melds = candidate_melds(mask)
    used = _disjoint_union(melds)
    if used is not None:  # no two melds compete for a card: take them all
        return Arrangement(tuple(melds), mask ^ used, mask_value(mask ^ used))
    used, deadwood = _search(mask, melds, discarding=False)
    return Arrangement(_partition(melds, used), mask ^ used, deadwood)


@lru_cache(maxsize=1 << 16)
def discard_mask(mask: int) -> tuple[int, Arrangement]:
    """Best discard (as a bit) of an eleven-card mask and the arrangement it leaves."""
    if not _has_meld(mask):
        bit = _highest_card(mask)
        return bit, Arrangement((), mask ^ bit, mask_value(mask ^ bit))
    melds = candidate_melds(mask)
    used = _disjoint_union(melds)
    if used is not None and used != mask:
        # All the melds, throwing the highest loose card: leaving a meld out costs
        # its value and frees a card worth less than that to throw instead.
        bit = _highest_card(mask ^ used)
        rest = mask ^ used ^ bit
        return bit, Arrangement(tuple(melds), rest, mask_value(rest))
    used, deadwood = _search(mask, melds, discarding=True)
    bit = _highest_card(mask ^ used)
    return bit, Arrangement(_partition(melds, used), mask ^ used ^ bit, deadwood)


class DiscardOption(NamedTuple):
    """What discarding one card of an eleven-card hand leaves."""

    bit: int  # the card thrown
    deadwood: int  # least deadwood of the ten cards left
    deadwood_mask: int  # their loose cards, as ``arrange_mask`` lays them out


@lru_cache(maxsize=1 << 14)
def discard_table(mask: int) -> tuple[DiscardOption, ...]:
    """Every discard of ``mask`` (lowest card first) and the best arrangement it leaves.

    One pass over the meld combinations of the whole hand serves every discard:
    the ten cards left after throwing a card are covered exactly by the
    combinations that avoid it, and the best of those is the one melding the
    most points (the thrown card's value is the same for all). Among equals the
    first in :func:`_search`'s order wins, as it does there, so each
    ``deadwood_mask`` equals ``arrange_mask(mask & ~bit).deadwood_mask``.
    """
    total = mask_value(mask)
    combos = [(0, 0)]  # (melded value, melded mask), in the search's order
    if _has_meld(mask):
        melds = candidate_melds(mask)
        values = [mask_value(m) for m in melds]
        n = len(melds)
        combos.clear()
        stack = [(0, 0, 0)]
        pop, push = stack.pop, stack.append
        while stack:
            start, used, value = pop()
            combos.append((value, used))
            for j in range(n - 1, start - 1, -1):
                meld = melds[j]
                if not meld & used:
                    push((j + 1, used | meld, value + values[j]))
        combos.sort(key=_by_value_down)  # stable: the search's order among equals
    options = []
    for bit in _bits(mask):
        value, used = next(c for c in combos if not c[1] & bit)  # (0, 0) always fits
        options.append(DiscardOption(bit, total - value - _BIT_VALUE[bit], mask ^ used ^ bit))
    return tuple(options)


def _by_value_down(combo: tuple[int, int]) -> int:
    return -combo[0]


_BIT_VALUE = {1 << i: _RANK_VALUE[i % 13] for i in range(52)}


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low
def discard_deadwoods(mask: int) -> dict[int, int]:
    """For each card bit of ``mask``, the least deadwood left after discarding it."""
    return {option.bit: option.deadwood for option in discard_table(mask)}


def all_arrangements(mask: int, max_deadwood: int | None = None) -> list[Arrangement]:
    """Every maximal arrangement (no further meld fits), optionally bounded.

    Used to choose among arrangements of equal deadwood (for example the one that
    leaves the opponent fewest lay-offs).
    """
    total = mask_value(mask)
    melds = candidate_melds(mask)
    out = []
    for used, value, chosen in meld_combinations(melds):
        rest = mask ^ used
        if any(not (m & used) for m in melds):
            continue  # not maximal
        deadwood = total - value
        if max_deadwood is None or deadwood <= max_deadwood:
            out.append(Arrangement(chosen, rest, deadwood))
    return out


def is_meld_mask(mask: int) -> bool:
    """Whether a mask is a single legal set or run."""
    n = mask.bit_count()
    if n < 3:
        return False
    ranks = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _SUIT
    if ranks.bit_count() == 1:
        return n <= 4
    for s in range(4):
        sm = mask >> (13 * s) & _SUIT
        if sm:
            if sm << (13 * s) != mask:
                return False
            low = sm & -sm
            return (sm + low) & sm == 0  # one unbroken block of ranks
    return False


def check_meld(cards: Iterable[Card]) -> int:
    """The mask of a legal meld, or MalformedInput naming the cards."""
    cards = tuple(cards)
    mask = cards_mask(cards)
    if mask.bit_count() != len(cards) or not is_meld_mask(mask):
        shown = " ".join(str(c) for c in cards)
        raise MalformedInput(
            f"{shown!r} is not a meld: a set is 3-4 cards of one rank, "
            "a run 3+ cards in sequence in one suit (ace low, no wrap-around)"
        )
    return mask


def best_arrangement(cards: Iterable[Card]) -> Arrangement:
    """The exact least-deadwood arrangement of up to ten (or more) cards."""
    return arrange_mask(_distinct_mask(cards))


def best_discard(cards: Iterable[Card]) -> tuple[Card, Arrangement]:
    """For eleven cards: the discard that leaves least deadwood, and that arrangement.

    The minimum is exact over all eleven discards. Among equal results the first
    meld combination found (see the module's tie-break) wins, throwing its highest
    loose card.
    """
    mask = _distinct_mask(cards)
    if mask.bit_count() != 11:
        raise MalformedInput(f"best_discard needs 11 cards, got {mask.bit_count()}")
    bit, arrangement = discard_mask(mask)
    return DECK[bit.bit_length() - 1], arrangement


def deadwood(cards: Iterable[Card]) -> int:
    """Deadwood points of the best arrangement."""
    return best_arrangement(cards).deadwood


def _distinct_mask(cards: Iterable[Card]) -> int:
    if not isinstance(cards, tuple | list):
        cards = tuple(cards)
    mask = 0
    for card in cards:  # inlined cards_mask: this runs on every call of the Card API
        mask |= card.mask
    if mask.bit_count() != len(cards):
        raise MalformedInput("the same card appears twice in " + " ".join(map(str, cards)))
    return mask
