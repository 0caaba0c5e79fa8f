"""The list of slow tests in tests/conftest.py names tests that exist: a renamed test
would otherwise drop out of it silently (and into the quick subset)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import SLOW_MODULES, SLOW_TESTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_module_and_test_exists() -> None:
    for module in SLOW_MODULES:
        assert (ROOT / module).is_file(), module
    for test in SLOW_TESTS:
        module, _, name = test.partition("::")
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        names = {node.name for node in tree.body
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
        assert name in names, test
