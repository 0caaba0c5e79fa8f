"""Melds and the exact best arrangement of a hand.

A hand is a 52-bit mask (see :mod:`gin.engine.cards`). Runs are found by shifting each
suit's 13-bit mask, sets by a bitwise "three of four suits" test. Once the sets
are chosen, the best use of the other cards is plain: every block of three or
more in a suit is melded whole. So the exact search only tries choices of sets,
and only when a set and a run want the same card (few hands; a few dozen
choices at most); otherwise every set is taken whole. For eleven cards, each
choice's best discard is its highest loose card.

Tie-break (documented, deterministic): among arrangements of equal deadwood the
first choice of sets wins, in this order: rank by rank from the ace, no set
before the set of four before the sets of three (dropping clubs, diamonds,
hearts, spades); so a run wins a tie with a set. A suit's block of run cards is
one run, however long. Melds are listed runs first (clubs to spades, lowest
first), then sets (ace to king).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache, partial
from typing import NamedTuple

from gin.engine.cards import DECK, Card, cards_mask, mask_cards
from gin.engine.errors import MalformedInput

Meld = tuple[Card, ...]

_SUIT = 0x1FFF
# Bits where a run of three may start: ranks ace..jack of every suit, so that a
# shifted test never wraps from one suit's king into the next suit's ace.
_RUN_START = sum(0x7FF << (13 * s) for s in range(4))
# Where a run of six may start: ranks ace..eight of every suit.
_SIX_START = sum(0xFF << (13 * s) for s in range(4))
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))
_ACES = sum(1 << (13 * s) for s in range(4))  # times a 13-bit rank mask: every suit


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


def _run_cover(mask: int) -> int:
    """The cards of ``mask`` that lie in runs: every block of three or more in a
    suit, which the best arrangement melds whole once the sets are chosen."""
    starts = mask & mask >> 1 & mask >> 2 & _RUN_START
    return starts | starts << 1 | starts << 2


def _three_ranks(mask: int) -> int:
    """The ranks (a 13-bit mask) of which ``mask`` holds three or four cards."""
    c, d, h, s = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39
    return (c & d & (h | s)) | (h & s & (c | d))


def _set_choices(mask: int, three: int) -> tuple[int, ...]:
    """The choices of set cards worth trying for ``mask`` (runs take the rest),
    given its :func:`_three_ranks`.

    A rank no run wants a card of is taken whole: any best arrangement does, as its
    cards meld no other way. When that holds for every rank, it is the one choice.
    Otherwise each rank that a run wants is tried every way (no set, the set of
    four, each set of three; a few dozen choices at most), no sets first, so that
    runs win ties.
    """
    if not three:
        return _NO_SETS
    set_cards = mask & three * _ACES
    runs = _run_cover(mask)
    if not set_cards & runs:
        return (set_cards,)
    choices = [0]
    while three:
        low = three & -three
        three ^= low
        cards = mask & low * _ACES
        if not cards & runs:
            choices = [chosen | cards for chosen in choices]
            continue
        options = [0, cards]
        if cards.bit_count() == 4:
            options += [cards ^ bit for bit in _bits(cards)]
        choices = [chosen | option for chosen in choices for option in options]
    return tuple(choices)


_NO_SETS = (0,)


def _best_sets(mask: int, choices: tuple[int, ...]) -> int:
    """The set cards of the best arrangement, given :func:`_set_choices`: the first
    choice melding most points."""
    if len(choices) == 1:
        return choices[0]
    best_value, best = -1, 0
    for sets in choices:
        value = mask_value(sets | _run_cover(mask ^ sets))
        if value > best_value:
            best_value, best = value, sets
    return best


def _loose(mask: int) -> int:
    """The deadwood cards of the best arrangement of ``mask``."""
    three = _three_ranks(mask)
    rest = mask ^ _best_sets(mask, _set_choices(mask, three)) if three else mask
    starts = rest & rest >> 1 & rest >> 2 & _RUN_START  # _run_cover, inlined: hot
    return rest ^ (starts | starts << 1 | starts << 2)


def _split_melds(sets: int, runs: int) -> tuple[int, ...]:
    """Melds from the set cards and the run cards: each block of a suit's run
    cards is one run (clubs to spades, lowest first), then the sets by rank."""
    melds = []
    while runs:
        low = runs & -runs
        suit = _SUIT << (low.bit_length() - 1) // 13 * 13
        block = ((runs + low) ^ runs) & runs & suit
        melds.append(block)
        runs ^= block
    while sets:
        low = sets & -sets
        rank = sets & _ACES << (low.bit_length() - 1) % 13
        melds.append(rank)
        sets ^= rank
    return tuple(melds)


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


class DiscardOption(NamedTuple):
    """What discarding one card of an eleven-card hand leaves."""

    bit: int  # the card thrown
    deadwood: int  # least deadwood of the ten cards left
    deadwood_mask: int  # their loose cards, as ``arrange_mask`` lays them out


# Named tuples built without their Python-level __new__ (these are the hot path).
_new_arrangement: Callable[[tuple[tuple[int, ...], int, int]], Arrangement] = partial(
    tuple.__new__, Arrangement)
_new_option: Callable[[tuple[int, int, int]], DiscardOption] = partial(
    tuple.__new__, DiscardOption)


def candidate_melds(mask: int) -> list[int]:
    """Every run and set contained in ``mask``, in the documented order."""
    melds: list[int] = []
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_START
    if starts:
        for s in range(4):
            if starts >> (13 * s) & _SUIT:
                shift = 13 * s
                melds.extend(run << shift for run in _runs13(mask >> shift & _SUIT))
    three = _three_ranks(mask)
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


def union(masks: Iterable[int]) -> int:
    """The bitwise union of masks."""
    out = 0
    for m in masks:
        out |= m
    return out


def _arrange(mask: int) -> Arrangement:
    """The best arrangement of the cards in ``mask`` (any number of cards)."""
    c, d, h, s = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39
    three = (c & d & (h | s)) | (h & s & (c | d))  # _three_ranks, inlined: the hot path
    sets = _best_sets(mask, _set_choices(mask, three)) if three else 0
    rest = mask ^ sets
    starts = rest & rest >> 1 & rest >> 2 & _RUN_START
    if not (sets or starts):  # no meld: most hands of ten dealt at random
        return _new_arrangement(((), mask, _VALUE13[c] + _VALUE13[d] + _VALUE13[h] + _VALUE13[s]))
    runs = starts | starts << 1 | starts << 2  # _run_cover
    loose = rest ^ runs
    return _new_arrangement((_split_melds(sets, runs), loose, mask_value(loose)))


# Tiny caches: their hits come from the same turn (the engine's knock test, then
# the player), and a few entries keep every hit. Larger ones measured slower in
# play: a cache of 256 cost 11% of self-play speed against one of 8 (its keys and
# entries leave the processor's caches; named tuples also stay tracked by the
# garbage collector).
@lru_cache(maxsize=8)
def arrange_mask(mask: int) -> Arrangement:
    """The best arrangement of the cards in ``mask`` (any number of cards); cached,
    as a player and the engine ask about the same hand within a turn."""
    return _arrange(mask)


def _discard(mask: int) -> tuple[int, Arrangement]:
    """Best discard (as a bit) of an eleven-card mask and the arrangement it leaves.

    For each choice of sets, with the runs taken whole, the best discard is the
    highest loose card: any other layout leaves more loose cards, and throwing one
    of them saves at most the highest. A hand melded whole tries every discard.
    """
    choices = _set_choices(mask, _three_ranks(mask))
    best_cost, best_bit = mask_value(mask) + 1, 0
    for sets in choices:
        runs = _run_cover(mask ^ sets)
        loose = mask ^ sets ^ runs
        if not loose:
            bit = min(discard_table(mask), key=_gin_discard_order).bit
            return bit, arrange_mask(mask ^ bit)
        bit = _highest_card(loose)
        cost = mask_value(loose) - _BIT_VALUE[bit]
        if cost < best_cost:
            best_cost, best_bit = cost, bit
    if len(choices) == 1:  # the arrangement is at hand (and equals arrange_mask's)
        return best_bit, _new_arrangement((_split_melds(sets, runs), loose ^ best_bit, best_cost))
    return best_bit, arrange_mask(mask ^ best_bit)


@lru_cache(maxsize=8)
def discard_mask(mask: int) -> tuple[int, Arrangement]:
    """Best discard (as a bit) of an eleven-card mask and the arrangement it leaves
    (cached, like :func:`arrange_mask`)."""
    return _discard(mask)


def _gin_discard_order(option: DiscardOption) -> tuple[int, int, int]:
    """Among discards of a hand melded whole: least deadwood, then the highest card."""
    return option.deadwood, -_BIT_VALUE[option.bit], -option.bit


@lru_cache(maxsize=8)
def discard_table(mask: int) -> tuple[DiscardOption, ...]:
    """Every discard of ``mask`` (lowest card first) and the best arrangement it
    leaves: each ``deadwood_mask`` equals ``arrange_mask(mask & ~bit).deadwood_mask``.

    Most discards need no search. A card no meld can use (no set of its rank, no
    run through it) leaves the hand's own best layout less that card: the choices
    of sets and what each melds are the same without it. And when no run wants a
    card of the hand's sets (one choice of sets), that stays true after any
    discard: the layout is the sets less the card thrown (less its rank, if three
    are no longer left) and the runs of the rest.
    """
    three = _three_ranks(mask)
    choices = _set_choices(mask, three)
    rest = mask ^ _best_sets(mask, choices)
    left = rest ^ _run_cover(rest)  # the hand's own loose cards
    left_value = mask_value(left)
    free = left & ~(three * _ACES) & ~_run_cover(mask)  # cards no meld can use
    sets = choices[0] if len(choices) == 1 else None
    options = []
    todo = mask
    while todo:
        bit = todo & -todo
        todo ^= bit
        if bit & free:
            options.append(_new_option((bit, left_value - _BIT_VALUE[bit], left ^ bit)))
            continue
        if sets is None:
            after = _loose(mask ^ bit)
        else:
            kept = sets
            if bit & sets:
                rank = sets & _ACES << (bit.bit_length() - 1) % 13
                kept ^= bit if rank.bit_count() == 4 else rank
            rest = mask ^ bit ^ kept
            after = rest ^ _run_cover(rest)
        options.append(_new_option((bit, mask_value(after), after)))
    return tuple(options)


_BIT_VALUE = {1 << i: _RANK_VALUE[i % 13] for i in range(52)}


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def discard_option(mask: int, bit: int) -> DiscardOption:
    """The entry of :func:`discard_table` for throwing card ``bit`` of ``mask`` (the
    table is lowest card first, so a card's place is the count of cards below it)."""
    return discard_table(mask)[(mask & (bit - 1)).bit_count()]


def has_one_layout(mask: int) -> bool:
    """Whether one arrangement alone leaves ``mask`` its least deadwood (a sufficient
    test). It does when no card is in both a run and a set and no run is six long:
    each run or set then melds whole in one way only (a run of six would also make
    two of three)."""
    sets = _three_ranks(mask) * _ACES & mask
    starts = mask & mask >> 1 & mask >> 2 & _RUN_START
    return not (_run_cover(mask) & sets or starts & starts >> 3 & _SIX_START)


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
    # Uncached: callers with Card lists ask once (the players' repeats use masks).
    return _arrange(_distinct_mask(cards))


def best_discard(cards: Iterable[Card]) -> tuple[Card, Arrangement]:
    """For eleven cards: the discard that leaves least deadwood, and that arrangement.

    The minimum is exact over all eleven discards. Among equal results the first
    meld combination found (see the module's tie-break) wins, throwing its highest
    loose card.
    """
    mask = _distinct_mask(cards)
    if mask.bit_count() != 11:
        raise MalformedInput(f"best_discard needs 11 cards, got {mask.bit_count()}")
    bit, arrangement = _discard(mask)  # uncached, as in best_arrangement
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
