"""What a relay connection reports, and how it fails.

A :class:`~client.net.transport.RelayTransport` yields these events in order: the
other seat's frames and the connection's status (the twin of ``RelayEvent`` in
client/web/src/online/relay.ts).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame from the other seat, exactly as it sent it."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Connected:
    """The first connection is up; ``room`` is known (the host's room was just made)."""

    room: str
    seat: int


@dataclass(frozen=True, slots=True)
class Reconnected:
    """This side's connection is back, on the same seat: resend what is unacknowledged."""

    attempts: int


@dataclass(frozen=True, slots=True)
class WaitingForPeer:
    """Connected, and the other seat has never been taken (or was given up)."""


@dataclass(frozen=True, slots=True)
class PeerJoined:
    """The other seat is connected. ``returning``: it had dropped and came back."""

    returning: bool


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """The other seat's connection dropped; the relay keeps its seat for ``grace`` s."""

    grace: float


@dataclass(frozen=True, slots=True)
class PeerGone:
    """The other seat's grace ran out; frames sent now are dropped until it rejoins.
    ``left``: a welcome said its holder left for good while this side's grace had run
    out (it will not come back to this match)."""

    left: bool = False


@dataclass(frozen=True, slots=True)
class Reconnecting:
    """This side's connection dropped; the next attempt starts after ``delay`` s."""

    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True, slots=True)
class Closed:
    """The transport is finished; always the last event. ``code`` is the close code."""

    code: int | None
    reason: str


Event = (
    Frame
    | Connected
    | Reconnected
    | WaitingForPeer
    | PeerJoined
    | PeerLeft
    | PeerGone
    | Reconnecting
    | Closed
)


#: How a TransportError begins when nothing answered at the relay's address.
UNREACHABLE = "cannot reach relay"


class TransportError(Exception):
    """A connection attempt failed. ``permanent``: retrying cannot help."""

    def __init__(self, reason: str, code: int | None = None, permanent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.permanent = permanent


class TransportClosedError(RuntimeError):
    """The transport was used after it closed."""
