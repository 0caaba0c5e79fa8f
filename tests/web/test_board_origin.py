"""The board's origin is independent of the relay (issue 27), with real parts: the
board exported by `gin web --export` and served by a static server on one port of
127.0.0.1, `gin relay` on others, Debian's Chromium and the terminal client.

- a browser host on the static board (relay typed in the host window) and
  `gin join --bot` play a whole match; both sides' records audit;
- `gin host --board STATIC --bot` and a browser guest on that link play a whole match;
  then a relay run with `--board STATIC` sends its link's visitor to the static board,
  the secret after '#' kept, and the match plays there, under the same identity as on
  the first relay;
- Join with a link: a relay's own link pasted into the player's own board (another
  relay serving it, as `gin web` does) plays there, on the link's relay; a link to a
  relay nobody runs is said plainly, and so is a relay that refuses boards of other
  sites (answers /new without CORS);
- `gin board-check` against a relay (exit 0), through an invite link's redirect, and
  against the static site with a changed board.js (exit 1, naming it).
"""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from client.cli import main as gin_main
from client.net.links import parse_invite
from relay import static
from tests.web.test_online_e2e import (
    MATCH_TIMEOUT,
    Page,
    RelayProcess,
    Terminal,
    audit_both,
    gin,
)

# Every test here takes seconds: a browser, relays and subprocesses.
pytestmark = pytest.mark.slow


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


class StaticSite:
    """A plain static file server on 127.0.0.1 (as GitHub Pages is: no headers of ours)."""

    def __init__(self, folder: Path, handler: type[SimpleHTTPRequestHandler] = Quiet) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(handler, directory=str(folder)))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(board_built: None, tmp_path: Path) -> Iterator[StaticSite]:
    folder = tmp_path / "site"
    assert gin_main(["web", "--export", str(folder)]) == 0
    served = StaticSite(folder)
    yield served
    served.close()


@pytest.fixture
def relays(board_built: None, tmp_path: Path) -> Iterator[list[RelayProcess]]:
    started: list[RelayProcess] = []
    yield started
    for relay in started:
        relay.stop()


def start_relay(relays: list[RelayProcess], folder: Path, *extra: str) -> RelayProcess:
    relay = RelayProcess(folder / f"relay-{len(relays)}.key", *extra)
    relay.start()
    relays.append(relay)
    return relay


@pytest.fixture
def pages(browser: Any) -> Iterator[list[Page]]:
    opened: list[Page] = []
    yield opened
    for page in opened:
        page.close()


