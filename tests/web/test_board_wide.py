"""The board at a desktop's size (issue 28 item 24), in Debian's Chromium: the hand
spreads over the table's width rather than piling its cards up, online the buttons
stay above the window's bottom edge, a card laid off shows its badge whole, and the
badge of the computer's last move leaves the card on its slot clear (as on a phone);
on a phone on its side (640×360) the log's lines are whole, none cut at the top, and the
computer's melds laid out leave it room."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import saved_match
from tests.web.test_online_board import (  # noqa: F401 (fixtures of that module)
    fake_board,
    host,
    open_page,
    site,
)
from tests.web.test_touch import in_view

SPAN = """() => { const hand = document.querySelector('#hand').getBoundingClientRect();
    const cards = [...document.querySelectorAll('#hand .card')]
        .map((c) => c.getBoundingClientRect());
    return [hand.left, hand.right, Math.min(...cards.map((c) => c.left)),
            Math.max(...cards.map((c) => c.right))]; }"""


def test_the_hand_spreads_over_the_width_at_1280_by_800(open_board: Any) -> None:
    board = open_board("?seed=4&delay=0", width=1280, height=800)
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        board.page.click("#stock")
    assert len(board.hand()) == 11
    left, right, first, last = board.page.evaluate(SPAN)
    # Before: 656 of 942 px, each card 58% under the next; now the width is used, all in it.
    assert first >= left and last <= right
    assert last - first >= 0.95 * (right - left), (left, right, first, last)


def test_online_the_buttons_stay_above_the_bottom_edge(open_page: Any) -> None:  # noqa: F811
    page = open_page(width=1280, height=800)
    host(page)
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    page.page.wait_for_selector("#actions button:visible")
    bottom = page.page.evaluate("document.querySelector('#actions').getBoundingClientRect().bottom")
    assert bottom <= 800 - 12, bottom  # it was 806: past the edge


# The shown badges of the computer's last move that overlap the card on their slot.
COVERING = """() => [...document.querySelectorAll('.slot-box > .badge')]
    .filter((badge) => !badge.hidden && badge.parentElement.querySelector('.card') !== null)
    .filter((badge) => {
        const b = badge.getBoundingClientRect();
        const c = badge.parentElement.querySelector('.card').getBoundingClientRect();
        return b.right > c.left && b.left < c.right && b.bottom > c.top && b.top < c.bottom; })
    .map((badge) => badge.textContent)"""


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (768, 1024)])
def test_the_computers_last_move_leaves_the_card_on_its_slot_clear(
        open_board: Any, width: int, height: int) -> None:
    board = open_board("?seed=4&delay=0", width=width, height=height)
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    covering = [page.inner_text("#discard-mark"), page.evaluate(COVERING)]
    # The player draws and throws: the computer's next move is marked at its slot.
    page.click("#stock")
    page.click("#btn-throw")
    board.wait_for_player()
    page.wait_for_selector("#stock-mark:not([hidden]), #discard-mark:not([hidden])")
    covering.append(page.evaluate(COVERING))
    # Before: ['Computer passed', ['Computer passed'], ...], over the 5♥'s foot.
    assert covering == ["Computer passed", [], []]


def computer_knocks(open_board: Any, width: int, height: int) -> Any:
    """A board where the computer (Easy) knocks at once, its melds laid out for the
    player to lay the 5♣, the 6♥ and the 10♥ off onto."""
    saved = saved_match("5c 6h Th Jc Qc Kh 9s 9d 2s 3s", "2c 3c 4c 5d 5h 5s 7h 8h 9h Ad",
                        "Qd", "8d 8c")
    board = open_board("?delay=0", saved=saved, width=width, height=height)
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        board.page.click("#stock")
        board.page.click("#btn-throw")
        board.wait_for_player()
    return board


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 640), (640, 360)])
def test_a_laid_off_card_shows_its_badge_whole(open_board: Any, width: int, height: int) -> None:
    board = computer_knocks(open_board, width, height)
    board.page.keyboard.press("l")
    board.page.wait_for_selector("dialog[open]")
    # Each laid-off card's right edge (its badge's end) is not under the next card.
    covered = board.page.evaluate("""() => [...document.querySelectorAll('#dialog-body .card.laid')]
        .filter((c) => c.nextElementSibling !== null
            && c.nextElementSibling.getBoundingClientRect().left < c.getBoundingClientRect().right)
        .map((c) => c.dataset.card)""")
    assert covered == []


CUT = """() => { const log = document.querySelector('#log').getBoundingClientRect();
    return [...document.querySelectorAll('#log li')].filter((li) => li.getClientRects().length)
        .filter((li) => li.getBoundingClientRect().top < log.top - 0.5)
        .map((li) => li.textContent); }"""


def test_on_a_phone_on_its_side_the_logs_lines_are_whole(open_board: Any) -> None:
    board = open_board("?seed=1&delay=0", width=640, height=360)
    page = board.page
    cut: list[list[str]] = []
    for _ in range(5):  # pass, then draw and throw: the computer answers each time
        board.wait_for_player()
        if page.evaluate("document.querySelector('dialog').open"):
            break
        if board.visible("#btn-pass"):
            page.click("#btn-pass")
        else:
            page.click("#stock")
            page.click("#btn-throw")
        page.wait_for_selector("#stock-mark:not([hidden]), #discard-mark:not([hidden])")
        cut.append(page.evaluate(CUT))
    assert len(cut) == 5 and not any(cut), cut  # a line half shown at the top, before


def test_on_a_phone_on_its_side_the_log_is_not_squeezed_by_the_computers_melds(
        open_board: Any) -> None:
    board = computer_knocks(open_board, 640, 360)
    page = board.page
    assert page.locator("#opponent .meld").count() == 3  # laid out, wider than its backs
    log = page.evaluate("document.querySelector('#log').getBoundingClientRect().toJSON()")
    # Before: 80 px wide (its least), a word or two a line, past the screen's edge (641),
    # its oldest line cut at the top.
    assert log["width"] >= 160 and log["right"] <= 640, log
    assert page.locator("#log li:visible").all_inner_texts() == [
        "The computer drew from the stock.", "The computer knocked."]
    assert page.evaluate(CUT) == []
    assert in_view(page, 640, 360) == []  # the hand, the prompt and the buttons still fit
