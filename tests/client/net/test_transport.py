"""The client transport against a real relay on 127.0.0.1, with a cuttable proxy."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from client.net import peer
from client.net.relay_events import (
    Closed,
    Connected,
    Event,
    Frame,
    PeerGone,
    PeerJoined,
    PeerLeft,
    Reconnected,
    Reconnecting,
    TransportClosedError,
    TransportError,
    WaitingForPeer,
)
from client.net.transport import ExponentialBackoff, RelayTransport, TransportSettings, pace_for
from relay.server import Relay, serve
from tests.support.relay import TEST_CONFIG, TOKEN_C, TcpProxy, WireClient, close_of, join


class Gate:
    """An injected backoff sleep that waits until the test opens the gate."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.delays: list[float] = []

    async def sleep(self, delay: float) -> None:
        self.delays.append(delay)
        await self.opened.wait()


def settings(**overrides: Any) -> TransportSettings:
    base = TransportSettings(backoff=lambda attempt: attempt / 100, ping_interval=None,
                             send_rate=None)
    return replace(base, **overrides)


@pytest.fixture
async def relay() -> AsyncIterator[Relay]:
    relay = await serve(replace(TEST_CONFIG, burst=1000))
    yield relay
    await relay.close()


@pytest.fixture
async def proxy(relay: Relay) -> AsyncIterator[TcpProxy]:
    proxy = TcpProxy(relay.port)
    await proxy.start()
    yield proxy
    await proxy.stop()


def url(port: int) -> str:
    return f"http://127.0.0.1:{port}"


async def events(transport: RelayTransport, count: int) -> list[Event]:
    out: list[Event] = []
    async with asyncio.timeout(2):
        async for event in transport:
            out.append(event)
            if len(out) == count:
                break
    return out


async def until(transport: RelayTransport, kind: type[Any]) -> list[Event]:
    """Events up to and including the first of ``kind``."""
    out: list[Event] = []
    async with asyncio.timeout(2):
        async for event in transport:
            out.append(event)
            if isinstance(event, kind):
                break
    return out


async def test_host_and_guest_see_each_other_and_exchange_frames(relay: Relay) -> None:
    host = await RelayTransport.host(url(relay.port), settings=settings())
    guest = await RelayTransport.join(url(relay.port), host.room, settings=settings())
    assert await events(host, 3) == [Connected(host.room, 0), WaitingForPeer(), PeerJoined(False)]
    assert await events(guest, 2) == [Connected(host.room, 1), PeerJoined(False)]
    assert host.peer == guest.peer == "connected"
    assert host.max_frame == relay.config.max_frame

    sent = [b"%04d" % i + bytes(300) for i in range(200)]
    for frame in sent:
        assert await host.send(frame)
    # Every frame exactly once, in order.
    assert await events(guest, 200) == [Frame(frame) for frame in sent]
    assert await guest.send(bytearray(b"reply"))
    assert await events(host, 1) == [Frame(b"reply")]
    await host.close()
    await guest.close()


def test_the_pace_is_a_share_of_the_limits_the_relay_states() -> None:
    default = TransportSettings()
    assert pace_for({"rate": 20, "burst": 100}, default) == (15.0, 50.0)  # a default relay
    assert pace_for({"rate": 500.0, "burst": 5000}, default) == (375.0, 2500.0)  # gin host's
    # A relay that states nothing, or nonsense, gets the defaults; no pacing stays so.
    for hello in ({}, {"rate": 0, "burst": 10}, {"rate": True, "burst": 10},
                  {"rate": "fast", "burst": 10}, {"rate": 1e99, "burst": 10}):
        assert pace_for(hello, default) == (15.0, 50.0), hello
    assert pace_for({"rate": 20, "burst": 100}, replace(default, send_rate=None))[0] is None


