"""The relay: pairs two WebSocket connections in a room and forwards opaque frames.

It never parses a frame. Its only state is the rooms in memory; room ids and
seat tickets are self-validating (see ``relay.roomid``), so after a restart a
returning player re-creates its room simply by joining it, and wins its seat
back from anyone who claimed it since. Per-address limits are in ``relay.limits``.
The control protocol is documented in docs/running-a-relay.md ("Wire protocol").
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import re
import secrets
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, NamedTuple
from urllib.parse import parse_qsl

from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from relay import metrics, pages, static
from relay.config import RelayConfig
from relay.limits import AcceptErrorLog, AddressLimits, address_key
from relay.logs import event, short_room
from relay.roomid import ROOM_ID_PATTERN, TICKET_PATTERN, RoomIds, load_or_create_key

__all__ = [
    "Close",
    "JoinRoom",
    "NewRoom",
    "Relay",
    "RelayConfig",
    "RouteError",
    "parse_route",
    "serve",
]

TOKEN_PATTERN = re.compile(r"[0-9a-f]{32}")
ACCEPT_ERROR_LOG_INTERVAL = 10.0  # seconds between two log lines about accept() failing


class Close:
    """Close codes the relay sends; docs/running-a-relay.md has the table."""

    GOING_AWAY = 1001  # relay shutting down: reconnect
    TEXT_FRAME = 1003  # clients send binary frames only
    FLOOD = 1008  # more frames per second than allowed
    TOO_BIG = 1009  # sent by websockets itself when a frame exceeds max_frame
    TOO_SLOW = 1013  # frames for this seat piled up: reconnect
    SUPERSEDED = 4000  # a newer connection claimed the same seat
    BAD_REQUEST = 4400  # malformed path or query
    UNKNOWN_ROOM = 4404  # room id not issued under this relay's key
    SEAT_TAKEN = 4409  # seat held by another token, or reclaimed by its earlier holder
    ROOM_EXPIRED = 4410  # room idle too long
    TOO_MANY_CONNECTIONS = 4429  # per-address connection or new-room cap: retry later
    RELAY_FULL = 4503  # room cap reached: retry later


class Refusal(NamedTuple):
    code: int
    reason: str
    key: str  # the label in gin_relay_refusals_total


TEXT_FRAME = Refusal(Close.TEXT_FRAME, "text frames are not accepted; send binary", "text_frame")
RELAY_FULL = Refusal(Close.RELAY_FULL, "relay full; try later", "relay_full")
UNKNOWN_ROOM = Refusal(Close.UNKNOWN_ROOM, "unknown room: not issued by this relay", "unknown_room")


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
    """Parse ``/new?token=T`` or ``/j/ROOM?seat=S&token=T[&ticket=K]`` (unknown keys
    ignored)."""
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


class Seat:
    """One side of a room: who owns it, its connection, and what waits for it."""

    __slots__ = (
        "token",
        "since",
        "conn",
        "away_since",
        "outbox",
        "outbox_frames",
        "outbox_bytes",
        "discarding",
        "flushing",
    )

    def __init__(self) -> None:
        self.token: str | None = None
        # When the holder first claimed the seat (wall-clock ms), as its ticket says.
        self.since = 0
        self.conn: ServerConnection | None = None
        self.away_since: float | None = None  # set while a dropped owner has grace
        # Frames (bytes) and control messages (str) in the order they must go out.
        # None while empty: most seats are idle, and an empty deque is ~0.7 KiB.
        self.outbox: deque[bytes | str] | None = None
        self.outbox_frames = 0  # the bytes items in outbox, and their total size
        self.outbox_bytes = 0
        # After an overflow or an expired grace, frames are dropped until the seat
        # is next claimed, so a receiver never sees a gap followed by later frames.
        self.discarding = False
        self.flushing = False

    def peer_state(self) -> str:
        if self.conn is not None:
            return "connected"
        return "away" if self.away_since is not None else "absent"

    def enqueue(self, item: bytes | str, first: bool = False) -> None:
        """Queue ``item``; ``first`` puts it ahead of the queued frames.

        A first item still goes behind the control messages at the front (the
        welcome of a connection that took the seat while the item's send to the
        old one failed): a client must read its welcome before anything else.
        """
        if self.outbox is None:
            self.outbox = deque()
        box = self.outbox
        if not first:
            box.append(item)
            return
        at = 0
        while at < len(box) and isinstance(box[at], str):
            at += 1
        box.insert(at, item)

    def welcome(self, hello: str) -> None:
        """Put a new connection's welcome at the very front of the queue."""
        if self.outbox is None:
            self.outbox = deque()
        self.outbox.appendleft(hello)

    def clear(self) -> int:
        """Empty the outbox; returns how many frames were in it."""
        frames = self.outbox_frames
        self.outbox = None
        self.outbox_frames = self.outbox_bytes = 0
        return frames

    def drop_control(self) -> None:
        # Status messages meant for a connection that is gone would mislead its successor.
        if self.outbox is not None and any(isinstance(item, str) for item in self.outbox):
            kept: deque[bytes | str] = deque(i for i in self.outbox if isinstance(i, bytes))
            self.outbox = kept or None


