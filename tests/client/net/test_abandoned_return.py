"""Issue 28 item 10: a friend who comes back to a match that was ended as abandoned
by them, after the relay gave their seat up, is told the friend left for good (the
relay's word), not left waiting for a host that has gone: in `gin join --bot` and at
the table."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from client.net import lobby, peer, store
from client.net.outcome import FriendLeft
from client.storage import Storage
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.screens import AlertScreen
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.session.events import Abandoned
from relay.server import Relay, serve
from tests.client.net.test_peer import FAST, SINCE, randomness, url, via
from tests.client.table.test_friend import until
from tests.support.relay import TEST_CONFIG, TcpProxy

pytestmark = pytest.mark.slow


@pytest.fixture
async def forgetful_relay(tmp_path: Path) -> AsyncIterator[Relay]:
    """A standalone relay that gives a dropped seat up after 0.3 s, long before the
    host's grace on what the friend owes runs out (as 120 s is before 3 minutes)."""
    relay = await serve(replace(TEST_CONFIG, key_file=tmp_path / "relay.key", rate=10_000.0,
                                burst=100_000, grace=0.3, sweep_interval=0.05))
    yield relay
    await relay.close()


QUICK = replace(FAST, move_timeout=1.5, reply_timeout=1.5, utc_clock=lambda: SINCE)


async def abandoned_while_away(relay: Relay, tmp_path: Path) -> peer.OnlineMatch:
    """A guest whose network and program go on its move; the host's grace runs out long
    after the relay gave the guest's seat up: it ends the match as abandoned and leaves."""
    host = await lobby.host(url(relay.port), STANDARD, Storage(tmp_path / "host"), QUICK,
                            randomness(5))
    proxy = TcpProxy(relay.port)
    await proxy.start()
    guest = await lobby.join(via(host.invite, proxy.port), Storage(tmp_path / "guest"), QUICK,
                             randomness(6))
    dealt = asyncio.Event()  # the guest's move has come (saved before it is told)
    guest.listen(lambda u: dealt.set() if guest.session.legal_actions() else None)
    host_run = asyncio.gather(host.run(),
                              peer.play_bot(host, players.get("easy", random.Random(5))))
    guest_run = asyncio.gather(guest.run())
    try:
        async with asyncio.timeout(30):
            await dealt.wait()
            await proxy.stop()  # the guest's network goes: no goodbye to the relay
            guest_run.cancel()  # and its program is closed
            with pytest.raises(asyncio.CancelledError):
                await guest_run
            await host_run  # the host's grace runs out: it ends the match and leaves
    finally:
        await proxy.stop()
    assert isinstance(host.failure, Abandoned) and host.failure.who == "guest"
    return host


async def test_a_friend_back_after_the_host_ended_the_match_as_abandoned_is_told(
        forgetful_relay: Relay, tmp_path: Path) -> None:
    host = await abandoned_while_away(forgetful_relay, tmp_path)
    # The relay gave the guest's seat up long before the host ended the match and left.
    back = await lobby.join(host.invite, Storage(tmp_path / "guest"), QUICK, randomness(8))
    async with asyncio.timeout(15):
        await back.run()  # it waited for the host forever (its own move owed: no grace ran)
    failure = back.failure
    assert isinstance(failure, FriendLeft) and failure.who == "host"
    line = peer.outcome_line(back)
    assert line.startswith("your friend left: your friend (the host) left this match for good "
                           "while you were away, so it cannot go on"), line
    assert line.endswith("; you owed your move, so once their grace ran out they may have "
                         "ended it as abandoned by you (their word, not a verdict)"), line
    # The link's match is over for this guest now: it is not resumed again.
    with pytest.raises(store.MatchOverError, match="The match of this invite link is over"):
        await lobby.join(host.invite, Storage(tmp_path / "guest"), QUICK)


async def test_the_table_back_to_a_match_the_host_left_says_so(
        forgetful_relay: Relay, tmp_path: Path) -> None:
    """The same at the table (`gin join LINK` opens it): the window says the friend has
    left this match, and nobody is at fault."""
    host = await abandoned_while_away(forgetful_relay, tmp_path)
    start = lobby.OnlineStart("join", invite=host.invite, accept_rules=None)
    app = make_app(AppConfig(storage=Storage(tmp_path / "guest"), online=start,
                             online_settings=QUICK, delay=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, AlertScreen))
        screen = app.screen
        assert isinstance(screen, AlertScreen)
        assert screen.title_text == "Your friend has left this match"
        assert screen.text.startswith("Your friend (the host) left this match for good while "
                                      "you were away, so it cannot go on; you owed your move")
        assert "Nobody is at fault" in screen.text
