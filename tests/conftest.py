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


#: Whole modules of slow tests: Pilot driving the terminal table hand after hand,
#: online matches through a relay, a browser or node in a subprocess, release builds.
SLOW_MODULES = frozenset({
    "tests/client/table/test_app.py",
    "tests/client/table/test_friend.py",
    "tests/client/table/test_friend_abandon.py",
    "tests/client/net/test_peer.py",
    "tests/web/test_online_abandon.py",
    "tests/web/test_online_e2e.py",
    "tests/web/test_board_origin.py",
    "tests/web/test_packaging.py",
    "tests/web/test_session_bridge.py",
})
#: Slow tests in modules that are otherwise quick (each took 4 s or more in a run of
#: the whole suite on 2 busy cores): module path and test name, every parameter.
SLOW_TESTS = frozenset({
    "tests/client/commands/test_host_join.py::test_gin_host_and_gin_join_bots_play_a_match_"
    "through_python_m_relay",
    "tests/client/commands/test_host_join.py::test_gin_host_with_its_embedded_relay",
    "tests/client/commands/test_host_join.py::test_two_matches_in_a_row_on_one_link_form_one_"
    "history",
    "tests/client/commands/test_join_rules.py::test_custom_rules_are_shown_and_need_accept_rules",
    "tests/client/table/test_words.py::test_no_next_hand_when_the_match_is_over",
    "tests/client/table/test_words.py::test_flags_against_a_saved_match_ask_which_to_play",
    "tests/client/table/test_words.py::test_the_card_just_taken_has_a_border_of_its_own",
    "tests/client/test_storage.py::test_the_table_starts_a_new_match_over_a_damaged_save",
    "tests/gin/conformance/test_conformance.py::test_the_typescript_engine_agrees_with_a_"
    "small_corpus",
    "tests/gin/engine/test_hand.py::test_random_legal_play_always_ends_with_every_card_"
    "accounted",
    "tests/gin/engine/test_hand.py::test_legal_actions_agree_with_refusal_and_history_with_"
    "the_events",
    "tests/gin/engine/test_melds.py::test_best_discard_is_minimum_over_all_eleven",
    "tests/gin/protocol/test_session.py::test_whole_match_agrees_and_audits_clean",
    "tests/gin/protocol/test_session.py::test_save_and_restore_mid_hand",
    "tests/gin/protocol/test_session.py::test_a_damaged_save_is_refused_as_a_local_fault_never_"
    "blamed_on_the_peer",
    "tests/gin/protocol/test_session.py::test_no_nonce_is_used_twice_across_a_stale_restore_and_"
    "a_reused_link",
    "tests/gin/protocol/test_session.py::test_a_relay_replaying_a_whole_earlier_session_is_"
    "refused",
})
#: A test that drives Chromium (tests/web) is slow wherever it is.
BROWSER_FIXTURES = frozenset({"browser", "open_board", "open_page"})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes seconds (Pilot over whole hands, a browser, a relay or a "
        "subprocess, a release build); -m 'not slow' leaves these out")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module, _, rest = item.nodeid.partition("::")
        test = f"{module}::{rest.partition('[')[0]}"
        if module in SLOW_MODULES or test in SLOW_TESTS or \
                BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