async def test_sends_are_paced_under_the_limit_the_relay_states() -> None:
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)
        await asyncio.sleep(delay)  # really: the relay holds the client to its limit

    relay = await serve(replace(TEST_CONFIG, rate=40.0, burst=10))
    try:
        # The settings' own pace (10 a second, bursts of 50) is for relays that state none.
        paced = settings(send_rate=10.0, send_burst=50.0, sleep=record)
        host = await RelayTransport.host(url(relay.port), settings=paced)
        guest = await RelayTransport.join(url(relay.port), host.room, settings=settings())
        await events(host, 3)
        sent = [b"%02d" % i for i in range(20)]
        for frame in sent:
            assert await host.send(frame)
        # A burst of 5 (half of 10) goes at once; each later frame waits for its share
        # of 30 a second (three quarters of 40), not of 10.
        assert len(waits) >= 14
        assert all(0 < w <= 1 / 30 + 1e-6 for w in waits)
        await events(guest, 2)
        assert await events(guest, 20) == [Frame(frame) for frame in sent]
        await host.close()
        await guest.close()
    finally:
        await relay.close()


async def test_dropped_connection_reconnects_to_the_same_seat(
    relay: Relay, proxy: TcpProxy
) -> None:
    gate = Gate()
    host = await RelayTransport.host(url(relay.port), settings=settings())
    guest = await RelayTransport.join(
        url(proxy.port), host.room, settings=settings(sleep=gate.sleep)
    )
    await events(host, 3)
    await events(guest, 2)

    proxy.cut()
    reconnecting = (await events(guest, 1))[0]
    assert isinstance(reconnecting, Reconnecting) and reconnecting.attempt == 1
    assert "1006" in reconnecting.reason
    assert not guest.connected
    assert await guest.send(b"lost") is False  # nothing is queued behind the caller's back
    assert await events(host, 1) == [PeerLeft(relay.config.grace)]
    assert await host.send(b"held for you")

    gate.opened.set()
    assert await events(guest, 3) == [
        Reconnected(attempts=1),
        PeerJoined(False),
        Frame(b"held for you"),
    ]
    assert await events(host, 1) == [PeerJoined(returning=True)]
    assert gate.delays == [0.01]
    assert await guest.send(b"back")
    assert await events(host, 1) == [Frame(b"back")]
    await host.close()
    await guest.close()


async def test_backoff_grows_while_the_relay_is_unreachable(relay: Relay, proxy: TcpProxy) -> None:
    host = await RelayTransport.host(url(proxy.port), settings=settings())
    await events(host, 2)
    await proxy.stop()
    attempts = await events(host, 3)
    assert [(e.attempt, e.delay) for e in attempts if isinstance(e, Reconnecting)] == [
        (1, 0.01),
        (2, 0.02),
        (3, 0.03),
    ]
    assert "cannot reach relay" in attempts[2].reason  # type: ignore[union-attr]
    await proxy.start()
    later = await until(host, Reconnected)
    assert all(isinstance(e, Reconnecting) for e in later[:-1])
    assert later[-1] == Reconnected(attempts=3 + len(later) - 1)
    assert await events(host, 1) == [WaitingForPeer()]
    await host.close()


async def test_gives_up_after_max_attempts(relay: Relay, proxy: TcpProxy) -> None:
    host = await RelayTransport.host(url(proxy.port), settings=settings(max_attempts=2))
    await events(host, 2)
    await proxy.stop()
    tail = await events(host, 3)
    assert [type(e) for e in tail] == [Reconnecting, Reconnecting, Closed]
    closed = tail[-1]
    assert isinstance(closed, Closed) and closed.code is None
    assert closed.reason.startswith("gave up after 2 attempts: cannot reach relay")
    with pytest.raises(TransportClosedError):
        await host.send(b"x")
    assert [e async for e in host] == []  # iteration ended with Closed


async def test_refusal_by_the_relay_is_final(relay: Relay) -> None:
    flood = await serve(replace(TEST_CONFIG, rate=1, burst=2))
    try:
        host = await RelayTransport.host(url(flood.port), settings=settings())
        await events(host, 2)
        for _ in range(3):
            await host.send(b"x")
        closed = (await events(host, 1))[0]
        assert closed == Closed(1008, "rate limit: over 1 frames per second")
    finally:
        await flood.close()


