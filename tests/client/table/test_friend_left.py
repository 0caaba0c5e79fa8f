"""Issue 28 at the host's table, in Pilot at 80×24 through a relay on 127.0.0.1: the
side panel (f) shows both identities whole (item 17), the last hand's window leads to
the final score, not a next hand (item 22), and Rematch against a friend who has left
says so and offers a new link instead of waiting forever (item 6)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Static

from client.net import lobby, peer
from client.net.links import parse_invite
from client.storage import Storage
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import OnlineGame
from client.table.invite import InviteScreen
from client.table.screens import ConfirmScreen, HandOverScreen, MatchEndScreen
from gin import players
from gin.engine.rules import STANDARD
from relay.server import Relay, serve
from tests.client.table.test_friend import (
    FAST,
    play_one_move,
    relay_url,
    shown_link,
    stop,
    table_text,
    until,
)
from tests.support.relay import TEST_CONFIG

SMALL = (80, 24)
pytestmark = pytest.mark.slow


@pytest.fixture
async def quick_relay() -> AsyncIterator[Relay]:
    """A relay that gives up a dropped seat after half a second."""
    relay = await serve(replace(TEST_CONFIG, rate=10_000.0, burst=100_000, grace=0.5,
                                sweep_interval=0.1))
    yield relay
    await relay.close()


async def test_rematch_against_a_friend_who_left_offers_a_new_link(
        quick_relay: Relay, tmp_path: Path) -> None:
    short = STANDARD.with_options(name="short", target=10)
    start = lobby.OnlineStart("host", relay=relay_url(quick_relay), rules=short)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        link = await shown_link(pilot, app)
        guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"), FAST,
                                 accept_rules=True)
        # One match, then the friend's gin exits (as `gin join --bot` does).
        friend = asyncio.gather(guest.run(), peer.play_bot(
            guest, players.get("normal", random.Random(3))))
        try:
            game = app.game
            assert isinstance(game, OnlineGame)
            await until(pilot, lambda: game.dealt and not isinstance(app.screen, InviteScreen))
            # Item 17: the panel (f, at 80 columns) names both identities, whole.
            await pilot.press("f")
            await until(pilot, lambda: game.online.friend is not None)
            panel = table_text(app, "#online")
            assert game.online.friend is not None and game.online.identity is not None
            assert f"Your friend: {game.online.friend.words}" in panel
            assert f"You: {game.online.identity.words}" in panel
            await pilot.press("f")
            closes: list[str] = []
            async with asyncio.timeout(90):
                while not isinstance(app.screen, MatchEndScreen):
                    if isinstance(app.screen, HandOverScreen):
                        closes.append(str(app.screen.query_one("#close").label))  # type: ignore[attr-defined]
                        await pilot.press("enter")
                    elif game.dealt and game.legal() and app.screen is app.screen_stack[0]:
                        await play_one_move(pilot, app)
                    await pilot.pause(0.02)
            # Item 22: the last hand's window leads to the final score.
            assert closes[-1] == "The final score" and set(closes[:-1]) <= {"Next hand"}
            async with asyncio.timeout(20):
                await friend  # the friend's program is done, and leaves
            await pilot.press("enter")  # Rematch
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                        and "has left" in app.screen.question)
            assert "no rematch on this link" in app.screen.question  # type: ignore[attr-defined]
            await pilot.press("enter")  # New link
            await until(pilot, lambda: isinstance(app.screen, InviteScreen))
            await pilot.pause()
            again = str(app.screen.query_one("#invite-link", Static).render())
            assert again != link and again.startswith(relay_url(quick_relay) + "/j/")
            assert isinstance(app.game, OnlineGame) and app.game.online is not game.online
        finally:
            if not friend.done():
                await stop(friend)
