"""The grace on what the friend owes (protocol.md §11.3): a timer that runs while the
session names a message the friend owes, from the moment it became owed, and calls
back when it runs out. :class:`client.net.peer.OnlineMatch` then ends the match as
abandoned by the friend, or asks its player (a :class:`GraceOver` update). The twin of
the grace in client/web/src/online/peer.ts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class GraceOver:
    """The friend has owed ``owed`` (a message type) since ``since`` (UTC seconds) for
    longer than the grace: the player answers :meth:`OnlineMatch.keep_waiting` or
    :meth:`OnlineMatch.abandon` (client/net/peer.py)."""

    owed: str
    since: float


class Grace:
    """The timer. ``clock`` gives UTC seconds (for ``since``); ``ran_out`` is called
    with what is owed and since when."""

    def __init__(self, clock: Callable[[], float],
                 ran_out: Callable[[str, float], None]) -> None:
        self._clock, self._ran_out = clock, ran_out
        self._timer: asyncio.TimerHandle | None = None
        self._key: tuple[str, int] | None = None  # what the timer runs for
        self._owed: tuple[str, int] | None = None  # what is owed now, and
        self.since = 0.0  # since when (UTC seconds)
        #: The question put to the player while the grace is over, else None.
        self.question: GraceOver | None = None

    def restart(self, owed: str | None, received: int, delay: float, active: bool,
                force: bool = True) -> None:
        """The friend owes ``owed`` (None: nothing) after ``received`` messages; the
        timer runs ``delay`` s while ``active`` (connected, the friend seen). ``force``
        starts it again even when it already runs for the same thing."""
        key = None if owed is None else (owed, received)
        if key != self._owed:  # owed anew: since now (a question about the last is moot)
            self._owed, self.since, self.question = key, self._clock(), None
        if self.question is not None:
            return  # the player is asked: the clock waits for the answer
        if key is None or not active:
            self.stop()
            return
        if not force and key == self._key and self._timer is not None:
            return  # still waiting for the same thing: the clock keeps running
        self.stop()
        self._timer = asyncio.get_running_loop().call_later(delay, self._expired)
        self._key = key

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._key = None, None

    def ask(self) -> GraceOver:
        """Put the question (the grace ran out for what is owed now)."""
        assert self._owed is not None
        self.question = GraceOver(self._owed[0], self.since)
        return self.question

    def _expired(self) -> None:
        self._timer, self._key = None, None
        if self._owed is not None:
            self._ran_out(self._owed[0], self.since)
