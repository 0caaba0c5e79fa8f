"""The board's online flows in Debian's Chromium, against a fake online peer.

The board is built with client/web/test/web/fake_peer.ts in place of the real
online peer (a local match, the friend played by the computer, no relay and no
crypto) and served here on 127.0.0.1 with the relay's own Content-Security-Policy,
at ``/`` and at ``/j/ROOM``. Tests configure the fake before the page starts
(``window.fakeSetup``) and steer it through ``window.fake``: the friend arrives,
the connection drops, a hand fails its check. What they check is the board: the
invite (link, Copy, QR code), the connection line, the guest's seat at the bottom,
custom rules offered, the failure alert as plain text, records downloaded, the
page's ``data-state`` and the ``?bot=`` automation. One test plays the real peer
against `gin host` on the relay and audits a record downloaded from the page.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import zxingcpp

from client.table import words as table_words
from relay import static
from relay.static import CSP

WEB = Path(__file__).parents[2] / "client" / "web"
CSP_WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""
FAKE_LINK_PATH = "/j/FAKEROOM"


@pytest.fixture(scope="module")
def fake_board(tmp_path_factory: pytest.TempPathFactory, npm: str, board_built: None) -> Path:
    """The board bundled with the fake peer (index.html and board.css as built): the
    board's tools are there, since the board was built with them."""
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    out = tmp_path_factory.mktemp("fake-board")
    subprocess.run([str(esbuild), "test/web/fake_board.ts", "--bundle", "--format=esm",
                    "--target=es2022", "--log-level=warning", f"--outfile={out / 'board.js'}"],
                   cwd=WEB, check=True)
    shutil.copy(WEB / "src" / "board" / "index.html", out / "index.html")
    shutil.copy(WEB / "dist" / "board.css", out / "board.css")  # its @import bundled
    return out


@pytest.fixture(scope="module")
def site(fake_board: Path) -> Iterator[str]:
    """The fake board on 127.0.0.1: the page at / and /j/ROOM, its assets by name (the
    app's manifest, icons and service worker as built: the last installs nothing here,
    the fake page not being its build's)."""
    files = {name: (fake_board if name in ("index.html", "board.js", "board.css")
                    else static.BOARD_DIR).joinpath(name).read_bytes() for name in static.FILES}
    types = static.FILES

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            path = self.path.partition("?")[0]
            name = path.rsplit("/", 1)[-1]
            if name not in files or name == "index.html":
                name = "index.html" if path == "/" or path.startswith("/j/") else ""
            if not name:
                self.send_error(404)
                return
            body = files[name]
            self.send_response(200)
            self.send_header("Content-Type", types[name])
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class Page:
    """One page of the fake board, with what it logged."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def fake(self, script: str) -> Any:
        """Run `script` with `fake` (the FakeOnline) and `peer` (its newest peer)."""
        return self.page.evaluate(
            f"() => {{ const fake = window.fake; const peer = fake.peer; {script} }}")

    def state(self) -> str | None:
        return self.page.evaluate("document.body.dataset.state ?? null")

    def wait_state(self, state: str, timeout: float = 30_000) -> None:
        self.page.wait_for_function(f"() => document.body.dataset.state === {json.dumps(state)}",
                                    timeout=timeout)

    def text(self, selector: str) -> str:
        return str(self.page.inner_text(selector))

    def check_clean(self) -> None:
        violations = self.page.evaluate("window.__violations")
        assert violations == [], f"CSP violations: {violations}"
        assert self.errors == [], f"console errors: {self.errors}"


@pytest.fixture
def open_page(browser: Any, site: str) -> Iterator[Any]:
    pages: list[Page] = []
    contexts: list[Any] = []

    def open_(path: str = "/?delay=0", setup: dict[str, Any] | None = None, width: int = 1280,
              height: int = 800, permissions: list[str] | None = None,
              init: str = "") -> Page:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      accept_downloads=True)
        if permissions:
            context.grant_permissions(permissions, origin=site)
        contexts.append(context)
        context.add_init_script(CSP_WATCH)
        context.add_init_script(f"window.fakeSetup = {json.dumps(setup or {})};" + init)
        page = Page(context.new_page())
        pages.append(page)
        page.page.goto(site + path)
        page.page.wait_for_selector("#hand .card, #net:not([hidden])")
        return page

    yield open_
    try:
        for page in pages:
            page.check_clean()
    finally:
        for context in contexts:
            context.close()


def host(page: Page, rules: str = "standard", custom: dict[str, int] | None = None) -> None:
    """Friend online → (rules) → Host."""
    page.page.click("#mode input[value=online]")
    assert page.text("#dialog-title") == "Play a friend online"
    page.page.check(f"input[name=host-rules][value={rules}]")
    for field, value in (custom or {}).items():
        page.page.fill(f".custom-rules input[name={field}]", str(value))
    page.page.click("#btn-host")


def qr_text(page: Page) -> str:
    """What a QR reader finds on the invite's canvas (its pixels, read back from the page)."""
    width, height, gray = page.page.evaluate("""() => {
        const canvas = document.querySelector('#dialog-body canvas');
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        const gray = [];
        for (let i = 0; i < data.length; i += 4) gray.push(data[i]);
        return [canvas.width, canvas.height, gray];
    }""")
    image = memoryview(bytes(gray)).cast("B", (height, width))
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(found) == 1, found
    return str(found[0].text)


