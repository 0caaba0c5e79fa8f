"""A person's rematch on the browser board (issue 28), in Debian's Chromium against the
real peer: `gin host --bot … --matches 2` on the relay that serves the board, and this
page the guest, played with clicks (no ``?bot=``, which accepts a rematch by itself).
Each match is played to 1 point, so one hand won ends it. The guest sees the match's
result, then the friend's offer, and accepts or declines it; the rematch's first hand
has its own end window; your record counts each match's hands once."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CSP_WATCH, Board, play_out

GIN = [sys.executable, "-m", "client.cli"]
TITLE = ("() => document.querySelector('dialog').open "
         "&& document.querySelector('#dialog-title').textContent")


@pytest.fixture
def guest(browser: Any, relay_url: str, tmp_path: Path) -> Iterator[Any]:
    """`start(matches)`: `gin host --bot easy --target 1 --matches N` on the relay, and a
    page of the board opening its link as the guest (a person: no ``?bot=``)."""
    hosts: list[subprocess.Popen[str]] = []
    contexts: list[Any] = []
    boards: list[Board] = []

    def start(matches: int = 2) -> Board:
        host = subprocess.Popen(
            [*GIN, "host", "--relay", relay_url.rstrip("/"), "--bot", "easy", "--bot-delay", "0",
             "--target", "1", "--matches", str(matches), "--data-dir", str(tmp_path / "host")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        hosts.append(host)
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        context.add_init_script(CSP_WATCH)
        board = Board(context.new_page())
        boards.append(board)
        assert host.stdout is not None
        head, _, secret = host.stdout.readline().strip().partition("#")
        board.page.goto(f"{head}?delay=0#{secret}")
        board.page.click("#btn-accept-rules")  # the host's custom rules: to 1 point
        board.page.wait_for_selector("#hand .card")
        # The prompt says what to do, not who the friend is (that is in the side).
        assert not board.prompt().lower().startswith("your friend:"), board.prompt()
        return board

    yield start
    try:
        for board in boards:
            board.check_clean()
    finally:
        for context in contexts:
            context.close()
        for host in hosts:
            host.kill()
            host.wait()


def title(board: Board) -> str:
    return str(board.page.evaluate(TITLE) or "")


def play_match(board: Board) -> tuple[str, int]:
    """Play hands until one is won (the match, to 1 point, is then over): the title of
    the last hand's end window, left open, and how many hands were played."""
    page = board.page
    for hands in range(1, 21):
        page.wait_for_selector("#hand .card")
        ended = play_out(board, keys=False)
        buttons = page.locator("#dialog-buttons button").all_inner_texts()
        if ended != "Dead hand":
            assert buttons == ["See the match's result"], buttons
            return ended, hands
        page.click("#dialog-buttons .primary")  # Close: the next deal is on its way
        page.wait_for_function("() => !document.querySelector('dialog').open")
        page.wait_for_function("() => document.querySelector('#hand .card')")
    raise AssertionError("20 dead hands in a row")


OFFERED = "() => document.querySelector('#net-turn').textContent.includes('offers a rematch')"


def test_a_guest_sees_the_result_accepts_the_rematch_and_sees_its_first_hand_end(
        guest: Any) -> None:
    board = guest(matches=2)
    page = board.page
    _, hands = play_match(board)
    # A person reads the hand's end: meanwhile the friend's offer comes.
    page.wait_for_function(OFFERED, timeout=30_000)
    assert title(board) in ("You won the hand", "Your friend won the hand")  # still on show
    page.click("#dialog-buttons .primary")  # See the match's result
    assert title(board) in ("You win the match", "Your friend wins the match")
    assert "the match by" in page.inner_text("#dialog-body")
    # The friend has offered: the answer is the offer's own window, not a Rematch button here.
    assert page.locator("#dialog-buttons button").all_inner_texts() == ["Close"]
    page.click("#dialog-buttons button:text('Close')")
    # Then the offer, a window of its own with its choice.
    page.wait_for_selector("#btn-accept-rematch")
    assert title(board) == "Your friend offers a rematch"
    page.click("#btn-accept-rematch")
    page.wait_for_function("() => document.body.dataset.state === 'playing'", timeout=30_000)
    # No word of the last match's deck in this one before its first hand is verified.
    assert page.inner_text("#net-verified") == ""
    second, more = play_match(board)  # the rematch's first hand has its end window too
    assert second in ("You won the hand", "Your friend won the hand")
    page.click("#dialog-buttons .primary")
    assert title(board) in ("You win the match", "Your friend wins the match")
    page.click("#dialog-buttons button:text('Close')")
    page.wait_for_function("() => document.body.dataset.matches === '2'")
    # Your record: two matches, each hand counted once.
    hands += more
    page.click("#btn-record")
    table = page.inner_text("#record-table")
    assert "Matches\t2" in table and f"Hands\t{hands}" in table, table


