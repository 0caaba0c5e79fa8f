"""A room from a plain ``GET /new``: made from the key alone, so relays that share
the key behind a balancer can each answer it, and the room exists in memory only
once a seat is taken at /j/ROOM, on whichever relay the room is routed to."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from relay.roomid import RoomIds, load_or_create_key
from relay.server import Relay
from relay.wire import NEW_ROOM_FIELDS, Close
from tests.support.relay import (
    TOKEN_A,
    TOKEN_B,
    TOKEN_C,
    FakeClock,
    assert_forwarding,
    close_of,
    create_room,
    http_get,
    join,
    legacy_new_room,
    new_room,
    pair,
    refused,
)

StartRelay = Callable[..., Awaitable[Relay]]


async def test_get_new_answers_a_room_and_the_hosts_ticket_and_holds_nothing(
    start_relay: StartRelay, tmp_path: Path
) -> None:
    key_file = tmp_path / "relay.key"
    relay = await start_relay(key_file=key_file)
    status, headers, answer = await create_room(relay, TOKEN_A)
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "no-store"
    assert tuple(answer) == NEW_ROOM_FIELDS and answer["seat"] == 0
    ids = RoomIds(load_or_create_key(key_file))
    assert ids.verify(answer["room"])
    assert ids.ticket_since(answer["ticket"], answer["room"], 0, TOKEN_A) is not None
    assert relay.rooms == 0 and relay.stats.rooms_created == 1
    # The host takes its seat like any other; its ticket stays the one /new gave.
    host = await join(relay, answer["room"], seat=0, token=TOKEN_A, ticket=answer["ticket"])
    assert host.hello["type"] == "joined" and host.hello["peer"] == "absent"
    assert host.hello["ticket"] == answer["ticket"]
    assert relay.rooms == 1 and relay.stats.rooms_opened == 1
    guest = await join(relay, host.room)
    assert (await host.control())["type"] == "peer_joined"
    await assert_forwarding(host, guest)
    _, _, body = await http_get(relay, "/metrics")
    assert b"gin_relay_rooms_created_total 1.0" in body
    assert b"gin_relay_rooms_opened_total 1.0" in body


async def test_players_meet_on_any_relay_that_shares_the_key(
    start_relay: StartRelay, tmp_path: Path
) -> None:
    key_file = tmp_path / "relay.key"
    asked, elsewhere = await start_relay(key_file=key_file), await start_relay(key_file=key_file)
    _, _, answer = await create_room(asked, TOKEN_A)
    await asyncio.sleep(0.01)  # tickets count milliseconds
    # Someone who read the room id in a log takes seat 0 before the host arrives...
    squatter = await join(elsewhere, answer["room"], seat=0, token=TOKEN_C)
    # ...and loses it to the host, whose ticket from /new is older.
    host = await join(elsewhere, answer["room"], seat=0, token=TOKEN_A, ticket=answer["ticket"])
    code, reason = await close_of(squatter)
    assert code == Close.SEAT_TAKEN and "reclaimed" in reason
    guest = await join(elsewhere, host.room)
    assert (await host.control())["type"] == "peer_joined"
    await assert_forwarding(host, guest)
    assert asked.rooms == 0 and elsewhere.rooms == 1


async def test_get_new_refusals_carry_the_websocket_close_code(
    start_relay: StartRelay, clock: FakeClock
) -> None:
    relay = await start_relay(new_rooms_burst=2, new_rooms_per_minute=6, trust_forwarded=True)
    status, headers, answer = await create_room(relay, "xyz")
    assert status == 400 and headers["content-type"] == "application/json"
    assert answer == {
        "type": "error",
        "code": Close.BAD_REQUEST,
        "reason": "token must be 32 lowercase hex digits",
    }
    # Behind a proxy: the last X-Forwarded-For entry is the proxy's; HAProxy adds a
    # line of its own after whatever the client sent.
    client = [("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-For", "198.51.100.7")]
    for _ in range(2):
        assert (await create_room(relay, TOKEN_A, client))[0] == 200
    status, headers, answer = await create_room(relay, TOKEN_A, client)
    assert status == 429 and headers["retry-after"] == "10"
    assert answer["code"] == Close.TOO_MANY_CONNECTIONS
    assert answer["reason"] == "too many new rooms from your address; try again in 10 s"
    other = [("X-Forwarded-For", "198.51.100.7, 198.51.100.8")]  # the client's entry, spoofed
    assert (await create_room(relay, TOKEN_A, other))[0] == 200
    clock.advance(10)
    assert (await create_room(relay, TOKEN_A, client))[0] == 200
    assert relay.stats.refusals == {"bad_request": 1, "new_room_rate": 1}


async def test_the_room_cap_applies_where_the_room_is_held(start_relay: StartRelay) -> None:
    relay = await start_relay(max_rooms=1)
    _, _, early = await create_room(relay, TOKEN_C)  # issued while there was room
    host, guest = await pair(relay)
    status, _, answer = await create_room(relay, TOKEN_C)
    assert status == 503 and answer["code"] == Close.RELAY_FULL
    code, reason, _ = await refused(relay, f"/j/{early['room']}?seat=0&token={TOKEN_C}")
    assert code == Close.RELAY_FULL and "full" in reason
    await assert_forwarding(host, guest)


async def test_a_websocket_to_new_still_makes_a_room_for_older_clients(
    start_relay: StartRelay,
) -> None:
    relay = await start_relay()
    host = await legacy_new_room(relay)
    assert host.hello["type"] == "created" and relay.rooms == 1
    guest = await join(relay, host.room, token=TOKEN_B)
    assert (await host.control())["type"] == "peer_joined"
    await assert_forwarding(host, guest)
    # And a room made either way is taken the same way afterwards.
    other = await new_room(relay, TOKEN_C)
    assert other.hello["type"] == "joined" and relay.rooms == 2