def test_host_shows_the_link_a_copy_button_and_a_qr_code_of_the_link(open_page: Any) -> None:
    page = open_page(width=360, height=640, permissions=["clipboard-read", "clipboard-write"])
    host(page)
    assert page.text("#dialog-title") == "Invite your friend"
    link = page.text("#invite-link")
    assert link == page.fake("return peer.link;")
    assert link.startswith("http://127.0.0.1:") and "/j/FAKEROOM#" in link
    # Served on 127.0.0.1, the link is no good for a friend elsewhere: the window says so.
    assert "only this computer can reach" in page.text("#invite-local")
    # The relay serves the page: the friend's page comes from it, and this one's too.
    assert "Your friend's page comes from the relay at 127.0.0.1:" in page.text("#invite-origin")
    assert page.text("#net-origin").endswith(": the same server")
    assert "could read your hand" in page.text("#net-origin-trust")
    # The whole link is shown inside the window, wrapped rather than cut off.
    fits = page.page.evaluate("""() => { const e = document.querySelector('#invite-link');
        const d = document.querySelector('dialog').getBoundingClientRect();
        const b = e.getBoundingClientRect();
        return e.scrollWidth <= e.clientWidth && b.left >= d.left && b.right <= d.right; }""")
    assert fits
    assert qr_text(page) == link  # the QR code holds exactly the link
    page.page.click("#btn-copy")
    page.page.wait_for_function("() => document.querySelector('#copy-status').textContent !== ''")
    assert page.text("#copy-status") == "Copied"
    assert page.page.evaluate("navigator.clipboard.readText()") == link
    assert page.state() == "waiting"


def test_when_the_clipboard_refuses_the_link_is_selected_instead(open_page: Any) -> None:
    refuse = ("Object.defineProperty(navigator, 'clipboard', {value: {writeText: "
              "() => Promise.reject(new Error('denied'))}});")
    page = open_page(init=refuse)
    host(page)
    page.page.click("#btn-copy")
    page.page.wait_for_function("() => document.querySelector('#copy-status').textContent !== ''")
    assert "selected" in page.text("#copy-status") and "Copied" not in page.text("#copy-status")
    assert page.page.evaluate("window.getSelection().toString()") == page.text("#invite-link")


