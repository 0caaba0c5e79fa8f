"""A relay restart keeps rooms in progress; the real `python -m relay` process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from client.net.relay_events import Closed, Frame, PeerJoined, Reconnected, Reconnecting
from client.net.transport import RelayTransport, TransportSettings
from relay.server import serve
from tests.support.relay import TEST_CONFIG, assert_forwarding, close_of, pair

FAST = TransportSettings(backoff=lambda attempt: 0.02, ping_interval=None, send_rate=None)


async def next_event(transport: RelayTransport, kind: type[Any]) -> Any:
    """The next event of ``kind``, skipping others; fails after two seconds."""
    async with asyncio.timeout(2):
        async for event in transport:
            if isinstance(event, kind):
                return event
    raise AssertionError(f"transport ended before {kind.__name__}")


async def test_restart_with_the_same_key_keeps_the_room(tmp_path: Path) -> None:
    config = replace(TEST_CONFIG, key_file=tmp_path / "relay.key")
    first = await serve(config)
    url = f"http://127.0.0.1:{first.port}"
    host = await RelayTransport.host(url, settings=FAST)
    guest = await RelayTransport.join(url, host.room, settings=FAST)
    await next_event(host, PeerJoined)
    await host.send(b"before")
    assert await next_event(guest, Frame) == Frame(b"before")

    await first.close()
    for transport in (host, guest):
        reconnecting = await next_event(transport, Reconnecting)
        assert "relay shutting down" in reconnecting.reason and "1001" in reconnecting.reason
    second = await serve(replace(config, port=first.port))
    try:
        for transport in (host, guest):
            assert await next_event(transport, Reconnected) == Reconnected(attempts=1)
            # The new relay never saw either of them, so each sees the other "join".
            assert await next_event(transport, PeerJoined) == PeerJoined(returning=False)
        await host.send(b"after")
        assert await next_event(guest, Frame) == Frame(b"after")
        await guest.send(b"reply")
        assert await next_event(host, Frame) == Frame(b"reply")
        assert second.stats.rooms_opened == 1 and second.rooms == 1
    finally:
        await host.close()
        await guest.close()
        await second.close()


async def test_restart_with_another_key_ends_the_game_clearly(tmp_path: Path) -> None:
    first = await serve(replace(TEST_CONFIG, key_file=tmp_path / "a.key"))
    url = f"http://127.0.0.1:{first.port}"
    host = await RelayTransport.host(url, settings=FAST)
    await first.close()
    second = await serve(replace(TEST_CONFIG, key_file=tmp_path / "b.key", port=first.port))
    try:
        closed = await next_event(host, Closed)
        assert closed.code == 4404 and "unknown room" in closed.reason
    finally:
        await second.close()


async def read_event(stream: asyncio.StreamReader, name: str) -> dict[str, Any]:
    async with asyncio.timeout(10):
        while line := await stream.readline():
            entry: dict[str, Any] = json.loads(line)
            if entry["event"] == name:
                return entry
    raise AssertionError(f"relay exited before logging {name}")


async def test_python_m_relay_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    key_file = tmp_path / "data" / "relay.key"
    env = {
        **os.environ,
        "GIN_RELAY_HOST": "127.0.0.1",
        "GIN_RELAY_PORT": "0",
        "GIN_RELAY_KEY_FILE": str(key_file),
        "GIN_RELAY_LOG_LEVEL": "info",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "relay", env=env, stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        started = await read_event(process.stderr, "relay_started")
        assert started["level"] == "info" and started["host"] == "127.0.0.1"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        port = started["port"]
        host, guest = await pair(SimpleNamespace(port=port))
        await assert_forwarding(host, guest)
        claimed = await read_event(process.stderr, "seat_claimed")
        assert len(claimed["room"]) == 8  # logs never hold a whole room id

        process.send_signal(signal.SIGTERM)
        assert await close_of(host) == (1001, "relay shutting down")
        async with asyncio.timeout(10):
            assert await process.wait() == 0
        await read_event(process.stderr, "relay_stopped")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
