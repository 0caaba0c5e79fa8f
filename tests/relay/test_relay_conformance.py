"""The browser's relay client holds the relay's wire constants: ``python -m
relay.conformance`` writes them from ``relay.wire``, and the TypeScript runner
checks client/web/src/online/relay.ts against them.

The TS check skips with a message on a machine without node or ``npm ci``, but
never in CI (``CI=true``), where a skip is a failure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from relay.conformance import FILE, cases
from relay.wire import FIELDS, FINAL_CLOSE_CODES, WELCOMES

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_browser_relay_client_agrees_with_relay_wire(
        tmp_path: Path, typescript: Path) -> None:
    subprocess.run([sys.executable, "-m", "relay.conformance", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)
    run = subprocess.run(
        ["npm", "run", "-s", "conformance", "--", str(tmp_path / FILE)],
        cwd=typescript, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("1 passed, 0 failed")
