"""Shared fixtures for the client tests: a scripted opponent and fixed decks.

The human is player 0 and the non-dealer of the first hand, so a deck built with
``stacked_deck(human, computer, upcard, stock)`` deals ``human`` to the player.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest

from client.storage import Storage
from client.table.app import GinApp, make_app
from client.table.config import AppConfig
from client.table.controller import Game
from gin import (
    Action,
    Card,
    Discard,
    DrawStock,
    LayOff,
    Observation,
    Pass,
    Phase,
    Ruleset,
    parse_action,
    parse_cards,
    shuffled_deck,
)
from gin.engine.hand import stacked_deck
from gin.engine.rules import STANDARD


class ScriptedOpponent:
    """Plays its script (action texts) first, then passes, draws from the stock
    and throws the card it drew, and lays off at a knock: it never knocks unless
    told to."""

    def __init__(self, script: Iterable[str] = ()) -> None:
        self.script = [parse_action(text) for text in script]
        self.seen: list[Observation] = []

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        self.seen.append(obs)
        if self.script:
            action = self.script.pop(0)
            assert action in legal or obs.phase is Phase.LAYOFF, f"{action} not in {legal}"
            return action
        if obs.phase is Phase.UPCARD:
            return Pass()
        if obs.phase is Phase.DRAW:
            return DrawStock()
        if obs.phase is Phase.LAYOFF:
            return LayOff()
        drawn = next(e.card for e in reversed(obs.history) if e.player == obs.player)
        assert drawn is not None
        return Discard(drawn)


def deck(human: str, computer: str, upcard: str, stock: str = "") -> list[Card]:
    """A deck dealing ``human`` to the player and ``computer`` to the computer."""
    return stacked_deck(parse_cards(human), parse_cards(computer), parse_cards(upcard)[0],
                        parse_cards(stock))


def fixed_decks(*decks: Sequence[Card]) -> Callable[[random.Random], Sequence[Card]]:
    """A deck source that deals ``decks`` in order, then shuffles with the rng."""
    queue = list(decks)

    def source(rng: random.Random) -> Sequence[Card]:
        return queue.pop(0) if queue else shuffled_deck(rng)

    return source


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    return Storage(tmp_path / "data")


TableFactory = Callable[..., tuple[GinApp, ScriptedOpponent]]


@pytest.fixture
def table(storage: Storage) -> TableFactory:
    """Build the app with fixed decks, a scripted opponent and no delay."""

    def build(*decks: Sequence[Card], script: Iterable[str] = (),
              rules: Ruleset = STANDARD) -> tuple[GinApp, ScriptedOpponent]:
        opponent = ScriptedOpponent(script)
        app = make_app(AppConfig(storage=storage, rules=rules, rng=random.Random(7),
                                 make_opponent=lambda _s, _r: opponent,
                                 deck_source=fixed_decks(*decks), delay=0))
        return app, opponent

    return build


GameFactory = Callable[..., tuple[Game, ScriptedOpponent]]


@pytest.fixture
def make_game(storage: Storage) -> GameFactory:
    """Build a controller with fixed decks and a scripted opponent."""

    def build(*decks: Sequence[Card], script: Iterable[str] = (), rules: Ruleset = STANDARD,
              seed: int = 7) -> tuple[Game, ScriptedOpponent]:
        opponent = ScriptedOpponent(script)
        game = Game(rules, "normal", random.Random(seed), storage,
                    make_opponent=lambda _s, _r: opponent, deck_source=fixed_decks(*decks))
        return game, opponent

    return build


@pytest.fixture
def deal() -> Callable[..., list[Card]]:
    return deck