def test_online_the_local_choices_are_hidden_and_the_connection_is_always_shown(
    open_page: Any,
) -> None:
    page = open_page()
    assert page.state() is None  # a local match has no online state
    host(page)
    assert page.text("#dialog-title") == "Invite your friend"
    assert page.state() == "waiting"
    assert page.text("#net-connection") == "Waiting for your friend to open the link"
    for hidden in ("#strength", "#rules", "#pause", "#btn-new"):
        assert not page.page.is_visible(hidden), hidden
    assert page.page.is_visible("#btn-invite") and not page.page.is_visible("#join-hint")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    assert not page.page.evaluate("document.querySelector('dialog').open")  # the invite is done
    assert page.text("#net-connection") == "Connected to your friend"
    assert page.text("#opponent-label").startswith("Your friend (guest)")
    assert page.text("#score-them") == "Friend"
    # One vocabulary: "away" while the relay keeps the friend's seat, "left" once not.
    steps = [("reconnecting", "Connection lost — reconnecting…", "playing"),
             ("peer-left", "Your friend is away — waiting for them to come back", "waiting"),
             ("waiting", "Your friend is away — waiting for them to come back", "waiting"),
             ("peer-gone", "Your friend left — waiting in case they come back", "waiting"),
             ("connected", "Connected to your friend", "playing")]
    for connection, words, state in steps:
        page.fake(f"peer.setConnection({json.dumps(connection)});")
        assert page.text("#net-connection") == words
        assert page.state() == state
    # Whose move: the host is not the first dealer here, so the upcard is offered to it.
    assert page.text("#net-turn") == "Your move"
    # No hint against a person (issue 21 item 16): no button, and h says why.
    assert not page.page.is_visible("#btn-hint")
    page.page.keyboard.press("h")
    assert page.text("#prompt") == table_words.NO_HINT_ONLINE
    page.page.click("#btn-pass")
    page.page.wait_for_function("() => document.querySelector('#net-turn').textContent !== ''")
    assert page.text("#net-turn") in ("Your move", "Your friend's move")
    assert page.fake("return peer.sent;") == ["pass"]


def test_on_the_friends_move_the_prompt_says_when_they_are_not_there(open_page: Any) -> None:
    """"Your friend is thinking…" only while they are connected: away, gone, or this
    side reconnecting, the prompt says so."""
    page = open_page(setup={"friendDelay": 600_000})
    host(page)
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    page.page.click("#btn-pass")  # the friend's move now, which never comes
    page.page.wait_for_function(
        "() => document.querySelector('#prompt').textContent === 'Your friend is thinking…'")
    for connection, said in (
            ("peer-left", "Your friend is away — waiting for them to come back"),
            ("peer-gone", "Your friend left — waiting in case they come back"),
            ("reconnecting", "Connection lost — reconnecting…"),
            ("connected", "Your friend is thinking…")):
        page.fake(f"peer.setConnection({json.dumps(connection)});")
        assert page.text("#prompt") == said, connection


def test_a_guest_opening_the_link_joins_at_once_and_sits_at_the_bottom(open_page: Any) -> None:
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#the-secret", setup={"arrive": True, "seed": 5})
    page.wait_state("playing")
    assert page.fake("return [peer.role, peer.seat];") == ["guest", 1]
    assert page.fake("return fake.peers.length;") == 1
    shown = page.page.eval_on_selector_all("#hand .card",
                                           "cs => cs.map(c => c.dataset.card).sort()")
    seat1 = page.fake("return peer.match.observation(1).hand.map(String).sort();")
    assert shown == seat1 and len(shown) == 10
    assert page.text("#opponent-label").startswith("Your friend (host)")
    assert page.page.is_visible("#join-hint") and "gin join" in page.text("#join-hint")
    assert not page.page.is_visible("#btn-invite")
    # The fake's first dealer is seat 1: this guest deals, so the host is not marked.
    assert "· dealer" not in page.text("#opponent-label")
    # Both identities are in the online panel, five words each.
    assert page.text("#id-friend") == ("Your friend: lemon harbor violin tulip kayak (new: you "
                                       "have not played this identity before)")
    assert page.text("#id-mine") == "You: maple otter pebble quilt robin"


