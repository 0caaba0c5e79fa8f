"""Silence has a name on the board (issue 19 item 4), in Debian's Chromium against the
fake online peer (tests/web/test_online_board.py builds and serves it): when the
friend's grace runs out the board asks — keep waiting, or end the match as abandoned
by the friend — and says how it ended, offers the signed record for download and
counts it in your record apart from wins; a ``?bot=`` seat ends it at once."""

from __future__ import annotations

from typing import Any

from tests.web.test_online_board import (  # noqa: F401 (fixtures of that module)
    FAKE_LINK_PATH,
    fake_board,
    open_page,
    site,
)


def test_a_silent_friend_is_asked_about_then_ends_as_abandoned(
        open_page: Any) -> None:  # noqa: F811
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True})
    page.wait_state("playing")
    page.fake("peer.graceOver('move');")
    page.page.wait_for_selector("#btn-keep-waiting")
    assert page.text("#dialog-title") == "Your friend stopped answering"
    body = page.text("#dialog-body")
    assert "Your friend has not answered since 08:00:00 UTC" in body
    assert "it is their move" in body and "not a cheat verdict" in body
    page.page.click("#btn-keep-waiting")
    assert page.fake("return peer.answers;") == ["keep waiting"]
    assert page.state() == "playing"
    page.fake("peer.graceOver('move');")
    page.page.click("#btn-abandon")
    page.wait_state("failed")
    assert page.fake("return peer.answers;") == ["keep waiting", "abandon"]
    assert page.text("#dialog-title") == "Abandoned by your friend"
    body = page.text("#dialog-body")
    assert "Abandoned by your friend (the host): it owed its move for hand 1" in body
    assert "Saved as a signed record you can audit" in body and "At fault" not in body
    page.page.keyboard.press("Escape")
    offered = page.text("#records").strip()
    assert offered.endswith("Download the abandonment record (your signed word)")
    # Your record counts it apart: never a win.
    page.page.click("#btn-record")
    table = page.text("#record-table")
    assert "Abandoned by the friend\t1" in table and "Matches won\t0" in table


def test_a_bot_seat_ends_the_match_at_once(open_page: Any) -> None:  # noqa: F811
    page = open_page(f"{FAKE_LINK_PATH}?delay=0&bot=easy#s",
                     setup={"arrive": True, "friendDelay": 60_000})
    page.wait_state("playing")
    page.fake("peer.graceOver('seed');")
    page.wait_state("failed")
    assert page.fake("return peer.answers;") == ["abandon"]
