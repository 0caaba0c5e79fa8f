"""The rooms in memory and who holds each seat.

A request is admitted here: room ids and seat tickets are self-validating (see
``relay.roomid``), so a valid id the relay does not hold (after a restart, or
once the room idled out) re-creates its room, and the earliest ticket wins a seat
back from anyone who claimed it since. Seats are claimed, dropped, kept for their
grace and given up here; delivering to them is ``relay.seats``.
"""

from __future__ import annotations

import hmac
import logging
from typing import NamedTuple

from websockets.asyncio.server import ServerConnection

from relay.config import RelayConfig
from relay.limits import AddressLimits
from relay.logs import event, short_room
from relay.metrics import RelayStats
from relay.roomid import RoomIds
from relay.seats import Delivery, Seat, Spawn
from relay.wire import Close, Control, NewRoom, Peer, RouteError, control, parse_route

__all__ = ["Refusal", "Room", "Rooms"]


class Refusal(NamedTuple):
    code: int
    reason: str
    key: str  # the label in gin_relay_refusals_total


RELAY_FULL = Refusal(Close.RELAY_FULL, "relay full; try later", "relay_full")
UNKNOWN_ROOM = Refusal(Close.UNKNOWN_ROOM, "unknown room: not issued by this relay", "unknown_room")


class Room:
    __slots__ = ("id", "seats", "last_activity")

    def __init__(self, room_id: str, now: float) -> None:
        self.id = room_id
        self.seats = (Seat(), Seat())
        self.last_activity = now


