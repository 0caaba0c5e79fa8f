"""The board's words (issue 21, items 13, 14 and 16), in Debian's Chromium: a gin is
called a gin, a hint names its cards as the board shows them, custom rules offered
to a guest mark what differs from the preset and the target on offer is shown, and
the hint is off in an online match against a person."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import saved_match
from tests.web.test_board_newcomer import draw_from_the_stock

# The player draws the T♠ and goes gin, throwing the K♥.
GIN = ("Ac 2c 3c 4d 4h 4s 7s 8s 9s Kh", "5c 9c Jd Jh Js 7d 8d 2h 3h 5h", "Qd", "Ts")


def test_a_gin_is_called_a_gin(open_board: Any) -> None:
    # It was headed "You knocked" in a window titled "Knock".
    board = open_board("?delay=0", saved=saved_match(*GIN))
    draw_from_the_stock(board)
    board.page.keyboard.press("k")
    assert board.page.inner_text("#dialog-title") == "Gin"
    assert board.page.inner_text("#dialog-buttons .primary") == "Gin!"
    board.page.click("#dialog-buttons .primary")
    board.page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    headings = board.page.locator("#dialog-body h3").all_inner_texts()
    assert headings[0] == "You went gin"
    assert "knocked" not in board.page.inner_text("#dialog-body")


def test_a_hint_names_its_cards_as_the_board_shows_them(open_board: Any) -> None:
    # It said "Take the nine of diamonds: it completes 9c 9d 9h."
    saved = saved_match("9c 9h 2s 4h 6d 8c Jc Qd Ks Ah", "5c 6c Jd Jh Js 7d 8d 2h 3h 5h", "9d")
    board = open_board("?delay=0", saved=saved)
    board.page.keyboard.press("h")
    board.page.wait_for_function(
        "() => /^Hint: (?!thinking)/.test(document.querySelector('#prompt').textContent)")
    # Said once (issue 28): it said "Hint: take the discard — Take the 9♦: …".
    assert board.prompt() == "Hint: Take the 9♦: it completes 9♣ 9♦ 9♥."
