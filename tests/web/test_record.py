"""Your record on the board (client/web/src/board/record.ts, recordview.ts): the
side's panel counts the matches finished in the page, its window lists them by
opponent, and a damaged record is set aside and said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.web.conftest import CSP_WATCH, SAVE_KEY, Board, saved_match

RECORD_KEY = "gin.board.record"


def quick_match() -> dict[str, Any]:
    """A match to 10 whose first hand the player wins by knocking (see test_board.py)."""
    saved = saved_match("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh",
                        "Jd", "Qc")
    for rules in (saved["match"]["rules"], *(h["rules"] for h in saved["match"]["hands"])):
        rules.update(name="quick", target=10)
    return saved


def knock_to_the_end(board: Board) -> None:
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    page.click("#stock")
    page.keyboard.press("k")
    page.click("#dialog-buttons .primary")  # knock
    page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    page.click("#dialog-buttons .primary")
    assert page.inner_text("#dialog-title") == "You win the match"
    page.click("#dialog-buttons button:not(.primary)")  # close


def matches_counted(board: Board) -> int:
    return int(board.page.get_attribute("#record", "data-matches") or "-1")


def test_the_record_panel_counts_the_matches_finished_in_the_page(open_board: Any,
                                                                  artifacts: Path) -> None:
    board = open_board("?delay=0", saved=quick_match())
    page = board.page
    assert matches_counted(board) == 0
    assert page.inner_text("#record-summary") == "No finished matches yet."
    knock_to_the_end(board)
    assert matches_counted(board) == 1
    assert page.inner_text("#record-summary") == "1 of 1 matches won; longest run of wins 1."
    # A second match, from another saved position, after a reload: the record stays.
    page.evaluate(f"localStorage.setItem({json.dumps(SAVE_KEY)}, "
                  f"{json.dumps(json.dumps(quick_match()))})")
    page.reload()
    page.wait_for_selector("#hand .card")
    assert matches_counted(board) == 1
    knock_to_the_end(board)
    assert matches_counted(board) == 2
    assert page.inner_text("#record-summary") == "2 of 2 matches won; longest run of wins 2."
    page.click("#btn-record")
    assert page.inner_text("#dialog-title") == "Your record"
    rows = page.eval_on_selector_all(
        "#record-table tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))")
    head, *body = rows
    assert head[1:] == ["All matches", "Computer (easy)"]
    easy = {row[0]: row[2] for row in body}
    assert (easy["Matches"], easy["Matches won"], easy["Hands"], easy["Hands won"],
            easy["Won by knocking"], easy["Won by gin"], easy["Box points"],
            easy["Longest run of wins"]) == ("2", "2", "2", "2", "2", "0", "50", "2")
    stored = json.loads(page.evaluate(f"localStorage.getItem({json.dumps(RECORD_KEY)})"))
    assert [m["opponent"] for m in stored["matches"]] == ["computer:easy", "computer:easy"]
    page.screenshot(path=str(artifacts / "record-window-1280x800.png"))
    page.set_viewport_size({"width": 360, "height": 640})
    page.screenshot(path=str(artifacts / "record-window-360x640.png"))
    page.keyboard.press("Escape")
    page.locator("#record").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "record-panel-360x640.png"))


def test_a_damaged_record_is_set_aside_and_said(browser: Any, relay_url: str) -> None:
    context = browser.new_context()
    try:
        context.add_init_script(CSP_WATCH)
        context.add_init_script(
            "if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1');"
            f" localStorage.setItem('{RECORD_KEY}', '{{\"format\": 1, \"matches\": 3}}');}}")
        board = Board(context.new_page())
        board.page.goto(relay_url + "?delay=0")
        board.page.wait_for_selector("dialog[open]")
        assert board.page.inner_text("#dialog-title") == "Your record"
        assert "was damaged (it has no list of matches)" in board.page.inner_text("#dialog-body")
        assert board.page.evaluate(f"localStorage.getItem('{RECORD_KEY}.damaged')") \
            == '{"format": 1, "matches": 3}'
        board.page.keyboard.press("Escape")
        assert matches_counted(board) == 0
        board.page.reload()
        board.page.wait_for_selector("#hand .card")
        assert not board.page.evaluate("document.querySelector('dialog').open")
        board.check_clean()
    finally:
        context.close()
