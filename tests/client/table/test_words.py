"""The table's words: names mid-sentence, the status line, How to play, the end of
a match, the card just taken without colour, and flags against a saved match."""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.storage import Storage
from client.table import words
from client.table.app import make_app
from client.table.cardview import CardView
from client.table.config import AppConfig
from client.table.screens import ConfirmScreen, HandOverScreen, MatchEndScreen
from gin import Match, parse_action, parse_cards
from gin.engine.hand import stacked_deck
from gin.engine.rules import OKLAHOMA, STANDARD
from tests.client.conftest import ScriptedOpponent, fixed_decks
from tests.client.table.test_app import KNOCK, SIZE, UNDERCUT, press, settle, text


def test_the_computer_is_lower_case_mid_sentence() -> None:
    match = Match(STANDARD, first_dealer=1)
    human, computer, up = (parse_cards(x) for x in UNDERCUT)
    match.deal(stacked_deck(human, computer, up[0], []))
    for player, action in ((0, "pass"), (1, "take"), (1, "knock Kh"), (0, "layoff")):
        match.apply(player, parse_action(action))
    # Seen from the knocker's seat, the other player is named mid-sentence.
    explained = words.explain_result(match.observation(1), "Your friend")
    assert "; your friend was left with 0" in explained
    assert explained.endswith("= 26 to your friend.")
    explained = words.explain_result(match.observation(0))
    assert explained.endswith("= 26 to you.")
    assert "The computer knocked with 1; you were left with 0" in explained


def test_points_to_the_computer_read_lower_case() -> None:
    match = Match(STANDARD, first_dealer=0)  # the computer (seat 1) is offered the upcard
    knocker, other, up = (parse_cards(x) for x in KNOCK[:3])
    match.deal(stacked_deck(knocker, other, up[0], parse_cards("As")))
    for player, action in ((1, "pass"), (0, "pass"), (1, "stock"), (1, "knock Kc"),
                           (0, "layoff")):
        match.apply(player, parse_action(action))
    explained = words.explain_result(match.observation(0))
    assert explained.endswith("15 − 1 = 14 to the computer.")


def test_the_log_names_the_cards_laid_off_or_says_there_were_none() -> None:
    # Issue 21 item 13: "The computer laid off onto your melds" when it laid off nothing.
    lines = {}
    for case, computer in (("some", KNOCK[1]), ("none", "6c Td Jd Jh Js 7d 8d 2h 3h Qs")):
        match = Match(STANDARD, first_dealer=1)
        knocker, _, up = (parse_cards(x) for x in KNOCK[:3])
        match.deal(stacked_deck(knocker, parse_cards(computer), up[0], parse_cards("As")))
        for player, action in ((0, "pass"), (1, "pass"), (0, "stock"), (0, "knock Kc"),
                               (1, "layoff")):
            match.apply(player, parse_action(action))
        lines[case] = words.log_lines(match.observation(0))[-1]
    assert lines == {"some": "The computer laid off 5♣ 9♣ onto your melds.",
                     "none": "The computer had nothing to lay off."}


def test_status_says_who_dealt_and_this_hands_knock_limit() -> None:
    match = Match(OKLAHOMA, first_dealer=1)
    human, computer, _ = (parse_cards(x) for x in KNOCK[:3])
    match.deal(stacked_deck(human, computer, parse_cards("7s")[0], []))
    line = words.status(match.observation(0))
    assert line == ("Hand 1 · You 0 – Computer 0 (to 100) · the computer dealt · "
                    "knock at 7 or less (the upcard)")
    assert "· you dealt ·" in words.status(match.observation(1))
    ace = Match(OKLAHOMA, first_dealer=0)
    ace.deal(stacked_deck(human, computer, parse_cards("Ad")[0], []))
    assert words.status(ace.observation(0)).endswith("gin only (an ace upcard)")


def test_how_to_play_explains_the_computer_and_the_fair_shuffle() -> None:
    text = words.how_to_play(STANDARD)
    for needed in ("**Easy** always draws from the stock", "**Normal**", "**Hard**",
                   "30 hands", "sees exactly what you would see", "commits to it",
                   "both seeds are\nrevealed", "never sees a card", "deck verified"):
        assert needed in text, needed
    # Only keys that work are named: lower case f, not F.
    assert "**F**" not in text and "**f**" in text


@pytest.mark.slow
async def test_no_next_hand_when_the_match_is_over(table: Any, deal: Any) -> None:
    app, _ = table(deal(*KNOCK), rules=STANDARD.with_options(target=10))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p", "s", "k", "enter")
        assert isinstance(app.screen, HandOverScreen)
        label = str(app.screen.query_one("#close").label)  # type: ignore[attr-defined]
        assert label == "The final score"
        await press(pilot, "enter")
        assert isinstance(app.screen, MatchEndScreen)


@pytest.mark.slow
async def test_the_card_just_taken_has_a_border_of_its_own(table: Any, deal: Any) -> None:
    app, _ = table(deal("2c 3c 4c 5d 5h 5s 9s 9h 9d Kc", "6c 8c Jd Jh Js 7d 8d 2h 3h 4h",
                        "9c"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "t")
        taken = app.screen.query_one("#hand #card-9c", CardView)
        other = app.screen.query_one("#hand #card-Kc", CardView)
        # With NO_COLOR the dimmed face alone looks like any card: the border differs.
        assert taken.styles.border_top[0] == "ascii"
        assert other.styles.border_top[0] != "ascii"
        assert "square border" in words.how_to_play(STANDARD)


@pytest.mark.slow
async def test_flags_against_a_saved_match_ask_which_to_play(storage: Storage) -> None:
    def build(**options: Any) -> Any:
        opponent = ScriptedOpponent()
        return make_app(AppConfig(storage=storage, rng=random.Random(7),
                                  make_opponent=lambda _s, _r: opponent,
                                  deck_source=fixed_decks(), delay=0, **options))

    first = build()
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p")
    asked = build(vs="hard", rules=STANDARD.with_options(target=50), chosen=True)
    async with asked.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(asked.screen, ConfirmScreen)
        assert "You asked for a hard computer" in asked.screen.question
        assert asked.screen.no == "New match (hard, custom)"
        await press(pilot, "n")
        assert asked.game is not None
        assert asked.game.vs == "hard" and asked.game.rules.target == 50
        assert text(asked, "#status").startswith("Hand 1 · You 0 – Computer 0 (to 50)")


def test_a_long_wait_is_said_in_hours() -> None:
    # Issue 28: the grace question said "3487 min" where hours were meant.
    since = 1_796_198_400.0
    assert "(5 min 5 s)" in words.grace_question("seed", since, since + 305)
    asked = words.grace_question("move", since, since + 3487 * 60)
    assert "(about 58 hours)" in asked and " min" not in asked
    assert words.how_long(3600) == "about 1 hour"
