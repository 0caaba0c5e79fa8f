"""The table's words for how an online match stands (issue 21, items 11 and 12), in
Pilot at 80×24 through a relay on 127.0.0.1: one vocabulary with the browser's
("away" while the relay keeps the friend's seat, "left" once it gave it up, "the
match is over"), and never "Your friend is thinking…" when the friend is not there."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from textual import events
from textual.geometry import Region
from textual.widgets import Input, Static

from client.net import links, lobby, peer
from client.net.links import ROOM_ID_LENGTH, RelayAddress, parse_invite
from client.storage import Storage
from client.table import words
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import OnlineGame
from client.table.invite import InviteScreen
from client.table.screens import OnlineScreen
from gin import PRESETS, DrawStock, Observation, Pass
from gin.engine.rules import STANDARD
from relay.server import Relay
from tests.client.table.test_friend import (
    FAST,
    bot_side,
    play_one_move,
    relay,  # noqa: F401 (the fixture)
    relay_url,
    stop,
    table_text,
    until,
)
from tests.support.relay import TcpProxy

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
            # The friend's fingerprint is on the table; yours too where the line has room,
            # not at 80 columns (the line is never cut).
            assert game.online.friend is not None and game.online.identity is not None
            who = f"Your friend {game.online.friend.words}"
            assert f"{who} · connected" in str(label.render())
            assert len(str(label.render())) <= SMALL[0] - 2
            await pilot.resize_terminal(200, 40)
            await pilot.pause()
            assert f"{who} (you: {game.online.identity.words}) · connected" in \
                str(label.render())
            await pilot.resize_terminal(*SMALL)
            await pilot.pause()
            if game.legal():
                await play_one_move(pilot, app)  # now it is the friend's move
            await until(pilot, lambda: table_text(app, "#prompt") == "Your friend is thinking…")
            await proxy.stop()  # the friend's connection drops, and stays down
            await until(pilot, lambda: table_text(app, "#prompt")
                        == "Your friend is away — waiting for them to come back")
            assert f"{who} · away" in str(label.render())
            await proxy.start()  # back: thinking again
            await until(pilot, lambda: table_text(app, "#prompt") == "Your friend is thinking…")
        finally:
            friend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await friend
    await proxy.stop()


NETWORK_LINK = "http://192.0.2.2:30300/j/" + "A" * ROOM_ID_LENGTH + "#" + "B" * 42 + "A"
LOOPBACK_LINK = NETWORK_LINK.replace("192.0.2.2", "127.0.0.1")


def inside(region: Region, outer: Region) -> bool:
    return bool(region.area) and outer.contains_region(region)


@pytest.mark.slow  # Pilot with several screens: about 2 s
async def test_at_80_by_24_the_invite_shows_the_whole_link_its_qr_code_and_copied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from client.table import clipboard

    monkeypatch.setattr(clipboard, "PROGRAMS", ())
    app = make_app(AppConfig(storage=Storage(tmp_path), offer_resume=False, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        screen_area = Region(0, 0, *SMALL)
        for link, reach in ((NETWORK_LINK, "works only on your network (192.0.2.2"),
                            (LOOPBACK_LINK, "works only on this computer (127.0.0.1")):
            app.push_screen(InviteScreen(link, "waiting for your friend to join",
                                         words.reach_note(links.reach(parse_invite(link).relay),
                                                          parse_invite(link).relay.host)))
            await pilot.pause()
            await pilot.pause()
            screen = app.screen
            text_area = screen.query_one("#invite-text").region
            shown = screen.query_one("#invite-link", Static)
            # The whole link, on lines of its own, in view: nothing cut.
            assert str(shown.render()) == link
            assert inside(shown.region, text_area)
            fit = str(screen.query_one("#invite-fit", Static).render())
            assert "lines: Copy takes it whole" in fit
            # The QR code beside the text, whole, with no scrolling.
            qr = screen.query_one("#invite-qr", Static)
            assert qr.display and inside(qr.region, screen_area)
            assert qr.region.height == len(str(qr.render()).splitlines())
            assert reach in str(screen.query_one("#invite-reach", Static).render())
            await pilot.click("#copy")
            await pilot.pause()
            copied = screen.query_one("#invite-copied", Static)
            assert "clipboard" in str(copied.render()) and inside(copied.region, text_area)
            assert app.clipboard == link
            await pilot.click("#close")
            await pilot.pause()
        # Narrower than text and code side by side: the code goes below, in the scroll.
        app.push_screen(InviteScreen(NETWORK_LINK, "waiting"))
        await pilot.resize_terminal(64, 24)
        await pilot.pause()
        assert not app.screen.query_one("#invite-qr").display
        assert app.screen.query_one("#invite-qr-below").display


def test_the_status_line_fits_80_columns() -> None:
    """Narrow, the line above the table is short enough for 80 columns, even with
    three-digit scores and the opponent's deal."""
    rules = PRESETS["standard"].with_options(target=250)
    obs = cast(Observation, SimpleNamespace(player=0, dealer=1, hand_number=12,
                                            scores=(105, 100), rules=rules, knock_limit=10))
    line = words.status(obs, words.FRIEND, "Friend", compact=True)
    assert line == ("Hand 12 · You 105 – Friend 100 (to 250) · friend dealt · knock ≤ 10")
    assert len(words.status(obs, words.THEM, "Computer", compact=True)) <= 78


