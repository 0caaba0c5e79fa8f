"""Issue 28, the terminal table as a person sees it at 80×24: the move log's newest
line in view, loose points called points, a strength change asked about mid-hand,
no Undo or Hint offered online, the invite window whole, and the safe choice first
in a question that ends something."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from textual.widgets import Button, Static

from client.net import links
from client.table import clipboard, words
from client.table.controller import Game, OnlineGame
from client.table.invite import InviteScreen
from client.table.screens import ConfirmScreen
from gin import DrawStock, Pass
from tests.client.table.test_app import KNOCK, press, settle, text
from tests.client.table.test_undo_sheet import _Session

SMALL = (80, 24)
# Ten cards that never meld with what the scripted computer throws: many turns of play.
SLOW = ("2c 5d 8h Js 3h 6s 9c Qd 4s 7c", "Ac 2d 3s 4h 5c 6d 7s 8c 9d Th", "Kc",
        "Ah As Ad 2h 2s 3c 3d 4c 4d 5h 5s 6c 6h 7d 7h 8d 8s 9h 9s Tc Td Ts")


def footer_keys(app: Any) -> set[str]:
    return {b.binding.action for b in app.screen.active_bindings.values() if b.binding.show}


@pytest.mark.slow  # Pilot over several moves: 2-3.5 s
@pytest.mark.parametrize("size", [SMALL, (80, 30)])
async def test_the_logs_newest_line_is_in_view(table: Any, deal: Any,
                                               size: tuple[int, int]) -> None:
    # Item 15: the log showed its last five lines in a box of four: the newest was hidden
    # (at 80×24 and 80×30 alike).
    app, _ = table(deal(*SLOW))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "p")  # both pass: the human draws first
        for _ in range(4):  # each turn the computer draws and throws: two lines more
            await press(pilot, "s", "d")
        assert app.game is not None
        lines = words.log_lines(app.game.observation())
        assert len(lines) >= 7
        log = app.screen.query_one("#log", Static)
        shown = str(log.render()).splitlines()
        assert shown[-1] == lines[-1]
        assert len(shown) <= log.region.height  # nothing below the box's last row
        assert all(len(line) <= log.region.width for line in shown)


async def test_loose_points_are_called_points(table: Any, deal: Any) -> None:
    # Item 16: "Loose cards: 43" was a point total.
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        loose = text(app, "#loose")
        # 2c 3c 4c 5d 5h 5s 9s 9h 9d Kc: only the K♣ is loose, 10 points.
        assert loose.startswith("Loose points: 10 (1 card)"), loose
        assert "loose points" in words.how_to_play(app.game.rules)  # type: ignore[union-attr]


@pytest.mark.slow  # Pilot with several screens: about 2 s
async def test_a_strength_key_mid_hand_asks_first(table: Any, deal: Any) -> None:
    # Item 18: keys 1/2/3 changed the computer's strength mid-hand without asking.
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        game = app.game
        assert isinstance(game, Game) and game.vs == "normal"
        await press(pilot, "3")
        assert isinstance(app.screen, ConfirmScreen)
        assert "hard" in app.screen.question
        await press(pilot, "escape")
        assert game.vs == "normal"
        assert app.screen.query_one("#strength-normal").value  # type: ignore[attr-defined]
        await press(pilot, "3", "enter")
        assert game.vs == "hard"


async def test_online_the_footer_offers_no_undo_nor_hint(table: Any, deal: Any) -> None:
    # Item 19: Undo (footer key) and Hint (footer) showed online, where there are none.
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert {"undo", "hint"} <= footer_keys(app)
        assert isinstance(app.game, Game)
        match = app.game.match
        match.apply(0, Pass())
        match.apply(1, Pass())
        match.apply(0, DrawStock())
        app.game = OnlineGame(cast(Any, SimpleNamespace(
            session=_Session(match), seat=0, result=None, friend=None, identity=None)))
        app.refresh_table()
        await settle(pilot)
        shown = footer_keys(app)
        assert "undo" not in shown and "hint" not in shown
        assert not app.screen.query_one("#btn-hint", Button).display
        await press(pilot, "h")  # pressed by habit: it says why there is none
        assert text(app, "#prompt") == words.NO_HINT_ONLINE


async def test_the_invite_key_leaves_the_footer_once_the_online_match_is_over(
        table: Any, deal: Any) -> None:
    # Issue 28: after an online match ended the footer still offered "o Invite link".
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert isinstance(app.game, Game)
        session = _Session(app.game.match)
        app.game = OnlineGame(cast(Any, SimpleNamespace(
            session=session, seat=0, result=None, friend=None, identity=None)))
        app.refresh_table()
        await settle(pilot)
        assert "invite" in footer_keys(app)  # the host's, while the match runs
        session.over = True
        app.refresh_table()
        await settle(pilot)
        assert "invite" not in footer_keys(app)
        await press(pilot, "o")  # pressed anyway: no invite for a match that is over
        assert not isinstance(app.screen, InviteScreen)


@pytest.mark.parametrize("programs", [(), (("true",),)])
async def test_the_invite_window_fits_80_by_24(table: Any, deal: Any,
                                               monkeypatch: pytest.MonkeyPatch,
                                               programs: tuple[tuple[str, ...], ...]) -> None:
    # Item 21: the invite window cut its last lines at 80×24. The default path's window:
    # gin's own relay on a local address, so both who can open the link and where the
    # friend's page comes from are said (they ran 4 lines past the foot, found by hand).
    app, _ = table(deal(*KNOCK))
    link = ("http://192.0.2.2:43101/j/gQI9hnTkraeNCwf0bHBG8Q8WxfXoNlxa"
            "#z2pxSGDFGY5zqgGpasLnZwPoCH-n6KsZct8GT1Oavg8")
    invite = links.parse_invite(link)
    notes = (words.reach_note(links.reach(invite.relay), invite.relay.host) + "\n"
             + links.page_words(invite, here=True))
    monkeypatch.setattr(clipboard, "PROGRAMS", programs)  # copied, or only perhaps
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.push_screen(InviteScreen(link, "waiting for your friend to join", notes))
        await settle(pilot)
        for _ in range(2):
            scroll = app.screen.query_one("#invite-text")
            assert scroll.max_scroll_y == 0, "the window scrolls: its last lines are cut"
            how = app.screen.query_one("#invite-how", Static)
            assert app.screen.region.contains_region(how.region) and how.region.area
            await pilot.click("#copy")  # the word about the copy takes the fit note's place
            await settle(pilot)


@pytest.mark.slow  # Pilot over several moves: 2-3.5 s
async def test_a_question_that_ends_something_focuses_the_safe_choice(
        table: Any, deal: Any) -> None:
    # Item 7: → then Enter ended the match where the player meant Keep waiting.
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        answers: list[bool | None] = []
        for keys in (("enter",), ("right", "enter"), ("left", "right", "enter")):
            app.push_screen(ConfirmScreen("End the match?", "End", "Keep waiting",
                                          safe=True), answers.append)
            await settle(pilot)
            assert app.focused is not None and app.focused.id == "no"
            await press(pilot, *keys)
        assert answers == [False, False, False]
        app.push_screen(ConfirmScreen("End the match?", "End", "Keep waiting", safe=True),
                        answers.append)
        await press(pilot, "left", "enter")
        assert answers[-1] is True


async def test_the_keys_window_fits_80_by_24(table: Any, deal: Any) -> None:
    # (Found trying item 18 by hand: the list of keys ran past the foot of 80×24.)
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        close = app.screen.query_one("#close", Button)
        assert app.screen.region.contains_region(close.region) and close.region.area
        listed = app.screen.query_one("KeysScreen Static", Static)
        assert "quit, after asking" in str(listed.render())
        assert listed.region.bottom <= close.region.y  # the whole list above the button
