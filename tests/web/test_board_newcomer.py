"""What a newcomer met on the browser board (issue 21), in Debian's Chromium: How to
play describing the computer as the terminal does, a log that says a lay-off only
when there was one, and arrow keys that select cards wherever the focus is.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from client.ui import words
from gin import PRESETS
from tests.web.conftest import Board, saved_match

# The player knocks (after drawing the Q♣) holding the fours and the kings; the
# computer (Easy: it passes the upcard and never takes from the pile) holds the 4♦,
# which fits the fours, or in the second deal nothing that fits.
KNOCK_HANDS = {
    "lays off the 4♦": ("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh"),
    "has nothing to lay off": ("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5s 6c 7d 8s 9c 9d Ts Jh 2c 3d"),
}


def draw_from_the_stock(board: Board) -> None:
    """Pass the upcard and draw: the player holds 11 cards."""
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        board.page.click("#stock")
    assert len(board.hand()) == 11


def terminal_paragraphs(title: str) -> list[str]:
    """A section of the terminal's How to play (Markdown) as plain paragraphs, one per
    paragraph or list item."""
    text = words.how_to_play(PRESETS["standard"])
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    paragraphs = []
    for block in section.strip().split("\n\n"):
        for item in re.split(r"^- ", block, flags=re.MULTILINE):
            if item.strip():
                paragraphs.append(" ".join(item.replace("**", "").split()))
    return paragraphs


def test_how_to_play_describes_the_computer_in_the_terminals_words(open_board: Any) -> None:
    # The board said Hard "takes a knock as soon as one is there"; it weighs each knock.
    board = open_board("?seed=2&delay=0")
    board.page.keyboard.press("i")
    shown = board.page.evaluate("""() => {
        const heading = [...document.querySelectorAll('#dialog-body h3')]
            .find((h) => h.textContent === 'How the computer plays');
        const paragraphs = [];
        for (let e = heading.nextElementSibling; e && e.tagName === 'P'; e = e.nextElementSibling) {
            paragraphs.push(e.textContent.split(/\\s+/).join(' ').trim());
        }
        return paragraphs;
    }""")
    assert shown == terminal_paragraphs("How the computer plays")
    assert not any("as soon as" in p for p in shown)


@pytest.mark.parametrize("case", list(KNOCK_HANDS))
def test_the_log_says_a_lay_off_only_when_there_was_one(open_board: Any, case: str) -> None:
    mine, theirs = KNOCK_HANDS[case]
    board = open_board("?delay=0", saved=saved_match(mine, theirs, "Jd", "Qc"))
    draw_from_the_stock(board)
    board.page.keyboard.press("k")
    board.page.click("#dialog-buttons .primary")  # knock with 6: the fours and the kings
    board.page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    body = board.page.inner_text("#dialog-body")
    board.page.keyboard.press("Escape")
    log = board.page.inner_text("#log")
    if case == "lays off the 4♦":
        assert "after laying off 1 card" in body
        assert "The computer laid off 4♦ onto your melds." in log
    else:
        assert "laying off" not in body
        assert "laid off" not in log
        assert "The computer had nothing to lay off." in log


def test_arrows_select_cards_after_a_setting_is_clicked(open_board: Any) -> None:
    board = open_board("?seed=4&delay=0")
    page = board.page
    page.click("#strength input[value=normal]")  # the strength in play: the radio has the focus
    page.keyboard.press("ArrowRight")
    assert page.is_checked("#strength input[value=normal]")
    assert "Computer (normal)" in page.inner_text("#opponent-label")
    assert page.evaluate("document.activeElement.dataset.card ?? null") == board.hand()[0]
    # ↑ ↓ do not go on changing a choice made with the mouse either.
    page.click("#strength label:has(input[value=easy])")
    assert page.is_checked("#strength input[value=easy]")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert page.is_checked("#strength input[value=easy]")
    # The rules: ← selects the last card; no "Start a new match …?" window.
    page.click("#rules input[value=standard]")
    page.keyboard.press("ArrowLeft")
    assert not page.evaluate("document.querySelector('dialog').open")
    assert page.is_checked("#rules input[value=standard]")
    assert page.evaluate("document.activeElement.dataset.card ?? null") == board.hand()[-1]
    # A keyboard user still chooses with ↑ ↓ on a radio reached with Tab.
    page.focus("#strength input[value=easy]")
    page.keyboard.press("ArrowDown")
    assert page.is_checked("#strength input[value=normal]")
    assert "Computer (normal)" in page.inner_text("#opponent-label")