class Room:
    __slots__ = ("id", "seats", "last_activity")

    def __init__(self, room_id: str, now: float) -> None:
        self.id = room_id
        self.seats = (Seat(), Seat())
        self.last_activity = now


def _asks_terminal(target: str) -> bool:
    """``/j/ROOM?terminal``: the page on joining with the gin program instead."""
    return "terminal" in target.partition("?")[2].split("&")


def _json(**fields: Any) -> str:
    return json.dumps(fields, separators=(",", ":"))


def _http(status: HTTPStatus, body: bytes, content_type: str, **extra: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("Connection", "close"),
        ]
    )
    for name, value in extra.items():
        headers[name.replace("_", "-")] = value
    return Response(status.value, status.phrase, headers, body)


class Relay:
    """A running relay. Create it with ``await serve(config)``."""

    def __init__(self, config: RelayConfig) -> None:
        self.config = config
        key = (
            load_or_create_key(config.key_file)
            if config.key_file is not None
            else secrets.token_bytes(32)
        )
        self._ids = RoomIds(key)
        self._rooms: dict[str, Room] = {}
        self._limits = AddressLimits(
            config.max_conns_per_ip,
            config.new_rooms_per_minute,
            config.new_rooms_burst,
            config.clock,
        )
        self._held_bytes = 0  # frames held in every seat's outbox
        self._connections = 0
        self._closing = False
        self._background: set[asyncio.Task[None]] = set()
        self.stats = metrics.RelayStats()
        self._registry = metrics.make_registry(
            self.stats,
            metrics.Gauges(
                rooms=lambda: len(self._rooms),
                connections=lambda: self._connections,
                held_bytes=lambda: self._held_bytes,
                addresses=lambda: self._limits.addresses,
            ),
        )
        self._board = static.load_board()  # the browser board at /, when built
        self._server: Server | None = None
        self._port: int | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous_handler: Any = None

    # ----------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        cfg = self.config
        self._install_accept_error_log()
        self._server = await ws_serve(
            self._handle,
            cfg.host,
            cfg.port,
            compression=None,  # small frames; deflate costs ~4x memory per connection
            process_request=self._process_request,
            create_connection=_connection_class(self),
            server_header="gin-relay",
            max_size=cfg.max_frame,
            # Small queues keep an idle connection cheap; game traffic is light.
            max_queue=8,
            write_limit=16 * 1024,
            ping_interval=cfg.ping_interval,
            ping_timeout=cfg.ping_timeout,
            close_timeout=5,
            open_timeout=10,
        )
        self._port = int(self._server.sockets[0].getsockname()[1])
        self._sweeper = asyncio.create_task(self._sweep_forever())
        # Whoever serves the page can change the code that holds a player's secret:
        # the log (and /version) says exactly which files this relay serves.
        event("relay_started", host=cfg.host, port=self.port, board=self._board.digests())

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0); kept after close()."""
        assert self._port is not None, "relay not started"
        return self._port

    @property
    def rooms(self) -> int:
        return len(self._rooms)

    async def close(self) -> None:
        """Stop accepting, close every connection with 1001 and wait for handlers."""
        if self._closing:
            return
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            self._server.close(code=Close.GOING_AWAY, reason="relay shutting down")
            await self._server.wait_closed()
        for task in list(self._background):
            task.cancel()
        if self._loop is not None:
            self._loop.set_exception_handler(self._previous_handler)
        event("relay_stopped", rooms=len(self._rooms))

    def _install_accept_error_log(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        previous = self._previous_handler = loop.get_exception_handler()

        def fallback(context: dict[str, Any]) -> None:
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)

        def count() -> None:
            self.stats.accept_errors += 1

        loop.set_exception_handler(
            AcceptErrorLog(ACCEPT_ERROR_LOG_INTERVAL, self.config.clock, count, fallback)
        )

    async def wait_closed(self) -> None:
        """Return once the relay has stopped (after close(), from any task)."""
        assert self._server is not None, "relay not started"
        await self._server.wait_closed()

    # ------------------------------------------------------------------- HTTP

    def _process_request(self, conn: ServerConnection, request: Request) -> Response | None:
        path = request.path.partition("?")[0]
        if path == "/healthz":
            return _http(HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        if path == "/metrics" and self.config.metrics:
            return _http(HTTPStatus.OK, metrics.render(self._registry), metrics.CONTENT_TYPE)
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None  # the handler routes it, so refusals carry a close code
        board = self._board.response(path)
        if board is not None:
            return board
        valid = path.startswith("/j/") and self._ids.verify(path[3:])
        if valid and not _asks_terminal(request.path):
            board = self._board.invite()  # the board joins in the page
            if board is not None:
                return board
        if path.startswith("/j/") or path == "/":
            page = pages.invite_page(valid, self._board.built) if path != "/" else pages.home_page()
            return _http(
                HTTPStatus.OK,
                page.encode(),
                "text/html; charset=utf-8",
                Content_Security_Policy="default-src 'none'; style-src 'unsafe-inline'",
                Referrer_Policy="no-referrer",
                X_Content_Type_Options="nosniff",
            )
        self.stats.refusals["not_found"] += 1
        return _http(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

    def _client_ip(self, conn: ServerConnection) -> str:
        """The address key the per-address limits count this connection under."""
        if self.config.trust_forwarded and conn.request is not None:
            forwarded = conn.request.headers.get("X-Forwarded-For")
            if forwarded:
                # The proxy appends the address it saw; earlier entries are client-supplied.
                return address_key(forwarded.rsplit(",", 1)[-1].strip())
        address = conn.remote_address
        return address_key(str(address[0])) if address else "?"

    # -------------------------------------------------------------- WebSocket

    async def _handle(self, conn: ServerConnection) -> None:
        # One coroutine per connection, kept flat: each nested frame costs every
        # idle connection a few hundred bytes.
        assert conn.request is not None and conn.response is not None
        assert isinstance(conn, CountedConnection)
        ip = self._client_ip(conn)
        path = conn.request.path
        # Nothing reads the handshake headers again; they are ~3 KiB per connection.
        conn.request.headers.clear()
        conn.response.headers.clear()
        # Counted since its TCP accept, unless the address is only known now (a proxy).
        if conn.counted is None:
            if not self._limits.acquire(ip):
                await self._refuse(
                    conn,
                    Close.TOO_MANY_CONNECTIONS,
                    "too many connections from your address; try again later",
                    "conns_per_ip",
                )
                return
            conn.counted = ip
        admitted = self._admit(path, ip)
        if isinstance(admitted, Refusal):
            await self._refuse(conn, *admitted)
            return
        room, seat_no, token, kind = admitted
        self._connections += 1
        cfg, clock, stats = self.config, self.config.clock, self.stats
        target = room.seats[1 - seat_no]
        tokens, stamp = float(cfg.burst), clock()
        try:
            await self._attach(conn, room, seat_no, token, kind)
            while True:
                try:
                    message = await conn.recv()
                except ConnectionClosed as exc:
                    if exc.sent is not None and exc.sent.code == CloseCode.MESSAGE_TOO_BIG:
                        stats.refusals["frame_too_large"] += 1
                        event("refused", logging.WARNING, reason="frame_too_large")
                    return
                if isinstance(message, str):
                    await self._refuse(conn, *TEXT_FRAME)
                    return
                # Token bucket: refill by elapsed time, spend one per frame.
                now = clock()
                tokens = min(float(cfg.burst), tokens + (now - stamp) * cfg.rate)
                stamp = now
                if tokens < 1.0:
                    await self._refuse(
                        conn,
                        Close.FLOOD,
                        f"rate limit: over {cfg.rate:g} frames per second",
                        "flood",
                    )
                    return
                tokens -= 1.0
                stats.frames_in += 1
                stats.bytes_in += len(message)
                room.last_activity = now
                await self._push(target, message)
        finally:
            self._detach(conn, room, seat_no)
            self._connections -= 1

    def _admit(self, path: str, ip: str) -> tuple[Room, int, str, str] | Refusal:
        """Find or make the room a request names, and check the seat is free or its own."""
        try:
            route = parse_route(path)
        except RouteError as exc:
            return Refusal(Close.BAD_REQUEST, str(exc), "bad_request")
        now = self.config.clock()
        if isinstance(route, NewRoom):
            if len(self._rooms) >= self.config.max_rooms:
                return RELAY_FULL
            wait = self._limits.new_room_wait(ip)
            if wait:
                return Refusal(
                    Close.TOO_MANY_CONNECTIONS,
                    f"too many new rooms from your address; try again in {wait:.0f} s",
                    "new_room_rate",
                )
            room = Room(self._ids.issue(), now)
            self._rooms[room.id] = room
            self.stats.rooms_created += 1
            event("room_created", room=short_room(room.id))
            return room, 0, route.token, "created"
        if not self._ids.verify(route.room):
            return UNKNOWN_ROOM
        since = None
        if route.ticket is not None:
            since = self._ids.ticket_since(route.ticket, route.room, route.seat, route.token)
            if since is None:
                return Refusal(
                    Close.BAD_REQUEST,
                    "seat ticket not issued for this seat and token",
                    "bad_ticket",
                )
        found = self._rooms.get(route.room)
        if found is None:
            if len(self._rooms) >= self.config.max_rooms:
                return RELAY_FULL
            # A valid id the relay does not hold: it restarted or the room idled out.
            found = self._rooms[route.room] = Room(route.room, now)
            self.stats.rooms_restored += 1
            event("room_restored", room=short_room(route.room))
        seat = found.seats[route.seat]
        if seat.token is not None and not hmac.compare_digest(seat.token, route.token):
            if since is None or since >= seat.since:
                return Refusal(Close.SEAT_TAKEN, f"seat {route.seat} is taken", "seat_taken")
            # An older ticket: the seat was claimed by someone else since a restart
            # (or since its holder's grace ran out), and goes back to its first holder.
            self._evict(found, route.seat)
        if since is not None and (seat.token is None or since < seat.since):
            seat.since = since
        return found, route.seat, route.token, "joined"

    def _evict(self, room: Room, seat_no: int) -> None:
        seat = room.seats[seat_no]
        self.stats.seats_reclaimed += 1
        event("seat_evicted", logging.WARNING, room=short_room(room.id), seat=seat_no)
        seat.token = None
        old, seat.conn = seat.conn, None
        if old is not None:
            self._spawn(old.close(Close.SEAT_TAKEN, f"seat {seat_no} was reclaimed by its holder"))

    async def _attach(
        self, conn: ServerConnection, room: Room, seat_no: int, token: str, kind: str
    ) -> None:
        seat, other = room.seats[seat_no], room.seats[1 - seat_no]
        returning = seat.token is not None
        if seat.token is None and seat.since == 0:
            seat.since = int(self.config.wall_clock() * 1000)
        seat.token = token
        old, seat.conn = seat.conn, conn
        seat.away_since = None
        seat.discarding = False
        seat.drop_control()
        room.last_activity = self.config.clock()
        self.stats.connections_accepted += 1
        if old is not None:
            self._spawn(old.close(Close.SUPERSEDED, "replaced by a newer connection for this seat"))
        hello = _json(
            type=kind,
            room=room.id,
            seat=seat_no,
            peer=other.peer_state(),
            grace=self.config.grace,
            max_frame=self.config.max_frame,
            rate=self.config.rate,
            burst=self.config.burst,
            ticket=self._ids.ticket(room.id, seat_no, token, seat.since),
        )
        # Ahead of any frames buffered while the seat was empty.
        seat.welcome(hello)
        event(
            "seat_" + ("reclaimed" if returning else "claimed"),
            room=short_room(room.id),
            seat=seat_no,
            buffered=seat.outbox_frames,
        )
        if other.conn is not None:
            await self._push(other, _json(type="peer_reconnected" if returning else "peer_joined"))
        await self._flush(seat)

    def _detach(self, conn: ServerConnection, room: Room, seat_no: int) -> None:
        seat = room.seats[seat_no]
        if seat.conn is not conn:
            return  # superseded: the seat belongs to the newer connection
        seat.conn = None
        seat.drop_control()
        if self._closing or self._rooms.get(room.id) is not room:
            return
        rcvd = conn.protocol.close_rcvd
        if rcvd is not None and rcvd.code == CloseCode.NORMAL_CLOSURE:
            # 1000 from the player means "I am leaving": no grace to wait out.
            self._expire_seat(room, seat_no, "left")
            return
        seat.away_since = self.config.clock()
        event("seat_dropped", room=short_room(room.id), seat=seat_no, code=conn.close_code)
        other = room.seats[1 - seat_no]
        if other.conn is not None:
            self._spawn(self._push(other, _json(type="peer_left", grace=self.config.grace)))

    # ---------------------------------------------------------------- outbox

    async def _push(self, seat: Seat, item: bytes | str) -> None:
        """Deliver ``item`` to ``seat`` in order, queueing it while that cannot be done."""
        first = False
        conn = seat.conn
        if conn is not None and seat.outbox is None and not seat.flushing and not seat.discarding:
            # The usual case: nothing is queued ahead, so skip the queue.
            if await self._send_now(seat, conn, item):
                if seat.outbox:
                    await self._flush(seat)  # what others queued while this was sent
                return
            first = True  # older than anything queued while the send failed
        if isinstance(item, str):
            if seat.conn is None:
                return  # the next hello states the peer's status anyway
        elif not self._hold(seat, item):
            return
        seat.enqueue(item, first)
        await self._flush(seat)

    async def _send_now(self, seat: Seat, conn: ServerConnection, item: bytes | str) -> bool:
        seat.flushing = True  # anything pushed meanwhile queues behind this item
        try:
            await conn.send(item)
        except ConnectionClosed:
            return False
        finally:
            seat.flushing = False
        if isinstance(item, bytes):
            self.stats.frames_out += 1
            self.stats.bytes_out += len(item)
        return True

    def _hold(self, seat: Seat, frame: bytes) -> bool:
        """Account for a frame about to be queued; False if it must be dropped."""
        stats = self.stats
        if seat.discarding:
            stats.frames_dropped["discarding"] += 1
            return False
        cfg = self.config
        if (
            seat.outbox_frames >= cfg.buffer_frames
            or seat.outbox_bytes + len(frame) > cfg.buffer_bytes
        ):
            why = "buffer_full"
        elif self._held_bytes + len(frame) > cfg.max_held_bytes:
            # The relay as a whole holds too much: the seat that would add to it
            # overflows, as if its own buffer were full.
            why = "relay_buffer_full"
        else:
            why = None
        if why is not None:
            frames = self._discard(seat)
            stats.frames_dropped[why] += frames + 1
            seat.discarding = True
            event("buffer_overflow", logging.WARNING, dropped=frames + 1, why=why)
            if seat.conn is not None:
                # Connected but not keeping up: make it reconnect, which tells the
                # sender to resend, rather than deliver frames after a gap.
                self._spawn(seat.conn.close(Close.TOO_SLOW, "too far behind; reconnect"))
            return False
        seat.outbox_frames += 1
        seat.outbox_bytes += len(frame)
        self._held_bytes += len(frame)
        if seat.conn is None:
            stats.frames_buffered += 1
        return True

    async def _flush(self, seat: Seat) -> None:
        # One flusher per seat at a time; whoever runs it also sends what others queue.
        if seat.flushing:
            return
        seat.flushing = True
        stats = self.stats
        try:
            while (box := seat.outbox) and (conn := seat.conn) is not None:
                item = box[0]
                try:
                    await conn.send(item)
                except ConnectionClosed:
                    if seat.conn is conn:
                        return  # kept for the next connection of this seat
                    continue  # a newer connection took over: carry on with it
                # Peek, send, then pop: a frame lost with a dying connection is resent.
                box = seat.outbox
                if box and box[0] is item:
                    box.popleft()
                    if isinstance(item, bytes):
                        seat.outbox_frames -= 1
                        seat.outbox_bytes -= len(item)
                        self._held_bytes -= len(item)
                        stats.frames_out += 1
                        stats.bytes_out += len(item)
        finally:
            seat.flushing = False
            if not seat.outbox:
                seat.outbox = None  # an idle seat holds no deque (~0.7 KiB)

    def _discard(self, seat: Seat) -> int:
        """Empty a seat's outbox; returns how many frames it held."""
        self._held_bytes -= seat.outbox_bytes
        return seat.clear()

    # ------------------------------------------------------------- refusals

    async def _refuse(self, conn: ServerConnection, code: int, reason: str, key: str) -> None:
        self.stats.refusals[key] += 1
        event("refused", logging.WARNING, reason=key, code=code, detail=reason)
        with contextlib.suppress(ConnectionClosed):
            await conn.send(_json(type="error", code=code, reason=reason))
            await conn.close(code, reason)

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            with contextlib.suppress(ConnectionClosed):
                await work

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---------------------------------------------------------------- sweeps

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_interval)
            self.sweep()

    def sweep(self) -> None:
        """Expire grace periods and idle rooms; public so tests can drive time."""
        cfg, now = self.config, self.config.clock()
        for room in list(self._rooms.values()):
            if now - room.last_activity >= cfg.room_idle:
                self._close_room(room, "idle")
                continue
            for seat_no, seat in enumerate(room.seats):
                if seat.away_since is not None and now - seat.away_since >= cfg.grace:
                    self._expire_seat(room, seat_no, "grace_expired")
            if all(s.conn is None and s.away_since is None for s in room.seats):
                self._close_room(room, "empty")
        self._limits.prune()

    def _expire_seat(self, room: Room, seat_no: int, why: str) -> None:
        """Free the seat for any new claimant and tell the other side."""
        seat = room.seats[seat_no]
        dropped = self._discard(seat)
        if dropped:
            self.stats.frames_dropped[why] += dropped
        seat.token = None
        seat.since = 0
        seat.away_since = None
        seat.discarding = True
        event("seat_released", room=short_room(room.id), seat=seat_no, why=why, dropped=dropped)
        other = room.seats[1 - seat_no]
        if other.conn is not None:
            self._spawn(self._push(other, _json(type="peer_gone")))

    def _close_room(self, room: Room, reason: str) -> None:
        del self._rooms[room.id]
        self.stats.rooms_closed[reason] += 1
        dropped = sum(self._discard(seat) for seat in room.seats)
        if dropped:
            self.stats.frames_dropped["room_closed"] += dropped
        event("room_closed", room=short_room(room.id), reason=reason)
        for seat in room.seats:
            if seat.conn is not None:
                self._spawn(seat.conn.close(Close.ROOM_EXPIRED, "room closed after being idle"))


