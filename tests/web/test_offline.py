"""The board as an app (issue 30 item 2), in Chromium with a relay of the test's own:
it installs (a manifest and a service worker Chromium accepts), plays the computer with
no network after the first visit (the relay stopped and the context offline: load, a
hand played by clicks, reload, the match goes on), never keeps the relay's answers, and
a new build served later is announced with its digest and taken on the player's click
once the hand is over, while a page still open on the old build keeps its own worker."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from relay import static
from tests.web.conftest import (
    CHROMIUM_ARGS,
    CSP_WATCH,
    HAND_END_TITLES,
    Board,
    chromium_path,
    play_out,
)
from tests.web.test_online_e2e import RelayProcess

# Every test here takes seconds: a relay, Chromium, and a second build of the board.
pytestmark = pytest.mark.slow

WEB = Path(__file__).resolve().parents[2] / "client" / "web"
CONTROLLED = "() => navigator.serviceWorker.controller !== null"
UPDATE = "() => navigator.serviceWorker.getRegistration().then((r) => r.update())"
SERVED = [name for name in static.FILES if name != static.SERVICE_WORKER]


@pytest.fixture
def relay(board_built: None, tmp_path: Path) -> Iterator[RelayProcess]:
    process = RelayProcess(tmp_path / "relay.key")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def version(relay: RelayProcess) -> dict[str, Any]:
    with urllib.request.urlopen(f"{relay.url}/version", timeout=10) as answer:
        return dict(json.loads(answer.read()))


def open_page(context: Any, url: str) -> Board:
    board = Board(context.new_page())
    board.page.goto(url)
    board.page.wait_for_selector("#hand .card")
    board.page.wait_for_function(CONTROLLED)
    return board


def test_the_board_plays_the_computer_with_no_network_after_the_first_visit(
        browser: Any, relay: RelayProcess) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(CSP_WATCH)
    try:
        board = open_page(context, f"{relay.url}/?delay=0&seed=11")
        page = board.page
        # The service worker keeps exactly the board's files: never /new nor /version.
        kept = page.evaluate("""async () => {
            const keys = await caches.keys();
            const urls = await Promise.all(
                keys.map(async (k) => (await (await caches.open(k)).keys()).map((r) => r.url)));
            return [keys, urls.flat()];
        }""")
        assert kept[0] == [f"gin-board-{version(relay)['build']}"]
        # Not the online worker (libsodium, most of the board's bytes): online play only.
        assert sorted(kept[1]) == sorted(f"{relay.url}/{name}" for name in SERVED
                                         if name != "worker.js")

        relay.stop()
        context.set_offline(True)
        page.reload()
        page.wait_for_selector("#hand .card")
        assert page.evaluate(CONTROLLED)
        # The relay's answers are not kept: offline they fail.
        for path in ("/version", "/new"):
            answer = page.evaluate(f"fetch('{path}').then(() => 'answered', () => 'failed')")
            assert answer == "failed", path
        assert play_out(board, keys=False) in HAND_END_TITLES
        page.click("#dialog-buttons .primary")  # Next hand
        page.wait_for_selector("#hand .card")
        assert page.inner_text("#hand-number") == "Hand 2"
        hand = board.hand()
        page.reload()
        page.wait_for_selector("#hand .card")
        assert (page.inner_text("#hand-number"), board.hand()) == ("Hand 2", hand)
        page.click("#btn-pass" if board.visible("#btn-pass") else "#stock")
        board.wait_for_player()
        board.errors = [e for e in board.errors if "ERR_INTERNET_DISCONNECTED" not in e]
        board.check_clean()
    finally:
        context.close()


def test_chromium_installs_the_board_and_opens_it_as_an_app(
        browser: Any, relay: RelayProcess, tmp_path: Path, artifacts: Path) -> None:
    # Chromium installs nothing from an incognito context: a profile of the test's own.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=chromium_path(), args=CHROMIUM_ARGS,
        viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"{relay.url}/")
        page.wait_for_selector("#hand .card")
        page.wait_for_function(CONTROLLED)
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [] and manifest["url"] == f"{relay.url}/manifest.webmanifest"
        app = manifest["manifest"]
        assert (app["name"], app["display"], app["startUrl"], app["themeColor"]) == (
            "Gin Rummy", "kStandalone", f"{relay.url}/", "rgba(29,94,59,1)")
        assert {(i["url"].rsplit("/", 1)[1], i["sizes"]) for i in app["icons"]} >= {
            ("icon-192.png", "192x192"), ("icon-512.png", "512x512")}
        cdp.send("PWA.install", {"manifestId": f"{relay.url}/"})
        # A test's Chromium opens an installed app in a tab unless the user chose a window,
        # as a phone's home screen does: chosen here, the board opens full screen, standalone.
        cdp.send("PWA.changeAppUserSettings",
                 {"manifestId": f"{relay.url}/", "displayMode": "standalone"})
        with context.expect_page(timeout=15_000) as opened:
            cdp.send("PWA.launch", {"manifestId": f"{relay.url}/"})
        window = opened.value
        window.wait_for_selector("#hand .card")
        assert window.evaluate("matchMedia('(display-mode: standalone)').matches")
        window.screenshot(path=str(artifacts / "installed-390x844.png"))
    finally:
        context.close()


def test_the_icons_are_the_pngs_and_svg_the_manifest_names(board_built: None) -> None:
    for name, size in (("icon-192.png", 192), ("icon-512.png", 512)):
        data = (static.BOARD_DIR / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (size, size)
    assert (static.BOARD_DIR / "icon.svg").read_text().startswith("<svg ")
    manifest = json.loads((static.BOARD_DIR / "manifest.webmanifest").read_text())
    icons = {icon["src"] for icon in manifest["icons"]}
    assert icons == {"icon.svg", "icon-192.png", "icon-512.png"}
    assert manifest["display"] == "standalone"


def test_the_service_worker_holds_every_other_file_and_the_builds_digest(board_built: None) -> None:
    board = static.load_board()
    worker = (static.BOARD_DIR / static.SERVICE_WORKER).read_text()
    digests = board.digests() or {}
    for name in SERVED:
        assert f'"{name}":"{digests[name]}"' in worker, name
    assert f'"{board.build()}"' in worker
    # The build's digest is SHA256SUMS's lines, by name, sw.js aside.
    lines = "".join(f"{digests[n]}  {n}\n" for n in sorted(SERVED))
    assert board.build() == hashlib.sha256(lines.encode()).hexdigest()
    # board.js asks for the worker of its own build, by digest.
    assert digests["worker.js"] in (static.BOARD_DIR / "board.js").read_text()


def newer_build(npm: str, tmp_path: Path) -> Path:
    """A build of the board whose title bar says so: its dist folder."""
    copy = tmp_path / "newer" / "web"
    shutil.copytree(WEB, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
    (copy / "node_modules").symlink_to(WEB / "node_modules")
    page = copy / "src" / "board" / "index.html"
    page.write_text(page.read_text().replace("<h1>Gin Rummy</h1>", "<h1>Gin Rummy, newer</h1>"))
    subprocess.run([npm, "run", "build"], cwd=copy, check=True, capture_output=True, timeout=300)
    return copy / "dist"


def worker_digest(page: Any, digest: str) -> str:
    """What the page gets for its build's worker script, asked for by `digest`: its SHA-256."""
    return str(page.evaluate("""async (digest) => {
        const answer = await fetch(`worker.js?sha256=${digest}`);
        if (!answer.ok) return `refused ${answer.status}`;
        const body = await answer.arrayBuffer();
        const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
        return Array.from(sum, (b) => b.toString(16).padStart(2, "0")).join("");
    }""", digest))


