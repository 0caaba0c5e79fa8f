"""Silence has a name at the table (issue 19 item 4), in Pilot through a relay on
127.0.0.1: the friend's program stops answering for a move; when the grace runs out
the table asks — keep waiting, or end the match as abandoned by the friend — and the
ending says so, with the signed record saved beside the hand records."""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import replace
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Static

from client.cli import main as gin_main
from client.net import lobby, store
from client.net.links import parse_invite
from client.storage import Storage
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import OnlineGame
from client.table.invite import InviteScreen
from client.table.screens import AlertScreen, ConfirmScreen
from gin.engine.rules import STANDARD
from gin.protocol.session.events import Abandoned, ClaimedAbandoned, LeftOwing
from gin.protocol.session.session import Session
from relay.server import Relay
from tests.client.table.test_friend import (  # noqa: F401 (relay: a fixture)
    FAST,
    SIZE,
    play_one_move,
    relay,
    relay_url,
    shown_link,
    table_text,
    until,
)

# Every test here takes seconds: whole matches through Pilot, a relay, a browser or
# a subprocess.
pytestmark = pytest.mark.slow

SINCE = 1_796_198_400.0  # 2026-12-02 08:00:00 UTC


async def test_a_silent_friend_is_asked_about_then_ends_as_abandoned(
        relay: Relay, tmp_path: Path) -> None:  # noqa: F811
    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    quick = replace(FAST, move_timeout=0.3, utc_clock=lambda: SINCE + 7)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=quick, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        link = await shown_link(pilot, app)
        guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"), FAST)
        friend = asyncio.ensure_future(guest.run())  # its person never moves
        try:
            asked: list[ConfirmScreen] = []  # each question once, however often it is seen
            async with asyncio.timeout(60):
                while not isinstance(app.screen, AlertScreen):
                    game = app.game
                    if isinstance(app.screen, ConfirmScreen):
                        await pilot.pause()  # composed before it is read
                        question = str(app.screen.query_one("#question", Static).render())
                        assert question.startswith("Your friend")
                        # The friend's program answers what it owes by itself; on a busy
                        # machine it may be late past the short grace: wait for it.
                        move = question.startswith("Your friend has been due to move since ")
                        if move and app.screen not in asked:
                            asked.append(app.screen)
                        await pilot.pause()  # laid out before it is answered
                        # The safe choice has the focus (issue 28 item 7).
                        assert app.focused is not None and app.focused.id == "no"
                        if len(asked) <= 1 or not move:
                            # → then Enter: keep waiting (the grace starts again).
                            await pilot.press("right", "enter")
                        else:
                            await pilot.click("#yes")  # then end it
                        await pilot.pause()
                    elif isinstance(game, OnlineGame) and game.dealt and game.legal() \
                            and not isinstance(app.screen, InviteScreen):
                        await play_one_move(pilot, app)
                    else:
                        await pilot.pause(0.02)
            assert len(asked) == 2
            assert str(app.screen.query_one("#alert-title").render()) == \
                "Abandoned by your friend"
            text = str(app.screen.query_one("#alert-text", Static).render())
            assert text.startswith("Abandoned by your friend (the guest): it owed its move")
            assert "since 2026-12-02 08:00:07 UTC" in text and "not a cheat" in text
            assert text.endswith(". Saved as a signed record you can audit.")
            assert ".. " not in text and ") Saved" not in text  # issue 28 item 25
            # Issue 28 item 11: the table says how the match ended, not "stopped", and
            # never that the friend is thinking.
            await app.pop_screen()
            await pilot.pause()
            assert table_text(app, "#prompt") == "The match ended: abandoned by your friend."
            assert "Online: the match ended: abandoned by your friend" in \
                table_text(app, "#online")
            label = str(app.screen_stack[0].query_one("#opponent-label").render())
            assert " · match abandoned" in label and "abandoned by" not in label
            assert isinstance(app.game, OnlineGame)
            failure = app.game.online.failure
            assert isinstance(failure, Abandoned) and failure.record is not None
            saved = list((tmp_path / "host" / store.RECORDS_DIR).glob("*-abandoned.json"))
            assert len(saved) == 1
        finally:
            friend.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await friend


SMALL = (80, 24)


async def test_a_friend_who_claims_you_left_while_it_owed_its_move_left_at_80_by_24(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    """Issue 26 item 4 at the table, through a relay on 127.0.0.1: the friend's program
    owes its move and sends ``abort`` with ``why: abandoned`` (a claim that this side
    left). This side owed nothing: the table, at 80×24, says the friend left the match,
    nobody at fault against this player, and `gin history` counts the match as abandoned
    by the friend, not by you."""
    start = lobby.OnlineStart("host", relay=relay_url(relay), rules=STANDARD)
    app = make_app(AppConfig(storage=Storage(tmp_path / "host"), online=start,
                             online_settings=FAST, delay=0))
    async with app.run_test(size=SMALL) as pilot:
        link = await shown_link(pilot, app)
        guest = await lobby.join(parse_invite(link), Storage(tmp_path / "guest"), FAST)

        async def lie_when_owing() -> None:
            # Until the guest owes its own move (nothing owed by the table's side), then
            # its claim that the table's player abandoned the match.
            while guest.session.legal_actions() == [] or guest.session.waiting_for() is not None:
                await asyncio.sleep(0.01)
            Session._send(guest.session, "abort",
                          {"why": "abandoned", "field": "move", "reason": "you were gone"})
            guest._flush()

        friend = asyncio.gather(guest.run(), lie_when_owing())
        try:
            async with asyncio.timeout(60):
                while not isinstance(app.screen, AlertScreen):
                    game = app.game
                    if isinstance(game, OnlineGame) and game.dealt and game.legal() \
                            and app.screen is app.screen_stack[0]:
                        await play_one_move(pilot, app)
                    else:
                        await pilot.pause(0.02)
            await pilot.pause()  # laid out before it is read
            screen = app.screen
            assert str(screen.query_one("#alert-title").render()) == "Your friend left the match"
            text = str(screen.query_one("#alert-text", Static).render())
            assert "You owed nothing, so the match counts as abandoned by your friend." in text
            assert "Not a cheat: nobody forfeits." in text
            assert not re.search(r"abandoned by you\b", text) and "At fault" not in text
            # The whole window is in view at 80×24: its words and its Close button.
            whole = Region(0, 0, *SMALL)
            for part in ("#alert-title", "#alert-text", "#close"):
                region = screen.query_one(part).region
                assert region.area and whole.contains_region(region), (part, region)
            assert screen.query_one("#alert-text").region.height >= len(text.splitlines())
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is app.screen_stack[0]
            # The table says how the match ended, and never that the friend is thinking.
            assert table_text(app, "#prompt") == "The match ended: your friend left it."
            assert "thinking" not in table_text(app, "#prompt").lower()
            label = str(app.screen.query_one("#opponent-label").render())
            assert " · match left by them" in label, label
            game = app.game
            assert isinstance(game, OnlineGame)
            failure = game.online.failure
            assert isinstance(failure, LeftOwing) and not isinstance(failure, ClaimedAbandoned)
            assert failure.who == "guest" and not failure.proven
        finally:
            if not friend.done():
                friend.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await friend
    # Your record: abandoned by the friend, never by you.
    assert [m.get("abandoned") for m in Storage(tmp_path / "host").load_record()] == ["friend"]
    capsys.readouterr()
    assert gin_main(["history", "--data-dir", str(tmp_path / "host")]) == 0
    history = capsys.readouterr().out
    assert "abandoned: 1 match by your friend, 0 by you" in history, history
