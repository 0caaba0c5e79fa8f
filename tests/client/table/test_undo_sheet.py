"""Undo against the computer and the score sheet: the controller, and the table in
Pilot (u takes a throw back only before the computer looks; c shows every hand)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any, cast

import pytest
from textual.widgets import DataTable, Static

from client.storage import Storage
from client.table import words
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import Game, OnlineGame
from client.table.scoresheet import score_sheet
from client.table.screens import HandOverScreen, ScoreSheetScreen
from gin import Card, Discard, DrawStock, HandResult, IllegalAction, Knock, Match, Pass, Phase
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session, play_local
from tests.client.conftest import ScriptedOpponent, fixed_decks
from tests.client.table.test_app import GIN, KNOCK, SIZE, press, settle, text

KC, AS = Card.parse("Kc"), Card.parse("As")


def to_throw(game: Game) -> None:
    """Pass the upcard, the computer passes, draw the A♠: the player is to throw."""
    game.play(Pass())
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())


def test_undo_restores_the_position_exactly(make_game: Any, deal: Any,
                                            storage: Storage) -> None:
    game, _ = make_game(deal(*KNOCK))
    to_throw(game)
    before, hand_before = game.observation(), game.match.hand.to_dict()
    game.play(Discard(KC))
    assert game.can_undo and game.opponent_to_move
    assert game.undo() == KC
    assert game.observation() == before
    assert game.match.hand is not None and game.match.hand.to_dict() == hand_before
    assert not game.can_undo and game.legal()
    # Saved as taken back: a resumed match is at the throw again.
    resumed = Game.resume(storage, make_opponent=lambda _s, _r: game.opponent)
    assert resumed is not None and resumed.observation() == before


def test_no_undo_once_the_computer_looks_or_moved(make_game: Any, deal: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    assert not game.can_undo
    game.play(Pass())  # a pass is not a throw
    assert not game.can_undo
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())
    assert not game.can_undo  # a draw is not a throw
    game.play(Discard(KC))
    game.computer_sees()
    assert not game.can_undo
    with pytest.raises(IllegalAction):
        game.undo()
    game.apply_opponent(game.opponent_move())
    assert not game.can_undo


def test_the_score_sheet_lists_every_hand_with_running_totals(
        make_game: Any, deal: Any, storage: Storage) -> None:
    game, _ = make_game(deal(*KNOCK), deal(*GIN))
    to_throw(game)
    game.play(Knock(KC))
    game.apply_opponent(game.opponent_move())  # lays off 5♣ and 9♣: 1 against 10
    game.next_hand()
    sheet = game.score_sheet()
    assert [(r.number, r.kind, r.winner, r.points, r.totals, r.boxes) for r in sheet] == \
        [(1, "knock", 0, 14, (14, 0), (1, 0))]
    resumed = Game.resume(storage, make_opponent=lambda _s, _r: game.opponent)
    assert resumed is not None and resumed.score_sheet() == sheet  # kept with the match


def test_running_totals_over_several_hands() -> None:
    results = [HandResult("knock", 0, 0, 14, None), HandResult("dead", None, None, 0, None),
               HandResult("undercut", 0, 1, 27, None), HandResult("gin", 1, 1, 40, None)]
    sheet = score_sheet(results)
    assert [(r.number, r.totals, r.boxes) for r in sheet] == \
        [(1, (14, 0), (1, 0)), (2, (14, 0), (1, 0)), (3, (14, 27), (1, 1)), (4, (14, 67), (1, 2))]
    assert words.sheet_rows(sheet, 1)[2] == (
        "3", "The computer knocked, you undercut", "27 to you", "27", "14", "1–1")
    assert words.sheet_rows(sheet)[1][1:3] == ("Dead hand", "—")
    assert words.sheet_rows(sheet)[3][1] == "The computer went gin"


def slow_table(storage: Storage, *decks: Any, delay: float) -> tuple[Any, ScriptedOpponent]:
    opponent = ScriptedOpponent()
    app = make_app(AppConfig(storage=storage, rng=random.Random(7),
                             make_opponent=lambda _s, _r: opponent,
                             deck_source=fixed_decks(*decks), delay=delay))
    return app, opponent


@pytest.mark.slow  # Pilot over several moves: 2-3.5 s
async def test_u_takes_the_throw_back_in_the_pause(storage: Storage, deal: Any) -> None:
    app, opponent = slow_table(storage, deal(*KNOCK), delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s")  # the computer passed; the A♠ drawn, selected
        assert app.game is not None
        before = app.game.observation()
        app.config.delay = 30  # a long pause: the computer waits before it looks
        await pilot.press("right")  # select the next card, then throw it
        await pilot.pause()
        thrown = app.selected
        assert thrown is not None
        await pilot.press("d")
        await pilot.pause()
        assert thrown not in app.game.observation().hand
        seen = len(opponent.seen)
        await pilot.press("u")
        await pilot.pause()
        assert app.game.observation() == before and thrown in app.game.observation().hand
        assert app.selected == thrown and "taken back" in text(app, "#prompt")
        assert len(opponent.seen) == seen  # the computer never saw the throw
        # Throw again with no pause: the computer answers, and u then refuses.
        app.config.delay = 0
        await press(pilot, "d")
        assert app.game.observation().phase is Phase.DRAW and len(opponent.seen) == seen + 2
        await press(pilot, "u")
        assert thrown not in app.game.observation().hand
        assert "Nothing to take back" in text(app, "#prompt")


@pytest.mark.slow  # Pilot over several moves: 2-3.5 s
async def test_c_shows_every_hand_of_the_match(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK), deal(*GIN))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "c")
        assert isinstance(app.screen, ScoreSheetScreen)
        assert "No hand has finished" in str(app.screen.query_one("#sheet-empty", Static).render())
        await press(pilot, "escape", "p", "s")
        app.selected = KC
        await press(pilot, "k", "enter")  # knock with the K♣: the computer lays off
        assert isinstance(app.screen, HandOverScreen)
        await press(pilot, "enter")  # the next hand
        await press(pilot, "c")
        assert isinstance(app.screen, ScoreSheetScreen)
        sheet = app.screen.query_one("#sheet", DataTable)
        assert sheet.row_count == 1
        assert sheet.get_row_at(0) == ["1", "You knocked", "14 to you", "14", "0", "1–0"]


class _Session:
    """Just enough of an online session for the table to draw a hand in play."""

    def __init__(self, match: Match) -> None:
        self.match, self.over, self.rules = match, False, match.rules

    def observation(self) -> Any:
        return self.match.observation(0)

    def legal_actions(self) -> list[Any]:
        return self.match.legal_actions() if self.match.turn == 0 else []

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        return tuple(self.match.results)


async def test_no_undo_online(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.game, Game)
        match = app.game.match
        match.apply(0, Pass())
        match.apply(1, Pass())
        match.apply(0, DrawStock())
        match.apply(0, Discard(KC))  # thrown in an online match: the friend sees it at once
        online = OnlineGame(cast(Any, SimpleNamespace(session=_Session(match), seat=0,
                                                      result=None, friend=None, identity=None)))
        app.game = online
        assert not hasattr(online, "undo")
        await press(pilot, "u")
        assert "no undo online" in text(app, "#prompt")
        assert KC not in app.game.observation().hand
        # The score sheet is there online too, the friend named as such.
        await press(pilot, "c")
        assert isinstance(app.screen, ScoreSheetScreen)
        assert app.screen.columns[4] == "Friend"
        assert "No hand has finished" in str(app.screen.query_one("#sheet-empty", Static).render())


def test_online_score_sheet_is_the_sessions_hands() -> None:
    """Online, the sheet lists every hand the session played, seen from its own seat."""
    rules = STANDARD.with_options(target=40)
    host = Session("host", bytes(32), rules, random.Random(3).randbytes, b"h" * 32)
    guest = Session("guest", bytes(32), None, random.Random(4).randbytes, b"g" * 32)
    play_local(host, guest, [get("easy"), get("easy")])
    verified = [e for e in host.events() if isinstance(e, HandVerified)]
    for session in (host, guest):
        game = OnlineGame(cast(Any, SimpleNamespace(session=session, seat=session.seat)))
        rows = game.score_sheet()
        assert [row.number for row in rows] == [e.hand_number for e in verified]
        assert [(r.kind, r.winner, r.points) for r in rows] == [
            (e.record.score.kind, e.record.score.winner, e.record.score.points)
            for e in verified]
        assert rows[-1].totals == verified[-1].record.scores
        cells = words.sheet_rows(rows, session.seat, words.FRIEND)
        final = cells[-1]
        assert (final[3], final[4]) == (str(rows[-1].totals[session.seat]),
                                        str(rows[-1].totals[1 - session.seat]))
