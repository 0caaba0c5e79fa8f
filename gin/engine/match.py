"""A match: hands played until a player reaches the target, then the bonuses.

The deck of each hand is passed in (shuffled by the caller with an injected
random source, or fixed by the fair deal), so a match is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gin.engine.actions import Action
from gin.engine.cards import Card
from gin.engine.errors import IllegalAction, MalformedInput
from gin.engine.hand import Hand, observe
from gin.engine.observation import HandResult, Observation, Phase
from gin.engine.rules import STANDARD, Ruleset
from gin.engine.scoring import MatchTotals, match_totals, match_winner


class Match:
    """Scores, hands won, who deals, the hand in play, and the end of the match."""

    def __init__(self, rules: Ruleset = STANDARD, first_dealer: int = 0) -> None:
        if first_dealer not in (0, 1):
            raise MalformedInput(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        self.rules = rules
        self.first_dealer = first_dealer
        self.dealer = first_dealer
        self.scores = [0, 0]
        self.hands_won = [0, 0]
        self.results: list[HandResult] = []
        self.hand: Hand | None = None
        self.totals: MatchTotals | None = None
        self._finished_hands: list[Hand] = []  # over, so no longer changing

    @property
    def hand_number(self) -> int:
        """1-based number of the hand in play (or about to be dealt)."""
        hand = self.hand
        if hand is None:
            return 1
        return len(self.results) + (hand.phase is not Phase.OVER)  # an over hand is counted

    @property
    def over(self) -> bool:
        return self.totals is not None

    @property
    def needs_deal(self) -> bool:
        return not self.over and (self.hand is None or self.hand.phase is Phase.OVER)

    def deal(self, deck: Sequence[Card | None]) -> Hand:
        """Start the next hand from a deck order, dealt by the player due to deal."""
        if self.over:
            raise IllegalAction("the match is over: no more hands are dealt")
        if self.hand is not None and self.hand.phase is not Phase.OVER:
            raise IllegalAction("the hand in play is not finished")
        self.hand = Hand(deck, self.dealer, self.rules)
        return self.hand

    def apply(self, player: int, action: Action) -> HandResult | None:
        """Apply an action to the hand in play; returns the result if it ends it."""
        if self.hand is None or self.hand.phase is Phase.OVER:
            raise IllegalAction(f"player {player} cannot {action}: no hand is in play")
        self.hand.apply(player, action)
        result = self.hand.result
        if result is not None:
            self._record(result)
        return result

    def legal_actions(self) -> list[Action]:
        if self.hand is None or self.over:
            return []
        return self.hand.legal_actions()

    @property
    def turn(self) -> int:
        if self.hand is None:
            raise IllegalAction("no hand has been dealt")
        return self.hand.turn

    def observation(self, player: int) -> Observation:
        if self.hand is None:
            raise IllegalAction("no hand has been dealt")
        return observe(
            self.hand,
            player,
            (self.scores[0], self.scores[1]),
            (self.hands_won[0], self.hands_won[1]),
            self.hand_number,
        )

    def _record(self, result: HandResult) -> None:
        assert self.hand is not None
        self.results.append(result)
        self._finished_hands.append(self.hand)  # saved as data only when asked
        if result.winner is not None:
            self.scores[result.winner] += result.points
            self.hands_won[result.winner] += 1
            # After a dead hand the same dealer deals again.
            self.dealer = result.winner if self.rules.winner_deals else 1 - self.dealer
        if match_winner(self.scores, self.rules) is not None:
            self.totals = match_totals(self.scores, self.hands_won, self.rules)

    # -- saving --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain data from which :meth:`from_dict` restores this match exactly."""
        return {
            "rules": self.rules.to_dict(),
            "first_dealer": self.first_dealer,
            "hands": [hand.to_dict() for hand in self._finished_hands]
            + ([] if self.hand is None or self.hand.phase is Phase.OVER
               else [self.hand.to_dict()]),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Match:
        if not isinstance(data, dict):
            raise MalformedInput("a saved match must be a map")
        try:
            match = cls(Ruleset.from_dict(data["rules"]), data["first_dealer"])
            for saved in data["hands"]:
                replayed = Hand.from_dict(saved)
                if replayed.dealer != match.dealer or replayed.rules != match.rules:
                    raise MalformedInput("saved match: a hand's dealer or rules do not follow")
                match.hand = replayed
                if replayed.result is not None:
                    match._record(replayed.result)
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"saved match is corrupt: {exc!r}") from None
        return match
