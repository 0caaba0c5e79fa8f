"""Lay-offs: the defender's own melds and lay-offs, chosen together.

After a knock the defender lays out their own melds and lays loose cards off on
the knocker's melds: the fourth card of a three-card set, or the next card at
either end of a run, chaining (8h then 9h then Th onto 5h6h7h). A card goes to an
own meld or to a lay-off, whichever leaves the least deadwood overall: every
combination of the defender's own melds is tried, and for each the lay-offs are
the closure of what can be attached to the knocker's melds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from gin.engine.cards import Card, cards_mask, mask_cards, mask_text
from gin.engine.errors import IllegalAction
from gin.engine.melds import Meld, candidate_melds, is_meld_mask, mask_value, meld_combinations

_SUIT = 0x1FFF


@dataclass(frozen=True, slots=True)
class Defence:
    """The defender's layout: own melds, lay-offs (card, index of the knocker's
    meld it goes on), and what is left as deadwood."""

    meld_masks: tuple[int, ...]
    layoffs: tuple[tuple[int, int], ...]
    deadwood_mask: int
    deadwood: int

    @property
    def melds(self) -> tuple[Meld, ...]:
        return tuple(mask_cards(m) for m in self.meld_masks)

    @property
    def laid_off(self) -> tuple[tuple[Card, int], ...]:
        return tuple((mask_cards(bit)[0], i) for bit, i in self.layoffs)

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        return mask_cards(self.deadwood_mask)


def layoff_closure(loose: int, knocker_melds: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Every card of ``loose`` that can be laid off, with the meld it goes on.

    Run extensions are attributed first (they can chain); a set takes its fourth
    card only when no run took it. Laying off more never costs, so the closure is
    the best choice for a fixed set of own melds.
    """
    taken = 0
    out: list[tuple[int, int]] = []
    for i, meld in enumerate(knocker_melds):
        ranks = (meld | meld >> 13 | meld >> 26 | meld >> 39) & _SUIT
        if ranks.bit_count() == 1:
            continue
        low = meld & -meld
        suit_base = (low.bit_length() - 1) // 13 * 13
        bit = meld.bit_length() - 1  # extend upward
        while bit + 1 < suit_base + 13 and loose >> (bit + 1) & 1:
            bit += 1
            if not taken >> bit & 1:
                taken |= 1 << bit
                out.append((1 << bit, i))
        bit = low.bit_length() - 1  # extend downward
        while bit - 1 >= suit_base and loose >> (bit - 1) & 1:
            bit -= 1
            if not taken >> bit & 1:
                taken |= 1 << bit
                out.append((1 << bit, i))
    for i, meld in enumerate(knocker_melds):
        ranks = (meld | meld >> 13 | meld >> 26 | meld >> 39) & _SUIT
        if ranks.bit_count() != 1 or meld.bit_count() != 3:
            continue
        fourth = (ranks | ranks << 13 | ranks << 26 | ranks << 39) & ~meld
        if loose & fourth and not taken & fourth:
            taken |= fourth
            out.append((fourth, i))
    return tuple(out)


@lru_cache(maxsize=8)
def best_defence(defender: int, knocker_melds: tuple[int, ...]) -> Defence:
    """The defender's least-deadwood combination of own melds and lay-offs (cached:
    a knock is answered by asking for it several times)."""
    best: Defence | None = None
    for used, _, chosen in meld_combinations(candidate_melds(defender)):
        loose = defender ^ used
        layoffs = layoff_closure(loose, knocker_melds)
        for bit, _i in layoffs:
            loose ^= bit
        deadwood = mask_value(loose)
        if best is None or deadwood < best.deadwood:
            best = Defence(chosen, layoffs, loose, deadwood)
    assert best is not None  # the empty combination is always there
    return best


def best_defence_cards(defender: Iterable[Card], knocker_melds: Iterable[Meld]) -> Defence:
    """:func:`best_defence` for cards: the defender's 10 cards and the knocker's melds."""
    return best_defence(cards_mask(defender), tuple(cards_mask(m) for m in knocker_melds))


def check_defence(
    defender: int,
    knocker_melds: tuple[int, ...],
    meld_masks: tuple[int, ...],
    layoffs: tuple[tuple[int, int], ...],
) -> Defence:
    """Validate a layout the defender chose; IllegalAction names what is wrong."""
    used = 0
    for meld in meld_masks:
        if not is_meld_mask(meld):
            raise IllegalAction(f"{mask_text(meld)} is not a meld")
        if meld & ~defender or meld & used:
            raise IllegalAction(f"meld {mask_text(meld)} uses a card not held or used twice")
        used |= meld
    grown = list(knocker_melds)
    for bit, target in layoffs:
        if not 0 <= target < len(grown):
            raise IllegalAction(f"lay-off of {mask_text(bit)} names no meld of the knocker")
        if bit & ~defender or bit & used:
            raise IllegalAction(f"lay-off of {mask_text(bit)}: card not held or used twice")
        if not is_meld_mask(grown[target] | bit):
            raise IllegalAction(f"{mask_text(bit)} does not fit on {mask_text(grown[target])}")
        grown[target] |= bit
        used |= bit
    loose = defender ^ used
    return Defence(meld_masks, layoffs, loose, mask_value(loose))

