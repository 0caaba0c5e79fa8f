"""Rulesets: every rule variant as data, never as branches scattered through code.

A :class:`Ruleset` is carried in every saved hand and bound into every online
match. The presets are ``standard`` (the default), ``classic`` (the older rule
books' bonuses) and ``oklahoma`` (the knock limit is the first upcard's value).

A ruleset comes from the network, a record or a save as often as from code, so
every value is checked on construction (:class:`RulesError`): each number lies
within :data:`BOUNDS`, wide enough for every house rule in the rule books and
narrow enough that a match stays a game of gin that ends (``dead_stock`` 30 made
every hand dead; a big gin worth 500 decided a match in one hand); the name is
short plain text; and a ruleset named like a preset has exactly its values, so
"standard" always means standard. Any other ruleset is *custom*
(:attr:`Ruleset.is_preset` is False): a guest plays it only after it was shown
(:meth:`Ruleset.describe`) and accepted.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from gin.engine.errors import MalformedInput

ShutoutRule = Literal["double_bonus", "double_total", "none"]
_SHUTOUT_RULES = ("double_bonus", "double_total", "none")

#: The inclusive range of every number of a ruleset (``big_gin_bonus`` may also be
#: None: big gin off). The presets use 10, 25, 20, 31, 100 and 2.
BOUNDS: dict[str, tuple[int, int]] = {
    "knock_limit": (0, 10),  # 0: gin only; above 10 is no rule book's gin
    "gin_bonus": (0, 100),
    "undercut_bonus": (0, 100),
    "big_gin_bonus": (0, 100),
    "box_bonus": (0, 100),
    "game_bonus": (0, 500),
    "target": (1, 500),
    # A discard leaving this many in the stock ends the hand: 10 still leaves 21
    # draws of the 31, while 30 would end every hand at its first discard.
    "dead_stock": (0, 10),
}
_FLAGS = ("knock_limit_from_upcard", "winner_deals")
#: Each rule as a person names it in a sentence (messages about a ruleset's values).
RULE_WORDS: dict[str, str] = {
    "knock_limit": "the knock limit",
    "gin_bonus": "the gin bonus",
    "undercut_bonus": "the undercut bonus",
    "big_gin_bonus": "the big gin bonus",
    "box_bonus": "the box bonus",
    "game_bonus": "the game bonus",
    "target": "the score a match is played to",
    "dead_stock": "the stock left at a dead hand",
    "knock_limit_from_upcard": "whether the first upcard sets the knock limit",
    "winner_deals": "whether the winner deals next",
    "shutout": "the shutout rule",
}
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+-]{0,31}")
CUSTOM = "custom"  # the name :meth:`Ruleset.with_options` gives a changed preset


class RulesError(MalformedInput):
    """A ruleset out of bounds, of the wrong types, or named like a preset it is not."""


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
        if not isinstance(self.name, str) or not NAME_PATTERN.fullmatch(self.name):
            raise RulesError("the rules' name must be 1 to 32 letters, digits, spaces or . _ + - "
                             f"starting with a letter or digit, not {shown(self.name)}")
        for name, (low, high) in BOUNDS.items():
            value = getattr(self, name)
            if name == "big_gin_bonus" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                off = " (or null: no big gin)" if name == "big_gin_bonus" else ""
                raise RulesError(f"{RULE_WORDS[name]} must be a whole number from {low} to "
                                 f"{high}{off}, not {shown(value)}")
        for name in _FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{RULE_WORDS[name]} must be true or false, "
                                 f"not {shown(getattr(self, name))}")
        if self.shutout not in _SHUTOUT_RULES:
            raise RulesError("the shutout rule must be double_bonus, double_total or none, "
                             f"not {shown(self.shutout)}")
        preset = PRESETS.get(self.name)
        if preset is not None and preset != self:
            changed = " and ".join(
                f"{RULE_WORDS[f.name]} is {shown(getattr(self, f.name))} (the {self.name} "
                f"rules have {shown(getattr(preset, f.name))})"
                for f in fields(self) if getattr(self, f.name) != getattr(preset, f.name))
            raise RulesError(f"rules named {shown(self.name)} must be the {self.name} rules "
                             f"exactly, but {changed}")

    @property
    def is_preset(self) -> bool:
        """One of the presets (a custom ruleset must be shown and accepted first)."""
        return self.name in PRESETS

    def describe(self) -> str:
        """Every rule in words, one per line (what a guest is shown before agreeing)."""
        return "\n".join(text for text, _ in self.describe_lines())

    def describe_lines(self) -> list[tuple[str, bool]]:
        """:meth:`describe`'s lines, each with whether it differs from the nearest
        preset: a custom ruleset's first line names that preset and counts the
        changes, and each changed rule says what the preset has."""
        base = self.nearest_preset()
        mine, theirs = self._in_words(), base._in_words()
        changes = sum(a != b for a, b in zip(mine, theirs, strict=True))
        if self.is_preset:
            title = f"{self.name} rules"
        else:
            named = "custom rules" if self.name == CUSTOM else f"custom rules named {self.name}"
            title = f"{named}: the same as the {base.name} rules" if not changes else \
                f"{named}: the {base.name} rules with {changes} change{'s' * (changes != 1)}"
        lines = [(title, False)]
        for (label, value), (_, was) in zip(mine, theirs, strict=True):
            lines.append((f"{label}: {value}", False) if value == was
                         else (f"{label}: {value} — changed from {was}", True))
        return lines

    def nearest_preset(self) -> Ruleset:
        """The preset this ruleset differs least from, rule by rule as
        :meth:`describe` says them (itself for a preset; the first of :data:`PRESETS`
        on a tie): a custom ruleset's changes are shown against it."""
        mine = self._in_words()
        return min(PRESETS.values(), key=lambda preset: sum(
            a != b for a, b in zip(mine, preset._in_words(), strict=True)))

    def _in_words(self) -> tuple[tuple[str, str], ...]:
        """Each rule's name and value in words, in :meth:`describe`'s order."""
        big = "off" if self.big_gin_bonus is None else f"{self.big_gin_bonus} + deadwood"
        limit = "the first upcard's value (an ace: gin only)" \
            if self.knock_limit_from_upcard else str(self.knock_limit)
        shutout = {"double_bonus": "doubles the game bonus",
                   "double_total": "doubles the winner's total", "none": "no extra"}
        return (
            ("knock limit", limit),
            ("gin bonus", f"{self.gin_bonus} + deadwood"),
            ("undercut bonus", f"{self.undercut_bonus} + the difference"),
            ("big gin", big),
            ("box bonus", f"{self.box_bonus} a hand won"),
            ("game bonus", str(self.game_bonus)),
            ("match to", str(self.target)),
            ("shutout", shutout[self.shutout]),
            ("next dealer", "the winner" if self.winner_deals else "alternates"),
            ("dead hand", f"a discard that leaves {self.dead_stock} in the stock"),
        )

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
            kind = _KINDS.get(type(data).__name__, type(data).__name__)
            raise RulesError(f"the rules must be a map of names to values, not {kind}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            names = ", ".join(sorted(map(str, unknown)))
            raise RulesError(f"no such rule: {names}")
        try:
            return cls(**data)
        except TypeError as exc:  # a field of the wrong type that dataclass rejects
            raise RulesError(f"these rules cannot be read: {exc}") from None

    def with_options(self, **changes: Any) -> Ruleset:
        """A copy with some fields changed (house rules on top of a preset). A changed
        preset is named :data:`CUSTOM` unless ``changes`` names it."""
        values = asdict(self) | changes
        if "name" not in changes and self.is_preset and values != asdict(self):
            values["name"] = CUSTOM
        return Ruleset(**values)


#: The presets by name (filled as they are made: a ruleset named like one must equal it).
PRESETS: dict[str, Ruleset] = {}
STANDARD = Ruleset()
CLASSIC = Ruleset(name="classic", gin_bonus=20, undercut_bonus=10, box_bonus=20)
OKLAHOMA = Ruleset(name="oklahoma", knock_limit_from_upcard=True)

PRESETS.update((r.name, r) for r in (STANDARD, CLASSIC, OKLAHOMA))


#: What a value that is not a map is, by its Python type.
_KINDS = {"list": "a list", "str": "text", "int": "a number", "float": "a number",
          "bool": "true or false", "NoneType": "null"}


def shown(value: Any) -> str:
    """A value in a message about a ruleset: as written in its JSON for true, false and
    null, else as Python writes it (text quoted)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    return repr(value)


def ruleset(name: str) -> Ruleset:
    """A preset by name, or MalformedInput listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise MalformedInput(
            f"unknown ruleset {name!r}; choose one of {', '.join(PRESETS)}"
        ) from None