def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (one just let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def origin_line(page: Page) -> str:
    return str(page.page.inner_text("#net-origin"))


def test_a_browser_host_on_a_static_board_and_a_terminal_guest_play_on_a_relay_elsewhere(
    site: StaticSite, relays: list[RelayProcess], browser: Any, pages: list[Page],
    tmp_path: Path, axe: Callable[[Any, str], None],
) -> None:
    relay = start_relay(relays, tmp_path)
    pages.append(host := Page(browser))
    host.page.goto(f"{site.url}?bot=hard&delay=0")
    host.page.wait_for_selector("#hand .card")
    host.page.check("input[name=mode][value=online]")
    # The board's site runs no relay: the host names one, and the board opens there.
    axe(host.page, "the host window with its relay and friend's board")
    host.page.fill("#host-relay", relay.url)
    # Until the host changes it, the friend's board is this one: the relay serves none here.
    assert host.page.input_value("#host-board") == site.url
    host.page.check("input[name=host-rules][value=custom]")
    host.page.fill("input[name=target]", "10")
    host.page.click("#btn-host")
    host.page.wait_for_selector("#invite-link")
    link = str(host.page.inner_text("#invite-link")).strip()
    invite = parse_invite(link)
    assert link.startswith(f"{site.url}?relay={relay.url}&room=")
    assert invite.board == site.url and invite.relay.port == relay.port
    assert "comes from 127.0.0.1:" in host.page.inner_text("#invite-origin")
    guest = Terminal(gin("join", "--bot", "normal", "--accept-rules"), tmp_path / "guest",
                     stdin=link)
    assert host.wait_state("match-over", "failed") == "match-over"
    code, err = guest.finish()
    assert code == 0, err
    audit_both(host.records(tmp_path / "host-records"), guest.records(), guest.data)
    assert origin_line(host) == f"Board from {site.url[7:-1]} · relay 127.0.0.1:{relay.port}"
    assert "only passes sealed messages" in host.page.inner_text("#net-origin-trust")
    host.check_clean()
    # The page reaches its relay and nothing else: its own policy says so.
    elsewhere = f"http://127.0.0.1:{closed_port()}/x"
    host.page.evaluate("(url) => fetch(url).catch(() => null)", elsewhere)
    host.page.wait_for_function("() => window.__violations.length > 0")
    assert host.page.evaluate("window.__violations") == [f"connect-src {elsewhere}"]
    host.page.evaluate("window.__violations = []")


def test_a_terminal_host_sends_a_browser_to_a_static_board_and_a_relay_redirects_there(
    site: StaticSite, relays: list[RelayProcess], browser: Any, pages: list[Page],
    tmp_path: Path,
) -> None:
    first = start_relay(relays, tmp_path)
    host = Terminal(gin("host", "--relay", first.url, "--board", site.url, "--bot", "easy",
                        "--target", "10"), tmp_path / "host")
    link = host.link()
    assert link.startswith(f"{site.url}?relay={first.url}&room=")
    pages.append(guest := Page(browser))
    head, _, secret = link.partition("#")
    guest.page.goto(f"{head}&bot=easy&delay=0#{secret}")
    guest.page.click("#btn-accept-rules", timeout=MATCH_TIMEOUT)
    assert guest.wait_state("match-over", "failed") == "match-over"
    code, err = host.finish()
    assert code == 0, err
    assert f"Your friend's page comes from {site.url[7:-1]}" in err
    audit_both(guest.records(tmp_path / "guest-records"), host.records(), host.data)
    mine = str(guest.page.inner_text("#id-mine"))
    assert mine.startswith("You: ")
    guest.check_clean()

    # A relay whose operator points invite links at the static board.
    second = start_relay(relays, tmp_path, "--board", site.url)
    other = Terminal(gin("host", "--relay", second.url, "--bot", "easy", "--target", "10"),
                     tmp_path / "other")
    link = other.link()
    room = parse_invite(link).room
    assert link.startswith(f"{second.url}/j/")  # the relay's own link, as today
    head, _, secret = link.partition("#")
    pages.append(again := Page(browser, tab_of=guest))  # the same browser, another relay
    again.page.goto(f"{head}?bot=easy&delay=0#{secret}")
    again.page.click("#btn-accept-rules", timeout=MATCH_TIMEOUT)
    assert again.page.url == (f"{site.url}?relay={second.url}&room={room}&bot=easy&delay=0"
                              f"#{secret}")
    assert again.wait_state("match-over", "failed") == "match-over"
    code, err = other.finish()
    assert code == 0, err
    # One board, one identity: the same five words on both relays.
    assert again.page.inner_text("#id-mine") == mine
    assert origin_line(again) == f"Board from {site.url[7:-1]} · relay 127.0.0.1:{second.port}"
    again.check_clean()


def test_join_with_a_link_plays_a_relays_link_in_the_players_own_board(
    relays: list[RelayProcess], browser: Any, pages: list[Page], tmp_path: Path,
) -> None:
    """A friend keeps a board they trust (their own `gin web`: a relay on this computer
    serving it) and pastes the link of today's form, made by a host who chose no board:
    the match plays in that board, on the link's relay, which its policy lets it reach."""
    relay = start_relay(relays, tmp_path)
    own = start_relay(relays, tmp_path)
    host = Terminal(gin("host", "--relay", relay.url, "--bot", "easy", "--target", "10"),
                    tmp_path / "host")
    link = host.link()
    room = parse_invite(link).room
    pages.append(guest := Page(browser))
    board = f"{own.url}/"
    guest.page.goto(f"{board}?bot=easy&delay=0")
    guest.page.wait_for_selector("#hand .card")
    guest.page.click("#btn-join-link")
    guest.page.fill("#join-link", link)
    guest.page.click("#btn-join")
    guest.page.click("#btn-accept-rules", timeout=MATCH_TIMEOUT)
    secret = link.partition("#")[2]
    assert guest.page.url == f"{board}?bot=easy&delay=0&relay={relay.url}&room={room}#{secret}"
    assert guest.wait_state("match-over", "failed") == "match-over"
    code, err = host.finish()
    assert code == 0, err
    audit_both(guest.records(tmp_path / "guest-records"), host.records(), host.data)
    assert origin_line(guest) == f"Board from 127.0.0.1:{own.port} · relay 127.0.0.1:{relay.port}"
    guest.check_clean()


class NoCors(Quiet):
    """A relay of old, or one that refuses pages of other sites: /new answers without
    Access-Control-Allow-Origin."""

    def do_GET(self) -> None:
        body = b'{"room":"' + b"A" * 32 + b'","seat":0,"ticket":"x"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_link_to_no_relay_and_a_relay_refusing_other_sites_are_said_plainly(
    site: StaticSite, browser: Any, pages: list[Page], tmp_path: Path,
    axe: Callable[[Any, str], None],
) -> None:
    pages.append(page := Page(browser))
    page.page.goto(site.url)
    page.page.wait_for_selector("#hand .card")
    page.page.click("#btn-join-link")
    nobody = f"http://127.0.0.1:{closed_port()}"
    page.page.fill("#join-link", f"{nobody}/j/short#x")
    page.page.click("#btn-join")
    assert "room id after /j/ must be 32" in page.page.inner_text("#dialog-body")
    axe(page.page, "Join with a link, saying what is wrong with the link")
    secret = "A" * 43
    page.page.fill("#join-link", f"{nobody}/j/{'B' * 32}#{secret}")
    page.page.click("#btn-join")
    # The board opens on the link's relay, which nobody runs: said, and kept trying.
    page.page.wait_for_function("() => document.body.innerText.includes('cannot be reached')")
    assert page.page.url == f"{site.url}?relay={nobody}&room={'B' * 32}#{secret}"
    assert f"The relay at {nobody} cannot be reached" in page.page.inner_text("body")
    page.check_clean(expected="ERR_CONNECTION_REFUSED")

    old = StaticSite(tmp_path, NoCors)
    try:
        pages.append(host := Page(browser))
        host.page.goto(site.url)
        host.page.wait_for_selector("#hand .card")
        host.page.check("input[name=mode][value=online]")
        host.page.fill("#host-relay", old.url)
        host.page.click("#btn-host")
        host.page.wait_for_function("() => document.body.innerText.includes('cannot be reached')")
        said = host.page.inner_text("body")
        assert f"The relay at {old.url[:-1]} cannot be reached" in said
        assert "lets boards from other sites play on it" in said
        # Chromium's own words on the refused answer, and nothing else.
        assert host.page.evaluate("window.__violations") == []
        assert host.errors and all("CORS policy" in e or "net::ERR_FAILED" in e
                                   for e in host.errors), host.errors
    finally:
        old.close()


