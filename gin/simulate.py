"""Simulation and statistics, pure: matches between computer players, summaries
with confidence intervals, and the statistics of dealt hands.

Every match draws its randomness from its own ``random.Random`` seeded by
``(seed, match index)``, so a run's results do not depend on how the matches are
split between worker processes (that, and the clock, live in ``client/``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gin.engine.cards import cards_mask
from gin.engine.hand import dealt_positions, shuffled_deck
from gin.engine.match import Match
from gin.engine.melds import arrange_mask, candidate_melds, mask_value
from gin.engine.observation import Phase
from gin.engine.rules import STANDARD, Ruleset
from gin.players import get

#: How a hand ended, for counting: ``big_gin`` is counted with gin.
END_KINDS = ("knock", "gin", "undercut", "dead")


def match_rng(seed: int, index: int, stream: str = "deal") -> random.Random:
    """The random source of one match (and one stream in it), from the run's seed."""
    return random.Random(f"gin:{seed}:{index}:{stream}")


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand, with players named by their place in the pairing (0 or 1)."""

    kind: str  # knock, gin, undercut or dead
    knocker: int | None
    winner: int | None
    points: int
    moves: int


@dataclass(frozen=True, slots=True)
class MatchRecord:
    winner: int  # 0 or 1: which of the two players won the match
    hands: tuple[HandRecord, ...]


def play_match(
    names: tuple[str, str], seed: int, index: int, rules: Ruleset = STANDARD
) -> MatchRecord:
    """Play match ``index`` of a run. Player 0 deals first in even matches, player 1
    in odd ones, so neither gets the first deal's edge."""
    deals = match_rng(seed, index)
    players = [get(name, match_rng(seed, index, f"player{i}").getrandbits(32))
               for i, name in enumerate(names)]
    match = Match(rules, first_dealer=index % 2)
    hands: list[HandRecord] = []
    while not match.over:
        hand = match.deal(shuffled_deck(deals))
        moves = 0
        while hand.phase is not Phase.OVER:
            seat = hand.turn  # the hand's own calls: the match's add only checks here
            legal = hand.legal_actions()
            match.apply(seat, players[seat].choose(match.observation(seat), legal))
            moves += 1
        result = hand.result
        assert result is not None
        kind = "gin" if result.kind == "big_gin" else result.kind
        hands.append(HandRecord(kind, result.knocker, result.winner, result.points, moves))
    assert match.totals is not None
    return MatchRecord(match.totals.winner, tuple(hands))


def play_match_task(task: tuple[tuple[str, str], int, int, Ruleset]) -> MatchRecord:
    """:func:`play_match` on one tuple, for a process pool's ``imap``."""
    names, seed, index, rules = task
    return play_match(names, seed, index, rules)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% for the default ``z``)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Summary:
    """A run of matches between ``names[0]`` and ``names[1]``, seen from player 0."""

    names: tuple[str, str]
    matches: int
    wins: tuple[int, int]
    hands: int
    points: tuple[int, int]  # hand points won, before the end-of-match bonuses
    ends: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> by player
    dead: int = 0
    moves: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins[0] / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins[0], self.matches)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        hands = max(self.hands, 1)
        return {
            "players": list(self.names),
            "matches": self.matches,
            "wins": list(self.wins),
            "win_rate": self.win_rate,
            "ci95": [low, high],
            "hands": self.hands,
            "points_per_hand": [p / hands for p in self.points],
            "ends": {
                kind: {self.names[0]: by[0], self.names[1]: by[1]}
                for kind, by in self.ends.items()
            }
            | {"dead": self.dead},
            "ends_share": {
                kind: sum(by) / hands for kind, by in self.ends.items()
            } | {"dead": self.dead / hands},
            "hands_per_match": self.hands / max(self.matches, 1),
            "moves_per_hand": self.moves / hands,
        }


def summarize(names: tuple[str, str], records: Iterable[MatchRecord]) -> Summary:
    """Totals over matches. A knock, gin or undercut is credited to the player who
    won that hand (an undercut to the defender who made it)."""
    wins = [0, 0]
    points = [0, 0]
    ends = {kind: [0, 0] for kind in END_KINDS if kind != "dead"}
    matches = hands = dead = moves = 0
    for record in records:
        matches += 1
        wins[record.winner] += 1
        for hand in record.hands:
            hands += 1
            moves += hand.moves
            if hand.winner is None:
                dead += 1
                continue
            points[hand.winner] += hand.points
            ends[hand.kind][hand.winner] += 1
    return Summary(
        names=names,
        matches=matches,
        wins=(wins[0], wins[1]),
        hands=hands,
        points=(points[0], points[1]),
        ends={kind: (by[0], by[1]) for kind, by in ends.items()},
        dead=dead,
        moves=moves,
    )


@dataclass(frozen=True, slots=True)
class DealStats:
    """Statistics of freshly dealt ten-card hands."""

    deals: int
    mean_points: float
    mean_deadwood: float
    with_meld: float  # share holding at least one meld
    knockable: int  # hands with deadwood at most 10 as dealt
    gins: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "deals": self.deals,
            "mean_points": self.mean_points,
            "mean_deadwood": self.mean_deadwood,
            "with_meld": self.with_meld,
            "knockable": self.knockable,
            "knockable_one_in": self.deals / self.knockable if self.knockable else None,
            "gins": self.gins,
        }


def deal_stats(deals: int, rng: random.Random, knock_limit: int = 10) -> DealStats:
    """Deal ``deals`` hands (the non-dealer's ten cards of a fresh shuffle each)."""
    positions: Sequence[int] = dealt_positions(dealer=False)
    points = deadwood = melded = knockable = gins = 0
    for _ in range(deals):
        deck = shuffled_deck(rng)
        mask = cards_mask(deck[p] for p in positions)
        arrangement = arrange_mask(mask)
        points += mask_value(mask)
        deadwood += arrangement.deadwood
        melded += bool(candidate_melds(mask))
        knockable += arrangement.deadwood <= knock_limit
        gins += arrangement.deadwood == 0
    n = max(deals, 1)
    return DealStats(deals, points / n, deadwood / n, melded / n, knockable, gins)
