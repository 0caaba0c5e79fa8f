"""What the table is given from outside: :class:`AppConfig`.

Apart from the app (:mod:`client.table.app`) so the view it is built on, and the
commands that open it, can name it without importing the app.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from client.storage import Storage
from client.table.controller import DeckSource, OpponentFactory, computer_player
from gin import Ruleset, shuffled_deck
from gin.engine.rules import STANDARD

if TYPE_CHECKING:  # the network stack loads only when a friend is played
    from client.net.lobby import OnlineStart
    from client.net.peer import OnlineSettings


@dataclass
class AppConfig:
    """Everything the app needs from outside; tests inject decks, opponents, delay 0."""

    storage: Storage | None = None
    rules: Ruleset = STANDARD
    vs: str = "normal"
    rng: random.Random = field(default_factory=random.Random)
    make_opponent: OpponentFactory = computer_player
    deck_source: DeckSource = shuffled_deck
    delay: float = 0.7
    offer_resume: bool = True
    chosen: bool = False  # vs or rules were named on the command line: a resume asks
    online: OnlineStart | None = None  # connect at once: `gin host` / `gin join`
    online_settings: OnlineSettings | None = None  # timers; tests shorten them
