"""What a newcomer met on the browser board (issue 21), in Debian's Chromium: How to
play describing the computer as the terminal does, a log that says a lay-off only
when there was one, arrow keys that select cards wherever the focus is, a phone on
its side showing the hand and its buttons, full screen keeping the scores, a
dragged card following the pointer, and the host window's addresses shown whole.

Screenshots go to tests/web/artifacts for people to look at.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from client.table import words
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


def in_view(board: Board, selector: str, width: int, height: int) -> None:
    """Every visible element of `selector` lies inside the window, the page unscrolled."""
    boxes = board.page.evaluate("""(selector) => [...document.querySelectorAll(selector)]
        .filter((e) => e.offsetParent !== null)
        .map((e) => { const b = e.getBoundingClientRect();
                      return [b.left, b.top, b.right, b.bottom]; })""", selector)
    assert boxes, selector
    for left, top, right, bottom in boxes:
        assert left >= 0 and right <= width and top >= 0 and bottom <= height, (selector, boxes)


@pytest.mark.parametrize("full", [False, True])
def test_a_phone_on_its_side_shows_the_hand_the_prompt_and_the_buttons(
    open_board: Any, artifacts: Path, full: bool
) -> None:
    width, height = 640, 360
    saved = saved_match("5c 6h Th Jc Qc Kh 9s 9d 2s 3s", "2c 3c 4c 5d 5h 5s 7h 8h 9h Ad",
                        "Qd", "8d 8c")  # the computer knocks at once: its melds lie face up
    board = open_board("?delay=0", width=width, height=height, saved=saved)
    page = board.page
    if full:
        page.keyboard.press("f")
        page.wait_for_selector("#app.full")
    name = f"landscape{'-full' if full else ''}"

    def check(state: str) -> None:
        page.evaluate("window.scrollTo(0, 0)")
        for selector in ("#hand .card", "#prompt", "#actions button:not([hidden])",
                         "#opponent .card"):
            in_view(board, selector, width, height)
        page.screenshot(path=str(artifacts / f"{name}-{state}-{width}x{height}.png"))

    check("upcard")
    page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):  # the computer passed too: draw, throw what came
        page.click("#stock")
        check("eleven")
        page.click("#btn-throw")
        board.wait_for_player()
    assert board.visible("#btn-layoff"), board.prompt()
    check("layoff")
    page.keyboard.press("l")
    page.wait_for_selector("dialog[open]")
    page.screenshot(path=str(artifacts / f"{name}-hand-end-{width}x{height}.png"))
    # The hand's end: its result line and the score are whole, without scrolling.
    cut = page.evaluate("""() => {
        const body = document.querySelector('#dialog-body').getBoundingClientRect();
        return [...document.querySelectorAll('#dialog-body p')].filter((p) => {
            const b = p.getBoundingClientRect();
            return b.top < body.top || b.bottom > body.bottom + 0.5;
        }).map((p) => p.textContent);
    }""")
    assert cut == []
    assert re.search(r" = \d+ to ", page.inner_text("#dialog-body .arith"))
    in_view(board, "#dialog-buttons button", width, height)


def test_full_screen_on_a_desktop_keeps_the_scores_and_fills_the_screen(
    open_board: Any, artifacts: Path
) -> None:
    width, height = 1920, 1080
    board = open_board("?seed=4&delay=0", width=width, height=height)
    page = board.page
    card_height = page.locator("#hand .card").first.bounding_box()["height"]
    assert page.inner_text("#btn-full") == "Full screen"
    page.click("#btn-full")
    page.wait_for_selector("#app.full")
    page.screenshot(path=str(artifacts / f"full-screen-{width}x{height}.png"))
    # The scores stay in view, and the button says how to leave.
    assert page.is_visible("#side") and page.is_visible("#game-you")
    assert page.inner_text("#btn-full") == "Leave full screen"
    assert "Leave full screen" in (page.get_attribute("#btn-full", "title") or "")
    # The table uses the screen: cards sized from its height (a window grows them too:
    # test_board_motion.py), the title bar no taller than its line.
    full_height = page.locator("#hand .card").first.bounding_box()["height"]
    assert full_height >= max(0.9 * card_height, 0.18 * height)
    assert page.locator("#top").bounding_box()["height"] < 80
    bottom = page.locator("#actions").bounding_box()
    assert bottom["y"] + bottom["height"] > 0.7 * height
    page.keyboard.press("f")
    page.wait_for_selector("#app:not(.full)")
    assert page.inner_text("#btn-full") == "Full screen"


def test_a_dragged_card_follows_the_pointer_and_the_taken_card_is_opaque(
    open_board: Any,
) -> None:
    board = open_board("?seed=3&delay=5000")  # the computer waits
    page = board.page
    card = page.locator("#hand .card").nth(3)
    box = card.bounding_box()
    x, y = box["x"] + 10, box["y"] + 10
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y - 60, steps=4)
    page.mouse.move(x + 90, y - 150, steps=4)
    moved = card.bounding_box()
    assert abs(moved["x"] - box["x"] - 90) < 2 and abs(moved["y"] - box["y"] + 150) < 2, moved
    assert page.evaluate("(e) => getComputedStyle(e).opacity", card.element_handle()) == "1"
    page.mouse.move(x + 90, y - 400, steps=2)  # above the table: nowhere to drop
    page.mouse.up()
    back = card.bounding_box()
    assert abs(back["x"] - box["x"]) < 2 and abs(back["y"] - box["y"]) < 16, back
    # The card just taken from the pile is greyed, not see-through.
    upcard = page.get_attribute("#discard .card", "data-card")
    page.click("#btn-take")
    taken = page.locator(f"#hand .card[data-card='{upcard}']")
    assert "dim" in (taken.get_attribute("class") or "")
    look = page.evaluate("""(e) => { const s = getComputedStyle(e);
        return [s.opacity, s.backgroundColor, s.borderStyle]; }""", taken.element_handle())
    assert look[0] == "1" and look[1].startswith("rgb(") and look[2] == "dashed", look


def test_a_strength_key_mid_hand_asks_first(open_board: Any) -> None:
    # Issue 28 item 18, as the table asks: 1/2/3 (or a click on the side's choice) changed
    # the computer's strength mid-hand at once.
    board = open_board("?seed=4&delay=0")
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    page.keyboard.press("3")
    assert page.inner_text("#dialog-title") == "Strength"
    assert "Let the computer play hard from its next move?" in page.inner_text("#dialog-body")
    assert page.is_checked("#strength input[value=normal]")  # until the answer
    page.keyboard.press("Escape")
    assert "Computer (normal)" in page.inner_text("#opponent-label")
    assert page.is_checked("#strength input[value=normal]")
    page.click("#strength label:has(input[value=easy])")
    assert page.inner_text("#dialog-buttons .primary") == "Play easy"
    page.click("#dialog-buttons .primary")
    assert "Computer (easy)" in page.inner_text("#opponent-label")
    assert page.is_checked("#strength input[value=easy]")
    assert "The computer now plays easy." in board.prompt()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844), (360, 640)])
def test_the_host_windows_addresses_show_their_whole_placeholder(
    open_board: Any, width: int, height: int
) -> None:
    board = open_board(width=width, height=height)
    page = board.page
    page.check("input[name=mode][value=online]")
    page.wait_for_selector("#host-board")
    page.fill("#host-board", "")  # the placeholder shows (it names what an empty box means)
    fits = page.evaluate("""() => [...document.querySelectorAll('dialog[open] input[type=url]')]
      .map((input) => {
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        const room = input.clientWidth - parseFloat(style.paddingLeft)
          - parseFloat(style.paddingRight);
        const box = input.getBoundingClientRect();
        return [input.id, context.measureText(input.placeholder || input.value).width <= room,
                box.right <= innerWidth];
    })""")
    assert fits == [["host-relay", True, True], ["host-board", True, True]]
