"""Seat tickets: after a restart a seat goes back to its holder, never to a later
claimant who only knows the room id."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from relay.server import Relay
from relay.wire import Close, JoinRoom, parse_route
from tests.support.relay import (
    TOKEN_A,
    TOKEN_B,
    TOKEN_C,
    WireClient,
    assert_forwarding,
    close_of,
    join,
    open_raw,
    pair,
    refused,
)

StartRelay = Callable[..., Awaitable[Relay]]


async def rejoin(relay: Relay, room: str, seat: int, token: str, ticket: str) -> WireClient:
    ws = await open_raw(relay, f"/j/{room}?seat={seat}&token={token}&ticket={ticket}")
    client = WireClient(ws, {})
    client.hello = await client.control()
    assert client.hello["type"] == "joined", client.hello
    return client


async def test_after_a_restart_the_holder_takes_its_seat_back(
    start_relay: StartRelay, tmp_path: Path
) -> None:
    key = tmp_path / "relay.key"
    first = await start_relay(key_file=key)
    host, guest = await pair(first)
    room, host_ticket, guest_ticket = host.room, host.hello["ticket"], guest.hello["ticket"]
    await first.close()
    second = await start_relay(key_file=key, port=first.port)

    # Someone who learnt the room id gets in first after the restart...
    intruder = await join(second, room, seat=1, token=TOKEN_C)
    # ...but the guest's ticket says it held the seat earlier.
    back = await rejoin(second, room, 1, TOKEN_B, guest_ticket)
    assert await close_of(intruder) == (Close.SEAT_TAKEN, "seat 1 was reclaimed by its holder")
    assert back.hello["ticket"] == guest_ticket  # the seat keeps its first claim time
    assert second.stats.seats_reclaimed == 1
    # The intruder's own ticket is newer, so it cannot take the seat back.
    code, reason, _ = await refused(
        second, f"/j/{room}?seat=1&token={TOKEN_C}&ticket={intruder.hello['ticket']}"
    )
    assert (code, reason) == (Close.SEAT_TAKEN, "seat 1 is taken")
    host_back = await rejoin(second, room, 0, TOKEN_A, host_ticket)
    assert host_back.hello["ticket"] == host_ticket
    assert await back.control() == {"type": "peer_joined"}
    await assert_forwarding(host_back, back)


async def test_a_ticket_is_of_no_use_without_its_token(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    ticket = guest.hello["ticket"]
    code, _, _ = await refused(relay, f"/j/{host.room}?seat=1&token={TOKEN_C}&ticket={ticket}")
    assert code == Close.BAD_REQUEST  # the guest's ticket is bound to the guest's token
    assert relay.stats.refusals["bad_ticket"] == 1
    await assert_forwarding(host, guest)


async def test_reconnecting_with_the_ticket_keeps_the_seat(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    guest.ws.transport.abort()
    assert (await host.control())["type"] == "peer_left"
    back = await rejoin(relay, host.room, 1, TOKEN_B, guest.hello["ticket"])
    assert back.hello["ticket"] == guest.hello["ticket"]
    assert await host.control() == {"type": "peer_reconnected"}
    await assert_forwarding(host, back)


async def test_tickets_are_bound_to_room_seat_and_token(start_relay: StartRelay) -> None:
    relay = await start_relay()
    host, guest = await pair(relay)
    other, _ = await pair(relay)
    ticket = guest.hello["ticket"]
    for path in (
        f"/j/{other.room}?seat=1&token={TOKEN_B}&ticket={ticket}",  # another room
        f"/j/{host.room}?seat=0&token={TOKEN_B}&ticket={ticket}",  # another seat
        f"/j/{host.room}?seat=1&token={TOKEN_B}&ticket={'A' * 32}",  # made up
    ):
        code, reason, _ = await refused(relay, path)
        assert (code, reason) == (
            Close.BAD_REQUEST,
            "seat ticket not issued for this seat and token",
        )
    code, reason, _ = await refused(relay, f"/j/{host.room}?seat=1&token={TOKEN_B}&ticket=x")
    assert code == Close.BAD_REQUEST and "ticket must be 32" in reason
    await asyncio.sleep(0)
    await assert_forwarding(host, guest)


def test_parse_route_reads_the_ticket() -> None:
    room, ticket = "A" * 32, "B" * 32
    assert parse_route(f"/j/{room}?seat=1&token={TOKEN_B}&ticket={ticket}") == JoinRoom(
        room, 1, TOKEN_B, ticket
    )
