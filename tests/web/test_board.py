"""The browser board in Debian's Chromium: whole hands with the mouse and with the
keys, the rules the board enforces, the layout on a phone and a desktop, and a
page that logs no error and breaks no rule of its Content-Security-Policy.

Decks are fixed with the page's ``?seed=`` or by a saved match put in the
browser's storage before the page loads (built here with gin's own ``Match``, whose
saved form the board reads), and the computer moves without a pause (``delay=0``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from relay import static
from tests.web.conftest import CSP_WATCH, HAND_END_TITLES, SAVE_KEY, Board, play_out, saved_match


def test_a_whole_hand_against_easy_with_clicks(open_board: Any) -> None:
    board = open_board("?seed=11&delay=0")
    board.page.click("#strength input[value=easy]")
    assert "Computer (easy)" in board.page.inner_text("#opponent-label")
    title = play_out(board, keys=False)
    assert title in HAND_END_TITLES
    body = board.page.inner_text("#dialog-body")
    # The hand's arithmetic is spelt out, and the scores follow it.
    assert "=" in body or "Dead hand" in body
    assert "Game: you" in body
    board.page.click("#dialog-buttons .primary")  # next hand
    board.wait_for_player()
    assert board.page.inner_text("#hand-number") == "Hand 2"
    assert len(board.hand()) == 10


def test_a_whole_hand_against_easy_with_keys(open_board: Any) -> None:
    board = open_board("?seed=5&delay=0")
    board.page.keyboard.press("1")  # easy
    assert "Computer (easy)" in board.page.inner_text("#opponent-label")
    title = play_out(board, keys=True)
    assert title in HAND_END_TITLES
    board.page.keyboard.press("Enter")  # next hand, from the window's button
    board.wait_for_player()
    assert board.page.inner_text("#hand-number") == "Hand 2"


def test_the_card_just_taken_from_the_pile_cannot_be_thrown(open_board: Any) -> None:
    board = open_board("?seed=3&delay=5000")  # the computer waits: the pile can be read
    upcard = board.page.get_attribute("#discard .card", "data-card")
    board.page.click("#btn-take")
    taken = board.page.locator(f"#hand .card[data-card='{upcard}']")
    assert "dim" in (taken.get_attribute("class") or "")
    assert "cannot be thrown" in (taken.get_attribute("aria-label") or "")
    taken.click()  # select it
    taken.click()  # and try to throw it
    assert "can't go straight back" in board.prompt()
    board.page.keyboard.press("d")
    assert "can't go straight back" in board.prompt()
    assert upcard in board.hand() and len(board.hand()) == 11
    # Another card can be thrown.
    other = next(c for c in board.hand() if c != upcard)
    board.page.click(f"#hand .card[data-card='{other}']")
    board.page.click("#btn-throw")
    assert other not in board.hand()
    assert board.page.get_attribute("#discard .card", "data-card") == other


def test_a_knock_over_the_limit_is_refused_with_a_reason(open_board: Any) -> None:
    board = open_board("?seed=1&delay=0")
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        board.page.click("#stock")
    assert board.visible("#btn-throw") and not board.visible("#btn-knock")
    board.page.keyboard.press("k")
    text = board.prompt()
    # The best throw's count, the card told by its symbol.
    assert re.fullmatch(r"You can't knock yet: knocking with (10|[A2-9JQK])[♣♦♥♠] leaves (\d+) "
                        r"deadwood; the knock limit is 10\.", text), text
    assert not board.page.evaluate("document.querySelector('dialog').open")
    assert len(board.hand()) == 11


def test_the_knock_window_shows_the_count_and_a_choice_of_layout(open_board: Any) -> None:
    # After drawing the Q♣: throw it and lay down 2-3-4♥ and the kings (loose 4♠ 4♣ A♦ = 9),
    # or the fours and the kings (loose 2♥ 3♥ A♦ = 6). The computer holds the 5♥.
    saved = saved_match("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh",
                        "Jd", "Qc")
    board = open_board("?delay=0", saved=saved)
    board.page.click("#btn-pass")
    board.wait_for_player()
    board.page.click("#stock")  # the Q♣, whether or not the computer took the J♦
    assert "Qc" in board.hand()
    assert board.page.inner_text("#btn-knock") == "Knock…"
    board.page.click("#btn-knock")
    dialog = board.page.locator("#dialog-body")
    assert "Knock with 6 loose points" in dialog.inner_text()
    layouts = board.page.locator("input[name=knock-layout]")
    assert layouts.count() == 2
    layouts.nth(1).check()
    assert "Knock with 9 loose points" in dialog.inner_text()
    assert board.page.inner_text("#dialog-buttons .primary") == "Knock with 9"
    board.page.click("#dialog-buttons .primary")
    board.page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent.includes('hand')")
    body = board.page.inner_text("#dialog-body")
    assert "You knocked" in body and "after laying off 1 card" in body  # the 5♥ onto 2-3-4♥
    laid = board.page.locator("#dialog-body .card.laid")
    assert laid.count() == 1 and laid.get_attribute("data-card") == "5h"
    assert "You knocked with 9" in body


def test_the_match_survives_a_reload(open_board: Any) -> None:
    board = open_board("?seed=21&delay=0")
    board.page.click("#btn-pass")
    board.wait_for_player()
    before = (board.hand(), board.page.inner_text("#discard-label"), board.prompt())
    board.page.reload()
    board.page.wait_for_selector("#hand .card")
    board.wait_for_player()
    assert (board.hand(), board.page.inner_text("#discard-label"), board.prompt()) == before


def test_hint_names_hards_move_and_why(open_board: Any) -> None:
    board = open_board("?seed=2&delay=0")
    board.page.keyboard.press("h")
    # "Hint: thinking…" comes first, then the hint (after a pause that may be long).
    board.page.wait_for_function(
        "() => /^Hint: (?!thinking)/.test(document.querySelector('#prompt').textContent)")
    move, _, why = board.prompt().removeprefix("Hint: ").partition(": ")
    # The move named once, then why (issue 28 item 23: it was named twice).
    assert move and len(why) > 5 and move.lower() not in why.lower(), (move, why)


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1280, 800)])
def test_the_hand_is_fully_visible(
    open_board: Any, artifacts: Path, width: int, height: int
) -> None:
    board = open_board("?seed=4&delay=0", width=width, height=height)
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        board.page.click("#stock")
    cards = board.page.locator("#hand .card")
    assert cards.count() == 11
    for i in range(11):
        box = cards.nth(i).bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (i, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (i, box)
        # Its corner (rank and suit) is not covered by anything else.
        top = board.page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('.card')?.dataset.card",
            [box["x"] + 6, box["y"] + 8])
        assert top == cards.nth(i).get_attribute("data-card"), i
    for name in ("Stock", "Discard", "Your hand", "Loose points"):
        assert name in board.page.inner_text("#table")
    board.page.screenshot(path=str(artifacts / f"board-{width}x{height}.png"))


def test_lay_offs_are_shown_against_the_computers_melds(open_board: Any) -> None:
    # The computer (Easy) can knock at once; the player holds the 5♣, the 6♥ and the
    # 10♥, which fit its fives and, one after the other, its 7-8-9♥.
    saved = saved_match("5c 6h Th Jc Qc Kh 9s 9d 2s 3s", "2c 3c 4c 5d 5h 5s 7h 8h 9h Ad",
                        "Qd", "8d 8c")
    board = open_board("?delay=0", saved=saved)
    board.page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):  # the computer passed too: draw, throw what came
        board.page.click("#stock")
        board.page.click("#btn-throw")
        board.wait_for_player()
    assert board.visible("#btn-layoff"), board.prompt()
    assert board.prompt() == "The computer knocked: lay out your cards and lay off what fits"
    shown = set(board.page.eval_on_selector_all(
        "#opponent .card[data-card]", "cs => cs.map(c => c.dataset.card)"))
    assert {"2c", "3c", "4c", "5d", "5h", "5s", "7h", "8h", "9h"} <= shown
    board.page.keyboard.press("l")
    board.page.wait_for_selector("dialog[open]")
    assert board.page.inner_text("#dialog-title") == "The computer won the hand"
    laid = set(board.page.eval_on_selector_all(
        "#dialog-body .card.laid", "cs => cs.map(c => c.dataset.card)"))
    assert laid == {"5c", "6h", "Th"}
    assert "after laying off 3 cards" in board.page.inner_text("#dialog-body")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844), (360, 640)])
def test_the_match_end_shows_the_game_bonus_boxes_and_shutout(
    open_board: Any, width: int, height: int
) -> None:
    saved = saved_match("2h 3h 4h 4s 4c Kc Kd Ks Kh Ad", "5h 4d 9c 9d 9s 6c 7d 8s Ts Jh",
                        "Jd", "Qc")
    # House rules: the first hand won ends the match.
    for rules in (saved["match"]["rules"], *(h["rules"] for h in saved["match"]["hands"])):
        rules.update(name="quick", target=10)
    board = open_board("?delay=0", width=width, height=height, saved=saved)
    board.page.click("#btn-pass")
    board.wait_for_player()
    board.page.click("#stock")
    board.page.keyboard.press("k")
    board.page.click("#dialog-buttons .primary")  # knock with 6 (the fours and kings)
    board.page.wait_for_function(
        "() => document.querySelector('#dialog-title').textContent === 'You won the hand'")
    assert board.page.inner_text("#dialog-buttons .primary") == "See the match's result"
    board.page.click("#dialog-buttons .primary")
    assert board.page.inner_text("#dialog-title") == "You win the match"
    rows = board.page.eval_on_selector_all(
        "#dialog-body tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))")
    table = {row[0]: row[1:] for row in rows}
    points = int(table["Points"][0])
    assert table["Game bonus"] == ["200", "0"]  # doubled: the computer won no hand
    assert table["Boxes (25 a hand won)"] == ["1 × 25 = 25", "0 × 25 = 0"]
    # Each sum on one line (a phone broke "0 × 25 = 0" after its "×"), the table within the window.
    lines = board.page.eval_on_selector_all("#dialog-body td", """cs => cs.map((c) => {
        const range = document.createRange();
        range.selectNodeContents(c);
        return [c.textContent, new Set([...range.getClientRects()].map((r) => r.top)).size];
    })""")
    assert [text for text, count in lines if "=" in text and count != 1] == []
    right = board.page.eval_on_selector("#dialog-body table",
                                        "t => t.getBoundingClientRect().right")
    assert right <= width
    assert table["Shutout"] == ["game bonus doubled", ""]
    assert table["Total"] == [str(points + 225), "0"]
    assert "a shutout" in board.page.inner_text("#dialog-body")
    board.page.click("#dialog-buttons .primary")  # new match
    board.wait_for_player()
    assert board.page.inner_text("#hand-number") == "Hand 1"
    assert board.page.inner_text("#game-you") == "0"


def test_cards_are_dragged_into_your_own_order_and_onto_the_pile(open_board: Any) -> None:
    board = open_board("?seed=8&delay=5000")
    page = board.page

    def drag(source: str, target: str) -> None:
        a, b = page.locator(source).bounding_box(), page.locator(target).bounding_box()
        assert a is not None and b is not None
        page.mouse.move(a["x"] + 10, a["y"] + 10)
        page.mouse.down()
        page.mouse.move(a["x"] + 30, a["y"] + 30, steps=3)
        page.mouse.move(b["x"] + 10, b["y"] + 10, steps=5)
        page.mouse.up()

    before = board.hand()
    first, last = before[0], before[-1]
    assert page.is_checked("#group")
    drag(f"#hand .card[data-card='{last}']", f"#hand .card[data-card='{first}']")
    # Moving a card by hand turns the grouping off and keeps the new order.
    assert not page.is_checked("#group")
    assert board.hand() == [last, *[c for c in before if c != last]]
    page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        page.click("#stock")
    card = board.hand()[2]
    drag(f"#hand .card[data-card='{card}']", "#discard")
    assert card not in board.hand()
    assert page.get_attribute("#discard .card", "data-card") == card
    page.keyboard.press("g")
    assert page.is_checked("#group")


def test_the_side_choices_full_screen_and_the_whole_pile(open_board: Any) -> None:
    board = open_board("?seed=9&delay=0")
    page = board.page
    page.keyboard.press("v")
    assert page.inner_text("#dialog-title") == "The discard pile"
    assert page.locator("#dialog-body .card").count() == 1
    page.keyboard.press("Escape")
    page.keyboard.press("r")  # the next ruleset asks first
    assert "classic rules" in page.inner_text("#dialog-body")
    page.click("#dialog-buttons .primary")
    board.wait_for_player()
    assert page.is_checked("#rules input[value=classic]")
    assert "with 20 for every hand won" in page.inner_text("#target")
    page.keyboard.press("3")
    assert page.is_checked("#strength input[value=hard]")
    assert "Computer (hard)" in page.inner_text("#opponent-label")
    page.keyboard.press("f")
    # The button's words change on fullscreenchange, which may come after fullscreenElement.
    page.wait_for_function(
        "() => (document.fullscreenElement !== null"
        " || document.querySelector('#app.full') !== null)"
        " && document.querySelector('#btn-full').textContent === 'Leave full screen'")
    # Beside the table the side stays, with the scores (test_board_newcomer.py).
    assert page.is_visible("#side")
    page.keyboard.press("i")
    assert page.inner_text("#dialog-title") == "How to play"
    text = page.inner_text("#dialog-body")
    for words in ("The rules (classic)", "How the computer plays", "The shuffle",
                  "their deadwood + 20", "the difference + 10"):
        assert words in text


def test_a_damaged_save_is_set_aside_and_said_so(browser: Any, relay_url: str) -> None:
    context = browser.new_context()
    try:
        context.add_init_script(CSP_WATCH)
        context.add_init_script(
            "if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1');"
            f" localStorage.setItem('{SAVE_KEY}', '{{\"format\": 1, \"vs\": \"easy\"');}}")
        board = Board(context.new_page())
        board.page.goto(relay_url + "?delay=0")
        board.page.wait_for_selector("dialog[open]")
        assert board.page.inner_text("#dialog-title") == "Your match"
        assert "could not be continued" in board.page.inner_text("#dialog-body")
        assert board.page.evaluate(f"localStorage.getItem('{SAVE_KEY}.damaged')") \
            == '{"format": 1, "vs": "easy"'
        board.page.keyboard.press("Escape")
        assert len(board.hand()) == 10  # a new match is dealt
        board.page.reload()
        board.page.wait_for_selector("#hand .card")
        assert not board.page.evaluate("document.querySelector('dialog').open")
        board.check_clean()
    finally:
        context.close()


def test_the_board_works_behind_a_path_prefix(browser: Any, relay_url: str) -> None:
    # As behind nginx's `location /gin/ { proxy_pass http://relay/; }`: every request
    # under /gin/ goes to the relay with the prefix taken off.
    context = browser.new_context()
    try:
        context.add_init_script(CSP_WATCH)
        seen: list[str] = []

        def proxy(route: Any) -> None:
            path = route.request.url.split("/gin/", 1)[1]
            seen.append(path.split("?")[0])
            route.fulfill(response=route.fetch(url=relay_url + path))

        context.route("http://prefixed.test/gin/**", proxy)
        board = Board(context.new_page())
        board.page.goto("http://prefixed.test/gin/?seed=1&delay=0")
        board.page.wait_for_selector("#hand .card")
        assert len(board.hand()) == 10
        # Every request stays under the prefix: the page, its files, its icon (and the
        # app's manifest, when the browser reads it; not secure, the page has no service worker).
        assert {"", "board.css", "board.js", "icon.svg"} <= set(seen) <= {"", *static.FILES}
        board.check_clean()
    finally:
        context.close()


def test_a_phone_plays_by_touch(browser: Any, relay_url: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True,
                                  is_mobile=True)
    try:
        context.add_init_script(CSP_WATCH)
        board = Board(context.new_page())
        board.page.goto(relay_url + "?seed=6&delay=5000")
        board.page.wait_for_selector("#hand .card")
        # The side with the scores is below the table: the score is in the title bar too.
        assert board.page.inner_text("#mini-score") == "Hand 1 · you 0 – 0 computer"
        board.page.tap("#btn-pass")
        board.page.wait_for_function("() => !document.querySelector('#btn-stock').hidden"
                                     " || !document.querySelector('#btn-take').hidden")
        board.page.tap("#stock")
        assert len(board.hand()) == 11
        card = board.hand()[0]
        board.page.tap(f"#hand .card[data-card='{card}']")  # select
        board.page.tap(f"#hand .card[data-card='{card}']")  # throw
        assert card not in board.hand() and len(board.hand()) == 10
        assert board.page.get_attribute("#discard .card", "data-card") == card
        board.check_clean()
    finally:
        context.close()


def test_the_selected_card_has_a_visible_focus_and_the_rows_are_labelled(open_board: Any) -> None:
    board = open_board("?seed=4&delay=0")
    page = board.page
    page.keyboard.press("ArrowRight")
    focused = page.evaluate(
        "() => { const e = document.activeElement; const s = getComputedStyle(e); return"
        " [e.dataset.card, e.getAttribute('aria-pressed'), s.outlineStyle, s.outlineWidth] }")
    assert focused[0] == board.hand()[0] and focused[1] == "true"
    assert focused[2] != "none" and focused[3] != "0px"
    label = page.get_attribute("#opponent", "aria-label") or ""
    assert label == "The computer's cards: 10 face down"
    assert page.get_attribute("#prompt", "aria-live") == "polite"
    for button in page.locator("button:visible").all():
        assert (button.get_attribute("aria-label") or button.inner_text()).strip()
