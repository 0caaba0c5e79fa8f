"""Fixtures for the browser board: a relay process serving it, Debian's Chromium, a
page of the board (``open_board``) with its helpers, and axe-core's check.

The browser tests drive the real Chromium through Playwright. On a machine without
Chromium (or without the built board, or axe-core) they skip with a message saying
what to install; in CI (``CI=true``) that is a failure instead, so a skip can never
pass CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gin import Match, parse_cards, stacked_deck
from relay import static

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def unavailable(reason: str) -> None:
    """Skip, or fail in CI where every browser test must run."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where browser tests save screenshots for people to look at (gitignored)."""
    folder = Path(__file__).parent / "artifacts"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def npm() -> str:
    """npm, which builds the board."""
    found = shutil.which("npm")
    if found is None:
        unavailable("npm is not installed: the board cannot be built here")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def board_built() -> None:
    """The board's files are built (the install builds them where npm is found)."""
    if not static.load_board().built:
        unavailable(f"the board is not built ({static.BOARD_DIR}): install Node.js and npm, "
                    "then `pip install -e .` (or `npm ci && npm run build` in client/web)")


@pytest.fixture(scope="session")
def relay_url(board_built: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`gin relay` on 127.0.0.1 (a free port), serving the built board at /."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "client.cli", "relay", "--host", "127.0.0.1", "--port", "0",
         "--log-level", "info", "--key-file", str(tmp_path_factory.mktemp("relay") / "key")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
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
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


AXE = Path(__file__).parents[2] / "client" / "web" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def axe() -> Callable[[Any, str], None]:
    """axe-core's check of a page as it stands: ``axe(page, where)`` fails the test on
    a serious or critical violation, naming the rule, the elements and ``where``.

    axe's script is evaluated in the page rather than added as a <script> tag, which
    the page's Content-Security-Policy (script-src 'self') would block; the CSP stays
    in force for everything else the test checks.
    """
    if not AXE.exists():
        unavailable(f"axe-core is not installed ({AXE}): `npm ci` in client/web")
    source = AXE.read_text(encoding="utf-8")

    def check(page: Any, where: str) -> None:
        if not page.evaluate("typeof window.axe === 'object'"):
            page.evaluate(source)
        found = page.evaluate("""async () => {
            const result = await axe.run(document, {resultTypes: ['violations']});
            return result.violations
                .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => `${v.id} (${v.impact}): `
                    + v.nodes.map((n) => n.target.join(' ')).join(', '));
        }""")
        assert found == [], f"axe-core, {where}: {found}"

    return check


class StillBrowser:
    """A browser whose pages prefer reduced motion unless a test asks otherwise: the
    board's cards then appear where they go instead of travelling there, so what a
    test measures or clicks is where it lies (test_board_motion.py turns motion on)."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser

    def new_context(self, **options: Any) -> Any:
        options.setdefault("reduced_motion", "reduce")
        return self.browser.new_context(**options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.browser, name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (no download: `playwright install` is not used),
    its pages preferring reduced motion (`StillBrowser`).

    Per module: Playwright's synchronous API keeps an event loop running while it is
    open, and asyncio tests elsewhere cannot start theirs until it stops.
    """
    path = chromium_path()
    if path is None:
        unavailable("Chromium is not installed: `apt-get install -y chromium` "
                    "(the browser tests drive the system's Chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed: pip install -e '.[dev]'")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield StillBrowser(launched)
        launched.close()


# Runs in the page before its own script: records what the CSP blocks.
CSP_WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""
SAVE_KEY = "gin.board.match"
HUMAN_BUTTONS = "#btn-take, #btn-pass, #btn-stock, #btn-throw, #btn-layoff, #btn-next"


class Board:
    """One page of the board, with what it logged."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def prompt(self) -> str:
        return str(self.page.inner_text("#prompt"))

    def visible(self, selector: str) -> bool:
        return bool(self.page.is_visible(selector))

    def hand(self) -> list[str]:
        return list(self.page.eval_on_selector_all(
            "#hand .card", "cs => cs.map(c => c.dataset.card)"))

    def wait_for_player(self) -> None:
        """Until the player can act: a button of theirs or the hand's end is shown."""
        self.page.wait_for_function(
            "() => document.querySelector('dialog').open || [...document.querySelectorAll("
            f"'{HUMAN_BUTTONS}')].some(b => !b.hidden)"
        )

    def check_clean(self) -> None:
        violations = self.page.evaluate("window.__violations")
        assert violations == [], f"CSP violations: {violations}"
        assert self.errors == [], f"console errors: {self.errors}"


@pytest.fixture
def open_board(browser: Any, relay_url: str) -> Iterator[Any]:
    """Open the board in a fresh browser context (empty storage) at a viewport size;
    its cards travel only with `motion` (the system's reduced motion preference off)."""
    boards: list[Board] = []
    contexts: list[Any] = []

    def open_(query: str = "", width: int = 1280, height: int = 800,
              saved: dict[str, Any] | None = None, motion: bool = False) -> Board:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      reduced_motion="no-preference" if motion else "reduce")
        contexts.append(context)
        context.add_init_script(CSP_WATCH)
        if saved is not None:
            # Once per tab: a reload must find what the board saved, not this again.
            key, value = json.dumps(SAVE_KEY), json.dumps(json.dumps(saved))
            context.add_init_script(
                "if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1');"
                f" localStorage.setItem({key}, {value}); }}")
        board = Board(context.new_page())
        boards.append(board)
        board.page.goto(relay_url + query)
        board.page.wait_for_selector("#hand .card")
        return board

    yield open_
    try:
        for board in boards:
            board.check_clean()
    finally:
        for context in contexts:
            context.close()


