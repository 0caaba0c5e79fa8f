"""The transport's way to a room behind a balancer: the host asks ``GET /new`` on one
relay and takes seat 0 wherever ``/j/ROOM`` is routed; an older relay's WebSocket
``/new`` still works; and when the route of a room changes under a connected seat,
that seat goes looking for its peer (``reroute_after``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Response

from client.net.relay_events import (
    Connected,
    Frame,
    PeerJoined,
    PeerLeft,
    Reconnected,
    TransportError,
    WaitingForPeer,
)
from client.net.transport import RelayTransport, TransportSettings
from relay.http import Routes
from relay.server import Relay, serve
from relay.testing import TEST_CONFIG


def settings(**overrides: Any) -> TransportSettings:
    base = TransportSettings(backoff=lambda attempt: 0.02, ping_interval=None, send_rate=None)
    return replace(base, **overrides)


async def next_event(transport: RelayTransport, kind: type[Any], timeout: float = 3) -> Any:
    async with asyncio.timeout(timeout):
        async for event in transport:
            if isinstance(event, kind):
                return event
    raise AssertionError(f"transport ended before {kind.__name__}")


class PathBalancer:
    """A TCP balancer on 127.0.0.1 that picks a relay by the request's path, as
    HAProxy's ``balance uri depth 2`` does: ``route(path)`` names the port. A test
    changes ``route`` (a relay added or back) and cuts connections one by one."""

    def __init__(self, route: Callable[[str], int]) -> None:
        self.route = route
        self.port = 0
        self.links: list[tuple[str, asyncio.StreamWriter]] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    def cut(self, path_start: str) -> None:
        """Drop the open connections whose path starts so (no close handshake)."""
        for path, writer in list(self.links):
            if path.startswith(path_start):
                writer.transport.abort()
                self.links.remove((path, writer))

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for _, writer in self.links:
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        path = line.split(b" ")[1].decode() if line.count(b" ") >= 2 else "/"
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", self.route(path.partition("?")[0]))
        except OSError:
            writer.transport.abort()
            return
        up_writer.write(line)
        self.links.append((path, writer))
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            sink.transport.abort()


@pytest.fixture
async def relays(tmp_path: Path) -> AsyncIterator[list[Relay]]:
    """Two relays sharing one key, as behind a balancer."""
    config = replace(TEST_CONFIG, key_file=tmp_path / "relay.key", burst=1000)
    started = [await serve(config), await serve(config)]
    yield started
    for relay in started:
        await relay.close()


async def test_the_host_takes_its_seat_where_the_room_is_routed(relays: list[Relay]) -> None:
    asked, held = relays
    # /new goes to one relay, every /j/ROOM to the other.
    balancer = PathBalancer(lambda path: asked.port if path == "/new" else held.port)
    await balancer.start()
    try:
        url = f"http://127.0.0.1:{balancer.port}"
        host = await RelayTransport.host(url, settings=settings())
        assert host.ticket is not None
        guest = await RelayTransport.join(url, host.room, settings=settings())
        assert await next_event(host, Connected) == Connected(host.room, 0)
        await next_event(host, PeerJoined)
        assert await host.send(b"met")
        assert await next_event(guest, Frame) == Frame(b"met")
        assert (asked.stats.rooms_created, asked.rooms) == (1, 0)
        assert (held.stats.rooms_created, held.rooms) == (0, 1)
        await host.close()
        await guest.close()
    finally:
        await balancer.stop()


async def test_a_seat_whose_peer_waits_elsewhere_goes_to_find_it(relays: list[Relay]) -> None:
    first, second = relays
    target = first.port
    balancer = PathBalancer(lambda path: target)
    await balancer.start()
    try:
        url = f"http://127.0.0.1:{balancer.port}"
        host = await RelayTransport.host(url, settings=settings(reroute_after=0.3))
        guest = await RelayTransport.join(url, host.room, settings=settings(reroute_after=None))
        await next_event(host, PeerJoined)
        await next_event(guest, PeerJoined)
        # The balancer now routes the room to the other relay (one added, or back),
        # and only the guest's connection drops: it comes back on the second relay.
        target = second.port
        balancer.cut(f"/j/{host.room}?seat=1")
        assert isinstance(await next_event(guest, Reconnected), Reconnected)
        assert await next_event(guest, WaitingForPeer) == WaitingForPeer()
        await next_event(host, PeerLeft)
        # The host, alone on the first relay, reconnects by itself and finds it: quietly
        # (no Reconnected, which would give the away peer its whole time again).
        events = []
        async with asyncio.timeout(3):
            async for event in host:
                events.append(event)
                if isinstance(event, PeerJoined):
                    break
        assert events == [PeerJoined(False)]
        assert await next_event(guest, PeerJoined) == PeerJoined(False)
        assert await host.send(b"found")
        assert await next_event(guest, Frame) == Frame(b"found")
        assert second.rooms == 1
        await host.close()
        await guest.close()
    finally:
        await balancer.stop()


@pytest.mark.parametrize(("status", "words"), [(404, "Not Found"), (426, "Upgrade Required")])
async def test_a_relay_without_get_new_makes_the_room_on_a_websocket(
    relays: list[Relay], monkeypatch: pytest.MonkeyPatch, status: int, words: str
) -> None:
    """A relay before the plain GET /new: 404, or 426 where /new took only a WebSocket
    (issue 26: gin host stopped with 'relay answered HTTP 426')."""
    relay = relays[0]

    def not_found(self: Routes, conn: Any, request: Any) -> Response:
        return Response(status, words, Headers([("Content-Length", "10")]), b"not found\n")

    monkeypatch.setattr(Routes, "new_room", not_found)  # as a relay before GET /new
    host = await RelayTransport.host(f"http://127.0.0.1:{relay.port}", settings=settings())
    assert relay.stats.rooms_created == 1 and relay.rooms == 1
    guest = await RelayTransport.join(f"http://127.0.0.1:{relay.port}", host.room,
                                      settings=settings())
    await next_event(host, PeerJoined)
    assert await guest.send(b"old way")
    assert await next_event(host, Frame) == Frame(b"old way")
    await host.close()
    await guest.close()


async def test_new_room_refusals_and_nonsense_are_reported(relays: list[Relay]) -> None:
    relay = await serve(replace(TEST_CONFIG, new_rooms_burst=1, new_rooms_per_minute=1))
    try:
        url = f"http://127.0.0.1:{relay.port}"
        first = await RelayTransport.host(url, settings=settings())
        with pytest.raises(TransportError, match=r"relay refused a new room: too many new rooms "
                           r"from your address; try again in \d+ s \(code 4429\)") as info:
            await RelayTransport.host(url, settings=settings())
        assert not info.value.permanent and info.value.code == 4429
        await first.close()
    finally:
        await relay.close()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{"room":"x"}\n')
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        with pytest.raises(TransportError, match="answer to a new room is not a gin relay's"
                           ) as info:
            await RelayTransport.host(f"http://127.0.0.1:{port}")
        assert info.value.permanent
    finally:
        server.close()
        await server.wait_closed()
