"""Test-wide settings and fixtures: property tests draw the same examples on every
run, ``typescript`` is the TypeScript client's folder, ready to run under node, and
the tests that take seconds each are marked ``slow``, so that ``python -m pytest -q
-m "not slow"`` runs the rest in under a minute (README, *Install and test*)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# Deterministic (the house rule for tests) and no example database left behind.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")

WEB = Path(__file__).resolve().parents[1] / "client" / "web"


@pytest.fixture(scope="session")
def typescript() -> Path:
    """client/web with node, npm and its node_modules: skipped where they are missing,
    except in CI (``CI=true``), where a check that cannot run is a failure."""
    why = None
    if shutil.which("node") is None or shutil.which("npm") is None:
        why = "node/npm are not installed"
    elif not (WEB / "node_modules" / ".bin" / "tsx").exists():
        why = "client/web has no node_modules (run npm ci there)"
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the TypeScript check cannot run in CI: {why}")
        pytest.skip(f"TypeScript check skipped: {why}")
    return WEB


#: A test that drives Chromium (tests/web) is slow wherever it is.
BROWSER_FIXTURES = frozenset({"browser", "open_board", "open_page"})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes seconds (Pilot over whole hands, a browser, a relay or a "
        "subprocess, a release build); -m 'not slow' leaves these out")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
