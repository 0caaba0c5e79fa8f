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
    return melds_and_loose(arrangement.melds, arrangement.deadwood_cards)


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


def with_layoffs(melds: Sequence[Sequence[Card]],
                 layoffs: Iterable[tuple[Card, int]]) -> list[Group]:
    """The knocker's melds with the defender's lay-offs attached and marked."""
    extra: dict[int, set[Card]] = {}
    for card, on in layoffs:
        extra.setdefault(on, set()).add(card)
    return [Group(tuple(sorted((*meld, *extra.get(i, ())))), meld=True,
                  marked=frozenset(extra.get(i, ())))
            for i, meld in enumerate(melds)]


def melds_and_loose(melds: Iterable[Sequence[Card]], loose: Iterable[Card]) -> list[Group]:
    """Melds, then the loose cards in order."""
    rest = tuple(sorted(loose))
    return [Group(tuple(m), meld=True) for m in melds] + ([Group(rest)] if rest else [])


def laid_out(outcome: Outcome, knocker: bool) -> list[Group]:
    """One side of a settled knock: melds (the knocker's with the defender's
    lay-offs attached and marked), then the deadwood."""
    if knocker:
        loose = tuple(sorted(outcome.knocker_deadwood_cards))
        groups = with_layoffs(outcome.knocker_melds, outcome.layoffs)
        return groups + ([Group(loose)] if loose else [])
    return melds_and_loose(outcome.defender_melds, outcome.defender_deadwood_cards)
