"""Helpers for tests that need a relay: a fake clock, a raw client, a cuttable proxy.

They speak the wire protocol of docs/running-a-relay.md directly, without the
client transport, so the relay's behaviour can be checked frame by frame.
Other packages' end-to-end tests may use them too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from relay.config import RelayConfig
from relay.wire import Control

TOKEN_A = "a" * 32
TOKEN_B = "b" * 32
TOKEN_C = "c" * 32

# Deadlines are checked only when a test calls sweep(); no server pings to wait on.
TEST_CONFIG = RelayConfig(port=0, sweep_interval=3600, ping_interval=None, ping_timeout=None)


class Listening(Protocol):
    """Anything with a port on 127.0.0.1: an embedded Relay or a relay process."""

    @property
    def port(self) -> int: ...


class FakeClock:
    """Time that moves only when a test says so, for rate limits and deadlines."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class WireClient:
    """A raw WebSocket client speaking the relay's wire protocol directly."""

    def __init__(self, ws: ClientConnection, hello: dict[str, Any]) -> None:
        self.ws = ws
        self.hello = hello

    @property
    def room(self) -> str:
        return str(self.hello["room"])

    async def control(self, timeout: float = 2.0) -> dict[str, Any]:
        message = await self.recv(timeout)
        assert isinstance(message, str), f"expected a control message, got {message!r}"
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    async def frame(self, timeout: float = 2.0) -> bytes:
        message = await self.recv(timeout)
        assert isinstance(message, bytes), f"expected a frame, got {message!r}"
        return message

    async def recv(self, timeout: float = 2.0) -> str | bytes:
        async with asyncio.timeout(timeout):
            message: str | bytes = await self.ws.recv()
            return message


def ws_url(relay: Listening, path: str) -> str:
    return f"ws://127.0.0.1:{relay.port}{path}"


async def open_raw(relay: Listening, path: str) -> ClientConnection:
    return await connect(ws_url(relay, path), compression=None, ping_interval=None)


async def create_room(
    relay: Listening, token: str = TOKEN_A, headers: list[tuple[str, str]] | None = None
) -> tuple[int, dict[str, str], dict[str, Any]]:
    """``GET /new?token=T`` (no upgrade): the status, headers and JSON answer."""
    status, answer_headers, body = await http_get(relay, f"/new?token={token}", headers)
    answer: dict[str, Any] = json.loads(body)
    return status, answer_headers, answer


async def new_room(relay: Listening, token: str = TOKEN_A) -> WireClient:
    """A host as gin's clients make one: a room from ``GET /new``, then its seat 0."""
    status, _, answer = await create_room(relay, token)
    assert status == 200, answer
    return await join(relay, answer["room"], seat=0, token=token, ticket=answer["ticket"])


async def legacy_new_room(relay: Listening, token: str = TOKEN_A) -> WireClient:
    """A host as older clients make one: a WebSocket to ``/new``."""
    ws = await open_raw(relay, f"/new?token={token}")
    client = WireClient(ws, {})
    client.hello = await client.control()
    assert client.hello["type"] == Control.CREATED
    return client


async def join(
    relay: Listening, room: str, seat: int = 1, token: str = TOKEN_B, ticket: str | None = None
) -> WireClient:
    path = f"/j/{room}?seat={seat}&token={token}"
    ws = await open_raw(relay, path if ticket is None else f"{path}&ticket={ticket}")
    client = WireClient(ws, {})
    client.hello = await client.control()
    assert client.hello["type"] == Control.JOINED, client.hello
    return client


async def refused(relay: Listening, path: str) -> tuple[int, str, dict[str, Any] | None]:
    """Open ``path`` and return the close code, reason and any error message."""
    ws = await open_raw(relay, path)
    error: dict[str, Any] | None = None
    try:
        async with asyncio.timeout(2):
            while True:
                message = await ws.recv()
                if isinstance(message, str):
                    error = json.loads(message)
    except ConnectionClosed as exc:
        assert exc.rcvd is not None
        return exc.rcvd.code, exc.rcvd.reason, error


async def pair(relay: Listening) -> tuple[WireClient, WireClient]:
    """A room with both seats taken and the host told about the guest."""
    host = await new_room(relay)
    guest = await join(relay, host.room)
    assert (await host.control())["type"] == Control.PEER_JOINED
    return host, guest


async def assert_forwarding(a: WireClient, b: WireClient, payload: bytes = b"ping") -> None:
    """Frames still flow both ways between ``a`` and ``b``."""
    await a.ws.send(payload)
    assert await b.frame() == payload
    await b.ws.send(payload[::-1])
    assert await a.frame() == payload[::-1]


async def close_of(client: WireClient) -> tuple[int, str]:
    """Wait for the relay to close ``client``; its close code and reason."""
    try:
        async with asyncio.timeout(2):
            while True:
                await client.ws.recv()
    except ConnectionClosed as exc:
        assert exc.rcvd is not None
        return exc.rcvd.code, exc.rcvd.reason


async def http_get(
    relay: Listening, path: str, send: list[tuple[str, str]] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP/1.1 GET, as a browser or a metrics scraper would send it (with the
    headers ``send`` besides, in order; a name may repeat), read to the end of the
    connection (a proxy closes it too after ``Connection: close``)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", relay.port)
    extra = "".join(f"{name}: {value}\r\n" for name, value in send or ())
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n"
        f"Connection: close\r\n{extra}\r\n".encode()
    )
    async with asyncio.timeout(2):
        raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


class TcpProxy:
    """A TCP forwarder on 127.0.0.1 that a test can cut, as if the network failed."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._port: int | None = None
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self._port is not None, "proxy not started"
        return self._port

    async def start(self) -> None:
        """Listen (again, on the same port after ``stop``)."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self._port or 0)
        self._port = int(self._server.sockets[0].getsockname()[1])

    def cut(self) -> None:
        """Drop every open connection at once, without a close handshake."""
        for writer in list(self._links):
            writer.transport.abort()
        self._links.clear()

    async def stop(self) -> None:
        """Cut everything and refuse new connections until ``start``."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        self.cut()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._links.update((writer, up_writer))
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            sink.transport.abort()
        else:
            sink.close()  # an orderly end: let buffered bytes go out first
        finally:
            self._links.discard(sink)
