"""The life of a relay connection: counted against its address from its TCP accept
on, admitted to a seat, its frames forwarded to the other seat within the flood
limit, and its end handed back to the room. The relay never parses a frame."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from relay.config import RelayConfig
from relay.limits import AddressLimits, address_key, client_address
from relay.logs import event
from relay.metrics import RelayStats
from relay.rooms import Refusal, Rooms
from relay.seats import Delivery
from relay.wire import Close, Control, control

__all__ = ["Connections", "CountedConnection"]

TEXT_FRAME = Refusal(Close.TEXT_FRAME, "text frames are not accepted; send binary", "text_frame")


class Connections:
    """Handles every WebSocket connection the relay accepts."""

    def __init__(
        self,
        config: RelayConfig,
        rooms: Rooms,
        delivery: Delivery,
        limits: AddressLimits,
        stats: RelayStats,
    ) -> None:
        self._config = config
        self._rooms = rooms
        self._delivery = delivery
        self._limits = limits
        self._stats = stats
        self.seated = 0  # connections holding a seat now

    def connection_class(self) -> type[CountedConnection]:
        """The connection type websockets makes for each TCP accept."""
        return type(
            "RelayConnection",
            (CountedConnection,),
            {
                "limits": self._limits,
                "stats": self._stats,
                "trust_forwarded": self._config.trust_forwarded,
            },
        )

    async def handle(self, conn: ServerConnection) -> None:
        """Serve one connection from its handshake to its end."""
        # One coroutine per connection, kept flat: each nested frame costs every
        # idle connection a few hundred bytes.
        assert conn.request is not None and conn.response is not None
        assert isinstance(conn, CountedConnection)
        ip = client_address(conn.remote_address, conn.request.headers, self._config.trust_forwarded)
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
        admitted = self._rooms.admit(path, ip)
        if isinstance(admitted, Refusal):
            await self._refuse(conn, *admitted)
            return
        room, seat_no, token, kind = admitted
        self.seated += 1
        cfg, clock, stats, push = self._config, self._config.clock, self._stats, self._delivery.push
        target = room.seats[1 - seat_no]
        tokens, stamp = float(cfg.burst), clock()
        try:
            await self._rooms.attach(conn, room, seat_no, token, kind)
            while True:
                try:
                    message = await conn.recv()
                except ConnectionClosed as exc:
                    if exc.sent is not None and exc.sent.code == Close.TOO_BIG:
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
                await push(target, message)
        finally:
            self._rooms.detach(conn, room, seat_no)
            self.seated -= 1

    async def _refuse(self, conn: ServerConnection, code: int, reason: str, key: str) -> None:
        self._stats.refusals[key] += 1
        event("refused", logging.WARNING, reason=key, code=code, detail=reason)
        with contextlib.suppress(ConnectionClosed):
            await conn.send(control(Control.ERROR, code=code, reason=reason))
            await conn.close(code, reason)


class CountedConnection(ServerConnection):
    """A connection counted against its address's cap from its TCP accept on, so
    handshakes in progress count too; requests too broken to reach the relay's
    code are counted as refusals."""

    # Set on the subclass that Connections.connection_class() makes.
    limits: AddressLimits
    stats: RelayStats
    trust_forwarded: bool
    counted: str | None = None  # the address key this connection is counted under

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # Behind a trusted proxy the client's address is known only from the request.
        if self.trust_forwarded:
            return
        peer = transport.get_extra_info("peername")
        key = address_key(str(peer[0])) if peer else "?"
        if self.limits.acquire(key):
            self.counted = key
            return
        self.stats.refusals["conns_per_ip"] += 1
        # No answer: reading a request first would hold the descriptor the cap protects.
        assert isinstance(transport, asyncio.Transport)
        transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.uncount()

    def uncount(self) -> None:
        if self.counted is not None:
            self.limits.release(self.counted)
            self.counted = None

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        await super().handshake(*args, **kwargs)
        exc = self.protocol.handshake_exc
        # A connection closed before sending anything is a port probe (load
        # balancers, monitoring), not a bad request.
        if self.request is None and exc is not None and not isinstance(exc.__cause__, EOFError):
            self.stats.refusals["bad_http"] += 1
            event("refused", logging.WARNING, reason="bad_http", detail=str(exc))
