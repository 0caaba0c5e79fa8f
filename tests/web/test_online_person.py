"""What a person met on the board online (issue 28), in Debian's Chromium against the
fake online peer (tests/web/test_online_board.py builds and serves it), driven with
clicks and keys: the grace window's safe choice has the focus, and after keeping
waiting the side can still end the match; a friend met before the first deal who drops
is away, not yet to come; a notice gives way to the match's stop; a left match says
nothing more over the next one; no Undo against a person, and a disabled one looks it."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.web.conftest import Board, play_out
from tests.web.test_online_board import (  # noqa: F401 (fixtures of that module)
    FAKE_LINK_PATH,
    fake_board,
    host,
    open_page,
    site,
)

AWAY = "Your friend is away — waiting for them to come back"


def test_enter_keeps_waiting_and_the_side_can_end_the_match_after(
        open_page: Any, axe: Any) -> None:  # noqa: F811
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True})
    page.wait_state("playing")
    assert not page.page.is_visible("#btn-end-abandoned")
    page.fake("peer.graceOver('move');")
    page.page.wait_for_selector("#btn-keep-waiting")
    assert page.page.evaluate("document.activeElement.id") == "btn-keep-waiting"
    page.page.keyboard.press("Enter")
    assert page.fake("return peer.answers;") == ["keep waiting"]
    assert page.state() == "playing"
    # The friend still owes its move: the side offers to end the match now.
    axe(page.page, "the side's End the match after keeping waiting")
    page.page.click("#btn-end-abandoned")
    assert page.text("#dialog-title") == "End the match"
    axe(page.page, "the question before ending the match as abandoned")
    page.page.click("#dialog-buttons .primary")
    page.wait_state("failed")
    assert page.fake("return peer.answers;") == ["keep waiting", "abandon"]
    assert page.text("#dialog-title") == "Abandoned by your friend"
    assert not page.page.is_visible("#btn-end-abandoned")


def test_a_friend_met_before_the_first_deal_who_drops_is_away(
        open_page: Any) -> None:  # noqa: F811
    """The guest killed mid-deal: the host's board said "Waiting for your friend to open
    the link" though the friend had joined. Here a guest meets its host (the offer of
    custom rules, before any deal) and the host drops."""
    offer = {"name": "house", "target": 50}
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True, "offer": offer})
    page.page.wait_for_selector("#btn-accept-rules")
    for connection in ("peer-left", "waiting"):
        page.fake(f"peer.setConnection({json.dumps(connection)});")
        assert page.text("#net-connection") == AWAY, connection


def test_a_stopped_match_says_so_over_an_earlier_notice(open_page: Any) -> None:  # noqa: F811
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True})
    page.wait_state("playing")
    page.fake("peer.notice('The relay says: hello there');")
    assert page.text("#prompt") == "The relay says: hello there"
    page.fake("peer.fail({kind: 'PeerAborted', who: 'host', field: 'abort', "
              "reason: 'the host ended the match (left)', proven: false});")
    page.wait_state("failed")
    assert page.text("#prompt") == "Your friend ended the match. No more moves are played."


def test_a_left_match_says_nothing_over_the_next_one(open_page: Any) -> None:  # noqa: F811
    """Leave, then Host again: a late word of the match left (its peer closing) must not
    put its verified hand or its connection on the new match's line."""
    page = open_page("/?delay=0", setup={"seed": 3})
    host(page)
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    play_out(Board(page.page), keys=False)
    assert page.text("#net-verified") == "Deck verified for hand 1"
    page.page.keyboard.press("Escape")
    page.page.click("#btn-leave")
    page.page.click("#dialog-buttons .primary")
    page.page.wait_for_function("() => document.body.dataset.state === undefined")
    host(page)
    assert page.text("#dialog-title") == "Invite your friend"
    page.fake("fake.peers[0].setConnection('closed');")  # the left match's last word, late
    assert page.text("#net-verified") == ""
    assert page.text("#net-connection") == "Waiting for your friend to open the link"
    assert page.state() == "waiting"


def test_no_undo_online_even_before_the_first_deal(open_page: Any) -> None:  # noqa: F811
    page = open_page()
    assert page.page.is_visible("#btn-undo")  # against the computer
    host(page)
    page.page.keyboard.press("Escape")
    assert page.state() == "waiting"
    assert not page.page.is_visible("#btn-undo")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    assert not page.page.is_visible("#btn-undo")


def test_a_disabled_undo_looks_disabled(open_page: Any) -> None:  # noqa: F811
    page = open_page()
    undo, take = (page.page.eval_on_selector(
        selector, "b => { const s = getComputedStyle(b); "
                  "return [b.disabled, s.cursor, s.backgroundColor, s.color]; }")
        for selector in ("#btn-undo", "#btn-pass"))
    assert undo[0] is True and take[0] is False
    assert undo[1] != "pointer" and take[1] == "pointer"
    assert undo[2] != take[2] and undo[3] != take[3]


def test_the_count_of_loose_cards_is_said_in_points(open_page: Any) -> None:  # noqa: F811
    page = open_page()
    loose = page.text("#loose")
    assert re.fullmatch(r"Loose points: \d+ \(\d+ cards?\)", loose), loose  # as the table says