async def test_a_draw_while_the_relay_is_out_of_reach_says_what_it_waits_for(
        relay: Relay, tmp_path: Path) -> None:  # noqa: F811
    """The card drawn from the stock opens with the friend's key: while this side's
    connection is lost, the prompt says that, not "Throw a card" with no card."""
    proxy = TcpProxy(relay.port)  # this side's way to the relay, cut below
    await proxy.start()
    start = lobby.OnlineStart("host", relay=f"http://127.0.0.1:{proxy.port}", rules=STANDARD)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InviteScreen))
        game = app.game
        assert isinstance(game, OnlineGame)
        invite = replace(parse_invite(game.online.invite.url),
                         relay=RelayAddress("http", "127.0.0.1", relay.port))
        guest = await lobby.join(invite, Storage(tmp_path / "guest"), FAST)
        friend = await bot_side(guest)
        try:
            await until(pilot, lambda: game.dealt and not isinstance(app.screen, InviteScreen))
            # Play until this side may draw from the stock.
            async with asyncio.timeout(30):
                while not any(isinstance(a, DrawStock) for a in game.legal()):
                    if game.legal() and any(isinstance(a, Pass) for a in game.legal()):
                        await pilot.press("p")
                    await pilot.pause(0.05)
            await proxy.stop()
            await until(pilot, lambda: game.online.link is peer.Link.RECONNECTING)
            stock = game.observation().stock_count
            await pilot.press("s")
            await until(pilot, lambda: game.observation().stock_count == stock - 1)
            held = ("Waiting for your friend's device to send the key to your card… "
                    "(connection lost — reconnecting…)")
            await until(pilot, lambda: table_text(app, "#prompt") == held)
            assert not app.screen_stack[0].query_one("#btn-discard").display
            await proxy.start()  # back: the key arrives, the card is there to throw
            await until(pilot, lambda: table_text(app, "#prompt").startswith("Throw a card"))
            assert app.selected is not None and app.selected in game.observation().hand
        finally:
            await stop(friend)
    await proxy.stop()


async def test_a_link_pasted_in_several_lines_joins_from_the_table(tmp_path: Path) -> None:
    """Friend online → Join: a link pasted as the lines of a narrow window is whole."""
    app = make_app(AppConfig(storage=Storage(tmp_path), offer_resume=False, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        app.push_screen(OnlineScreen())
        await until(pilot, lambda: isinstance(app.screen, OnlineScreen))
        await pilot.pause()
        field = app.screen.query_one("#link", Input)
        field.focus()
        field.post_message(events.Paste(NETWORK_LINK[:40] + " \n" + NETWORK_LINK[40:] + "\n"))
        await pilot.pause()
        assert field.value == NETWORK_LINK
