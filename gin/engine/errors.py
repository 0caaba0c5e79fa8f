"""The one error tree of the project.

Three kinds of failure are kept apart because their remedies differ:

* ``MalformedInput``: text or data that cannot be understood (a bad card token,
  a corrupt saved record). The caller's input is wrong.
* ``IllegalAction``: a well-formed action that the rules forbid right now (a
  discard of the card just taken, a knock over the limit). The state is unchanged.
* ``PeerFault``: the remote peer broke the protocol or cheated. ``who`` names the
  side at fault and ``field`` what was wrong.
"""

from __future__ import annotations


class GinError(Exception):
    """Base class of every error this package raises on purpose."""


class MalformedInput(GinError, ValueError):
    """Input that cannot be parsed or fails its schema; names the input."""


class IllegalAction(GinError):
    """A well-formed action the rules do not allow now; names action, player, phase."""


class PeerFault(GinError):
    """The remote peer broke the protocol or the rules of the fair deal.

    ``who`` is the side at fault (for example ``"host"``, ``"guest"``, a seat
    number as text, or ``"relay"``) and ``field`` names what was wrong.
    """

    def __init__(self, message: str, *, who: str, field: str = "") -> None:
        super().__init__(message)
        self.who = who
        self.field = field
