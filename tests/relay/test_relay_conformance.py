"""The browser's relay client holds the relay's wire constants: ``python -m
relay.conformance`` writes them from ``relay.wire``, and the TypeScript runner
checks client/web/src/online/relay.ts against them.

The TS check skips with a message on a machine without node or ``npm ci``, but
never in CI (``CI=true``), where a skip is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relay.conformance import FILE, cases
from relay.wire import FIELDS, FINAL_CLOSE_CODES, WELCOMES

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "client" / "web"


def test_the_case_names_each_code_and_message_once() -> None:
    (case,) = cases()
    codes = list(case["close"].values())
    assert len(set(codes)) == len(codes)
    assert set(case["final_close_codes"]) == FINAL_CLOSE_CODES
    assert FINAL_CLOSE_CODES.issubset(codes)
    types = set(case["control"].values())
    assert types == FIELDS.keys()
    assert WELCOMES.issubset(types)
    assert case["fields"] == {kind: list(names) for kind, names in FIELDS.items()}


def _node_ready() -> str | None:
    """Why the TS check cannot run here, or None when it can."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm are not installed"
    if not (WEB / "node_modules" / ".bin" / "tsx").exists():
        return "client/web has no node_modules (run npm ci there)"
    return None


def test_the_browser_relay_client_agrees_with_relay_wire(tmp_path: Path) -> None:
    why = _node_ready()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"conformance check cannot run in CI: {why}")
        pytest.skip(f"TypeScript conformance check skipped: {why}")
    subprocess.run([sys.executable, "-m", "relay.conformance", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    run = subprocess.run(
        ["npm", "run", "-s", "conformance", "--", str(tmp_path / FILE)],
        cwd=WEB, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("1 passed, 0 failed")
