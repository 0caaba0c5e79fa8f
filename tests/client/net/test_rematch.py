"""Rematches through the online driver, as the tables use them (issue 22 item 4): after
a match both sides stay connected; a guest asking first waits and accepts the host's
offer at once; an offer the guest has not asked for is shown, and declining it ends
the run of matches. Against a relay on 127.0.0.1, computer players in both seats."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from client.cli import main as gin_main
from client.net import lobby, peer, store
from client.net.link_state import MATCH_OVER, REMATCH_OFFERED, REMATCH_WAITING
from client.net.outcome import outcome_line
from client.storage import Storage
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.session.events import RulesOffered
from relay.server import Relay, serve
from tests.support.relay import TEST_CONFIG

FAST = peer.OnlineSettings(reply_timeout=20, move_timeout=20, linger=0.3)
SHORT = STANDARD.with_options(name="short", target=10)


@pytest.fixture
async def relay(tmp_path: Path) -> AsyncIterator[Relay]:
    relay = await serve(replace(TEST_CONFIG, key_file=tmp_path / "relay.key", rate=10_000.0,
                                burst=100_000))
    yield relay
    await relay.close()


async def until(ready: Callable[[], bool], seconds: float = 60) -> None:
    async with asyncio.timeout(seconds):
        while not ready():
            await asyncio.sleep(0.02)


async def test_tables_rematch_on_one_link_and_a_declined_offer_ends_it(
        relay: Relay, tmp_path: Path) -> None:
    host = await lobby.host(f"http://127.0.0.1:{relay.port}", SHORT, Storage(tmp_path / "h"),
                            FAST, random.Random(1).randbytes)
    guest = await lobby.join(host.invite, Storage(tmp_path / "g"), FAST,
                             random.Random(2).randbytes, accept_rules=True)
    offers: list[RulesOffered] = []
    guest.listen(lambda u: offers.append(u) if isinstance(u, RulesOffered) else None)
    for match in (host, guest):
        match.rematches.stay = True  # as the tables set it
    tasks = [asyncio.gather(m.run(), peer.play_bot(m, players.get("easy", random.Random(i))))
             for i, m in enumerate((host, guest))]
    try:
        await until(lambda: guest.rematches.finished == 1 and guest.session.rematch is not None)
        # The guest listens for an offer, with no timer against the host, and has not asked.
        assert guest.session.waiting_for() == "hello" and guest.status() == MATCH_OVER
        assert host.session.rematch is None and host.status() == MATCH_OVER
        guest.want_rematch()  # asked first: it waits, then accepts at once
        assert guest.status() == REMATCH_WAITING
        host.want_rematch()
        await until(lambda: host.rematches.finished == 2 and guest.rematches.finished == 2)
        assert [o.rematch for o in offers] == [False, True]  # the custom rules, the rematch
        # The second match continues the first: its records name it.
        files = sorted((tmp_path / "h" / store.RECORDS_DIR).glob("*.json"))
        assert len({f.name.split("-")[0] for f in files}) == 2
        assert gin_main(["audit", "-q", *map(str, files),
                         *map(str, (tmp_path / "g" / store.RECORDS_DIR).glob("*.json"))]) == 0
        # An offer the guest did not ask for is put to its player; declined, it ends.
        await until(lambda: guest.session.rematch is not None and guest.session.waiting_for()
                    == "hello")
        host.want_rematch()
        await until(lambda: guest.session.rules_offered is not None)
        assert offers[-1].rematch and guest.status() == REMATCH_OFFERED
        guest.decline_rules()
        # A normal end of the series (issue 28): no failure, nobody at fault, said so.
        await until(lambda: host.declined)
        assert guest.declined and guest.failure is None and host.failure is None
        assert guest.status() == host.status() == MATCH_OVER
        assert outcome_line(guest) == ("no rematch: you declined it, so the matches on this "
                                       "link end here")
        assert outcome_line(host) == ("no rematch: your friend declined it, so the matches on "
                                      "this link end here")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