def test_board_check_says_which_file_differs_from_this_installations_board(
    site: StaticSite, relays: list[RelayProcess], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    relay = start_relay(relays, tmp_path)
    assert gin_main(["board-check", relay.url]) == 0
    out = capsys.readouterr().out
    assert sum(line.lstrip().startswith("same ") for line in out.splitlines()) == len(static.FILES)
    assert f"build {static.load_board().build()})" in out  # the digest a new build is announced by
    assert "DIFFERENT" not in out
    # An invite link is checked as the page it opens: here the static board, by redirect.
    pointing = start_relay(relays, tmp_path, "--board", site.url)
    host = Terminal(gin("host", "--relay", pointing.url, "--bot", "easy"), tmp_path / "host")
    try:
        link = host.link()
        assert gin_main(["board-check", link]) == 0
        out = capsys.readouterr().out
        assert f"the board at {site.url} " in out and "Every file is the same" in out
    finally:
        host.proc.kill()
        _, err = host.finish()
    # No board of its own: the host was told where its friend's page comes from.
    assert f"Your friend's page comes from the relay at 127.0.0.1:{pointing.port}" in err
    # The same site with one file changed: named, with both digests.
    folder = Path(site.server.RequestHandlerClass.keywords["directory"])  # type: ignore[attr-defined]
    changed = folder / "board.js"
    changed.write_bytes(changed.read_bytes() + b"\n//x")
    assert gin_main(["board-check", site.url]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    wrong = next(i for i, line in enumerate(lines) if "DIFFERENT" in line)
    assert "board.js" in lines[wrong] and len(lines[wrong].split()[-1]) == 64
    assert "served" in lines[wrong + 1] and lines[wrong + 1].split()[-1] != lines[wrong].split()[-1]
    assert sum("DIFFERENT" in line for line in lines) == 1
    assert f"1 of {len(static.FILES)} files differ" in out


def test_board_check_refuses_what_it_cannot_fetch(capsys: pytest.CaptureFixture[str]) -> None:
    assert gin_main(["board-check", "ftp://example.org/"]) == 2
    assert gin_main(["board-check", f"http://127.0.0.1:{closed_port()}/"]) == 2
    err = capsys.readouterr().err
    assert "not an http:// or https:// address" in err and "cannot fetch" in err