def test_declining_the_rematch_is_a_normal_end_that_blames_nobody(guest: Any) -> None:
    board = guest(matches=2)
    page = board.page
    play_match(board)
    page.wait_for_function(OFFERED, timeout=30_000)
    page.keyboard.press("Escape")  # the hand's end window: the offer comes next
    page.click("#btn-decline-rematch")
    page.wait_for_function("() => document.body.dataset.state === 'match-over'")
    page.wait_for_function(f"() => ({TITLE})() === 'No rematch'")
    body = page.inner_text("#dialog-body")
    assert body.startswith("You declined the rematch, so the matches on this link end here.")
    for blame in ("At fault", "What failed", "hello.prev"):
        assert blame not in body
    assert page.inner_text("#net-connection") == "The match is over"
    # The finished match stays on the table, its result a button away.
    page.click("#dialog-buttons .primary")
    assert board.visible("#btn-next") and page.inner_text("#btn-next") == "The result"
    page.click("#btn-next")
    assert title(board) in ("You win the match", "Your friend wins the match")


@pytest.fixture
def browser_host(browser: Any, relay_url: str, tmp_path: Path) -> Iterator[Any]:
    """`host(target, **context)`: the person hosts in a page of the board (custom rules
    to ``target`` points, or standard ones for None) and gets (board, link);
    `join(link, *flags)`: `gin join --bot easy` takes the link. Both end with the test."""
    contexts: list[Any] = []
    joins: list[subprocess.Popen[str]] = []

    def host(target: int | None, **context_options: Any) -> tuple[Board, str]:
        context = browser.new_context(**{"viewport": {"width": 1280, "height": 800},
                                         **context_options})
        contexts.append(context)
        context.add_init_script(CSP_WATCH)
        board = Board(context.new_page())
        page = board.page
        page.goto(f"{relay_url}?delay=0")
        page.click("#mode input[value=online]")
        if target is not None:
            page.check("input[name=host-rules][value=custom]")
            page.fill(".custom-rules input[name=target]", str(target))
        page.click("#btn-host")
        return board, page.inner_text("#invite-link")

    def join(link: str, *flags: str) -> subprocess.Popen[str]:
        joined = subprocess.Popen(
            [*GIN, "join", link, "--bot", "easy", "--bot-delay", "0", "--accept-rules", *flags,
             "--data-dir", str(tmp_path / "guest")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        joins.append(joined)
        return joined

    yield host, join
    for context in contexts:
        context.close()
    for joined in joins:
        joined.kill()
        joined.wait()


def test_a_host_asks_for_the_rematch_and_sees_its_first_hand_end(browser_host: Any) -> None:
    """The person hosts in the browser (custom rules: to 1 point) and clicks Rematch at
    the match's end; `gin join --bot easy --matches 2` accepts. The rematch's first hand
    has its end window too, and no word of the last match's deck stays on its line."""
    host, join = browser_host
    board, link = host(1)
    page = board.page
    join(link, "--matches", "2")
    page.wait_for_function("() => document.body.dataset.state === 'playing'", timeout=30_000)
    play_match(board)
    page.click("#dialog-buttons .primary")  # See the match's result
    page.click("#btn-again")  # Rematch
    page.wait_for_function("() => document.body.dataset.matches === '1' "
                           "&& document.body.dataset.state === 'playing'", timeout=30_000)
    assert page.inner_text("#net-verified") == ""
    second, _ = play_match(board)
    assert second in ("You won the hand", "Your friend won the hand")
    board.check_clean()


def test_a_hosts_rematch_against_a_friend_who_left_offers_a_new_link(browser_host: Any) -> None:
    """Issue 28 item 6: the person hosts in the browser; `gin join --bot easy` plays one
    match and exits. Rematch then says the friend has left and offers a new link (it
    waited forever, "Your friend is away"); New link hosts again with the same rules."""
    host, join = browser_host
    board, link = host(1)
    page = board.page
    joined = join(link)
    page.wait_for_function("() => document.body.dataset.state === 'playing'", timeout=30_000)
    play_match(board)
    assert joined.wait(timeout=30) == 0  # its one match is done: the friend's gin exits
    page.click("#dialog-buttons .primary")  # See the match's result
    page.click("#btn-again")  # Rematch
    page.wait_for_function(f"() => ({TITLE})() === 'Your friend has left'", timeout=30_000)
    assert "no rematch on this link" in page.inner_text("#dialog-body")
    page.click("#btn-new-link")
    page.wait_for_selector("#invite-link")
    again = page.inner_text("#invite-link")
    assert again != link and again.split("/j/")[0] == link.split("/j/")[0]
    page.keyboard.press("Escape")
    assert page.evaluate("document.body.dataset.state") == "waiting"
    assert page.inner_text("#net-connection") == "Waiting for your friend to open the link"
    board.check_clean()


def test_a_phone_host_is_shown_the_table_when_the_friend_joins(browser_host: Any) -> None:
    """On a phone the side comes below the table, so a person who hosts from it is
    scrolled down there; when the friend's first deal comes the table is brought into
    view (it stayed scrolled away, the hand out of sight)."""
    host, join = browser_host
    board, link = host(None, viewport={"width": 390, "height": 844}, is_mobile=True,
                       has_touch=True)
    page = board.page
    page.keyboard.press("Escape")  # the invite window: the link is sent
    assert page.evaluate("document.getElementById('table').getBoundingClientRect().top") < 0
    join(link)
    page.wait_for_function("() => document.body.dataset.state === 'playing'", timeout=30_000)
    top = page.evaluate("document.getElementById('table').getBoundingClientRect().top")
    hand = page.evaluate("document.getElementById('hand').getBoundingClientRect().bottom")
    assert top >= 0 and hand <= 844, (top, hand)
    board.check_clean()
