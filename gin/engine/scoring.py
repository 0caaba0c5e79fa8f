"""Scoring: settling a knock, and the bonuses at the end of a match."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gin.engine.cards import Card, cards_mask, mask_cards, mask_text
from gin.engine.errors import IllegalAction, MalformedInput
from gin.engine.layoffs import Defence, best_defence
from gin.engine.melds import Meld, arrange_mask, check_meld, mask_value
from gin.engine.rules import STANDARD, Ruleset

OutcomeKind = Literal["knock", "gin", "big_gin", "undercut"]
Role = Literal["knocker", "defender"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a knock was settled.

    ``points`` go to ``winner``. Deadwood counts are after lay-offs.
    ``layoffs`` pairs each laid-off card with the index of the knocker's meld.
    """

    kind: OutcomeKind
    winner: Role
    points: int
    knocker_melds: tuple[Meld, ...]
    knocker_deadwood_cards: tuple[Card, ...]
    knocker_deadwood: int
    defender_melds: tuple[Meld, ...]
    layoffs: tuple[tuple[Card, int], ...]
    defender_deadwood_cards: tuple[Card, ...]
    defender_deadwood: int

    @property
    def laid_off(self) -> tuple[Card, ...]:
        return tuple(card for card, _ in self.layoffs)

    def to_dict(self) -> dict[str, Any]:
        def melds(ms: tuple[Meld, ...]) -> list[list[str]]:
            return [[str(c) for c in m] for m in ms]

        return {
            "kind": self.kind,
            "winner": self.winner,
            "points": self.points,
            "knocker_melds": melds(self.knocker_melds),
            "knocker_deadwood_cards": [str(c) for c in self.knocker_deadwood_cards],
            "knocker_deadwood": self.knocker_deadwood,
            "defender_melds": melds(self.defender_melds),
            "layoffs": [[str(c), i] for c, i in self.layoffs],
            "defender_deadwood_cards": [str(c) for c in self.defender_deadwood_cards],
            "defender_deadwood": self.defender_deadwood,
        }


def knocker_layout(cards: int, melds: Sequence[int] | None) -> tuple[tuple[int, ...], int]:
    """The knocker's meld masks and deadwood mask: declared melds checked, or the best."""
    if melds is None:
        best = arrange_mask(cards)
        return best.meld_masks, best.deadwood_mask
    used = 0
    for meld in melds:
        if meld & ~cards:
            raise IllegalAction(
                f"declared meld {mask_text(meld)} uses a card the knocker does not hold"
            )
        if meld & used:
            raise IllegalAction(f"declared meld {mask_text(meld)} reuses a card of another meld")
        used |= meld
    return tuple(melds), cards ^ used


def settle_masks(
    knocker: int,
    defender: int,
    rules: Ruleset,
    knocker_melds: tuple[int, ...],
    knock_limit: int,
    defence: Defence | None = None,
) -> Outcome:
    """Settle a knock on masks. ``knocker`` holds 10 cards, or 11 for big gin.

    ``defence`` is the defender's chosen layout (default: the best one).
    """
    melded = 0
    for meld in knocker_melds:
        melded |= meld
    loose = knocker ^ melded
    knocker_deadwood = mask_value(loose)
    big = knocker.bit_count() == 11
    if big and (rules.big_gin_bonus is None or loose):
        raise IllegalAction("eleven cards may only be laid down as big gin, with big gin "
                            "in the ruleset and every card melded")
    if knocker_deadwood > knock_limit:
        raise IllegalAction(
            f"cannot knock with {knocker_deadwood} deadwood: the limit is {knock_limit}"
        )
    if knocker_deadwood == 0:
        # Nothing may be laid off against gin: the defender just lays out.
        best = arrange_mask(defender)
        defence = Defence(best.meld_masks, (), best.deadwood_mask, best.deadwood)
        bonus = rules.big_gin_bonus if big and rules.big_gin_bonus is not None else rules.gin_bonus
        kind: OutcomeKind = "big_gin" if big else "gin"
        winner: Role = "knocker"
        points = bonus + defence.deadwood
    else:
        if defence is None:
            defence = best_defence(defender, knocker_melds)
        if defence.deadwood <= knocker_deadwood:  # a tie is an undercut
            kind, winner = "undercut", "defender"
            points = knocker_deadwood - defence.deadwood + rules.undercut_bonus
        else:
            kind, winner = "knock", "knocker"
            points = defence.deadwood - knocker_deadwood
    return Outcome(
        kind=kind,
        winner=winner,
        points=points,
        knocker_melds=tuple(mask_cards(m) for m in knocker_melds),
        knocker_deadwood_cards=mask_cards(loose),
        knocker_deadwood=knocker_deadwood,
        defender_melds=defence.melds,
        layoffs=defence.laid_off,
        defender_deadwood_cards=defence.deadwood_cards,
        defender_deadwood=defence.deadwood,
    )


