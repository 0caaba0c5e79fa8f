"""Touch on a phone (issue 30 item 4), in Debian's Chromium against the computer (and
online against the fake peer of tests/web/test_online_board.py): every
control a finger uses (the cards in hand, the buttons, the stock and the pile, the side's
choices) offers at least a 44×44 CSS px square that a tap lands on, and at phone sizes,
upright and on their sides, the hand, the prompt and the buttons are in view without
scrolling and the badge of the computer's last move leaves the card on the pile clear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import saved_match
from tests.web.test_online_board import (  # noqa: F401 (fixtures of that module)
    fake_board,
    host,
    open_page,
    site,
)

#: A finger's target (WCAG 2.5.5, Apple's and Google's guides): 44 CSS px each way.
FINGER = 44

# For each shown control of `selector`: its name and how far a tap reaches it along its
# middle line, then along the upright line through the middle of that stretch, in whole
# pixels: what a finger can land on, whatever covers the rest (the next card in a group).
REACH = """(selector) => {
  const out = [];
  for (const e of document.querySelectorAll(selector)) {
    if (e.getClientRects().length === 0) continue; // not shown
    e.scrollIntoView({block: 'center', inline: 'center'});
    const r = e.getBoundingClientRect();
    const hits = (x, y) => {
      const t = document.elementFromPoint(x, y);
      return t !== null && e.contains(t);
    };
    // Chromium finds what is at a point rounded to whole pixels: count those pixels.
    const reach = (from, to, at) => {
      let best = [0, 0], start = null;
      for (let v = Math.floor(from); v <= Math.ceil(to); v++) {
        if (!at(v)) { start = null; continue; }
        if (start === null) start = v;
        if (v + 1 - start > best[1] - best[0]) best = [start, v + 1];
      }
      return best;
    };
    const across = reach(r.left, r.right, (x) => hits(x, r.top + r.height / 2));
    const middle = (across[0] + across[1]) / 2;
    const down = reach(r.top, r.bottom, (y) => hits(middle, y));
    const name = e.dataset.card || e.id || e.textContent.trim().slice(0, 30);
    out.push([name, across[1] - across[0], down[1] - down[0]]);
  }
  window.scrollTo(0, 0);
  return out;
}"""
TABLE = ("#hand .card, #stock, #discard, #btn-pile, #actions button, #tools button")
SIDE = "#side button, #side label"


def small(page: Any, selector: str) -> list[Any]:
    return [r for r in page.evaluate(REACH, selector) if r[1] < FINGER or r[2] < FINGER]


def in_view(page: Any, width: int, height: int) -> list[str]:
    """The hand's cards, the prompt and the shown buttons that are not wholly in view."""
    return page.evaluate("""([width, height]) => [...document.querySelectorAll(
        '#hand .card, #prompt, #actions button')].filter((e) => e.getClientRects().length)
        .filter((e) => { const b = e.getBoundingClientRect();
            return b.left < 0 || b.top < 0 || b.right > width || b.bottom > height; })
        .map((e) => e.dataset.card || e.id)""", [width, height])


def clear_pile(page: Any) -> bool:
    """The badge of the computer's last move (shown) does not overlap the pile's top card."""
    return page.evaluate("""() => {
        const badge = document.querySelector('#discard-mark').getBoundingClientRect();
        const card = document.querySelector('#discard .card').getBoundingClientRect();
        return badge.right <= card.left || badge.left >= card.right
            || badge.bottom <= card.top || badge.top >= card.bottom; }""")


PHONES = [(360, 640), (390, 844), (412, 915), (640, 360), (844, 390), (915, 412)]


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_touch_targets_and_the_table_in_view_on_a_phone(
        open_board: Any, artifacts: Path, width: int, height: int) -> None:
    board = open_board("?seed=4&delay=0", width=width, height=height)
    page = board.page
    found: dict[str, Any] = {}

    def check(state: str) -> None:
        page.screenshot(path=str(artifacts / f"phone-{width}x{height}-{state}.png"))
        found[state] = (in_view(page, width, height), small(page, TABLE))

    check("upcard")
    page.click("#btn-pass")
    board.wait_for_player()
    if board.visible("#btn-stock"):
        page.click("#stock")
        check("eleven")
        page.click("#btn-throw")
        board.wait_for_player()
    # The computer's answer: its last move marked at the stock or on the pile.
    page.wait_for_selector("#stock-mark:not([hidden]), #discard-mark:not([hidden])")
    check("marked")
    found["pile"] = board.visible("#discard-mark") and not clear_pile(page)
    found["side"] = small(page, SIDE)
    assert found == {"upcard": ([], []), "eleven": ([], []), "marked": ([], []),
                     "pile": False, "side": []}


@pytest.mark.parametrize(("width", "height"), PHONES[:2])
def test_touch_targets_online(open_page: Any, width: int, height: int) -> None:  # noqa: F811
    """Online against the fake peer: the invite's buttons, then the table's and the side's
    (the online panel's among them) while a hand is played."""
    page = open_page(width=width, height=height)
    host(page)
    assert small(page.page, "#dialog button") == []
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    assert small(page.page, TABLE) == []
    assert small(page.page, "#online button, " + SIDE) == []


@pytest.mark.parametrize(("width", "height"), PHONES[:3])
def test_an_eleven_card_hand_that_can_knock_fits_a_phone_and_so_does_the_knock_window(
        open_board: Any, artifacts: Path, width: int, height: int) -> None:
    # Two runs, four loose cards and the 2♥ to come: the count line says "you can knock",
    # which once widened the hand's area past the screen (found at 360×640 by hand).
    saved = saved_match("4d 5d 6d 8d 9d Td Ah 2d 3c 7s", "Kh Ks Qd Jh 9c 7h 5s 3h 3s 4c",
                        "Kc", "2h 5h")
    board = open_board("?delay=0", saved=saved, width=width, height=height)
    page = board.page
    page.click("#btn-pass")
    board.wait_for_player()
    page.click("#stock")
    assert "you can knock" in page.inner_text("#loose")
    page.screenshot(path=str(artifacts / f"phone-{width}x{height}-can-knock.png"))
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert (in_view(page, width, height), wide) == ([], width)
    page.click("#btn-knock")
    page.wait_for_selector("dialog[open]")
    off = page.evaluate("""([width, height]) => [...document.querySelectorAll('dialog button')]
        .filter((e) => { const b = e.getBoundingClientRect();
            return b.left < 0 || b.top < 0 || b.right > width || b.bottom > height; })
        .map((e) => e.textContent)""", [width, height])
    assert off == []
