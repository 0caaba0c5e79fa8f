"""axe-core on the browser board, in Debian's Chromium: the table and each of its
windows, on a desktop and a phone, with no serious or critical violation (the
online screens are checked in test_online_board.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import saved_match

SIZES = [(1280, 800), (360, 640)]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_table_passes_axe(open_board: Any, axe: Any, width: int, height: int) -> None:
    board = open_board("?seed=3&delay=5000", width=width, height=height)  # the computer waits
    page = board.page
    axe(page, f"the table, the upcard offered, {width}x{height}")
    page.click("#btn-take")  # 11 cards, the one just taken greyed
    assert len(board.hand()) == 11
    axe(page, f"the table, 11 cards, {width}x{height}")
    # Each card button's name starts with what its corner shows (label in name).
    names = page.eval_on_selector_all("#hand .card", """cs => cs.map(
        c => [c.querySelector('.corner').textContent, c.getAttribute('aria-label')])""")
    assert all(name.startswith(f"{corner}, ") for corner, name in names), names
    page.keyboard.press("h")
    page.wait_for_function(
        "() => /^Hint: (?!thinking)/.test(document.querySelector('#prompt').textContent)")
    axe(page, f"the table with a hint, {width}x{height}")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_windows_pass_axe(open_board: Any, axe: Any, width: int, height: int) -> None:
    saved = saved_match("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh",
                        "Jd", "Qc")
    # House rules: the first hand won ends the match, so its window comes too.
    for rules in (saved["match"]["rules"], *(h["rules"] for h in saved["match"]["hands"])):
        rules.update(name="quick", target=10)
    board = open_board("?delay=0", width=width, height=height, saved=saved)
    page = board.page
    for key, title in (("i", "How to play"), ("?", "Keys"), ("v", "The discard pile"),
                       ("n", "New match")):
        page.keyboard.press(key)
        assert page.inner_text("#dialog-title") == title
        axe(page, f"the window {title!r}, {width}x{height}")
        page.keyboard.press("Escape")
    page.click("#btn-pass")
    board.wait_for_player()
    page.click("#stock")
    page.keyboard.press("k")
    assert page.inner_text("#dialog-title") == "Knock"
    axe(page, f"the knock window, {width}x{height}")
    page.click("#dialog-buttons .primary")
    page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    axe(page, f"the hand's end, {width}x{height}")
    page.click("#dialog-buttons .primary")
    assert page.inner_text("#dialog-title") == "You win the match"
    axe(page, f"the match's end, {width}x{height}")
    page.keyboard.press("Escape")
    axe(page, f"the table after the match, {width}x{height}")