def test_a_new_build_is_announced_and_taken_on_the_players_click_once_the_hand_is_over(
        browser: Any, relay: RelayProcess, npm: str, tmp_path: Path, artifacts: Path) -> None:
    newer = newer_build(npm, tmp_path)
    old = version(relay)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(CSP_WATCH)
    try:
        board = open_page(context, f"{relay.url}/?delay=0&seed=5")
        page = board.page
        other = open_page(context, f"{relay.url}/?delay=0&seed=5")  # a second tab of the board
        # The worker, fetched as an online match or the records window would: kept.
        assert worker_digest(other.page, old["board"]["worker.js"]) == old["board"]["worker.js"]
        page.bring_to_front()  # a tab behind runs its timers once a second
        # The relay now serves the newer build (restarted on the same port).
        relay.stop()
        relay.board = newer
        relay.start()
        new = version(relay)
        assert new["build"] != old["build"]
        page.evaluate(UPDATE)
        page.wait_for_selector("#update", state="visible")
        assert page.inner_text("#update-text") == (
            f"A new version of the board is ready (build {new['build'][:16]}).")
        # Mid-hand it is offered for after the hand; the running page keeps its build.
        assert page.inner_text("#btn-update") == "Use it after this hand"
        assert page.inner_text("#update-when") == (
            "It can start once this hand is over, or the next time the board opens.")
        page.reload()  # a reload is not a new start: the other tab still runs the old build
        page.wait_for_selector("#update", state="visible")
        assert page.inner_text("h1") == "Gin Rummy"
        page.screenshot(path=str(artifacts / "update-announced-390x844.png"))
        page.click("#btn-update")
        assert page.is_disabled("#btn-update")
        assert page.inner_text("#update-when") == "It starts as soon as this hand is over."
        assert page.inner_text("h1") == "Gin Rummy"
        # The hand ends: the page opens on the new build, the hand's end shown again.
        try:
            play_out(board, keys=False)
        except PlaywrightError as exc:  # the page reloaded under it as the hand ended
            assert "context was destroyed" in str(exc), exc
        page.wait_for_function(
            "() => document.querySelector('h1')?.textContent === 'Gin Rummy, newer'")
        page.wait_for_selector("dialog[open]")
        assert page.inner_text("h1") == "Gin Rummy, newer"
        assert page.inner_text("#dialog-title") in HAND_END_TITLES
        assert not page.is_visible("#update")
        # The other tab runs the old build still, and gets the old build's worker script
        # (never the newer one served now); a script of no build kept is refused.
        assert other.page.inner_text("h1") == "Gin Rummy"
        assert worker_digest(other.page, old["board"]["worker.js"]) == old["board"]["worker.js"]
        assert worker_digest(page, new["board"]["worker.js"]) == new["board"]["worker.js"]
        assert worker_digest(other.page, "0" * 64) == "refused 503"
        board.check_clean()
    finally:
        context.close()


def test_an_invite_links_page_installs_the_board_of_its_folder(
        browser: Any, relay: RelayProcess) -> None:
    """`/j/ROOM` is the board one folder down: its manifest and service worker are the
    board's at `/` (a manifest at `/j/` would start the app at `/j/`, which is no page)."""
    with urllib.request.urlopen(f"{relay.url}/new?token={'ab' * 16}", timeout=10) as answer:
        room = json.loads(answer.read())["room"]
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{relay.url}/j/{room}")  # no secret: the board says so, and plays the computer
        page.wait_for_selector("#hand .card")
        page.wait_for_function(CONTROLLED)
        assert page.evaluate("document.getElementById('manifest').href") == (
            f"{relay.url}/manifest.webmanifest")
        assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.scope)") == (
            f"{relay.url}/")
        # The invite's page itself is the relay's: never served from the kept build.
        assert page.evaluate(f"caches.match('/j/{room}').then((r) => r === undefined)")
    finally:
        context.close()
