"""A board of any site plays on any relay (issue 27): `GET /new` and `/version` answer
pages of every origin, a board page that names another relay may reach exactly that
relay, and `--board URL` sends an invite link's visitors to that board, the link's
other parameters kept (the secret after '#' never reaches the relay: the browser
keeps it over the redirect, tests/web/test_board_origin.py)."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from relay import static
from relay.config import add_arguments, config_from_args
from relay.server import Relay
from tests.support.relay import TOKEN_A, http_get, pair

StartRelay = Callable[..., Awaitable[Relay]]


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in static.FILES:
        (tmp_path / name).write_text(f"<!-- {name} -->")
    monkeypatch.setattr(static, "BOARD_DIR", tmp_path)
    return tmp_path


async def test_new_rooms_and_the_digests_answer_a_page_of_any_origin(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay(new_rooms_burst=1)
    origin = [("Origin", "https://board.example.org")]
    status, headers, _ = await http_get(relay, f"/new?token={TOKEN_A}", origin)
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    # A refusal is readable too, so the page can say why.
    status, headers, body = await http_get(relay, f"/new?token={TOKEN_A}", origin)
    assert status == 429 and headers["access-control-allow-origin"] == "*" and b"too many" in body
    status, headers, _ = await http_get(relay, "/version", origin)
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    # Nothing else is opened to other sites: the board's files and pages stay as they were.
    for path in ("/", "/board.js", "/healthz"):
        assert "access-control-allow-origin" not in (await http_get(relay, path, origin))[1]


async def test_a_board_page_naming_another_relay_may_reach_that_relay_only(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay()
    _, headers, _ = await http_get(relay, "/?relay=https://relay.example.org:8443/gin&room=x")
    policy = headers["content-security-policy"]
    assert ("connect-src 'self' https://relay.example.org:8443 wss://relay.example.org:8443;"
            in policy)
    _, plain, _ = await http_get(relay, "/")
    assert plain["content-security-policy"] == static.CSP
    for bad in ("javascript:alert(1)", "https://u:p@x.org", "ftp://x.org", "%20;%20script-src%20*"):
        _, headers, _ = await http_get(relay, f"/?relay={bad}")
        assert headers["content-security-policy"] == static.CSP, bad


async def test_with_a_board_an_invite_link_is_sent_there_with_its_relay_and_room(
    start_relay: StartRelay, built: Path
) -> None:
    relay = await start_relay(board="https://board.example.org/gin/")
    host, _ = await pair(relay)
    status, headers, body = await http_get(relay, f"/j/{host.room}?bot=easy&relay=evil")
    assert status == 302 and body == b""
    assert headers["location"] == (f"https://board.example.org/gin/?relay=http://127.0.0.1"
                                   f"&room={host.room}&bot=easy")
    # The terminal's steps stay here, and a room this relay did not issue opens no board.
    assert (await http_get(relay, f"/j/{host.room}?terminal"))[0] == 200
    assert (await http_get(relay, "/j/" + "A" * 32))[0] == 200
    behind = await start_relay(board="https://board.example.org/",
                               public_url="https://relay.example.org/gin")
    host, _ = await pair(behind)
    _, headers, _ = await http_get(behind, f"/j/{host.room}")
    assert headers["location"] == (f"https://board.example.org/?relay=https://relay.example.org"
                                   f"/gin&room={host.room}")


@pytest.mark.parametrize("value", ["ftp://board.example.org", "board.example.org",
                                   "https://board.example.org/#x", "javascript:alert(1)"])
def test_a_board_that_is_not_an_http_address_is_refused_by_name(value: str) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--board", value])
    with pytest.raises(ValueError, match="GIN_RELAY_BOARD"):
        config_from_args(parser.parse_args([]), {"GIN_RELAY_BOARD": value})
    board = config_from_args(parser.parse_args(["--board", "https://b.example.org"]), {}).board
    assert board == "https://b.example.org/"
