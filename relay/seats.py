"""One side of a room and what waits for it: each seat's outbox, and the delivery
that sends to a seat in order, holding frames (within the buffer limits) while it
cannot."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from relay.config import RelayConfig
from relay.logs import event
from relay.metrics import RelayStats
from relay.wire import Close, Peer

__all__ = ["Delivery", "Seat", "Spawn"]

#: Runs a coroutine in the background (the relay cancels what is left when it closes).
Spawn = Callable[[Awaitable[None]], None]


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
        "ended",
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
        # How the seat was last given up, until it is taken again: "left" (its holder
        # closed with 1000) or "grace_expired" (its holder may still come back).
        self.ended: str | None = None

    def peer_state(self, other: Seat) -> str:
        """This seat as the ``other`` seat's holder is told it in a welcome."""
        if self.conn is not None:
            return Peer.CONNECTED
        if self.away_since is not None:
            return Peer.AWAY
        # A holder back after its grace ran out learns that the other one left for good.
        return Peer.LEFT if self.ended == "left" and other.ended == "grace_expired" else Peer.ABSENT

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


class Delivery:
    """Sends frames and control messages to seats, each seat's in order, and holds
    what a seat cannot take yet; counts the bytes held across every seat."""

    def __init__(self, config: RelayConfig, stats: RelayStats, spawn: Spawn) -> None:
        self._config = config
        self._stats = stats
        self._spawn = spawn
        self.held_bytes = 0  # frames held in every seat's outbox

    async def push(self, seat: Seat, item: bytes | str) -> None:
        """Deliver ``item`` to ``seat`` in order, queueing it while that cannot be done."""
        first = False
        conn = seat.conn
        if conn is not None and seat.outbox is None and not seat.flushing and not seat.discarding:
            # The usual case: nothing is queued ahead, so skip the queue.
            if await self._send_now(seat, conn, item):
                if seat.outbox:
                    await self.flush(seat)  # what others queued while this was sent
                return
            first = True  # older than anything queued while the send failed
        if isinstance(item, str):
            if seat.conn is None:
                return  # the next hello states the peer's status anyway
        elif not self._hold(seat, item):
            return
        seat.enqueue(item, first)
        await self.flush(seat)

    async def _send_now(self, seat: Seat, conn: ServerConnection, item: bytes | str) -> bool:
        seat.flushing = True  # anything pushed meanwhile queues behind this item
        try:
            await conn.send(item)
        except ConnectionClosed:
            return False
        finally:
            seat.flushing = False
        if isinstance(item, bytes):
            self._stats.frames_out += 1
            self._stats.bytes_out += len(item)
        return True

    def _hold(self, seat: Seat, frame: bytes) -> bool:
        """Account for a frame about to be queued; False if it must be dropped."""
        stats = self._stats
        if seat.discarding:
            stats.frames_dropped["discarding"] += 1
            return False
        cfg = self._config
        if (
            seat.outbox_frames >= cfg.buffer_frames
            or seat.outbox_bytes + len(frame) > cfg.buffer_bytes
        ):
            why = "buffer_full"
        elif self.held_bytes + len(frame) > cfg.max_held_bytes:
            # The relay as a whole holds too much: the seat that would add to it
            # overflows, as if its own buffer were full.
            why = "relay_buffer_full"
        else:
            why = None
        if why is not None:
            frames = self.discard(seat)
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
        self.held_bytes += len(frame)
        if seat.conn is None:
            stats.frames_buffered += 1
        return True

    async def flush(self, seat: Seat) -> None:
        """Send what the seat's outbox holds while it has a connection."""
        # One flusher per seat at a time; whoever runs it also sends what others queue.
        if seat.flushing:
            return
        seat.flushing = True
        stats = self._stats
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
                        self.held_bytes -= len(item)
                        stats.frames_out += 1
                        stats.bytes_out += len(item)
        finally:
            seat.flushing = False
            if not seat.outbox:
                seat.outbox = None  # an idle seat holds no deque (~0.7 KiB)

    def discard(self, seat: Seat) -> int:
        """Empty a seat's outbox; returns how many frames it held."""
        self.held_bytes -= seat.outbox_bytes
        return seat.clear()
