"""How cards are laid out in a row: grouped into melds, or in the player's own order.

Pure functions (no Textual), so the arrangement logic is tested on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gin import Card, Outcome, best_arrangement


@dataclass(frozen=True, slots=True)
class Group:
    """Cards shown together; ``meld`` groups get a bar under them. ``marked`` cards
    are shown as laid off (onto this meld, by the other player)."""

    cards: tuple[Card | None, ...]  # None is a card back
    meld: bool = False
    marked: frozenset[Card] = field(default_factory=frozenset)


def grouped(cards: Iterable[Card]) -> list[Group]:
    """The best arrangement: each set and run, then the loose cards by rank."""
    arrangement = best_arrangement(cards)
    groups = [Group(tuple(meld), meld=True) for meld in arrangement.melds]
    loose = tuple(sorted(arrangement.deadwood_cards))
    return groups + ([Group(loose)] if loose else [])


def own_order(order: Sequence[Card], hand: Iterable[Card]) -> list[Card]:
    """The player's order kept for the cards still held, new cards at the end."""
    held = set(hand)
    kept = [c for c in order if c in held]
    return kept + sorted(held - set(kept))


def moved(order: Sequence[Card], card: Card, step: int) -> list[Card]:
    """``order`` with ``card`` moved ``step`` places (clamped to the ends)."""
    out = list(order)
    i = out.index(card)
    j = max(0, min(len(out) - 1, i + step))
    out.insert(j, out.pop(i))
    return out


def laid_out(outcome: Outcome, knocker: bool) -> list[Group]:
    """One side of a settled knock: melds (the knocker's with the defender's
    lay-offs attached and marked), then the deadwood."""
    if knocker:
        groups = []
        for i, meld in enumerate(outcome.knocker_melds):
            extra = frozenset(card for card, on in outcome.layoffs if on == i)
            groups.append(Group(tuple(sorted((*meld, *extra))), meld=True, marked=extra))
        loose = outcome.knocker_deadwood_cards
    else:
        groups = [Group(tuple(m), meld=True) for m in outcome.defender_melds]
        loose = outcome.defender_deadwood_cards
    return groups + ([Group(tuple(sorted(loose)))] if loose else [])