def test_a_link_without_its_secret_says_so(open_page: Any) -> None:
    page = open_page(f"{FAKE_LINK_PATH}?delay=0")
    assert "lost its secret" in page.text("#dialog-body")
    assert page.fake("return fake.peers.length;") == 0


def test_a_failure_is_shown_as_plain_text_naming_what_failed_and_who(
    open_page: Any, artifacts: Path
) -> None:
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True}, width=360, height=640)
    page.wait_state("playing")
    reason = "The host's deck key <b>does not</b> open card 12 <img src=x>"
    page.fake("peer.fail({kind: 'CheatDetected', who: 'host', field: 'deal.keys', "
              f"reason: {json.dumps(reason)}, proven: true}});")
    page.wait_state("failed")
    assert page.text("#dialog-title") == "Cheating detected"
    body = page.text("#dialog-body")
    assert reason in body
    assert "What failed: deal.keys." in body
    assert "At fault: host (proven: the match is forfeited)." in body
    assert page.page.locator("#dialog-body b, #dialog-body img").count() == 0
    assert page.text("#net-connection") == "The match was stopped"
    assert page.text("#net-turn") == ""  # said once, on the connection line
    assert page.text("#prompt") == "Cheating detected. No more moves are played."
    page.page.screenshot(path=str(artifacts / "online-failure-360x640.png"))
    assert not page.page.is_visible("#btn-take") and not page.page.is_visible("#btn-pass")


def test_a_friends_abort_is_shown_without_bidi_or_control_characters(open_page: Any) -> None:
    """Issue 19: a peer's abort text reached the page with its right-to-left override
    and controls; the page now removes them as the terminal does (client/text.py)."""
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True})
    page.wait_state("playing")
    said = "I \u202eniw\u202c, \u2066you\u2069 cheated\x1b[2J\x07\u200f\u0085 bye"
    reason = f"the host ended the match (left), saying: {said}"
    page.fake("peer.fail({kind: 'PeerAborted', who: 'nobody\u200e', field: 'abort\x00', "
              f"reason: {json.dumps(reason)}, proven: false}});")
    page.wait_state("failed")
    assert page.text("#dialog-title") == "Your friend ended the match"
    body = page.page.text_content("#dialog-body")
    assert body is not None
    assert "saying: I niw, you cheated[2J bye" in body
    assert "What failed: abort." in body and "At fault: nobody." in body
    unsafe = [c for c in body if unicodedata.category(c) in ("Cc", "Cf", "Cs")]
    assert unsafe == [], [hex(ord(c)) for c in unsafe]
    page.check_clean()


def test_a_finished_matchs_link_says_so(open_page: Any) -> None:
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s")
    page.fake("peer.closeFinished('The match of this invite link is over (won by the host).');")
    page.wait_state("match-over")
    assert page.text("#dialog-title") == "Online match"
    assert page.text("#dialog-body") == "The match of this invite link is over (won by the host)."


def test_custom_rules_offered_to_a_guest_are_accepted_before_the_match(
    open_page: Any, artifacts: Path
) -> None:
    offer = {"name": "house", "target": 50, "knock_limit": 7}
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True, "offer": offer},
                     width=360, height=640)
    page.page.wait_for_selector("#btn-accept-rules")
    page.page.screenshot(path=str(artifacts / "online-rules-offered-360x640.png"))
    assert page.text("#dialog-title") == "Your friend proposes custom rules"
    body = page.text("#dialog-body")
    for said in ("custom rules named house: the standard rules with 2 changes",
                 "match to: 50 — changed from 100", "knock limit: 7 — changed from 10"):
        assert said in body
    # What differs from the preset is marked (issue 21 item 14), and only that.
    assert page.page.locator("#dialog-body li.changed strong").all_inner_texts() == [
        "knock limit: 7 — changed from 10", "match to: 50 — changed from 100"]
    # The header gives the target on offer, in the terminal's words, not "to 100".
    assert page.page.text_content("#subtitle") == table_words.subtitle(50, offered=True)
    assert page.state() == "waiting"
    page.page.click("#btn-accept-rules")
    page.wait_state("playing")
    assert "First to 50 points" in page.text("#target")
    assert page.page.text_content("#subtitle") == table_words.subtitle(50)


