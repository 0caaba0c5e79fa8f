"""The table's words for how an online match stands (issue 21, items 11 and 12), in
Pilot at 80×24 through a relay on 127.0.0.1: one vocabulary with the browser's
("away" while the relay keeps the friend's seat, "left" once it gave it up, "the
match is over"), and never "Your friend is thinking…" when the friend is not there."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from pathlib import Path

from client.net import lobby
from client.net.links import RelayAddress, parse_invite
from client.storage import Storage
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import OnlineGame
from client.table.screens import InviteScreen
from gin.engine.rules import STANDARD
from relay.server import Relay
from relay.testing import TcpProxy
from tests.client.table.test_friend import (
    FAST,
    play_one_move,
    relay,  # noqa: F401 (the fixture)
    relay_url,
    table_text,
    until,
)

SMALL = (80, 24)


async def test_on_the_friends_move_the_table_says_when_the_friend_is_away(
        relay: Relay, tmp_path: Path) -> None:  # noqa: F811
    proxy = TcpProxy(relay.port)  # the friend's way to the relay, cut below
    await proxy.start()
    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        game = app.game
        assert isinstance(game, OnlineGame)
        invite = replace(parse_invite(game.online.invite.url),
                         relay=RelayAddress("http", "127.0.0.1", proxy.port))
        guest = await lobby.join(invite, Storage(tmp_path / "guest"), FAST)
        friend = asyncio.ensure_future(guest.run())  # its program answers; nobody moves
        try:
            await until(pilot, lambda: game.dealt and not isinstance(app.screen, InviteScreen))
            label = app.screen_stack[0].query_one("#opponent-label")
            assert "Your friend · connected" in str(label.render())
            if game.legal():
                await play_one_move(pilot, app)  # now it is the friend's move
            await until(pilot, lambda: table_text(app, "#prompt") == "Your friend is thinking…")
            await proxy.stop()  # the friend's connection drops, and stays down
            await until(pilot, lambda: table_text(app, "#prompt")
                        == "Your friend is away — waiting for them to come back")
            assert "Your friend · away" in str(label.render())
            await proxy.start()  # back: thinking again
            await until(pilot, lambda: table_text(app, "#prompt") == "Your friend is thinking…")
        finally:
            friend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await friend
            await proxy.stop()
