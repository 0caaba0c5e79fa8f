"""Issue 28 item 10, through a relay on 127.0.0.1: a friend who comes back to a match
the other side has ended as abandoned is not left waiting forever. The other side's
abort was sent while the relay had given the friend's seat up (so it was dropped);
the friend's resumed match now runs the grace on what the other side owes, even
though that side never shows up again, and ends the match by it."""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import replace
from pathlib import Path

import pytest

from client.net import lobby, peer
from client.storage import Storage
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.session.events import Abandoned
from relay.server import serve
from tests.client.net.test_peer import FAST, randomness, url
from tests.support.relay import TEST_CONFIG

pytestmark = pytest.mark.slow


async def test_a_friend_back_after_the_match_was_abandoned_is_not_left_waiting(
        tmp_path: Path) -> None:
    # The relay gives a dropped seat up at once: the host's abort to it is dropped.
    relay = await serve(replace(TEST_CONFIG, rate=10_000.0, burst=100_000, grace=0.2,
                                sweep_interval=0.05))
    quick = replace(FAST, move_timeout=1.0, reply_timeout=1.0)
    try:
        host = await lobby.host(url(relay.port), STANDARD, Storage(tmp_path / "host"),
                                quick, randomness(5))
        guest = await lobby.join(host.invite, Storage(tmp_path / "guest"), quick,
                                 randomness(6))
        host_run = asyncio.gather(host.run(), peer.play_bot(
            host, players.get("easy", random.Random(5))))
        guest_run = asyncio.ensure_future(guest.run())  # its person never moves
        async with asyncio.timeout(30):
            while guest.session.observation() is None:
                await asyncio.sleep(0.02)
            guest_run.cancel()  # the friend's gin stops mid-hand
            with contextlib.suppress(asyncio.CancelledError):
                await guest_run
            await host_run  # the host ends the match as abandoned by the guest
        assert isinstance(host.failure, Abandoned)
        # The friend comes back with the same link and data folder; the host is gone.
        back = await lobby.join(host.invite, Storage(tmp_path / "guest"), quick)
        assert back.session.observation() is not None  # the saved match, resumed
        async with asyncio.timeout(15):  # (it waited forever)
            await asyncio.gather(back.run(), peer.play_bot(
                back, players.get("easy", random.Random(6))))
        assert isinstance(back.failure, Abandoned) and back.failure.who == "host"
        assert peer.outcome_line(back).startswith("Abandoned by your friend (the host)")
    finally:
        await relay.close()
