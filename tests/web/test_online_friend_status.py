"""The board's connection line against a real friend (issue 28 items 5 and 9), in
Debian's Chromium: a browser host that a person drives (no ``?bot=``: nobody moves on
the page), a real relay process, and ``gin join --bot easy`` as the friend, a process
of its own. Every text the line shows is recorded in the page (a MutationObserver
installed before the friend comes or goes), with marks the test puts in when it starts
or kills the friend, and the record is checked as a whole:

- before anyone opens the link the line says "Waiting for your friend to open the
  link", never "Connected to your friend", and "Connected" only once the friend's
  program is running (item 5);
- the friend's program killed (SIGKILL) once the board has met it, before or just
  after the first deal: the line says the friend is away, then (the relay giving the
  seat up) that they left, and never again that the friend is still to open the link
  (item 9), nor after the person reloads the page (the line said it while the page
  read the stored match back); the same friend started again with its data folder is
  connected again.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_online_e2e import (  # noqa: F401 (pages: a fixture)
    MATCH_TIMEOUT,
    Page,
    RelayProcess,
    Terminal,
    gin,
    pages,
)

# Every test here takes seconds: a browser, a relay and the friend's process.
pytestmark = pytest.mark.slow

WAITING = "Waiting for your friend to open the link"
CONNECTED = "Connected to your friend"
AWAY = "Your friend is away — waiting for them to come back"
LEFT = "Your friend left — waiting in case they come back"
GRACE = 3  # s: how long the relay keeps a dropped friend's seat here
FRIEND_DELAY = 30  # s: the friend's program waits this long before each move


@pytest.fixture
def relay(board_built: None, tmp_path: Path) -> Iterator[RelayProcess]:
    """`gin relay` that gives a dropped player's seat up after a few seconds."""
    process = RelayProcess(tmp_path / "relay.key", "--grace", str(GRACE))
    process.start()
    try:
        yield process
    finally:
        process.stop()


# Runs in every page before its own script: each text the connection line shows, kept
# in the tab's sessionStorage, so that a reload of the page keeps the record.
RECORD_LINE = """
new MutationObserver(() => {
    const line = document.getElementById('net-connection');
    if (line === null) return;
    const shown = JSON.parse(sessionStorage.getItem('shown') ?? '[]');
    if (shown.at(-1) !== line.textContent) {
        shown.push(line.textContent);
        sessionStorage.setItem('shown', JSON.stringify(shown));
    }
}).observe(document, {childList: true, characterData: true, subtree: true});
"""


def host_as_a_person(page: Page, relay: RelayProcess) -> str:
    """Open the relay's board as a person does, Friend online → Host (the standard
    rules): the invite link. The line's texts are recorded from the page's start."""
    page.page.add_init_script(RECORD_LINE)
    page.page.goto(relay.url + "/")
    page.page.wait_for_selector("#hand .card")
    page.page.check("input[name=mode][value=online]")
    page.page.click("#btn-host")
    page.page.wait_for_selector("#invite-link")
    return str(page.page.inner_text("#invite-link")).strip()


def mark(page: Page, what: str) -> None:
    page.page.evaluate("(m) => { const s = JSON.parse(sessionStorage.getItem('shown') ?? '[]');"
                       " s.push(m); sessionStorage.setItem('shown', JSON.stringify(s)); }",
                       f"<{what}>")


def shown(page: Page) -> list[str]:
    return list(page.page.evaluate("JSON.parse(sessionStorage.getItem('shown') ?? '[]')"))


def wait_line(page: Page, text: str, timeout: int = MATCH_TIMEOUT) -> None:
    page.page.wait_for_function(
        "(t) => document.getElementById('net-connection').textContent === t",
        arg=text, timeout=timeout)


