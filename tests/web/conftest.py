"""Fixtures for the browser board: a relay process serving it, and Debian's Chromium.

The browser tests drive the real Chromium through Playwright. On a machine without
Chromium (or without the built board) they skip with a message saying what to
install; in CI (``CI=true``) that is a failure instead, so a skip can never pass CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (no download: `playwright install` is not used).

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
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