def test_rules_that_cannot_be_read_are_declined_and_the_player_told(open_page: Any) -> None:
    offer = {"name": "house", "target": 9000}
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True, "offer": offer})
    assert page.text("#dialog-title") == "Your friend's rules"
    assert ("The host's rules cannot be played: the score a match is played to must be a whole "
            "number from 1 to 500, not 9000." in page.text("#dialog-body"))
    assert page.state() == "waiting"
    page.page.click("#dialog-buttons .primary")
    page.wait_state("failed")
    assert page.fake("return peer.failure.kind;") == "RulesDeclined"


def test_declining_custom_rules_ends_the_match(open_page: Any) -> None:
    offer = {"name": "house", "target": 50}
    page = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True, "offer": offer})
    page.page.click("#btn-decline-rules")
    page.wait_state("failed")
    assert page.text("#dialog-title") == "The rules were declined"


def test_a_bot_plays_the_seat_each_hand_is_verified_and_its_record_downloads(
    open_page: Any, tmp_path: Path
) -> None:
    page = open_page("/?delay=0&bot=normal", setup={"seed": 3})
    host(page, "custom", {"target": 20})
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.page.wait_for_function(
        "() => document.querySelector('#net-verified').textContent.startsWith('Deck verified')",
        timeout=30_000)
    assert page.text("#net-verified").startswith("Deck verified for hand 1")
    page.page.keyboard.press("Escape")  # the hand's end window
    button = page.page.locator("#records button").first
    with page.page.expect_download() as info:
        button.click()
    download = info.value
    record = page.fake("return peer.records[0];")
    assert download.suggested_filename == record["name"] == "gin-fake-hand-01.json"
    saved = tmp_path / "record.json"
    download.save_as(saved)
    assert saved.read_text() == record["json"]
    page.wait_state("match-over", timeout=60_000)
    assert page.fake("return peer.match.over;")
    sent = page.fake("return peer.sent;")
    assert sent and all(isinstance(a, str) for a in sent)


