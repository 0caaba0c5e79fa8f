"""Computer players: Easy, Normal, Hard, the research "simple player", Random.

A player sees only an :class:`~gin.engine.observation.Observation` (what a person at the table
sees) and the legal actions, and returns one of them. Players keep no hidden
state: memory of the hand is replayed from ``obs.history`` on each call, so the
same observation always gives the same decision for a given seed: a player that
draws at random (Hard, Random) seeds a :class:`gin.rand.Rand` per decision from
its seed and the observation (:func:`gin.players.view.decision_rand`), the same
stream the browser's players use.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from gin.engine.actions import Action
from gin.engine.errors import MalformedInput
from gin.engine.observation import Observation
from gin.players.easy import EasyPlayer, RandomPlayer
from gin.players.hard import HARD, NORMAL, Hint, SkilledPlayer
from gin.players.simple import SimplePlayer
from gin.rand import check_seed


class Player(Protocol):
    name: str

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action: ...


NAMES: tuple[str, ...] = ("easy", "normal", "hard", "simple", "random")


def get(name: str, seed: int | random.Random = 0) -> Player:
    """A player by name. ``seed`` (in [0, 2**32)) drives the random choices of
    "hard" and "random"; a ``random.Random`` given instead supplies one 32-bit
    seed (for callers that hold a random source rather than a seed)."""
    if isinstance(seed, random.Random):
        seed = seed.getrandbits(32)
    check_seed(seed)  # refused here, not at the first decision
    key = name.strip().lower()
    if key == "easy":
        return EasyPlayer()
    if key == "normal":
        return SkilledPlayer(NORMAL)
    if key == "hard":
        return SkilledPlayer(HARD, seed)
    if key == "simple":
        return SimplePlayer()
    if key == "random":
        return RandomPlayer(seed)
    raise MalformedInput(f"unknown player {name!r}; choose one of {', '.join(NAMES)}")


_HARD = SkilledPlayer(HARD)


def hint(obs: Observation, legal: Sequence[Action]) -> Hint:
    """Hard's move for this observation and a one-line reason for it."""
    return _HARD.decide(obs, legal)


__all__ = ["NAMES", "Hint", "Player", "get", "hint"]
