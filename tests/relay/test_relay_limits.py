"""What one client address can take from a relay: connections (handshakes in
progress included), new rooms, held bytes; and a relay out of file descriptors."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import resource
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake

from relay.limits import AcceptErrorLog, address_key
from relay.server import Relay
from relay.wire import Close
from tests.support.relay import (
    TOKEN_C,
    FakeClock,
    assert_forwarding,
    http_get,
    join,
    legacy_new_room,
    open_raw,
    pair,
    ws_url,
)

StartRelay = Callable[..., Awaitable[Relay]]


async def turned_away(relay: Relay, path: str) -> None:
    """The relay closes the TCP connection without any answer."""
    with pytest.raises((InvalidHandshake, OSError)):
        ws = await open_raw(relay, path)
        await ws.close()


async def test_connections_per_address_cap(start_relay: StartRelay) -> None:
    relay = await start_relay(max_conns_per_ip=2)
    host, guest = await pair(relay)
    await turned_away(relay, f"/new?token={TOKEN_C}")
    assert relay.stats.refusals["conns_per_ip"] == 1
    await assert_forwarding(host, guest)
    await guest.ws.close()
    await asyncio.sleep(0.05)
    third = await legacy_new_room(relay, TOKEN_C)  # the slot is free again
    assert third.hello["type"] == "created"


async def test_handshakes_in_progress_count_against_the_cap(start_relay: StartRelay) -> None:
    relay = await start_relay(max_conns_per_ip=2)
    # Two connections that never send a request (a slow-loris client).
    silent = [await asyncio.open_connection("127.0.0.1", relay.port) for _ in range(2)]
    await asyncio.sleep(0.05)
    await turned_away(relay, f"/new?token={TOKEN_C}")
    assert relay.stats.refusals["conns_per_ip"] == 1
    for _, writer in silent:
        writer.close()
    await asyncio.sleep(0.05)
    host = await legacy_new_room(relay)  # their slots are free again
    assert host.hello["type"] == "created"


async def test_plain_http_requests_give_their_slot_back(start_relay: StartRelay) -> None:
    relay = await start_relay(max_conns_per_ip=1)
    for _ in range(3):
        assert (await http_get(relay, "/healthz"))[0] == 200
        await asyncio.sleep(0.05)  # the relay sees the client's close
    host = await legacy_new_room(relay)
    assert host.hello["type"] == "created"


async def test_new_rooms_per_address_are_rate_limited(
    start_relay: StartRelay, clock: FakeClock
) -> None:
    relay = await start_relay(new_rooms_burst=3, new_rooms_per_minute=6, trust_forwarded=True)
    url = ws_url(relay, f"/new?token={TOKEN_C}")

    async def create(address: str) -> dict[str, object]:
        ws = await connect(url, additional_headers={"X-Forwarded-For": address})
        try:
            answer: dict[str, object] = json.loads(await ws.recv())
        finally:
            await ws.close()
        return answer

    for _ in range(3):  # the burst
        assert (await create("198.51.100.7"))["type"] == "created"
    refusal = await create("198.51.100.7")
    assert refusal["code"] == Close.TOO_MANY_CONNECTIONS
    assert refusal["reason"] == "too many new rooms from your address; try again in 10 s"
    assert (await create("198.51.100.8"))["type"] == "created"  # others are not held up
    # Another address in the same IPv6 /64 is the same client.
    assert (await create("2001:db8:1:2::1"))["type"] == "created"
    for _ in range(2):
        assert (await create("2001:db8:1:2::1"))["type"] == "created"
    assert (await create("2001:db8:1:2:ffff::9"))["type"] == "error"
    clock.advance(10)  # one room's worth at 6 a minute
    assert (await create("198.51.100.7"))["type"] == "created"
    assert (await create("198.51.100.7"))["type"] == "error"
    assert relay.stats.refusals["new_room_rate"] == 3
    _, _, body = await http_get(relay, "/metrics")
    assert b'gin_relay_refusals_total{reason="new_room_rate"} 3.0' in body


def test_address_keys() -> None:
    assert address_key("198.51.100.7") == "198.51.100.7"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2::ffff")
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7"
    assert address_key("not an address") == "not an address"


async def test_bytes_held_for_all_seats_are_capped(start_relay: StartRelay) -> None:
    relay = await start_relay(max_held_bytes=20)
    first_host, first_guest = await pair(relay)
    second_host, second_guest = await pair(relay)
    for guest, host in ((first_guest, first_host), (second_guest, second_host)):
        guest.ws.transport.abort()
        assert (await host.control())["type"] == "peer_left"
    await first_host.ws.send(b"x" * 12)
    await asyncio.sleep(0.05)
    _, _, body = await http_get(relay, "/metrics")
    assert b"gin_relay_held_bytes 12.0" in body
    # 12 + 12 is over the relay's 20, though under each seat's own 256 KiB.
    await second_host.ws.send(b"y" * 12)
    await asyncio.sleep(0.05)
    assert relay.stats.frames_dropped["relay_buffer_full"] == 1
    back = await join(relay, first_host.room)
    assert await back.frame() == b"x" * 12
    await asyncio.sleep(0.05)
    _, _, body = await http_get(relay, "/metrics")
    assert b"gin_relay_held_bytes 0.0" in body
    assert b'gin_relay_frames_dropped_total{reason="relay_buffer_full"} 1.0' in body


def test_accept_errors_are_logged_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    counted: list[int] = []
    passed_on: list[dict[str, object]] = []
    handler = AcceptErrorLog(10.0, clock, lambda: counted.append(1), passed_on.append)
    emfile = {"message": "socket.accept() out of system resource",
              "exception": OSError(errno.EMFILE, "Too many open files")}
    with caplog.at_level("INFO", logger="relay"):
        for _ in range(500):
            handler(None, emfile)
        clock.advance(10)
        handler(None, emfile)
    logged = [r for r in caplog.records if r.getMessage() == "accept_failed"]
    assert len(logged) == 2 and len(counted) == 501
    assert logged[1].fields["suppressed"] == 499  # type: ignore[attr-defined]
    other = {"message": "something else", "exception": ValueError("x")}
    handler(None, other)
    assert passed_on == [other]


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))


@pytest.mark.slow  # relay processes: 2-3 s
@pytest.mark.skipif(sys.platform != "linux", reason="file descriptor limits as on Linux")
async def test_a_relay_out_of_file_descriptors_logs_a_line_not_a_flood(tmp_path: Path) -> None:
    env = {**os.environ, "GIN_RELAY_PORT": "0", "GIN_RELAY_KEY_FILE": str(tmp_path / "k")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "relay", env=env, stderr=asyncio.subprocess.PIPE,
        preexec_fn=_low_fd_limit)
    assert process.stderr is not None
    writers: list[asyncio.StreamWriter] = []
    try:
        async with asyncio.timeout(10):
            port = json.loads(await process.stderr.readline())["port"]
        for _ in range(80):  # well past the 48 descriptors the relay may open
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writers.append(writer)
        lines: list[dict[str, object]] = []
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(3):
                while line := await process.stderr.readline():
                    lines.append(json.loads(line))
        failed = [entry for entry in lines if entry["event"] == "accept_failed"]
        assert len(failed) == 1, [entry["event"] for entry in lines][:20]
        assert failed[0]["error"] == "EMFILE" and "ulimit" in str(failed[0]["hint"])
        assert not any("exc" in entry for entry in lines)  # no tracebacks
    finally:
        for writer in writers:
            writer.close()
        process.kill()  # a relay blocked on a full stderr pipe would not see SIGTERM
        await process.wait()
