"""An invite link opens the browser board in join mode; its assets, the worker
included, are found from /j/; /j/ROOM?terminal keeps the steps for `gin join`; the
relay logs and shows the SHA-256 of every file it serves."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from relay import static
from relay.roomid import RoomIds
from relay.server import Relay
from tests.support.relay import http_get, pair

StartRelay = Callable[..., Awaitable[Relay]]
PAGE = b"<!doctype html><title>board</title>"
NAMES = ("index.html", "board.js", "board.css", "worker.js")


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built board: the page, its script, its style and the online peer's worker."""
    (tmp_path / "index.html").write_bytes(PAGE)
    (tmp_path / "board.js").write_text("console.log('board')")
    (tmp_path / "board.css").write_text("body{}")
    (tmp_path / "worker.js").write_text("onmessage=()=>{}")
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)
    return tmp_path


async def test_an_invite_link_opens_the_board(start_relay: StartRelay, built: Path) -> None:
    relay = await start_relay()
    host, _ = await pair(relay)
    status, headers, body = await http_get(relay, f"/j/{host.room}")
    assert (status, body) == (200, PAGE)
    assert headers["content-type"] == "text/html; charset=utf-8"
    policy = headers["content-security-policy"]
    assert "worker-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and headers["referrer-policy"] == "no-referrer"


async def test_the_boards_files_are_found_from_an_invite_links_path(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay()
    for name in NAMES[1:]:
        top = await http_get(relay, f"/{name}")
        under = await http_get(relay, f"/j/{name}")
        assert top[0] == under[0] == 200 and top[2] == under[2] == (built / name).read_bytes()
        assert under[1]["content-type"] == "text/javascript; charset=utf-8" \
            if name.endswith(".js") else "text/css; charset=utf-8"
    for path in ("/j/", "/j/notes.txt", "/j/j/board.js", "/j/../board.js"):
        status, _, body = await http_get(relay, path)
        assert body != (built / "board.js").read_bytes() and b"<title>board" not in body, path
        assert status in (200, 404), path  # /j/ alone is an invite of no room: the page says so


async def test_a_forged_invite_gets_the_page_that_says_so(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay()
    status, _, body = await http_get(relay, f"/j/{RoomIds(b'z' * 32).issue()}")
    page = body.decode()
    assert status == 200 and "This relay did not issue this invite" in page
    assert "opens the game in your browser" not in page  # it would not
    # The board plays in the browser: the page says what an unknown room means.
    assert "not in the browser" not in page and "right here in the browser" in page
    assert "the link is wrong" in page and "relay that made it was replaced" in page


async def test_the_steps_for_the_terminal_stay_reachable(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay()
    host, _ = await pair(relay)
    status, headers, body = await http_get(relay, f"/j/{host.room}?terminal")
    page = body.decode()
    assert status == 200 and "default-src 'none'" in headers["content-security-policy"]
    assert "gin join" in page and "opens the game in your browser" in page
    assert "without <code>?terminal</code>" in page and "did not issue" not in page


async def test_the_served_files_digests_are_logged_at_start_and_shown_at_version(
    start_relay: StartRelay, built: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="relay"):
        relay = await start_relay()
    expected = {name: hashlib.sha256((built / name).read_bytes()).hexdigest() for name in NAMES}
    started = [r for r in caplog.records if r.getMessage() == "relay_started"]
    assert [getattr(r, "fields", {}).get("board") for r in started] == [expected]
    version = json.loads((await http_get(relay, "/version"))[2])
    assert version == {"board": expected, "build": version["build"]}
    lines = "".join(f"{expected[n]}  {n}\n" for n in sorted(expected))
    assert version["build"] == hashlib.sha256(lines.encode()).hexdigest()
