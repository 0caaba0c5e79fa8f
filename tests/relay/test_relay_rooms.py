"""Rooms, seats, forwarding, buffering and expiry, over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from relay.seats import Seat
from relay.server import Relay
from relay.wire import Close
from tests.support.relay import (
    TOKEN_A,
    TOKEN_B,
    TOKEN_C,
    FakeClock,
    assert_forwarding,
    close_of,
    join,
    new_room,
    pair,
    refused,
)

StartRelay = Callable[..., Awaitable[Relay]]


async def test_new_room_then_guest_and_frames_both_ways(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host = await new_room(relay)  # GET /new, then /j/ROOM?seat=0 with its ticket
    assert host.hello == {
        "type": "joined",
        "room": host.room,
        "seat": 0,
        "peer": "absent",
        "grace": relay.config.grace,
        "max_frame": relay.config.max_frame,
        "rate": relay.config.rate,
        "burst": relay.config.burst,
        "ticket": host.hello["ticket"],
    }
    guest = await join(relay, host.room)
    assert guest.hello["seat"] == 1 and guest.hello["peer"] == "connected"
    assert await host.control() == {"type": "peer_joined"}

    frames = [bytes([i]) * (i + 1) for i in range(50)]
    for frame in frames:
        await host.ws.send(frame)
    assert [await guest.frame() for _ in frames] == frames  # in order, untouched
    await guest.ws.send(b"\x00reply")
    assert await host.frame() == b"\x00reply"
    assert relay.stats.frames_out == 51


async def test_frames_sent_before_the_guest_arrives_wait_for_it(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host = await new_room(relay)
    await host.ws.send(b"hello 1")
    await host.ws.send(b"hello 2")
    await asyncio.sleep(0.05)
    guest = await join(relay, host.room)
    assert [await guest.frame(), await guest.frame()] == [b"hello 1", b"hello 2"]
    assert relay.stats.frames_buffered == 2


async def test_reconnect_within_grace_gets_buffered_frames(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    guest.ws.transport.abort()  # the guest's network vanishes
    assert await host.control() == {"type": "peer_left", "grace": relay.config.grace}
    for i in range(3):
        await host.ws.send(b"move %d" % i)
    await asyncio.sleep(0.05)

    back = await join(relay, host.room, token=TOKEN_B)
    assert back.hello["peer"] == "connected"
    assert [await back.frame() for _ in range(3)] == [b"move 0", b"move 1", b"move 2"]
    assert await host.control() == {"type": "peer_reconnected"}
    await assert_forwarding(host, back)


async def test_host_reclaims_seat_zero_with_its_token(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    host.ws.transport.abort()
    assert (await guest.control())["type"] == "peer_left"
    await guest.ws.send(b"while you were away")
    back = await join(relay, host.room, seat=0, token=TOKEN_A)
    assert await back.frame() == b"while you were away"
    assert await guest.control() == {"type": "peer_reconnected"}


async def test_new_connection_with_same_token_replaces_the_old(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    # The guest's old connection looks alive to the relay, but the guest has moved on.
    second = await join(relay, host.room, token=TOKEN_B)
    code, reason = await close_of(guest)
    assert code == Close.SUPERSEDED and "newer connection" in reason
    assert await host.control() == {"type": "peer_reconnected"}
    await assert_forwarding(host, second)


async def test_third_joiner_is_refused_and_the_game_goes_on(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    code, reason, error = await refused(relay, f"/j/{host.room}?seat=1&token={TOKEN_C}")
    assert (code, reason) == (Close.SEAT_TAKEN, "seat 1 is taken")
    assert error == {"type": "error", "code": Close.SEAT_TAKEN, "reason": "seat 1 is taken"}
    code, _, _ = await refused(relay, f"/j/{host.room}?seat=0&token={TOKEN_C}")
    assert code == Close.SEAT_TAKEN
    assert relay.stats.refusals["seat_taken"] == 2
    await assert_forwarding(host, guest)


async def test_grace_expiry_frees_the_seat_and_drops_frames(
    start_relay: StartRelay, clock: FakeClock
) -> None:
    relay = await start_relay(grace=30)
    host, guest = await pair(relay)
    guest.ws.transport.abort()
    assert (await host.control())["type"] == "peer_left"
    await host.ws.send(b"held")
    await asyncio.sleep(0.05)

    clock.advance(29)
    relay.sweep()
    assert relay.rooms == 1  # still within grace: nothing happens
    clock.advance(1)
    relay.sweep()
    assert await host.control() == {"type": "peer_gone"}
    assert relay.stats.frames_dropped["grace_expired"] == 1
    await host.ws.send(b"into the void")
    await asyncio.sleep(0.05)
    assert relay.stats.frames_dropped["discarding"] == 1

    # The freed seat goes to whoever claims it first, with a fresh token.
    newcomer = await join(relay, host.room, token=TOKEN_C)
    assert await host.control() == {"type": "peer_joined"}
    await assert_forwarding(host, newcomer)


async def test_closing_with_1000_leaves_at_once(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    await guest.ws.close(1000, "bye")
    assert await host.control() == {"type": "peer_gone"}


async def test_idle_room_is_closed(start_relay: StartRelay, clock: FakeClock) -> None:
    relay = await start_relay(room_idle=600)
    host, guest = await pair(relay)
    clock.advance(599)
    relay.sweep()
    await assert_forwarding(host, guest)  # traffic resets the idle clock
    clock.advance(599)
    relay.sweep()
    assert relay.rooms == 1
    clock.advance(1)
    relay.sweep()
    assert relay.rooms == 0
    for client in (host, guest):
        code, reason = await close_of(client)
        assert code == Close.ROOM_EXPIRED and "idle" in reason
    assert relay.stats.rooms_closed["idle"] == 1


async def test_empty_room_is_forgotten_and_restored_on_return(
    start_relay: StartRelay, clock: FakeClock
) -> None:
    relay = await start_relay(grace=10)
    host = await new_room(relay)
    room = host.room
    host.ws.transport.abort()
    await asyncio.sleep(0.05)
    clock.advance(10)
    relay.sweep()
    assert relay.rooms == 0 and relay.stats.rooms_closed["empty"] == 1
    # The id still verifies, so the host can come back to the same room.
    back = await join(relay, room, seat=0, token=TOKEN_A)
    assert back.hello["peer"] == "absent"
    assert relay.rooms == 1 and relay.stats.rooms_opened == 2


async def test_buffer_overflow_discards_until_the_seat_returns(start_relay: StartRelay) -> None:
    relay = await start_relay(buffer_frames=3)
    host, guest = await pair(relay)
    guest.ws.transport.abort()
    assert (await host.control())["type"] == "peer_left"
    for i in range(5):
        await host.ws.send(b"f%d" % i)
    await asyncio.sleep(0.05)
    # The fourth frame overflowed: all four went, and the fifth was refused too,
    # so the guest never sees a gap followed by later frames.
    assert relay.stats.frames_dropped == {"buffer_full": 4, "discarding": 1}
    back = await join(relay, host.room)
    assert await host.control() == {"type": "peer_reconnected"}
    await host.ws.send(b"fresh")
    assert await back.frame() == b"fresh"


async def test_buffer_byte_cap(start_relay: StartRelay) -> None:
    relay = await start_relay(buffer_bytes=10)
    host = await new_room(relay)
    await host.ws.send(b"123456")
    await host.ws.send(b"123456")
    await asyncio.sleep(0.05)
    assert relay.stats.frames_dropped["buffer_full"] == 2


async def test_rooms_cap(start_relay: StartRelay) -> None:
    relay = await start_relay(max_rooms=1)
    host, guest = await pair(relay)
    code, reason, _ = await refused(relay, f"/new?token={TOKEN_C}")
    assert code == Close.RELAY_FULL and "full" in reason
    await assert_forwarding(host, guest)


async def test_forwarded_address_counts_when_trusted(start_relay: StartRelay) -> None:
    from websockets.asyncio.client import connect

    relay = await start_relay(max_conns_per_ip=1, trust_forwarded=True)
    url = f"ws://127.0.0.1:{relay.port}/new?token={TOKEN_A}"
    first = await connect(url, additional_headers={"X-Forwarded-For": "198.51.100.1"})
    assert "created" in str(await first.recv())
    # Same TCP peer (the proxy), another client behind it: allowed.
    second = await connect(url, additional_headers={"X-Forwarded-For": "spoof, 198.51.100.2"})
    assert "created" in str(await second.recv())
    third = await connect(url, additional_headers={"X-Forwarded-For": "198.51.100.1"})
    assert '"code":4429' in str(await third.recv())
    for ws in (first, second, third):
        await ws.close()


async def test_shutdown_closes_with_going_away(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    waiter = asyncio.create_task(relay.wait_closed())
    await relay.close()
    async with asyncio.timeout(1):
        await waiter
    for client in (host, guest):
        code, reason = await close_of(client)
        assert (code, reason) == (1001, "relay shutting down")


async def test_rooms_are_independent_of_each_other(start_relay: StartRelay) -> None:
    relay = await start_relay()
    first = await pair(relay)
    second = await pair(relay)
    assert first[0].room != second[0].room
    await first[0].ws.send(b"one")
    await second[0].ws.send(b"two")
    assert await first[1].frame() == b"one"
    assert await second[1].frame() == b"two"


def test_a_frame_whose_send_failed_goes_behind_the_new_connections_welcome() -> None:
    # A frame sent to a connection that a new one superseded mid-send goes back to
    # the queue "first", but never ahead of the new connection's welcome: a client
    # that reads a binary frame before its welcome gives up for good.
    seat = Seat()
    seat.enqueue(b"later")
    seat.welcome('{"type": "joined"}')
    seat.enqueue(b"older", first=True)
    seat.enqueue('{"type": "peer_reconnected"}', first=True)
    assert seat.outbox is not None
    assert list(seat.outbox) == [
        '{"type": "joined"}', '{"type": "peer_reconnected"}', b"older", b"later"]


async def test_a_player_back_after_its_grace_learns_the_other_left_for_good(
    start_relay: StartRelay, clock: FakeClock
) -> None:
    """Issue 28 item 10: the guest's seat was given up (its grace ran out), then the host
    left for good (1000), having ended the match: the room is kept (until idle) to tell
    the guest, should it come back, that the host left, not merely that nobody is there."""
    relay = await start_relay(grace=30, room_idle=600)
    host, guest = await pair(relay)
    guest.ws.transport.abort()
    assert (await host.control())["type"] == "peer_left"
    clock.advance(30)
    relay.sweep()
    assert await host.control() == {"type": "peer_gone"}
    await host.ws.close(1000, "the match is over")
    await asyncio.sleep(0.05)
    clock.advance(60)
    relay.sweep()
    assert relay.rooms == 1 and relay.stats.rooms_closed["empty"] == 0
    back = await join(relay, host.room, token=TOKEN_B)
    assert back.hello["peer"] == "left"
    # Said once: the host's seat is free for a new claimant, and the room closes when idle.
    clock.advance(600)
    relay.sweep()
    assert relay.rooms == 0


async def test_a_room_both_players_left_closes_at_once(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    await guest.ws.close(1000, "bye")
    assert await host.control() == {"type": "peer_gone"}
    await host.ws.close(1000, "bye")
    await asyncio.sleep(0.05)
    relay.sweep()
    assert relay.rooms == 0 and relay.stats.rooms_closed["empty"] == 1
