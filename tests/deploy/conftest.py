"""Fixtures for the operator's files in deploy/: Debian's HAProxy and Chromium, the
built board. On a machine without them the tests skip saying what to install; in CI
(``CI=true``) that is a failure, so a skip can never pass CI."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from relay import static
from tests.support.cluster import UNIT, Cluster, RelayProcess, free_port, unit_service

ROOT = Path(__file__).resolve().parents[2]
GIN = [sys.executable, "-m", "client.cli"]  # `gin` in the unit file
# Bots move without pauses: the relays' flood limit is raised, as /etc/gin-relay/relay.env may.
FAST = {"GIN_RELAY_RATE": "1000", "GIN_RELAY_BURST": "10000", "GIN_RELAY_LOG_LEVEL": "info"}

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def unavailable(reason: str) -> None:
    """Skip, or fail in CI where every test must run."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"deploy tests cannot run in CI: {reason}")
    pytest.skip(reason)


def found(name: str, *places: str) -> str | None:
    return shutil.which(name) or next((p for p in places if Path(p).exists()), None)


@pytest.fixture(scope="session")
def haproxy() -> str:
    path = found("haproxy", "/usr/sbin/haproxy")
    if path is None:
        unavailable("HAProxy is not installed: `apt-get install -y haproxy`")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def board_built() -> None:
    if not static.load_board().built:
        unavailable(f"the board is not built ({static.BOARD_DIR}): `npm ci && npm run build` "
                    "in client/web")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (as tests/web/conftest.py starts it)."""
    path = found("chromium", "/usr/bin/chromium") or found("chromium-browser")
    if path is None:
        unavailable("Chromium is not installed: `apt-get install -y chromium`")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed: pip install -e '.[dev]'")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def cluster(haproxy: str, tmp_path: Path) -> Iterator[Cluster]:
    """Three relays started as deploy/gin-relay@.service starts them, sharing one key,
    behind HAProxy running deploy/haproxy.cfg, all on 127.0.0.1."""
    credentials = tmp_path / "credentials"  # what LoadCredential= makes of the key file
    credentials.mkdir()
    (credentials / "relay.key").write_text(secrets.token_hex(32) + "\n")
    relays: list[RelayProcess] = []
    try:
        for _ in range(3):
            argv, env = unit_service(UNIT.read_text(), free_port(), "127.0.0.1", credentials)
            # The unit serves /metrics on 127.0.0.2:PORT; tests listen on 127.0.0.1 only.
            argv[argv.index("--metrics-listen") + 1] = f"127.0.0.1:{free_port()}"
            relays.append(RelayProcess(GIN + argv, {**env, **FAST}, cwd=ROOT))
        started = Cluster.start(haproxy, relays, tmp_path)
    except BaseException:
        for relay in relays:
            relay.kill()
        raise
    try:
        yield started
    finally:
        started.stop()