def test_the_score_sheet_online_lists_every_hand_from_this_seat(open_page: Any) -> None:
    """The sheet is there online too: each hand the match played, the friend named."""
    page = open_page("/?delay=0&bot=normal", setup={"seed": 3})
    host(page, "custom", {"target": 20})
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("match-over", timeout=60_000)
    for _ in range(3):  # whatever windows the match's end left open
        page.page.keyboard.press("Escape")
    page.page.click("#btn-sheet")
    page.page.wait_for_selector("#sheet")
    heads = page.page.eval_on_selector_all("#sheet thead th", "hs => hs.map(h => h.textContent)")
    assert heads[3:5] == ["You", "Friend"]
    cells = page.page.eval_on_selector_all(
        "#sheet tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    results = page.fake("return peer.match.results.map((r) => r.toDict());")
    assert len(cells) == len(results) >= 1
    totals = [0, 0]
    for row, result in zip(cells, results, strict=True):
        if result["winner"] is not None:
            totals[result["winner"]] += result["points"]
        assert (row[3], row[4]) == (str(totals[0]), str(totals[1]))  # the host's seat: You


def test_a_bot_plays_the_guests_seat_from_the_link(open_page: Any) -> None:
    offer = {"name": "short", "target": 20}
    page = open_page(f"{FAKE_LINK_PATH}?delay=0&bot=easy#s",
                     setup={"arrive": True, "offer": offer, "seed": 8})
    page.page.click("#btn-accept-rules")
    page.wait_state("match-over", timeout=60_000)
    played = page.fake("return [peer.seat, peer.match.over, peer.sent.length > 0];")
    assert played == [1, True, True]
    # A normal end: the friend leaving and the connection closing do not change it.
    for connection in ("peer-gone", "closed"):
        page.fake(f"peer.setConnection({json.dumps(connection)});")
        assert page.text("#net-connection") == "The match is over", connection
        assert page.text("#net-turn") == ""
    # Nobody sits at a bot's seat to close the hands' windows: each closes by itself,
    # and the last gives way to the match's result.
    page.page.wait_for_function(
        "() => / the match$/.test(document.querySelector('#dialog-title').textContent)",
        timeout=15_000)
    # Every hand the guest's bot played was verified, and its record is offered.
    verified = page.fake("return peer.verified;")
    assert verified == list(range(1, len(verified) + 1))
    offered = page.page.eval_on_selector_all("#records button", "bs => bs.map(b => b.dataset.hand)")
    assert offered == [str(h) for h in verified]


def test_an_online_match_kept_in_this_browser_is_continued_from_its_whole_link(
    open_page: Any,
) -> None:
    kept = {"role": "host", "link": "http://127.0.0.1:1/j/KEPT", "savedAt": 1_700_000_000_000}
    page = open_page(setup={"stored": [kept], "arrive": True})
    assert page.text("#dialog-title") == "Your online match"
    assert "you host" in page.text("#dialog-body")
    assert "paste its whole invite link" in page.text("#dialog-body")
    page.page.fill("#kept-link", "http://127.0.0.1:1/j/KEPT#secret")
    page.page.click("#btn-continue")
    page.wait_state("playing")
    assert page.fake("return [peer.role, fake.peers.length];") == ["host", 1]


def test_a_kept_match_whose_link_is_lost_can_be_forgotten(open_page: Any) -> None:
    kept = {"role": "guest", "link": "http://127.0.0.1:1/j/LOST", "savedAt": 1_700_000_000_000}
    page = open_page(setup={"stored": [kept]})
    assert page.text("#dialog-title") == "Your online match"
    page.page.click("#btn-forget")
    assert page.text("#dialog-title") == "Forget the online match"
    page.page.click("#dialog-buttons .primary")
    assert page.fake("return fake.stored();") == []
    assert page.page.is_checked("#mode input[value=computer]")


def test_leaving_goes_back_to_the_computer(open_page: Any) -> None:
    page = open_page(f"{FAKE_LINK_PATH}?delay=5000#s", setup={"arrive": True})
    page.wait_state("playing")
    page.page.click("#btn-leave")
    page.page.click("#dialog-buttons .primary")
    page.page.wait_for_function("() => document.body.dataset.state === undefined")
    assert page.fake("return peer.left;")
    assert page.page.is_checked("#mode input[value=computer]")
    assert page.page.is_visible("#strength") and not page.page.is_visible("#net")
    assert page.text("#opponent-label").startswith("Computer (")
    assert page.page.evaluate("location.pathname") == "/"


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1280, 800)])
def test_the_online_layout(open_page: Any, artifacts: Path, width: int, height: int) -> None:
    page = open_page(width=width, height=height)
    page.page.click("#mode input[value=online]")
    page.page.check("input[name=host-rules][value=custom]")
    page.page.screenshot(path=str(artifacts / f"online-host-{width}x{height}.png"))
    buttons = page.page.locator("#dialog-buttons").bounding_box()
    assert buttons is not None and buttons["y"] + buttons["height"] <= height  # Host in view
    page.page.click("#btn-host")
    page.page.screenshot(path=str(artifacts / f"online-invite-{width}x{height}.png"))
    box = page.page.locator("#dialog-body canvas").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    page.page.keyboard.press("Escape")
    page.fake("peer.arrive();")
    page.wait_state("playing")
    net = page.page.locator("#net").bounding_box()
    assert net is not None and net["y"] + net["height"] <= height  # in view without scrolling
    page.page.screenshot(path=str(artifacts / f"online-playing-{width}x{height}.png"),
                         full_page=True)


