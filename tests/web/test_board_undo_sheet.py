"""The board's undo (a throw taken back while the computer has not moved) and its
score sheet (every hand of the match, its running totals the same as gin's own
score sheet computes from the saved match)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from client.table import words
from client.table.scoresheet import score_sheet
from gin import Match
from tests.web.conftest import HAND_END_TITLES, SAVE_KEY, play_out

CARDS = "cs => cs.map(c => c.dataset.card)"


def position(page: Any) -> dict[str, Any]:
    return {
        "hand": sorted(page.eval_on_selector_all("#hand .card", CARDS)),
        "pile": page.eval_on_selector_all("#discard .card", CARDS),
        "saved": json.loads(page.evaluate(f"localStorage.getItem({json.dumps(SAVE_KEY)})")),
    }


def test_undo_restores_the_position_before_the_computer_moves(open_board: Any,
                                                              artifacts: Path) -> None:
    board = open_board("?seed=3&delay=60000")  # the computer waits a minute before it looks
    page = board.page
    page.click("#btn-take")
    before = position(page)
    assert page.is_visible("#btn-undo") and page.is_disabled("#btn-undo")
    thrown = page.locator("#hand .card:not(.dim)").first
    card = thrown.get_attribute("data-card")
    thrown.click()
    thrown.click()
    assert card not in board.hand() and page.is_enabled("#btn-undo")
    page.screenshot(path=str(artifacts / "undo-1280.png"))
    page.click("#btn-undo")
    assert position(page) == before  # the card back in hand, the pile and the save as before
    assert "taken back" in board.prompt() and page.is_disabled("#btn-undo")
    assert page.is_visible("#btn-throw")
    # The key does it too.
    page.keyboard.press("d")  # the card taken back is selected: thrown again
    assert card not in board.hand()
    page.keyboard.press("u")
    assert position(page) == before


def test_no_undo_once_the_computer_moved(open_board: Any) -> None:
    board = open_board("?seed=3&delay=0")
    page = board.page
    page.click("#btn-take")
    thrown = page.locator("#hand .card:not(.dim)").first
    card = thrown.get_attribute("data-card")
    thrown.click()
    thrown.click()
    board.wait_for_player()
    assert page.is_disabled("#btn-undo")
    page.keyboard.press("u")
    assert card not in board.hand()
    assert "Nothing to take back" in board.prompt()
    assert "u" in page.evaluate("[...document.querySelectorAll('#btn-undo')]"
                                ".map(b => b.getAttribute('aria-keyshortcuts')).join()")


def test_the_score_sheet_lists_every_hand(open_board: Any, artifacts: Path) -> None:
    board = open_board("?seed=11&delay=0")
    page = board.page
    page.click("#strength input[value=easy]")
    page.click("#btn-sheet")
    assert "No hand has finished yet" in page.inner_text("#dialog-body")
    page.keyboard.press("Escape")
    for _ in range(2):  # (seed 11's third hand ends dead on a throw, which play_out mis-clicks)
        title = play_out(board, keys=False)
        assert title in HAND_END_TITLES, (title, page.inner_text("#dialog-body"))
        page.click("#dialog-buttons .primary")  # the next hand
        board.wait_for_player()
    page.keyboard.press("c")
    page.wait_for_selector("#sheet")
    cells = page.eval_on_selector_all(
        "#sheet tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    saved = json.loads(page.evaluate(f"localStorage.getItem({json.dumps(SAVE_KEY)})"))
    expected = words.sheet_rows(score_sheet(Match.from_dict(saved["match"]).results))
    assert len(cells) == 2 and [tuple(row) for row in cells] == expected
    page.screenshot(path=str(artifacts / "score-sheet-1280.png"))


def test_undo_and_the_sheet_on_a_phone(open_board: Any, artifacts: Path) -> None:
    board = open_board("?seed=3&delay=60000", width=360, height=640)
    page = board.page
    page.click("#btn-take")
    before = position(page)
    thrown = page.locator("#hand .card:not(.dim)").first
    thrown.click()
    thrown.click()
    page.locator("#btn-undo").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "undo-360.png"))
    page.click("#btn-undo")
    assert position(page) == before
    page.click("#btn-sheet")
    assert "No hand has finished yet" in page.inner_text("#dialog-body")
    page.screenshot(path=str(artifacts / "score-sheet-360.png"))


def test_the_player_sets_how_long_the_computer_waits(open_board: Any) -> None:
    """The undo's window is the player's to set (0.7, 2 or 5 s), kept with the board's
    settings; online the choice is hidden (there is no undo)."""
    board = open_board("?seed=3")  # no ?delay: the player's setting counts
    page = board.page
    assert page.is_checked("#pause input[value='700']")
    page.check("#pause input[value='5000']")
    page.click("#btn-take")
    before = position(page)
    thrown = page.locator("#hand .card:not(.dim)").first
    thrown.click()
    thrown.click()
    page.wait_for_timeout(1500)  # past the 0.7 s default: the computer has not looked yet
    assert page.is_enabled("#btn-undo")
    page.click("#btn-undo")
    assert position(page) == before
    prefs = json.loads(page.evaluate("localStorage.getItem('gin.board.prefs')"))
    assert prefs["pause"] == 5000
    page.reload()
    assert page.is_checked("#pause input[value='5000']")