def saved_match(non_dealer: str, dealer: str, upcard: str, stock: str = "",
                vs: str = "easy") -> dict[str, Any]:
    """A match as the board saves it, its first hand dealt from a stacked deck; the
    player (seat 0) is the non-dealer, as in every first hand on the board."""
    match = Match(first_dealer=1)
    match.deal(stacked_deck(parse_cards(non_dealer), parse_cards(dealer),
                            parse_cards(upcard)[0], parse_cards(stock)))
    return {"format": 1, "vs": vs, "seed": 7, "match": match.to_dict()}


def play_out(board: Board, keys: bool) -> str:
    """Play the hand to its end: pass the upcard, draw from the stock, knock when the
    board offers it, otherwise throw the costliest loose card, lay off when asked.
    Returns the title of the hand's end window."""
    page = board.page
    for _ in range(200):
        board.wait_for_player()
        if page.evaluate("document.querySelector('dialog').open"):
            title = str(page.inner_text("#dialog-title"))
            if title in ("Knock", "Gin"):
                page.keyboard.press("Enter") if keys else page.click("#dialog-buttons .primary")
                continue
            return title
        if board.visible("#btn-pass"):
            page.keyboard.press("p") if keys else page.click("#btn-pass")
        elif board.visible("#btn-stock"):
            page.keyboard.press("s") if keys else page.click("#stock")
        elif board.visible("#btn-knock"):
            page.keyboard.press("k") if keys else page.click("#btn-knock")
            page.wait_for_selector("dialog[open]")
        elif board.visible("#btn-throw"):
            # The loose cards come last, highest last: the costliest one.
            if keys:
                page.keyboard.press("ArrowLeft")
                card = page.get_attribute('#hand .card[aria-pressed="true"]', "data-card")
                page.keyboard.press("d")
            else:
                last = page.locator("#hand .card").last
                card = last.get_attribute("data-card")
                # A click selects, a click on the selected card throws (the card just
                # drawn may already be selected).
                if last.get_attribute("aria-pressed") != "true":
                    last.click()
                last.click()
            # Online the throw takes effect after the session answers: until then the
            # throw button is still shown, and a hand's end window may open over it.
            page.wait_for_selector(f'#hand .card[data-card="{card}"]', state="detached")
        elif board.visible("#btn-layoff"):
            page.keyboard.press("l") if keys else page.click("#btn-layoff")
        else:
            raise AssertionError(f"nothing to do: {board.prompt()}")
    raise AssertionError("the hand did not end in 200 moves")


HAND_END_TITLES = ("You won the hand", "The computer won the hand", "Dead hand")