def test_a_record_downloaded_from_a_real_match_passes_gin_audit(
    browser: Any, relay_url: str, tmp_path: Path
) -> None:
    """The real online peer, not the fake: `gin host --bot hard` on the relay that serves
    the board, this page the guest (its bot); the first verified hand's record is saved
    through the page's download button (under the relay's own CSP), and `gin audit`
    verifies the file."""
    gin = [sys.executable, "-m", "client.cli"]
    host = subprocess.Popen(
        [*gin, "host", "--relay", relay_url.rstrip("/"), "--bot", "hard", "--bot-delay", "0",
         "--data-dir", str(tmp_path / "host")],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    context = browser.new_context(accept_downloads=True)
    try:
        context.add_init_script(CSP_WATCH)
        page = Page(context.new_page())
        assert host.stdout is not None
        head, _, secret = host.stdout.readline().strip().partition("#")
        page.page.goto(f"{head}?bot=normal&delay=200#{secret}")  # a hand lasts seconds
        page.page.wait_for_selector("#records button[data-hand='1']", timeout=120_000)
        # Close the window of the hand's end (the bots play on behind it).
        page.page.wait_for_selector("dialog[open]")
        page.page.keyboard.press("Escape")
        with page.page.expect_download() as info:
            page.page.click("#records button[data-hand='1']", timeout=5_000)
        saved = tmp_path / info.value.suggested_filename
        info.value.save_as(saved)
        assert saved.name.endswith(".json")
        audit = subprocess.run([*gin, "audit", "-q", str(saved)], capture_output=True, text=True,
                               timeout=120)
        assert audit.returncode == 0, audit.stdout + audit.stderr
        assert "verified" in audit.stdout
        page.check_clean()
    finally:
        context.close()
        host.kill()
        host.wait()


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1280, 800)])
def test_the_online_screens_pass_axe(open_page: Any, axe: Any, width: int, height: int) -> None:
    size = f"{width}x{height}"
    host_page = open_page(width=width, height=height)
    page = host_page.page
    page.click("#mode input[value=online]")
    axe(page, f"the host's choice of rules, {size}")
    page.check("input[name=host-rules][value=custom]")
    axe(page, f"the host's custom numbers, {size}")
    page.click("#btn-host")
    assert host_page.text("#dialog-title") == "Invite your friend"
    axe(page, f"the invite, {size}")
    page.keyboard.press("Escape")
    axe(page, f"the host waiting for the friend, {size}")
    host_page.fake("peer.arrive();")
    host_page.wait_state("playing")
    axe(page, f"the host playing, {size}")
    page.click("#btn-leave")
    axe(page, f"the question before leaving, {size}")

    offer = {"name": "house", "target": 50, "knock_limit": 7}
    guest = open_page(f"{FAKE_LINK_PATH}?delay=0#s", setup={"arrive": True, "offer": offer},
                      width=width, height=height)
    guest.page.wait_for_selector("#btn-accept-rules")
    axe(guest.page, f"the guest offered custom rules, {size}")
    guest.page.click("#btn-accept-rules")
    guest.wait_state("playing")
    axe(guest.page, f"the guest playing, {size}")
    guest.fake("peer.fail({kind: 'CheatDetected', who: 'host', field: 'deal.keys', "
               "reason: 'The deck key does not open card 12', proven: true});")
    guest.wait_state("failed")
    axe(guest.page, f"a failure, {size}")

    kept = {"role": "guest", "link": "http://127.0.0.1:1/j/KEPT", "savedAt": 1_700_000_000_000}
    returning = open_page(setup={"stored": [kept]}, width=width, height=height)
    assert returning.text("#dialog-title") == "Your online match"
    axe(returning.page, f"an online match kept in this browser, {size}")
