"""Cards that travel on the browser board (issue 22), in Debian's Chromium: a draw
and a throw animate from where the card was to where it goes, nothing moves when
the system asks for reduced motion or the player turns motion off, the other
player's last move stays marked at the pile until the player's next move, and the
table's cards grow with the window.

Every animation the page starts is recorded by a wrapper of ``Element.animate`` put
in the page before its script (RECORDER): a card, its row and the offset it starts
from. What is asserted is what was started, never how far an animation has got.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import Board, saved_match

# Runs in the page before its own script: what each animation moves, and from where.
RECORDER = """
window.__flights = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const first = keyframes[0];
  window.__flights.push({card: this.dataset.card ?? 'back', row: this.closest('[id]').id,
                         translate: first.translate ?? null, scale: first.scale ?? null});
  return animate.call(this, keyframes, options);
};
"""

# The computer (Easy: it passes the upcard and never takes from the pile) and the
# player hold nothing near a knock; the player draws the Q♣, the computer the 3♠.
HANDS = ("2h 5h 8h Js 4c Kc 7d Qs 9h Ad", "5s 6c 7c 8s 9c 9d Ts Jh 2c 3d", "Jd", "Qc 3s 4d")


def recorded(board: Board, query: str) -> Board:
    """The board reloaded with RECORDER in place (the match kept in its storage)."""
    board.page.add_init_script(RECORDER)
    board.page.goto(board.page.url.split("?")[0] + query)
    board.page.wait_for_selector("#hand .card")
    return board


def flights(board: Board) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = board.page.evaluate("window.__flights.splice(0)")
    return found


def settle(board: Board) -> None:
    """Until the animations running have ended (a card's box is then where it lies)."""
    board.page.evaluate(
        "Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))")


def box(board: Board, selector: str) -> tuple[float, float]:
    """Where `selector` lies, its animations over."""
    settle(board)
    b = board.page.locator(selector).bounding_box()
    assert b is not None, selector
    return b["x"], b["y"]


def started_from(flight: dict[str, Any]) -> tuple[float, float]:
    dx, dy = (float(v.removesuffix("px")) for v in flight["translate"].split())
    return dx, dy


def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < 2 and abs(a[1] - b[1]) < 2


def test_a_draw_from_the_pile_and_a_throw_travel_from_where_the_card_was(open_board: Any) -> None:
    board = recorded(open_board("?seed=3&delay=100000", motion=True), "?seed=3&delay=100000")
    page = board.page
    # The deal: each card from the stock, the upcard last.
    dealt = flights(board)
    assert [f["row"] for f in dealt].count("opponent") == 10
    assert [f["row"] for f in dealt].count("hand") == 10
    assert dealt[-1]["row"] == "discard"
    assert page.is_checked("input[name=motion][value=normal]")  # the system's default

    upcard = page.get_attribute("#discard .card", "data-card")
    was = box(board, "#discard .card")
    page.click("#btn-take")
    taken = [f for f in flights(board) if f["card"] == upcard]
    assert taken and taken[0]["row"] == "hand"
    now = box(board, f"#hand .card[data-card='{upcard}']")
    assert near(started_from(taken[0]), (was[0] - now[0], was[1] - now[1])), (taken, was, now)

    thrown = next(c for c in board.hand() if c != upcard)
    page.click(f"#hand .card[data-card='{thrown}']")  # selected: lifted, not a journey
    assert [f for f in flights(board) if f["card"] == thrown] == []
    was = box(board, f"#hand .card[data-card='{thrown}']")
    page.click("#btn-throw")
    moved = [f for f in flights(board) if f["card"] == thrown]
    assert moved and moved[0]["row"] == "discard"
    now = box(board, "#discard .card")
    assert near(started_from(moved[0]), (was[0] - now[0], was[1] - now[1])), (moved, was, now)
    assert int(page.evaluate("document.body.dataset.animations")) >= 23


def test_a_draw_from_the_stock_comes_from_the_stock_and_theirs_goes_to_their_hand(
    open_board: Any,
) -> None:
    board = recorded(open_board("?delay=0", saved=saved_match(*HANDS), motion=True), "?delay=0")
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()  # the computer passed too
    stock = box(board, "#stock .card")
    flights(board)
    page.click("#stock")
    drawn = [f for f in flights(board) if f["card"] == "Qc"]
    assert drawn and drawn[0]["row"] == "hand"
    now = box(board, "#hand .card[data-card='Qc']")
    assert near(started_from(drawn[0]), (stock[0] - now[0], stock[1] - now[1]))
    page.click("#btn-throw")  # the card just drawn is selected
    board.wait_for_player()
    # The computer drew face down (a back from the stock) and threw (from its hand).
    theirs = flights(board)
    assert any(f["card"] == "back" and f["row"] == "opponent" for f in theirs), theirs
    top = page.get_attribute("#discard .card", "data-card")
    assert any(f["card"] == top and f["row"] == "discard" for f in theirs), theirs


def test_nothing_moves_with_reduced_motion_until_the_player_chooses_motion(open_board: Any) -> None:
    board = recorded(open_board("?seed=3&delay=100000"), "?seed=3&delay=100000")
    page = board.page
    assert page.is_checked("input[name=motion][value=off]")  # the system's preference
    page.click("#btn-take")
    thrown = board.hand()[0]
    page.locator("#hand .card").first.click()
    page.click("#btn-throw")
    assert flights(board) == []
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate("document.body.dataset.animations ?? null") is None
    # The player's choice outranks the system's, and is kept with the board's settings.
    page.click("#motion label:has(input[value=fast])")
    page.click("#btn-undo")  # the card thrown comes back from the pile
    back = flights(board)
    assert {f["row"] for f in back} == {"hand"} and thrown in {f["card"] for f in back}, back
    page.reload()
    page.wait_for_selector("#hand .card")
    assert page.is_checked("input[name=motion][value=fast]")


def test_motion_off_is_a_setting(open_board: Any) -> None:
    board = recorded(open_board("?seed=3&delay=100000", motion=True), "?seed=3&delay=100000")
    page = board.page
    page.click("#motion label:has(input[value=off])")
    flights(board)
    page.click("#btn-take")
    page.locator("#hand .card").first.click()
    page.click("#btn-throw")
    assert flights(board) == []


def mark(board: Board) -> dict[str, Any]:
    """What the pile shows of the computer's last move."""
    found: dict[str, Any] = board.page.evaluate("""() => ({
        marked: [...document.querySelectorAll('#table .card.marked')].map((c) => c.dataset.card),
        badges: [...document.querySelectorAll('#table .badge:not([hidden])')]
            .map((b) => b.id + ': ' + b.textContent),
        label: document.querySelector('#discard').getAttribute('aria-label'),
        top: document.querySelector('#discard .card')?.dataset.card ?? null,
    })""")
    return found


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 640)])
def test_the_computers_last_throw_is_marked_at_the_pile_until_the_next_move(
    open_board: Any, axe: Any, artifacts: Path, width: int, height: int
) -> None:
    board = open_board("?delay=0", saved=saved_match(*HANDS), width=width, height=height)
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    # It passed on the upcard: said at the pile, the upcard marked.
    shown = mark(board)
    assert shown["marked"] == ["Jd"] and shown["badges"] == ["discard-mark: Computer passed"], shown
    page.click("#stock")
    assert mark(board)["marked"] == [] and mark(board)["badges"] == []
    page.click("#btn-throw")  # the Q♣
    board.wait_for_player()
    shown = mark(board)
    thrown = shown["top"]
    said = page.inner_text("#log li:last-child")
    glyph = said.removeprefix("The computer threw the ").removesuffix(".")
    assert thrown != "Qc" and shown["marked"] == [thrown], shown
    assert shown["badges"] == ["discard-mark: Computer threw"]
    assert f"on top. The computer threw the {glyph}: take it" in shown["label"], shown
    page.screenshot(path=str(artifacts / f"last-throw-marked-{width}x{height}.png"))
    axe(page, f"the computer's throw marked at the pile, {width}x{height}")
    # The player's move clears it; the computer's next throw is marked in its turn.
    page.click("#stock")
    shown = mark(board)
    assert shown["marked"] == [] and shown["badges"] == [] and "threw" not in shown["label"], shown
    page.click("#btn-throw")
    board.wait_for_player()
    again = mark(board)
    assert again["marked"] == [again["top"]] and again["top"] != thrown, again


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1024, 768), (1920, 1080)])
def test_the_cards_grow_with_the_window_and_the_table_fits_it(
    open_board: Any, artifacts: Path, width: int, height: int
) -> None:
    board = open_board("?seed=3&delay=100000", width=width, height=height)
    page = board.page
    page.click("#btn-take")  # 11 cards, the most a hand holds
    page.screenshot(path=str(artifacts / f"table-{width}x{height}.png"))
    cards = page.eval_on_selector_all("#hand .card", """cs => cs.map((c) => {
        const b = c.getBoundingClientRect(); return [b.top, b.bottom, b.right, b.height]; })""")
    # 15% of the window's height (a desktop's cards were 112 pixels tall at most, 14%
    # of 800), the whole hand in one line, and the buttons in the window.
    assert all(h >= 0.15 * height for *_, h in cards), cards
    assert len({round(top) for top, *_ in cards}) == 1, cards
    assert max(right for _, _, right, _ in cards) <= page.locator("#table").bounding_box()["width"]
    actions = page.locator("#actions").bounding_box()
    assert actions["y"] + actions["height"] <= height


def test_their_cards_turn_face_up_and_their_lay_off_travels_at_the_hands_end(
    open_board: Any,
) -> None:
    # The player knocks with the fours and the kings; the computer lays off its 4♦.
    saved = saved_match("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh",
                        "Jd", "Qc")
    board = recorded(open_board("?delay=0", saved=saved, motion=True), "?delay=0")
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    page.click("#stock")
    page.keyboard.press("k")
    flights(board)
    theirs = box(board, "#opponent .card:last-child")
    page.click("#dialog-buttons .primary")  # knock with 6
    page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    moved = flights(board)
    turned = [f["card"] for f in moved if f["scale"] == "0 1"]
    # Its nine cards left turn face up on the table, and again in the hand's end window.
    left = ["5h", "9c", "9d", "9s", "6c", "7d", "8s", "Ts", "Jh"]
    assert sorted(turned) == sorted(2 * left), moved
    laid = [f for f in moved if f["card"] == "4d"]
    assert laid and laid[0]["row"] == "hand", moved
    now = box(board, "#hand .card[data-card='4d']")
    from_theirs = (theirs[0] - now[0], theirs[1] - now[1])
    assert near(started_from(laid[0]), from_theirs), (laid, theirs, now)
