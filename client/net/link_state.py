"""How an online match and its connection stand, in the player's words: the link's
states, the updates an :class:`~client.net.peer.OnlineMatch` gives its listeners
besides the session's events, and the failures of this side's own machinery."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from client.net.grace import GraceOver
from client.net.outcome import FriendLeft
from client.net.relay_events import Closed
from gin.protocol.session.events import (
    Abandoned,
    ClaimedAbandoned,
    Failure,
    LeftOwing,
    SessionEvent,
)
from relay.wire import Close


class Link(Enum):
    """The connection as the player should see it: the words are the browser's
    (client/web/src/board/words.ts, connectionWords) — "away" while the relay keeps
    the friend's seat, "left" once it gave the seat up."""

    CONNECTING = "connecting to the relay…"
    WAITING = "waiting for your friend to join"
    CONNECTED = "connected to your friend"
    RECONNECTING = "connection lost — reconnecting…"
    FRIEND_AWAY = "your friend is away — waiting for them to come back"
    FRIEND_GONE = "your friend left — waiting in case they come back"
    CLOSED = "disconnected"


SHORT_WORDS = {Link.CONNECTING: "connecting…", Link.WAITING: "waiting for them to join",
          Link.CONNECTED: "connected", Link.RECONNECTING: "connection lost — reconnecting…",
          Link.FRIEND_AWAY: "away", Link.FRIEND_GONE: "left", Link.CLOSED: "disconnected"}
#: How the match stands once it has ended, in the same words as the browser's.
MATCH_OVER = "the match is over"
MATCH_STOPPED = "the match was stopped"
#: A match ended as abandoned: by this side's word (the friend went silent), or by the
#: friend's, which says this side did.
MATCH_ABANDONED = "the match ended: abandoned by your friend"
MATCH_CLAIMED = "the match ended: your friend says you abandoned it"
MATCH_LEFT = "the match ended: your friend left it"
#: A rematch (protocol.md §7.1) asked for and not yet begun, or offered by the friend.
REMATCH_WAITING = "waiting for your friend to accept the rematch"
REMATCH_OFFERED = "your friend offers a rematch"


def ended_words(failure: Failure | None, short: bool = False) -> str:
    """How a match that has ended stands (``failure``: how it failed, if it did);
    ``short``: the few words after "Your friend ·" on the table."""
    if failure is None:
        return MATCH_OVER
    words = {Abandoned: "match abandoned", ClaimedAbandoned: "match ended by them",
             LeftOwing: "match left by them", FriendLeft: "match left by them"} if short else \
        {Abandoned: MATCH_ABANDONED, ClaimedAbandoned: MATCH_CLAIMED, LeftOwing: MATCH_LEFT,
         FriendLeft: MATCH_LEFT}
    return words.get(type(failure), MATCH_STOPPED)


@dataclass(frozen=True)
class LinkChanged:
    link: Link
    detail: str = ""


@dataclass(frozen=True)
class Notice:
    """Something to tell the player that is not part of the game (a failed save)."""

    text: str


def connection_fault(closed: Closed) -> str:
    """Who ended the connection for good: the relay when it closed with a code; when
    it could not be reached again, the relay may be down or this computer's network;
    nobody when this match was opened elsewhere with the same save (Close.SUPERSEDED)."""
    if closed.code == Close.SUPERSEDED:
        return "nobody"
    return "relay" if closed.code is not None else "relay or this computer's network"


Update = SessionEvent | LinkChanged | Notice | GraceOver
