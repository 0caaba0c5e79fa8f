"""What one player may see of a hand, and the values it is made of: the phase, the
events, the result. Also the plain-data form of an observation, which the
conformance corpus uses to hand positions to the computer players.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from gin.engine.cards import Card
from gin.engine.rules import Ruleset
from gin.engine.scoring import Outcome


class Phase(enum.Enum):
    """Where a hand is: whose decision, and of which kind."""

    UPCARD = "upcard"  # the player to move may take the upcard or pass
    DRAW = "draw"  # draw from the stock or the pile
    DISCARD = "discard"  # eleven cards: discard, knock (or big gin)
    LAYOFF = "layoff"  # the defender answers a knock
    OVER = "over"


EventKind = Literal["pass", "stock", "take", "discard", "knock", "biggin", "layoff", "dead"]


class Event(NamedTuple):
    """Something that happened in the hand. ``card`` is None where the observer
    may not see it (the opponent's stock draw, a knocker's face-down discard)."""

    player: int
    kind: EventKind
    card: Card | None = None


def event_to_data(event: Event) -> list[Any]:
    """An event as plain data: ``[player, kind, card text or None]``."""
    return [event.player, event.kind, None if event.card is None else str(event.card)]


HandEndKind = Literal["knock", "gin", "big_gin", "undercut", "dead"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended. ``winner`` scores ``points``; both None/0 for a dead hand."""

    kind: HandEndKind
    knocker: int | None
    winner: int | None
    points: int
    outcome: Outcome | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "knocker": self.knocker,
            "winner": self.winner,
            "points": self.points,
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }


class Observation(NamedTuple):
    """Exactly what one player may see. The only input of computer players and UIs.

    (A named tuple rather than a frozen dataclass: one is built on every move.)
    """

    player: int
    phase: Phase
    turn: int  # the player who must act now (meaningless once OVER)
    dealer: int
    hand: tuple[Card, ...]
    just_taken: Card | None  # the card this player may not throw now
    pile: tuple[Card, ...]  # bottom first; the last is the top
    stock_count: int
    opponent_card_count: int
    opponent_known: tuple[Card, ...]  # cards the opponent took from the pile and holds
    history: tuple[Event, ...]
    knock_limit: int
    rules: Ruleset
    upcard_closed: bool  # the pile may not be taken this turn (both passed the upcard)
    result: HandResult | None
    # Shown once the hand is over, and to the defender while it lays off (a knocker
    # lays its whole hand face up).
    opponent_hand: tuple[Card, ...] | None
    knock_melds: tuple[tuple[Card, ...], ...] | None  # the knocker's melds, in LAYOFF
    # Match context (filled in by a Match; zero for a lone hand).
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    hand_number: int = 1

    @property
    def my_turn(self) -> bool:
        return self.phase is not Phase.OVER and self.turn == self.player

    @property
    def top_of_pile(self) -> Card | None:
        return self.pile[-1] if self.pile else None

    def to_dict(self) -> dict[str, Any]:
        """Plain data: gin's field names, cards as text, events as
        :func:`event_to_data` makes them (docs/conformance.md)."""
        return {
            "player": self.player,
            "phase": self.phase.value,
            "turn": self.turn,
            "dealer": self.dealer,
            "hand": [str(c) for c in self.hand],
            "just_taken": None if self.just_taken is None else str(self.just_taken),
            "pile": [str(c) for c in self.pile],
            "stock_count": self.stock_count,
            "opponent_card_count": self.opponent_card_count,
            "opponent_known": [str(c) for c in self.opponent_known],
            "history": [event_to_data(e) for e in self.history],
            "knock_limit": self.knock_limit,
            "rules": self.rules.to_dict(),
            "upcard_closed": self.upcard_closed,
            "result": None if self.result is None else self.result.to_dict(),
            "opponent_hand": None if self.opponent_hand is None
            else [str(c) for c in self.opponent_hand],
            "knock_melds": None if self.knock_melds is None
            else [[str(c) for c in m] for m in self.knock_melds],
            "scores": list(self.scores),
            "hands_won": list(self.hands_won),
            "hand_number": self.hand_number,
        }
