"""Pilot tests: whole hands played through the table with fixed decks, and
snapshots of the main screens at 100×30.

The human is the non-dealer of the first hand; the computer is a scripted
opponent (see conftest) so every move is known in advance.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Static

from client.storage import Storage
from client.table.app import GinApp, make_app
from client.table.cardview import CardRow, CardView
from client.table.config import AppConfig
from client.table.screens import (
    ConfirmScreen,
    HandOverScreen,
    HowToPlayScreen,
    LayoutScreen,
    MatchEndScreen,
)
from gin import (
    Card,
    Discard,
    DrawPile,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    Phase,
    parse_cards,
    players,
)
from gin.engine.rules import STANDARD

# Every test here takes seconds: whole matches through Pilot, a relay, a browser or
# a subprocess.
pytestmark = pytest.mark.slow

SIZE = (100, 30)
# The player knocks with 1 (A♠ drawn, K♣ thrown); the computer lays off 5♣ and 9♣.
KNOCK = ("2c 3c 4c 5d 5h 5s 9s 9h 9d Kc", "5c 9c Jd Jh Js 7d 8d 2h 3h 4h", "Qd", "As")
# The player draws T♠ and goes gin, throwing K♥.
GIN = ("Ac 2c 3c 4d 4h 4s 7s 8s 9s Kh", "5c 9c Jd Jh Js 7d 8d 2h 3h 5h", "Qd", "Ts")
# The computer takes the A♦ upcard and knocks with 1; the player lays off 5♣ to 0.
UNDERCUT = ("Jc Qc Kc 6h 7h 8h 7c 7d 7s 5c", "2c 3c 4c 5d 5h 5s 9s 9h 9d Kh", "Ad")


async def settle(pilot: Pilot[None]) -> None:
    """Let the computer's worker and the screen catch up."""
    app = pilot.app
    for _ in range(2):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def text(app: GinApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def held(app: GinApp) -> tuple[Card, ...]:
    assert app.game is not None
    return app.game.observation().hand


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def test_upcard_take_dimmed_card_refused_then_discard(table: Any, deal: Any) -> None:
    app, _ = table(deal("2c 3c 4c 5d 5h 5s 9s 9h 9d Kc", "6c 8c Jd Jh Js 7d 8d 2h 3h 4h",
                        "9c"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Take the 9♣ or pass" in text(app, "#prompt")
        await press(pilot, "t")
        nine = app.screen.query_one("#hand #card-9c", CardView)
        assert nine.has_class("-dimmed")
        # Selecting the card just taken and throwing it is refused; nothing changes.
        await pilot.click("#hand #card-9c")
        await press(pilot, "d")
        assert "can't go straight back" in text(app, "#prompt")
        assert len(held(app)) == 11
        # Throw the K♣ with the mouse: click to select, click again to throw.
        await pilot.click("#hand #card-Kc")
        await settle(pilot)
        assert app.screen.query_one("#hand #card-Kc", CardView).has_class("-selected")
        await pilot.click("#hand #card-Kc")
        await settle(pilot)
        # The computer drew from the stock and threw what it drew, one move at a time.
        log = text(app, "#log")
        assert "The computer drew from the stock." in log
        assert "The computer threw the" in log
        obs = app.game.observation() if app.game else None
        assert obs is not None and obs.phase is Phase.DRAW and obs.my_turn
        assert Card.parse("Kc") not in obs.hand and len(obs.hand) == 10
        assert "or draw from the stock" in text(app, "#prompt")


async def test_upcard_pass_then_draw_from_stock_by_mouse(table: Any, deal: Any) -> None:
    app, opponent = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#btn-pass_card")
        await settle(pilot)
        # The computer passed too: the first draw must come from the stock.
        assert opponent.seen[0].phase is Phase.UPCARD
        assert "draw from the stock" in text(app, "#prompt")
        assert not app.screen.query_one("#btn-take", Button).display
        await pilot.click("#stock CardView")
        await settle(pilot)
        assert Card.parse("As") in held(app)
        assert app.selected == Card.parse("As")  # the card just drawn is selected


async def test_knock_with_layoffs(table: Any, deal: Any, storage: Storage) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s")
        assert app.screen.query_one("#btn-knock", Button).display
        await press(pilot, "k")
        assert isinstance(app.screen, LayoutScreen)
        assert "with 1 loose point" in app.screen.question
        assert "K♣" in app.screen.question
        await press(pilot, "enter")
        assert isinstance(app.screen, HandOverScreen)
        explanation = text(app, "#explanation")
        assert "You knocked with 1" in explanation
        assert "after laying off 2 cards" in explanation
        assert "15 − 1 = 14 to you" in explanation
        log = str(app.screen_stack[0].query_one("#log", Static).render())
        assert log.endswith("The computer laid off 5♣ 9♣ onto your melds.")
        # The lay-offs are shown on the knocker's melds, marked.
        laid = app.screen.query("#mine CardView.-laidoff")
        assert {v.card for v in laid} == {Card.parse("5c"), Card.parse("9c")}
        await press(pilot, "enter")
        assert app.game is not None
        assert app.game.match.scores == [14, 0]
        assert text(app, "#status").startswith("Hand 2 · You 14 – Computer 0")
    # The finished hand was saved: its deck and actions, and its result.
    [record] = storage.saved_hands()
    assert record["result"]["kind"] == "knock" and record["result"]["points"] == 14
    assert record["hand"]["actions"][-1] == [1, "layoff"]


async def test_gin(table: Any, deal: Any) -> None:
    app, _ = table(deal(*GIN))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s")
        assert str(app.screen.query_one("#btn-knock", Button).label) == "Gin!"
        await press(pilot, "k", "enter")
        assert isinstance(app.screen, HandOverScreen)
        assert "You went gin: 25 + 39 loose points = 64 to you." in text(app, "#explanation")


async def test_undercut(table: Any, deal: Any) -> None:
    app, _ = table(deal(*UNDERCUT), script=["take", "knock Kh"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        assert "The computer knocked" in text(app, "#prompt")
        assert app.screen.query_one("#btn-lay_off", Button).display
        await press(pilot, "l", "enter")
        assert isinstance(app.screen, HandOverScreen)
        explanation = text(app, "#explanation")
        assert "An undercut: 1 − 0 + 25 = 26 to you." in explanation
        laid = app.screen.query("#theirs CardView.-laidoff")
        assert [v.card for v in laid] == [Card.parse("5c")]


async def test_dead_hand_same_dealer_deals_again(table: Any, deal: Any) -> None:
    # A hand is dead at 10 cards left in the stock (a house rule): 11 draws, where the
    # standard 2 took 29 (at a second or two of Pilot each).
    app, _ = table(deal(*KNOCK[:3]), rules=STANDARD.with_options(dead_stock=10))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        # Draw and throw the drawn card (it is selected) until the stock runs out.
        while not isinstance(app.screen, HandOverScreen):
            await press(pilot, "s", "d")
        assert text(app, "#explanation").startswith(
            "Dead hand: a discard left 10 cards in the stock and nobody knocked.")
        assert "Nobody scores" in text(app, "#explanation")
        await press(pilot, "enter")
        assert app.game is not None
        obs = app.game.observation()
        assert obs.scores == (0, 0) and obs.dealer == 1 and obs.hand_number == 2


async def test_match_end_with_bonuses_and_rematch(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK), rules=STANDARD.with_options(target=10))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s", "k", "enter", "enter")
        assert isinstance(app.screen, MatchEndScreen)
        totals = text(app, "#totals")
        assert "You won" in str(app.screen.query_one(".title", Static).render())
        rows = {line[:28].strip(): line[28:].split() for line in totals.splitlines()}
        assert rows["Points"] == ["14", "0"]
        assert rows["Game bonus"] == ["200", "0"]  # doubled: a shutout
        assert rows["Shutout"] == ["game", "bonus", "doubled"]
        assert rows["Total"] == ["239", "0"]
        await press(pilot, "enter")  # rematch
        assert app.game is not None
        assert app.game.match.scores == [0, 0] and app.game.observation().hand_number == 1


async def test_continue_after_quit(table: Any, deal: Any, storage: Storage) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s")
        assert app.game is not None
        before = app.game.observation()
    saved = storage.load_match()
    assert saved["match"]["hands"][0]["actions"] == [[0, "pass"], [1, "pass"], [0, "stock"]]

    again, _ = table()
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, ConfirmScreen)
        assert "Continue where you stopped?" in again.screen.question
        await press(pilot, "enter")
        assert again.game is not None
        assert again.game.observation() == before
        assert Card.parse("As") in held(again)


async def test_grouping_off_lets_cards_be_rearranged(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bars = app.screen.query("#hand .bar")
        assert sum("━" in str(b.render()) for b in bars) == 9  # three melds, barred
        await press(pilot, "g")
        first = app.screen.query_one("#hand", CardRow).cards
        await pilot.click("#hand #card-Kc")
        await press(pilot, "shift+left", "shift+left")
        after = app.screen.query_one("#hand", CardRow).cards
        i = first.index(Card.parse("Kc"))
        assert after.index(Card.parse("Kc")) == i - 2
        assert sorted(after) == sorted(first)  # type: ignore[type-var]


async def test_hint_highlights_hards_move(table: Any, deal: Any) -> None:
    app, _ = table(deal(*GIN))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s", "h")
        # The whole reason, once: it names the move itself.
        assert text(app, "#prompt") == ("Hint: Gin: throw the K♥ and every card "
                                        "is in a meld (25 bonus, nothing can be laid off).")
        assert app.screen.query_one("#hand #card-Kh", CardView).has_class("-hint")


async def test_a_knock_over_the_limit_is_refused_with_the_reason(table: Any,
                                                                 deal: Any) -> None:
    app, _ = table(deal("2c 5d 8h Jc Ks 3s 6h 9d Qc 4s", KNOCK[1], "Qd", "Ts"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s", "k")
        assert not isinstance(app.screen, ConfirmScreen)
        assert text(app, "#prompt").startswith("You can't knock yet: your best throw leaves ")
        assert text(app, "#prompt").endswith("this hand's knock limit is 10.")


async def test_side_panel_full_screen_keys_and_friend_online(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        online = app.screen.query_one("#mode-online")
        assert not online.disabled and "not yet" not in str(online.render())
        await press(pilot, "f")
        assert not app.screen.query_one("#side").display
        await press(pilot, "f", "question_mark")
        assert "knock or gin" in str(app.screen.query_one(Static).render())
        await press(pilot, "escape", "i")
        assert isinstance(app.screen, HowToPlayScreen)
        assert "their deadwood + 25" in app.screen.text


async def test_a_failed_save_is_reported_and_play_goes_on(
    table: Any, deal: Any, storage: Storage, monkeypatch: Any
) -> None:
    from client.storage import StorageError

    def full(path: Any, data: Any) -> None:
        raise StorageError("Could not save x: the disk is full.")

    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(storage, "write_json", full)
        await press(pilot, "p")
        assert any("disk is full" in str(n.message) for n in app._notifications)
        await press(pilot, "s")
        assert Card.parse("As") in held(app)


# -- snapshots of the main screens -------------------------------------------

SnapCompare = Callable[..., bool]


def test_snapshot_table(snap_compare: SnapCompare, table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_snapshot_knock_result(snap_compare: SnapCompare, table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))

    async def knock(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "p", "s", "k", "enter")

    assert snap_compare(app, terminal_size=SIZE, run_before=knock)


def test_snapshot_match_end(snap_compare: SnapCompare, table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK), rules=STANDARD.with_options(target=10))

    async def finish(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "p", "s", "k", "enter", "enter")

    assert snap_compare(app, terminal_size=SIZE, run_before=finish)


def test_snapshot_how_to_play(snap_compare: SnapCompare, table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))

    async def open_rules(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "i")

    assert snap_compare(app, terminal_size=SIZE, run_before=open_rules)


# -- mouse storms and small terminals ------------------------------------------


def driver_click(app: GinApp, widget: Widget) -> None:
    """Press and release the mouse over ``widget`` as a terminal driver does: the
    events are queued at once, without waiting for the table to catch up."""
    x, y = widget.region.center
    for kind in (events.MouseDown, events.MouseUp):
        app.post_message(kind(None, x, y, 0, 0, 1, False, False, False,
                              screen_x=x, screen_y=y))


async def test_hundreds_of_quick_clicks_on_cards_never_crash(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s")
        first, second, *_ = app.screen.query("#hand CardView").results(CardView)
        for i in range(400):
            driver_click(app, first if i % 2 == 0 else second)
            if i % 4 == 0:
                await asyncio.sleep(0)  # let some land while the row updates
        await settle(pilot)
        # A click can land on a card raised or lowered meanwhile and be lost, so a
        # card may have been thrown; either way the table shows what is held.
        assert sorted(app.screen.query_one("#hand", CardRow).cards) == sorted(held(app))


async def test_a_whole_match_at_80_by_24_by_mouse_and_keys(storage: Storage) -> None:
    """A whole match against the Easy computer at 80×24, every move made with quick
    clicks (the stock, a card, the same card again to throw it, and a stray click
    after) or keys, the moves chosen by an Easy player for the human. (Each turn costs
    Pilot a second or two: the decks of seed 78 end a match to 30 in three hands and
    30 throws, where seed 7 to 40 took five hands and 40.)"""
    app = make_app(AppConfig(storage=storage, vs="easy", rng=random.Random(78), delay=0,
                             offer_resume=False, rules=STANDARD.with_options(target=30)))
    me = players.get("easy", random.Random(1))
    turns = hands = 0
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, MatchEndScreen):
            await settle(pilot)
            if isinstance(app.screen, HandOverScreen):
                hands += 1
                driver_click(app, app.screen.query_one("#close"))
                continue
            game = app.game
            assert game is not None
            legal = game.legal()
            if not legal:
                continue
            action = me.choose(game.observation(), legal)
            if isinstance(action, LayOff):
                await pilot.press("l", "enter")
            elif isinstance(action, Pass):
                driver_click(app, app.screen.query_one("#btn-pass_card"))
            elif isinstance(action, DrawStock):
                driver_click(app, app.screen.query_one("#stock CardView"))
            elif isinstance(action, DrawPile):
                driver_click(app, app.screen.query_one("#discard CardView"))
            elif isinstance(action, Knock):
                await pilot.press("k", "enter")
            elif isinstance(action, Discard):
                view = app.screen.query_one(f"#hand #card-{action.card}")
                if app.selected != action.card:
                    driver_click(app, view)  # select it
                    await asyncio.sleep(0)
                driver_click(app, view)  # throw it
                driver_click(app, view)  # a stray click on the card just thrown
                turns += 1
        await settle(pilot)
        assert isinstance(app.screen, MatchEndScreen)
        assert app.game is not None and app.game.totals is not None
    assert turns >= 30 and hands >= 2, (turns, hands)


async def test_80_by_24_shows_the_whole_hand_the_prompt_and_the_actions(
        table: Any, deal: Any, storage: Storage) -> None:
    for size in ((80, 24), (60, 20)):
        storage.clear_match()
        app, _ = table(deal(*KNOCK))
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await press(pilot, "p", "s")
            screen = app.screen.region
            views = list(app.screen.query("#hand CardView").results(CardView))
            shown = [v for v in views if v.display and v.parent is not None
                     and v.parent.display]
            assert len(shown) == 11
            for widget in (*shown, app.screen.query_one("#prompt"),
                           app.screen.query_one("#btn-discard"),
                           app.screen.query_one("#btn-knock")):
                assert screen.contains_region(widget.region), (size, widget)
                assert widget.region.area > 0, (size, widget)
            assert not app.screen.query_one("#side").display  # it gives the room
            # The scores and the hand number stay in view.
            assert text(app, "#status").startswith("Hand 1 · You 0 – Computer 0")


async def test_below_the_least_size_the_table_says_what_it_needs(
        table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=(50, 15)) as pilot:
        await settle(pilot)
        assert "at least 60×20" in text(app, "#too-small")
        assert "this one is 50×15" in text(app, "#too-small")
        assert not app.screen.query_one("#main").display
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert app.screen.query_one("#main").display
        assert not app.screen.query_one("#too-small").display


def test_snapshot_eleven_cards_at_80_by_24(snap_compare: SnapCompare, table: Any,
                                           deal: Any) -> None:
    app, _ = table(deal(*KNOCK))

    async def draw(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "p", "s")

    assert snap_compare(app, terminal_size=(80, 24), run_before=draw)


def test_snapshot_eleven_cards_at_120_by_40(snap_compare: SnapCompare, table: Any,
                                            deal: Any) -> None:
    app, _ = table(deal(*KNOCK))

    async def draw(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "p", "s")

    assert snap_compare(app, terminal_size=(120, 40), run_before=draw)


# -- choosing the melds: the knocker's and the defender's ----------------------

# Two least-deadwood layouts: A♦2♦3♦ + 4♣–7♣, or 2♥2♠2♦ + 4♣–7♣ (8 loose either way).
TWO_LAYOUTS = ("2h 3d 7c 2s 2d 4c 5c 4s Ad 6c", "5d 9c Jd Jh Js 7d 8d 3h 9h 4h", "Kd", "Ks")


async def test_a_knock_offers_the_computers_layout_then_any_other(
        table: Any, deal: Any) -> None:
    for switch, expected in ((False, "2d 2h 2s"), (True, "Ad 2d 3d")):
        app, _ = table(deal(*TWO_LAYOUTS))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await press(pilot, "p", "s", "k")
            screen = app.screen
            assert isinstance(screen, LayoutScreen) and len(screen.layouts) == 2
            assert "Layout 1 of 2: The computer's choice" in text(app, "#layout-label")
            shown = app.screen.query_one("#row-0", CardRow).cards
            assert shown[:7] == list(parse_cards("4c 5c 6c 7c 2d 2h 2s"))
            if switch:
                await press(pilot, "right")
                assert "Layout 2 of 2: Another way" in text(app, "#layout-label")
            await press(pilot, "enter")
            assert isinstance(app.screen, HandOverScreen)
            assert app.game is not None
            result = app.game.observation().result
            assert result is not None and result.outcome is not None
            melds = {" ".join(str(c) for c in m) for m in result.outcome.knocker_melds}
            assert melds == {"4c 5c 6c 7c", expected}
        app.config.storage.clear_match()  # type: ignore[union-attr]


async def test_laying_off_shows_the_knockers_melds_and_lets_you_choose(
        table: Any, deal: Any) -> None:
    for switch in (False, True):
        app, _ = table(deal(*UNDERCUT), script=["take", "knock Kh"])
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await press(pilot, "p")
            # The knocker's sets and runs, and its loose card, are face up on the
            # table while you lay off, with their count.
            row = app.screen.query_one("#opponent", CardRow).cards
            assert row == list(parse_cards("2c 3c 4c 5d 5h 5s 9d 9h 9s Ad"))
            await press(pilot, "l")
            screen = app.screen
            assert isinstance(screen, LayoutScreen) and len(screen.layouts) > 1
            assert "laying down 3 melds and 1 loose card counting 1" in screen.question
            assert text(app, "#layout-label").endswith(
                "The best: 1 card laid off, 0 loose points left.")
            laid = app.screen.query("#row-0 CardView.-laidoff")
            assert [v.card for v in laid] == [Card.parse("5c")]
            if switch:
                await press(pilot, "right")
                other = text(app, "#layout-label")
            await press(pilot, "enter")
            assert isinstance(app.screen, HandOverScreen)
            assert app.game is not None
            result = app.game.observation().result
            assert result is not None and result.outcome is not None
            if switch:  # a worse layout, chosen on purpose: it is played as chosen
                left = result.outcome.defender_deadwood
                assert left > 0 and f"{left} loose points left" in other
                assert result.kind == "knock"
            else:
                assert result.kind == "undercut"
        app.config.storage.clear_match()  # type: ignore[union-attr]


async def test_a_double_click_on_the_stock_draws_once_and_says_nothing_odd(
        table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        stock = app.screen.query_one("#stock CardView")
        driver_click(app, stock)
        driver_click(app, stock)
        await settle(pilot)
        assert len(held(app)) == 11
        assert text(app, "#prompt").startswith("Throw a card")