async def test_close_is_final_and_the_peer_is_told(relay: Relay) -> None:
    host = await RelayTransport.host(url(relay.port), settings=settings())
    async with await RelayTransport.join(url(relay.port), host.room) as guest:
        await events(guest, 2)
    assert guest.closed == Closed(1000, "closed by this side")
    assert (await events(guest, 1)) == [Closed(1000, "closed by this side")]
    assert await events(host, 4) == [
        Connected(host.room, 0),
        WaitingForPeer(),
        PeerJoined(False),
        PeerGone(),
    ]
    assert host.peer == "absent"
    await host.close()
    await host.close()  # idempotent


async def test_a_seat_opened_elsewhere_is_named_so_not_blamed_on_the_relay(
    relay: Relay,
) -> None:
    """Issue 19: a second gin with the same save (the seat's token) takes the seat; the
    first ends for good (4000), saying the match was opened elsewhere."""
    host = await RelayTransport.host(url(relay.port), settings=settings())
    guest = await RelayTransport.join(url(relay.port), host.room, settings=settings())
    await events(host, 3)
    await events(guest, 2)
    again = await RelayTransport.join(url(relay.port), host.room, token=guest.token,
                                      ticket=guest.ticket, settings=settings())
    assert await events(again, 2) == [Connected(host.room, 1), PeerJoined(False)]
    assert await events(guest, 1) == [Closed(4000, "this match was opened elsewhere "
                                              "(another gin with the same save)")]
    assert peer.connection_fault(guest.closed) == "nobody"  # type: ignore[arg-type]
    # The newer one plays on: the host reaches it.
    assert await host.send(b"to the newer")
    assert await events(again, 1) == [Frame(b"to the newer")]
    for transport in (host, again):
        await transport.close()


async def test_frames_over_the_relay_limit_fail_locally(relay: Relay) -> None:
    small = await serve(replace(TEST_CONFIG, max_frame=100))
    try:
        host = await RelayTransport.host(url(small.port), settings=settings())
        with pytest.raises(ValueError, match="101 bytes is over the relay's limit of 100"):
            await host.send(bytes(101))
        with pytest.raises(TypeError, match="frames are bytes"):
            await host.send("text")  # type: ignore[arg-type]
        assert await host.send(bytes(100))
        await host.close()
    finally:
        await small.close()


async def test_first_connection_errors_are_raised(relay: Relay) -> None:
    with pytest.raises(TransportError, match="unknown room") as info:
        await RelayTransport.join(url(relay.port), "A" * 32)
    assert info.value.permanent and info.value.code == 4404

    spare = TcpProxy(relay.port)
    await spare.start()
    port = spare.port
    await spare.stop()  # nothing listens there now
    with pytest.raises(TransportError, match="cannot reach relay") as info:
        await RelayTransport.host(url(port))
    assert not info.value.permanent


@pytest.mark.parametrize(("status", "permanent"), [(503, False), (429, False), (404, True)])
async def test_http_answers_are_classified(status: int, permanent: bool) -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 %d Nope\r\nContent-Length: 5\r\n\r\nbusy\n" % status)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(TransportError, match=f"relay answered HTTP {status}: busy") as info:
            await RelayTransport.host(url(port))
        assert info.value.permanent is permanent
    finally:
        server.close()
        await server.wait_closed()


def test_constructor_checks() -> None:
    with pytest.raises(ValueError, match="only the host"):
        RelayTransport("http://127.0.0.1:1", seat=1)
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        RelayTransport("http://127.0.0.1:1", room="A" * 32, seat=2)
    transport = RelayTransport("https://relay.example.org/gin", room="A" * 32, seat=1)
    assert len(transport.token) == 32 and transport.room == "A" * 32
    with pytest.raises(RuntimeError, match="not known"):
        _ = RelayTransport("http://127.0.0.1:1").room


def test_exponential_backoff_with_equal_jitter() -> None:
    backoff = ExponentialBackoff(initial=1, factor=2, maximum=8, rng=random.Random(7))
    delays = [backoff(n) for n in (1, 2, 3, 4, 5, 30)]
    for delay, base in zip(delays, [1, 2, 4, 8, 8, 8], strict=True):
        assert base / 2 <= delay <= base
    same_seed = ExponentialBackoff(initial=1, factor=2, maximum=8, rng=random.Random(7))
    assert [same_seed(n) for n in (1, 2, 3, 4, 5, 30)] == delays


