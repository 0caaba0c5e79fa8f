"""The invite page tells a friend how to get gin in a way that works."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from relay.pages import invite_page

ROOT = Path(__file__).resolve().parents[2]


def distribution_name() -> str:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["name"])


def test_the_invite_page_names_the_wheel_this_project_builds() -> None:
    page = invite_page(True)
    # A wheel's file name starts with the distribution name, '-' and '.' made '_'.
    wheel = re.sub(r"[-_.]+", "_", distribution_name()).lower()
    assert f"./{wheel}-*.whl" in page
    assert "python3 -m pip wheel --no-deps -w dist ." in page


def test_nothing_tells_a_person_to_install_the_unrelated_gin_from_pypi() -> None:
    assert distribution_name() != "gin"  # taken on PyPI by an unrelated project
    texts = {"invite page": invite_page(True), "README.md": (ROOT / "README.md").read_text()}
    texts |= {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "docs").glob("*.md")}
    for where, text in texts.items():
        flat = " ".join(text.split())
        for found in re.finditer(r"pip install gin\b(?![-_])", flat):
            # Only as the warning that it installs something else.
            near = flat[found.start():found.end() + 60]
            assert "unrelated" in near, f"{where}: {near}"


def test_no_page_says_the_browser_cannot_play() -> None:
    """The board plays in the browser: an unknown room means a wrong link or a relay
    that was replaced, and a relay without the board says it serves none."""
    for valid in (True, False):
        for board in (True, False):
            page = invite_page(valid, board)
            assert "not in the browser" not in page, (valid, board)
    unknown = invite_page(False, board=True)
    assert "the link is wrong" in unknown and "was replaced" in unknown
    assert "opens the game right here in the browser" in unknown
    assert "does not serve the board" in invite_page(False) + invite_page(True)


def test_where_the_board_is_served_the_page_says_a_friend_can_check_records_there() -> None:
    for valid in (True, False):
        page = " ".join(invite_page(valid, board=True).split())
        assert "check the hand records of a match there too, with nothing to install" in page
        assert "<em>Open records</em>" in page and "never leave the browser" in page
        # A relay without the board has nowhere to check them.
        assert "Open records" not in invite_page(valid, board=False)