def settle(
    knocker_cards: Iterable[Card],
    defender_cards: Iterable[Card],
    rules: Ruleset = STANDARD,
    knocker_melds: Iterable[Iterable[Card]] | None = None,
    knock_limit: int | None = None,
) -> Outcome:
    """Settle a knock from both players' cards.

    ``knocker_cards`` are the knocker's 10 cards after the discard (11 for big
    gin); ``knocker_melds`` the melds they declare (default: their best
    arrangement). ``knock_limit`` defaults to the ruleset's. A knock over the
    limit raises IllegalAction.
    """
    knocker = _mask_of(knocker_cards, "knocker")
    defender = _mask_of(defender_cards, "defender")
    if knocker & defender:
        raise MalformedInput(f"both players hold {mask_text(knocker & defender)}")
    if defender.bit_count() != 10 or knocker.bit_count() not in (10, 11):
        raise MalformedInput("settle needs 10 cards for the defender and 10 (or 11 for big "
                             "gin) for the knocker")
    melds = None if knocker_melds is None else [check_meld(m) for m in knocker_melds]
    meld_masks, _ = knocker_layout(knocker, melds)
    limit = rules.knock_limit if knock_limit is None else knock_limit
    return settle_masks(knocker, defender, rules, meld_masks, limit)


@dataclass(frozen=True, slots=True)
class MatchTotals:
    """The end of a match: each player's final total and how it is made up."""

    winner: int
    points: tuple[int, int]
    hands_won: tuple[int, int]
    game_bonus: tuple[int, int]
    box_bonus: tuple[int, int]
    shutout: bool
    totals: tuple[int, int]

    @property
    def margin(self) -> int:
        return self.totals[self.winner] - self.totals[1 - self.winner]


def match_winner(points: Sequence[int], rules: Ruleset) -> int | None:
    """The player who has reached the target, if any (only one can per hand)."""
    for player in (0, 1):
        if points[player] >= rules.target:
            return player
    return None


def match_totals(points: Sequence[int], hands_won: Sequence[int], rules: Ruleset) -> MatchTotals:
    """Add the game bonus, box bonuses and the shutout rule to the hand points."""
    winner = match_winner(points, rules)
    if winner is None:
        raise IllegalAction(f"no player has reached {rules.target} yet (scores {points[0]}-"
                            f"{points[1]}): the match is not over")
    loser = 1 - winner
    shutout = hands_won[loser] == 0 and rules.shutout != "none"
    game = rules.game_bonus * (2 if shutout and rules.shutout == "double_bonus" else 1)
    game_bonus = (game, 0) if winner == 0 else (0, game)
    box = (hands_won[0] * rules.box_bonus, hands_won[1] * rules.box_bonus)
    totals = [points[p] + game_bonus[p] + box[p] for p in (0, 1)]
    if shutout and rules.shutout == "double_total":
        totals[winner] *= 2
    return MatchTotals(
        winner=winner,
        points=(points[0], points[1]),
        hands_won=(hands_won[0], hands_won[1]),
        game_bonus=game_bonus,
        box_bonus=box,
        shutout=shutout,
        totals=(totals[0], totals[1]),
    )


def _mask_of(cards: Iterable[Card], who: str) -> int:
    cards = tuple(cards)
    mask = cards_mask(cards)
    if mask.bit_count() != len(cards):
        raise MalformedInput(f"the {who}'s cards repeat a card: {' '.join(map(str, cards))}")
    return mask