class Rooms:
    """The room table: admission, seat claims and drops, and the deadlines."""

    def __init__(
        self,
        config: RelayConfig,
        ids: RoomIds,
        limits: AddressLimits,
        stats: RelayStats,
        delivery: Delivery,
        spawn: Spawn,
    ) -> None:
        self._config = config
        self._ids = ids
        self._limits = limits
        self._stats = stats
        self._delivery = delivery
        self._spawn = spawn
        self._rooms: dict[str, Room] = {}
        # Set while the relay shuts down: its connections' ends are no drops to wait out.
        self.closing = False

    def __len__(self) -> int:
        return len(self._rooms)

    def admit(self, path: str, ip: str) -> tuple[Room, int, str, str] | Refusal:
        """Find or make the room a request names, and check the seat is free or its own."""
        try:
            route = parse_route(path)
        except RouteError as exc:
            return Refusal(Close.BAD_REQUEST, str(exc), "bad_request")
        now = self._config.clock()
        if isinstance(route, NewRoom):  # a WebSocket /new, from an older client
            if len(self._rooms) >= self._config.max_rooms:
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
            self._stats.rooms_created += 1
            event("room_created", room=short_room(room.id))
            return room, 0, route.token, Control.CREATED
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
            if len(self._rooms) >= self._config.max_rooms:
                return RELAY_FULL
            # A valid id the relay does not hold: a new room's first seat (its id
            # from GET /new, here or on another relay sharing the key), or a room
            # back after a restart, an idle close, or from a relay that went away.
            found = self._rooms[route.room] = Room(route.room, now)
            self._stats.rooms_opened += 1
            event("room_opened", room=short_room(route.room))
        seat = found.seats[route.seat]
        if seat.token is not None and not hmac.compare_digest(seat.token, route.token):
            if since is None or since >= seat.since:
                return Refusal(Close.SEAT_TAKEN, f"seat {route.seat} is taken", "seat_taken")
            # An older ticket: the seat was claimed by someone else since a restart
            # (or since its holder's grace ran out), and goes back to its first holder.
            self._evict(found, route.seat)
        if since is not None and (seat.token is None or since < seat.since):
            seat.since = since
        return found, route.seat, route.token, Control.JOINED

    def _evict(self, room: Room, seat_no: int) -> None:
        seat = room.seats[seat_no]
        self._stats.seats_reclaimed += 1
        event("seat_evicted", logging.WARNING, room=short_room(room.id), seat=seat_no)
        seat.token = None
        old, seat.conn = seat.conn, None
        if old is not None:
            self._spawn(old.close(Close.SEAT_TAKEN, f"seat {seat_no} was reclaimed by its holder"))

    async def attach(
        self, conn: ServerConnection, room: Room, seat_no: int, token: str, kind: str
    ) -> None:
        """Seat an admitted connection: its welcome, then what was held for it."""
        cfg = self._config
        seat, other = room.seats[seat_no], room.seats[1 - seat_no]
        peer = other.peer_state(seat)  # before this seat is taken: it may have been given up
        returning = seat.token is not None
        if seat.token is None and seat.since == 0:
            seat.since = int(cfg.wall_clock() * 1000)
        seat.token = token
        seat.ended = None
        old, seat.conn = seat.conn, conn
        seat.away_since = None
        seat.discarding = False
        seat.drop_control()
        room.last_activity = cfg.clock()
        self._stats.connections_accepted += 1
        if old is not None:
            self._spawn(old.close(Close.SUPERSEDED, "replaced by a newer connection for this seat"))
        hello = control(
            kind,
            room=room.id,
            seat=seat_no,
            peer=peer,
            grace=cfg.grace,
            max_frame=cfg.max_frame,
            rate=cfg.rate,
            burst=cfg.burst,
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
            joined = Control.PEER_RECONNECTED if returning else Control.PEER_JOINED
            await self._delivery.push(other, control(joined))
        await self._delivery.flush(seat)

    def detach(self, conn: ServerConnection, room: Room, seat_no: int) -> None:
        """A seated connection ended: the seat is kept for its grace, or freed."""
        seat = room.seats[seat_no]
        if seat.conn is not conn:
            return  # superseded: the seat belongs to the newer connection
        seat.conn = None
        seat.drop_control()
        if self.closing or self._rooms.get(room.id) is not room:
            return
        rcvd = conn.protocol.close_rcvd
        if rcvd is not None and rcvd.code == Close.LEFT:
            # 1000 from the player means "I am leaving": no grace to wait out.
            self._expire_seat(room, seat_no, "left")
            return
        seat.away_since = self._config.clock()
        event("seat_dropped", room=short_room(room.id), seat=seat_no, code=conn.close_code)
        other = room.seats[1 - seat_no]
        if other.conn is not None:
            message = control(Control.PEER_LEFT, grace=self._config.grace)
            self._spawn(self._delivery.push(other, message))

    def sweep(self) -> None:
        """Expire grace periods and idle rooms."""
        cfg, now = self._config, self._config.clock()
        for room in list(self._rooms.values()):
            if now - room.last_activity >= cfg.room_idle:
                self._close_room(room, "idle")
                continue
            for seat_no, seat in enumerate(room.seats):
                if seat.away_since is not None and now - seat.away_since >= cfg.grace:
                    self._expire_seat(room, seat_no, "grace_expired")
            first, second = room.seats
            if first.peer_state(second) == second.peer_state(first) == Peer.ABSENT:
                # Empty; but a room one player left for good while the other's grace had
                # run out is kept (until idle) to tell the other so, should it come back.
                self._close_room(room, "empty")

    def _expire_seat(self, room: Room, seat_no: int, why: str) -> None:
        """Free the seat for any new claimant and tell the other side."""
        seat = room.seats[seat_no]
        dropped = self._delivery.discard(seat)
        if dropped:
            self._stats.frames_dropped[why] += dropped
        seat.token = None
        seat.since = 0
        seat.away_since = None
        seat.discarding = True
        seat.ended = why
        event("seat_released", room=short_room(room.id), seat=seat_no, why=why, dropped=dropped)
        other = room.seats[1 - seat_no]
        if other.conn is not None:
            self._spawn(self._delivery.push(other, control(Control.PEER_GONE)))

    def _close_room(self, room: Room, reason: str) -> None:
        del self._rooms[room.id]
        self._stats.rooms_closed[reason] += 1
        dropped = sum(self._delivery.discard(seat) for seat in room.seats)
        if dropped:
            self._stats.frames_dropped["room_closed"] += dropped
        event("room_closed", room=short_room(room.id), reason=reason)
        for seat in room.seats:
            if seat.conn is not None:
                self._spawn(seat.conn.close(Close.ROOM_EXPIRED, "room closed after being idle"))
