"""The relay: pairs two WebSocket connections in a room and forwards opaque frames.

It never parses a frame. Its only state is the rooms in memory; room ids and
seat tickets are self-validating (see ``relay.roomid``), so after a restart a
returning player re-creates its room simply by joining it, and wins its seat
back from anyone who claimed it since. A running relay is made of: the rooms and
who holds each seat (``relay.rooms``), delivery to a seat (``relay.seats``), the
connection loop (``relay.connections``), the answers to plain HTTP
(``relay.http``) and per-address limits (``relay.limits``). The wire protocol is
``relay.wire``, documented in docs/running-a-relay.md ("Wire protocol").
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable
from typing import Any

from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed

from relay import metrics, static
from relay.config import RelayConfig
from relay.connections import Connections
from relay.http import Routes
from relay.limits import AcceptErrorLog, AddressLimits
from relay.logs import event
from relay.roomid import RoomIds, load_or_create_key
from relay.rooms import Rooms
from relay.seats import Delivery
from relay.wire import Close

__all__ = ["Relay", "RelayConfig", "serve"]

ACCEPT_ERROR_LOG_INTERVAL = 10.0  # seconds between two log lines about accept() failing


class Relay:
    """A running relay. Create it with ``await serve(config)``."""

    def __init__(self, config: RelayConfig) -> None:
        self.config = config
        key = (
            load_or_create_key(config.key_file)
            if config.key_file is not None
            else secrets.token_bytes(32)
        )
        ids = RoomIds(key)
        self._limits = AddressLimits(
            config.max_conns_per_ip,
            config.new_rooms_per_minute,
            config.new_rooms_burst,
            config.clock,
        )
        self._closing = False
        self._background: set[asyncio.Task[None]] = set()
        self.stats = metrics.RelayStats()
        self._delivery = Delivery(config, self.stats, self._spawn)
        self._rooms = Rooms(config, ids, self._limits, self.stats, self._delivery, self._spawn)
        self._connections = Connections(
            config, self._rooms, self._delivery, self._limits, self.stats
        )
        registry = metrics.make_registry(
            self.stats,
            metrics.Gauges(
                rooms=lambda: len(self._rooms),
                connections=lambda: self._connections.seated,
                held_bytes=lambda: self._delivery.held_bytes,
                addresses=lambda: self._limits.addresses,
            ),
        )
        self._board = static.load_board()  # the browser board at /, when built
        self._routes = Routes(
            config, ids, self._board, registry, self.stats, self._limits, lambda: len(self._rooms)
        )
        self._server: Server | None = None
        self._port: int | None = None
        self._metrics_server: Server | None = None  # with --metrics-listen
        self._metrics_port: int | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous_handler: Any = None

    async def start(self) -> None:
        cfg = self.config
        self._install_accept_error_log()
        self._server = await ws_serve(
            self._connections.handle,
            cfg.host,
            cfg.port,
            compression=None,  # small frames; deflate costs ~4x memory per connection
            process_request=self._routes.answer,
            create_connection=self._connections.connection_class(),
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
        if cfg.metrics_listen is not None:
            try:  # every request is answered here: no connection is ever handed on
                self._metrics_server = await ws_serve(
                    _never, *cfg.metrics_listen, process_request=self._routes.private,
                    server_header="gin-relay", open_timeout=10,
                )
            except OSError:
                self._server.close()
                await self._server.wait_closed()
                raise
            self._metrics_port = int(self._metrics_server.sockets[0].getsockname()[1])
        self._sweeper = asyncio.create_task(self._sweep_forever())
        # Whoever serves the page can change the code that holds a player's secret:
        # the log (and /version) says exactly which files this relay serves.
        event(
            "relay_started",
            host=cfg.host,
            port=self.port,
            metrics=None if cfg.metrics_listen is None else
            f"{_netloc(cfg.metrics_listen[0])}:{self._metrics_port}",
            board=self._board.digests(),
            sends_links_to=cfg.board,  # --board: invite links open that board instead
        )

    @property
    def port(self) -> int:
        """The port actually bound (useful with port 0); kept after close()."""
        assert self._port is not None, "relay not started"
        return self._port

    @property
    def metrics_port(self) -> int | None:
        """The port /metrics is served on with ``metrics_listen`` (None without)."""
        return self._metrics_port

    @property
    def rooms(self) -> int:
        return len(self._rooms)

    async def close(self) -> None:
        """Stop accepting, close every connection with 1001 and wait for handlers."""
        if self._closing:
            return
        self._closing = self._rooms.closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._server is not None:
            self._server.close(code=Close.GOING_AWAY, reason="relay shutting down")
            await self._server.wait_closed()
        if self._metrics_server is not None:
            self._metrics_server.close()
            await self._metrics_server.wait_closed()
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

    def _spawn(self, work: Awaitable[None]) -> None:
        """Run ``work`` in the background; close() cancels what is left of it."""

        async def run() -> None:
            with contextlib.suppress(ConnectionClosed):
                await work

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.sweep_interval)
            self.sweep()

    def sweep(self) -> None:
        """Expire grace periods and idle rooms; public so tests can drive time."""
        self._rooms.sweep()
        self._limits.prune()


async def _never(conn: ServerConnection) -> None:
    raise AssertionError("the metrics address answers every request over plain HTTP")


def _netloc(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def serve(config: RelayConfig) -> Relay:
    """Start a relay; ``await relay.close()`` stops it."""
    relay = Relay(config)
    await relay.start()
    return relay
