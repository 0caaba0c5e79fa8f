"""Issue 28 item 10 on the board, through a standalone relay that gives a dropped seat
up after a second (as 120 s is shorter than a player's grace): a browser guest closes
its tab on its move; `gin host --bot --grace 4` ends the match as abandoned and leaves.
The guest who opens the link again is told the friend left for good, not left waiting
for a host that has gone."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CSP_WATCH, Board

GIN = [sys.executable, "-m", "client.cli"]
pytestmark = pytest.mark.slow  # a match's start and two graces, in seconds


@pytest.fixture
def forgetful_relay(board_built: None, tmp_path: Path) -> Iterator[str]:
    """`gin relay --grace 1` on 127.0.0.1, serving the board."""
    proc = subprocess.Popen(
        [*GIN, "relay", "--host", "127.0.0.1", "--port", "0", "--grace", "1",
         "--log-level", "info", "--key-file", str(tmp_path / "relay.key")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        port = None
        for line in proc.stderr:
            entry = json.loads(line)
            if entry.get("event") == "relay_started":
                port = entry["port"]
                break
        assert port is not None, "the relay exited before it listened"
        # Keep reading its log, so a full pipe never stalls it.
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_guest_back_after_the_host_ended_the_match_is_told_the_host_left(
        browser: Any, forgetful_relay: str, tmp_path: Path) -> None:
    host = subprocess.Popen(
        [*GIN, "host", "--relay", forgetful_relay, "--bot", "hard", "--bot-delay", "0",
         "--grace", "4", "--data-dir", str(tmp_path / "host")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.add_init_script(CSP_WATCH)
        assert host.stdout is not None
        head, _, secret = host.stdout.readline().strip().partition("#")
        link = f"{head}?delay=0#{secret}"
        first = Board(context.new_page())
        first.page.goto(link)
        # The person's move comes (the upcard, or a draw): they close the tab instead.
        first.page.wait_for_function(
            "() => [...document.querySelectorAll('#btn-take, #btn-pass, #btn-stock')]"
            ".some((b) => b.checkVisibility())", timeout=60_000)
        first.page.close()
        _, err = host.communicate(timeout=60)
        assert "Abandoned by your friend (the guest): it owed its move" in err
        # Back, with the link: the match is kept in this browser and resumed.
        board = Board(context.new_page())
        board.page.goto(link)
        board.page.wait_for_function("() => document.body.dataset.state === 'failed'",
                                     timeout=30_000)
        assert board.page.inner_text("#dialog-title") == "Your friend has left this match"
        body = board.page.inner_text("#dialog-body")
        assert "Your friend (the host) left this match for good while you were away" in body
        assert "you owed your move" in body and "At fault" not in body
        board.check_clean()
        # This browser notes the end, as gin join does: the link says so from now on.
        again = Board(context.new_page())
        again.page.goto(link)
        again.page.wait_for_function(
            "() => document.body.innerText.includes('The match of this invite link is over')",
            timeout=30_000)
        assert "Your friend (the host) left this match for good" in again.page.inner_text("body")
        again.check_clean()
    finally:
        context.close()
        host.kill()
        host.wait()
