"""Rulesets: every rule variant as data, never as branches scattered through code.

A :class:`Ruleset` is carried in every saved hand and bound into every online
match. The presets are ``standard`` (the default), ``classic`` (the older rule
books' bonuses) and ``oklahoma`` (the knock limit is the first upcard's value).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from gin.errors import MalformedInput

ShutoutRule = Literal["double_bonus", "double_total", "none"]
_SHUTOUT_RULES = ("double_bonus", "double_total", "none")


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The numbers and switches of one variant of Gin Rummy."""

    name: str = "standard"
    #: A knock needs deadwood at most this after the discard.
    knock_limit: int = 10
    #: Oklahoma: the knock limit is the first upcard's value (an ace: gin only).
    knock_limit_from_upcard: bool = False
    gin_bonus: int = 25
    undercut_bonus: int = 25
    #: Bonus for eleven melded cards after the draw, or None when big gin is off.
    big_gin_bonus: int | None = None
    #: Box (line) bonus per hand won, added at the end of the match.
    box_bonus: int = 25
    game_bonus: int = 100
    #: The match ends at the end of a hand in which a player has at least this.
    target: int = 100
    #: In a shutout (the loser won no hand): double the game bonus, the winner's
    #: whole total, or nothing.
    shutout: ShutoutRule = "double_bonus"
    #: Who deals the next hand: alternate, or the winner of the hand.
    winner_deals: bool = False
    #: A discard leaving this many cards in the stock ends the hand dead.
    dead_stock: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("name", "shutout", "big_gin_bonus"):
                continue
            if isinstance(value, bool):
                continue
            if not isinstance(value, int) or value < 0:
                raise MalformedInput(f"ruleset field {f.name!r} must be a whole number ≥ 0, "
                                     f"got {value!r}")
        if self.shutout not in _SHUTOUT_RULES:
            raise MalformedInput(f"ruleset field 'shutout' must be one of {_SHUTOUT_RULES}, "
                                 f"got {self.shutout!r}")
        if self.big_gin_bonus is not None and (
            not isinstance(self.big_gin_bonus, int) or self.big_gin_bonus < 0
        ):
            raise MalformedInput(f"ruleset field 'big_gin_bonus' must be a whole number ≥ 0 "
                                 f"or None, got {self.big_gin_bonus!r}")
        if self.target < 1 or not 0 <= self.dead_stock <= 30:
            raise MalformedInput("ruleset needs target ≥ 1 and dead_stock in 0..30")

    def knock_limit_for(self, upcard_value: int) -> int:
        """The knock limit of a hand whose first upcard has ``upcard_value`` points."""
        if self.knock_limit_from_upcard:
            return 0 if upcard_value == 1 else upcard_value
        return self.knock_limit

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Ruleset:
        if not isinstance(data, dict):
            raise MalformedInput(f"a ruleset must be a map, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            names = ", ".join(sorted(map(str, unknown)))
            raise MalformedInput(f"unknown ruleset field(s): {names}")
        try:
            return cls(**data)
        except TypeError as exc:  # a field of the wrong type that dataclass rejects
            raise MalformedInput(f"bad ruleset: {exc}") from None

    def with_options(self, **changes: Any) -> Ruleset:
        """A copy with some fields changed (for house rules on top of a preset)."""
        return replace(self, **changes)


STANDARD = Ruleset()
CLASSIC = Ruleset(name="classic", gin_bonus=20, undercut_bonus=10, box_bonus=20)
OKLAHOMA = Ruleset(name="oklahoma", knock_limit_from_upcard=True)

PRESETS: dict[str, Ruleset] = {r.name: r for r in (STANDARD, CLASSIC, OKLAHOMA)}


def ruleset(name: str) -> Ruleset:
    """A preset by name, or MalformedInput listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise MalformedInput(
            f"unknown ruleset {name!r}; choose one of {', '.join(PRESETS)}"
        ) from None
