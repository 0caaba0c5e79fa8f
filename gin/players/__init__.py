"""Computer players: Easy, Normal, Hard, the research "simple player", Random.

A player sees only an :class:`~gin.hand.Observation` (what a person at the table
sees) and the legal actions, and returns one of them. Players keep no hidden
state: memory of the hand is replayed from ``obs.history`` on each call, so the
same observation always gives the same decision (for a given ``rng``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from gin.actions import Action
from gin.errors import MalformedInput
from gin.hand import Observation
from gin.players.basic import EasyPlayer, RandomPlayer, SimplePlayer
from gin.players.skilled import HARD, NORMAL, Hint, SkilledPlayer


class Player(Protocol):
    name: str

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action: ...


NAMES: tuple[str, ...] = ("easy", "normal", "hard", "simple", "random")


def get(name: str, rng: random.Random | None = None) -> Player:
    """A player by name. ``rng`` drives the random choices of "simple" and "random"
    (default: a fixed seed, so a bare ``get`` is still deterministic)."""
    source = rng if rng is not None else random.Random(0)
    key = name.strip().lower()
    if key == "easy":
        return EasyPlayer()
    if key == "normal":
        return SkilledPlayer(NORMAL)
    if key == "hard":
        return SkilledPlayer(HARD, source)
    if key == "simple":
        return SimplePlayer(source)
    if key == "random":
        return RandomPlayer(source)
    raise MalformedInput(f"unknown player {name!r}; choose one of {', '.join(NAMES)}")


_HARD = SkilledPlayer(HARD)


def hint(obs: Observation, legal: Sequence[Action]) -> Hint:
    """Hard's move for this observation and a one-line reason for it."""
    return _HARD.decide(obs, legal)


__all__ = ["NAMES", "Hint", "Player", "get", "hint"]