async def test_a_failure_inside_the_transport_ends_the_stream(
    relay: Relay, proxy: TcpProxy
) -> None:
    async def broken_sleep(delay: float) -> None:
        raise RuntimeError("clock on fire")

    host = await RelayTransport.host(url(proxy.port), settings=settings(sleep=broken_sleep))
    await events(host, 2)
    proxy.cut()
    tail = await events(host, 2)
    assert isinstance(tail[0], Reconnecting)
    assert tail[1] == Closed(None, "transport failed: RuntimeError('clock on fire')")


class FakeTime:
    """A clock that moves only when the transport sleeps: deterministic deadlines."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.now += delay
        await asyncio.sleep(0)


async def test_gives_up_when_the_relay_stays_unreachable(relay: Relay, proxy: TcpProxy) -> None:
    time = FakeTime()
    host = await RelayTransport.host(url(proxy.port), settings=settings(
        backoff=lambda attempt: 4.0, give_up_after=10.0, clock=time, sleep=time.sleep))
    await events(host, 2)
    await proxy.stop()  # the relay is gone for good
    tail = await until(host, Closed)
    assert [(e.attempt, e.delay) for e in tail if isinstance(e, Reconnecting)] == [
        (1, 4.0), (2, 4.0), (3, 2.0)]  # the last attempt is made at the deadline
    closed = tail[-1]
    assert isinstance(closed, Closed) and closed.code is None
    assert closed.reason.startswith("gave up after trying for 10 s: cannot reach relay")
    assert time.now == 10.0


async def restart(relay: Relay, key_file: Path) -> Relay:
    await relay.close()
    return await serve(replace(TEST_CONFIG, key_file=key_file, port=relay.port))


async def test_after_a_relay_restart_the_guest_wins_its_seat_back(tmp_path: Path) -> None:
    key_file = tmp_path / "relay.key"
    first = await serve(replace(TEST_CONFIG, key_file=key_file))
    gate = Gate()
    host = await RelayTransport.host(url(first.port), settings=settings())
    guest = await RelayTransport.join(url(first.port), host.room,
                                      settings=settings(sleep=gate.sleep))
    assert guest.ticket is not None
    await events(guest, 2)
    second = await restart(first, key_file)
    try:
        assert isinstance((await events(guest, 1))[0], Reconnecting)
        # Someone who knows the room id claims the guest's seat first.
        intruder = await join(second, host.room, seat=1, token=TOKEN_C)
        gate.opened.set()
        assert (await until(guest, Reconnected))[-1] == Reconnected(attempts=1)
        code, reason = await close_of(intruder)
        assert (code, reason) == (4409, "seat 1 was reclaimed by its holder")
        await until(host, Reconnected)
        await until(host, PeerJoined)
        assert await guest.send(b"still mine")
        assert (await until(host, Frame))[-1] == Frame(b"still mine")
    finally:
        await host.close()
        await guest.close()
        await second.close()


async def test_a_taken_seat_is_retried_until_it_is_free(tmp_path: Path) -> None:
    key_file = tmp_path / "relay.key"
    first = await serve(replace(TEST_CONFIG, key_file=key_file))
    host = await RelayTransport.host(url(first.port), settings=settings())
    guest = await RelayTransport.join(url(first.port), host.room, settings=settings())
    await events(guest, 2)
    guest.ticket = None  # as for a client that lost its ticket: no proof of its claim
    second = await restart(first, key_file)
    intruder: WireClient | None = None
    try:
        intruder = await join(second, host.room, seat=1, token=TOKEN_C)
        taken = [e for e in await events(guest, 4) if isinstance(e, Reconnecting)]
        assert any(e.reason.startswith("someone has already joined with this link")
                   and "seat 1 is taken, code 4409" in e.reason for e in taken)
        assert guest.closed is None  # still trying
        await intruder.ws.close()  # 1000: it leaves, the seat is free
        assert isinstance((await until(guest, Reconnected))[-1], Reconnected)
    finally:
        await host.close()
        await guest.close()
        await second.close()
