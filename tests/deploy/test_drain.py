"""Taking a relay out from behind HAProxy as docs/running-a-relay.md says: drain it,
then stop it; its players meet again on the relays HAProxy sends their rooms to.
(Apart from the browser's test: Playwright's loop and asyncio's do not mix.)"""

from __future__ import annotations

import signal

import pytest

from relay.wire import Close
from tests.support.cluster import Cluster, wait_for
from tests.support.relay import WireClient, assert_forwarding, close_of, join, new_room


@pytest.mark.slow  # relays behind HAProxy: 2 s
async def test_a_drained_relays_players_reconnect_through_haproxy_to_another(
    cluster: Cluster,
) -> None:
    """The docs' way to take a relay out: drain it in HAProxy, then stop it (SIGTERM):
    its players are closed with 1001 and meet again on the relays that have their
    rooms now; the other rooms do not notice."""
    rooms: list[tuple[WireClient, WireClient]] = []
    for n in range(9):
        host = await new_room(cluster, token=f"{n:032x}")
        guest = await join(cluster, host.room, token=f"{n + 100:032x}")
        assert (await host.control())["type"] == "peer_joined"
        rooms.append((host, guest))
    wait_for("every room seen on its relay",
             lambda: all(cluster.holder(h.room) for h, _ in rooms), 30)
    held = [cluster.holder(host.room) for host, _ in rooms]
    drained = max(cluster.relays, key=held.count)
    name = f"relay{cluster.relays.index(drained) + 1}"
    assert cluster.balancer.command(f"set server relays/{name} state drain").strip() == ""
    drained.kill(signal.SIGTERM)
    for (host, guest), relay in zip(rooms, held, strict=True):
        if relay is not drained:
            await assert_forwarding(host, guest)  # untouched
            continue
        for side in (host, guest):
            assert await close_of(side) == (Close.GOING_AWAY, "relay shutting down")
        n = rooms.index((host, guest))
        back_host = await join(cluster, host.room, seat=0, token=f"{n:032x}",
                               ticket=host.hello["ticket"])
        back_guest = await join(cluster, host.room, seat=1, token=f"{n + 100:032x}",
                                ticket=guest.hello["ticket"])
        assert back_guest.hello["peer"] == "connected"
        assert (await back_host.control())["type"] == "peer_joined"
        await assert_forwarding(back_host, back_guest)
    assert held.count(drained) >= 1