def never_shows(page: Page, text: str, seconds: float) -> None:
    """The line does not show ``text`` over ``seconds`` (checked on every frame)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with pytest.raises(PlaywrightTimeout):
        wait_line(page, text, timeout=int(seconds * 1000))


def after(record: list[str], what: str) -> list[str]:
    return record[record.index(f"<{what}>") + 1:]


def test_the_board_says_waiting_until_a_real_friend_joins_then_connected(
    relay: RelayProcess, browser: Any, pages: list[Page], tmp_path: Path  # noqa: F811
) -> None:
    """Item 5: "Connected to your friend" was said before any friend existed."""
    pages.append(host := Page(browser))
    link = host_as_a_person(host, relay)
    wait_line(host, WAITING, timeout=30_000)
    assert host.state() == "waiting"
    never_shows(host, CONNECTED, seconds=3)  # nobody has the link yet
    mark(host, "friend started")
    guest = Terminal(gin("join", "--bot", "easy"), tmp_path / "guest", stdin=link,
                     delay=FRIEND_DELAY)
    try:
        wait_line(host, CONNECTED)
        host.wait_state("playing")  # the first deal: still connected
        assert host.page.inner_text("#net-connection") == CONNECTED
        record = shown(host)
        before = record[:record.index("<friend started>")]
        assert CONNECTED not in before, record
        assert before[-1] == WAITING, record
        assert set(before) <= {"", "Connecting to the relay…", WAITING}, record
        assert CONNECTED in after(record, "friend started"), record
        assert guest.proc.poll() is None  # the friend's program is still playing
    finally:
        guest.proc.kill()
        guest.finish()
    host.check_clean()


def test_a_real_friend_killed_once_met_is_away_then_left_never_still_to_come(
    relay: RelayProcess, browser: Any, pages: list[Page], tmp_path: Path  # noqa: F811
) -> None:
    """Item 9: the guest killed mid-deal, the host's board said "away", "left", then
    "Waiting for your friend to open the link", though the friend had joined."""
    pages.append(host := Page(browser))
    link = host_as_a_person(host, relay)
    guest = Terminal(gin("join", "--bot", "easy"), tmp_path / "guest", stdin=link,
                     delay=FRIEND_DELAY)
    try:
        # The board has met the friend: connected, and their identity shown.
        host.page.wait_for_function(
            "() => document.getElementById('net-connection').textContent === "
            f"'{CONNECTED}' && !document.getElementById('id-friend').textContent"
            ".includes('shown here once they join')", timeout=MATCH_TIMEOUT)
        # Frozen at once (a deal under way stays so), then killed: no word of goodbye.
        os.kill(guest.proc.pid, signal.SIGSTOP)
        dealt = host.state() == "playing"
        mark(host, "friend killed")
        os.kill(guest.proc.pid, signal.SIGKILL)
        guest.proc.wait(timeout=30)
        wait_line(host, AWAY, timeout=30_000)
        wait_line(host, LEFT, timeout=30_000)  # the relay gave the seat up
        never_shows(host, WAITING, seconds=GRACE + 2)
        record = shown(host)
        since = after(record, "friend killed")
        assert WAITING not in since, (dealt, record)
        assert set(since) <= {CONNECTED, AWAY, LEFT}, record  # connected: said late
        assert since.index(AWAY) < since.index(LEFT), record
        assert host.state() == "waiting"
        # The person reloads the page: the match is read back, the friend still met.
        mark(host, "reloaded")
        host.page.reload()
        host.page.wait_for_function(  # the match read back, its line said
            f"() => [{AWAY!r}, {LEFT!r}, {WAITING!r}].includes("
            "document.getElementById('net-connection').textContent)", timeout=30_000)
        never_shows(host, WAITING, seconds=3)
        record = shown(host)
        assert WAITING not in after(record, "friend killed"), record
        assert set(after(record, "reloaded")) <= {"", "Connecting to the relay…", AWAY, LEFT}, \
            record
        # The friend comes back with its data folder: connected again.
        mark(host, "friend started again")
        again = Terminal(gin("join", "--bot", "easy"), tmp_path / "guest", stdin=link,
                         delay=FRIEND_DELAY)
        try:
            wait_line(host, CONNECTED)
            record = shown(host)
            assert WAITING not in after(record, "friend killed"), record
            assert again.proc.poll() is None
        finally:
            again.proc.kill()
            again.finish()
    finally:
        if guest.proc.poll() is None:
            guest.proc.kill()
        guest.finish()
    host.check_clean()
