"""The relay's wire protocol in one place: the requests it accepts, the control
messages it sends, the close codes that end its connections and the answer to a
plain ``GET /new`` (docs/running-a-relay.md, "Wire protocol").

Clients use these names rather than writing the values again. The browser's copy
(client/web/src/online/relay.ts) is held to them by the ``relay_wire`` conformance
case that ``python -m relay.conformance`` writes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from relay.roomid import ROOM_ID_PATTERN, TICKET_PATTERN

__all__ = [
    "FIELDS",
    "FINAL_CLOSE_CODES",
    "HTTP_STATUS",
    "NEW_ROOM_FIELDS",
    "TOKEN_PATTERN",
    "WELCOMES",
    "Close",
    "Control",
    "JoinRoom",
    "NewRoom",
    "Peer",
    "RouteError",
    "control",
    "parse_route",
]


class Close:
    """Close codes on a relay connection; docs/running-a-relay.md has the table."""

    LEFT = 1000  # from a client: it leaves for good, and its seat is freed at once
    GOING_AWAY = 1001  # relay shutting down: reconnect
    PROTOCOL_ERROR = 1002  # from a client: the relay broke this protocol
    TEXT_FRAME = 1003  # clients send binary frames only
    INVALID_DATA = 1007  # sent by websockets itself: a text frame that is not UTF-8
    FLOOD = 1008  # more frames per second than allowed
    TOO_BIG = 1009  # sent by websockets itself when a frame exceeds max_frame
    MANDATORY_EXTENSION = 1010  # from a client's websockets: an extension it needs is missing
    RECONNECTING = 4001  # from a client: it drops this connection to open another at once
    NO_PONG = 1011  # sent by websockets itself: no pong to a keepalive ping in time
    TOO_SLOW = 1013  # frames for this seat piled up: reconnect
    SUPERSEDED = 4000  # a newer connection claimed the same seat
    BAD_REQUEST = 4400  # malformed path or query
    UNKNOWN_ROOM = 4404  # room id not issued under this relay's key
    SEAT_TAKEN = 4409  # seat held by another token, or reclaimed by its earlier holder
    ROOM_EXPIRED = 4410  # room idle too long
    TOO_MANY_CONNECTIONS = 4429  # per-address connection or new-room cap: retry later
    RELAY_FULL = 4503  # room cap reached: retry later


#: Codes after which reconnecting cannot help (the table's "retry?"); a client
#: retries every other code, and any network failure. A taken seat (4409) is
#: retried: its later claimant may leave, or lose it to the holder's older ticket.
FINAL_CLOSE_CODES = frozenset(
    {
        Close.LEFT,
        Close.PROTOCOL_ERROR,
        Close.TEXT_FRAME,
        Close.INVALID_DATA,
        Close.FLOOD,
        Close.TOO_BIG,
        Close.MANDATORY_EXTENSION,
        Close.SUPERSEDED,
        Close.BAD_REQUEST,
        Close.UNKNOWN_ROOM,
        Close.ROOM_EXPIRED,
    }
)


class Control:
    """The ``type`` of each control message: a JSON text frame from the relay."""

    CREATED = "created"  # the welcome on a WebSocket /new (older clients)
    JOINED = "joined"  # the welcome on /j/ROOM
    PEER_JOINED = "peer_joined"  # the other seat was taken
    PEER_RECONNECTED = "peer_reconnected"  # the other seat's holder came back
    PEER_LEFT = "peer_left"  # the other seat dropped; kept for its grace
    PEER_GONE = "peer_gone"  # the other seat was given up
    ERROR = "error"  # sent just before a refusal closes the connection


#: A connection's first message is one of these, before any frame.
WELCOMES = frozenset({Control.CREATED, Control.JOINED})

_WELCOME_FIELDS = ("room", "seat", "peer", "grace", "max_frame", "rate", "burst", "ticket")

#: The fields of each control message besides ``type``, in the order they are sent.
FIELDS: dict[str, tuple[str, ...]] = {
    Control.CREATED: _WELCOME_FIELDS,
    Control.JOINED: _WELCOME_FIELDS,
    Control.PEER_JOINED: (),
    Control.PEER_RECONNECTED: (),
    Control.PEER_LEFT: ("grace",),
    Control.PEER_GONE: (),
    Control.ERROR: ("code", "reason"),
}


class Peer:
    """A welcome's ``peer``: the other seat's state."""

    CONNECTED = "connected"
    AWAY = "away"  # dropped, within its grace
    ABSENT = "absent"  # never taken, or given up
    LEFT = "left"  # its holder left for good (1000) while this seat's was given up


def control(kind: str, **fields: object) -> str:
    """A control message as the relay sends it: compact JSON, ``type`` first."""
    assert tuple(fields) == FIELDS[kind], f"{kind} has the fields {FIELDS[kind]}"
    return json.dumps({"type": kind, **fields}, separators=(",", ":"))


#: The fields of the JSON object a plain ``GET /new`` answers (status 200): a room
#: id, the seat it is for (0) and that seat's ticket. The client then takes the
#: seat like any other, at ``/j/ROOM?seat=0&token=T&ticket=K``, on whichever relay
#: a balancer routes that room to.
NEW_ROOM_FIELDS = ("room", "seat", "ticket")

#: The HTTP status of each refusal of a plain ``GET /new``; its body is the
#: ``error`` control message with the close code the same refusal has on a WebSocket.
HTTP_STATUS = {
    Close.BAD_REQUEST: 400,
    Close.TOO_MANY_CONNECTIONS: 429,
    Close.RELAY_FULL: 503,
}


# ----------------------------------------------------------------- requests

TOKEN_PATTERN = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True, slots=True)
class NewRoom:
    token: str


@dataclass(frozen=True, slots=True)
class JoinRoom:
    room: str
    seat: int
    token: str
    ticket: str | None = None


class RouteError(ValueError):
    """A WebSocket request path or query the relay does not understand."""


def parse_route(target: str) -> NewRoom | JoinRoom:
    """Parse ``/new?token=T`` (a plain GET, or a WebSocket from an older client) or
    ``/j/ROOM?seat=S&token=T[&ticket=K]`` (unknown keys ignored)."""
    path, _, query = target.partition("?")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError as exc:
        raise RouteError(f"malformed query: {exc}") from None
    params: dict[str, str] = {}
    for key, value in pairs:
        if key in params:
            raise RouteError(f"parameter {key!r} given twice")
        params[key] = value
    token = params.get("token")
    if token is None:
        raise RouteError("missing token=HEX (32 lowercase hex digits chosen by the client)")
    if not TOKEN_PATTERN.fullmatch(token):
        raise RouteError("token must be 32 lowercase hex digits")
    if path == "/new":
        return NewRoom(token)
    if not path.startswith("/j/"):
        raise RouteError("path must be /new or /j/ROOM")
    room = path[3:]
    if not ROOM_ID_PATTERN.fullmatch(room):
        raise RouteError("room id must be 32 url-safe base64 characters")
    seat = params.get("seat")
    if seat not in ("0", "1"):
        raise RouteError("seat must be 0 (host) or 1 (guest)")
    ticket = params.get("ticket")
    if ticket is not None and not TICKET_PATTERN.fullmatch(ticket):
        raise RouteError("ticket must be 32 url-safe base64 characters, as the relay gave it")
    return JoinRoom(room, int(seat), token, ticket)