class CountedConnection(ServerConnection):
    """A connection counted against its address's cap from its TCP accept on, so
    handshakes in progress count too; requests too broken to reach the relay's
    code are counted as refusals."""

    relay: Relay  # set on the subclass that start() makes
    counted: str | None = None  # the address key this connection is counted under

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        relay = self.relay
        # Behind a trusted proxy the client's address is known only from the request.
        if relay.config.trust_forwarded:
            return
        peer = transport.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        if relay._limits.acquire(key):
            self.counted = key
            return
        relay.stats.refusals["conns_per_ip"] += 1
        # No answer: reading a request first would hold the descriptor the cap protects.
        assert isinstance(transport, asyncio.Transport)
        transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.uncount()

    def uncount(self) -> None:
        if self.counted is not None:
            self.relay._limits.release(self.counted)
            self.counted = None

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        await super().handshake(*args, **kwargs)
        exc = self.protocol.handshake_exc
        # A connection closed before sending anything is a port probe (load
        # balancers, monitoring), not a bad request.
        if self.request is None and exc is not None and not isinstance(exc.__cause__, EOFError):
            self.relay.stats.refusals["bad_http"] += 1
            event("refused", logging.WARNING, reason="bad_http", detail=str(exc))


def _connection_class(relay: Relay) -> type[CountedConnection]:
    return type("RelayConnection", (CountedConnection,), {"relay": relay})


async def serve(config: RelayConfig) -> Relay:
    """Start a relay; ``await relay.close()`` stops it."""
    relay = Relay(config)
    await relay.start()
    return relay
