"""README.md and docs/ stand alone (links resolve inside the repository, nothing
points at material outside it), and each worked example of docs/rules.md is what
the engine does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gin import best_arrangement, match_totals, parse_cards, settle
from gin.engine.rules import CLASSIC, OKLAHOMA, STANDARD

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", ROOT / "protocol.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAT = " ".join(DOC.split())
GLYPH = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def shown(cards: str) -> str:
    """Card text as the page writes it: 7♠ 7♥ (T for ten kept)."""
    return " ".join(c[:-1] + GLYPH[c[-1]] for c in cards.split())


def says(*texts: str) -> None:
    for text in texts:
        assert text in FLAT, f"docs/rules.md does not say {text!r}"


def test_deadwood_example() -> None:
    assert best_arrangement(parse_cards("7s 7h 7d 4c 5c 6c Ad 3h 9s Ks")).deadwood == 23
    says(shown("7s 7h 7d"), shown("4c 5c 6c"), shown("Ad 3h 9s Ks"), "1 + 3 + 9 + 10 = **23**")


@pytest.mark.parametrize(("cards", "set_leaves", "run_leaves", "best"), [
    ("5h 6h 7h 7s 7d", "5h 6h", "7s 7d", 11),  # the set wins
    ("2h 3h 4h 2s 2d", "3h 4h", "2s 2d", 4),   # the run wins
])
def test_one_card_one_meld(cards: str, set_leaves: str, run_leaves: str, best: int) -> None:
    assert best_arrangement(parse_cards(cards)).deadwood == best
    left = [best_arrangement(parse_cards(c)).deadwood for c in (set_leaves, run_leaves)]
    assert min(left) == best
    says(f"leaves {shown(set_leaves)}: {set_leaves[0]} + {set_leaves[3]} = {left[0]}",
         f"leaves {shown(run_leaves)}: {run_leaves[0]} + {run_leaves[3]} = {left[1]}")


def test_ten_more_points_make_17_against_14() -> None:
    # The same twos with ten points of other loose cards, as the page says.
    assert (7 + 10, 4 + 10) == (17, 14)
    says("ten points of other loose cards, that is 17 against 14, and the run wins")


def test_knock_example() -> None:
    knocker, defender = "9s 9d 9h 3h 4h 5h 6h Ac 2s 4d", "Js Jh Jd 7h 9c 6s 8d Kc 2d 5c"
    outcome = settle(parse_cards(knocker), parse_cards(defender), STANDARD)
    assert (outcome.kind, outcome.winner, outcome.points) == ("knock", "knocker", 24)
    assert (outcome.knocker_deadwood, outcome.defender_deadwood) == (7, 31)
    assert {str(c) for c, _ in outcome.layoffs} == {"7h", "9c"}
    says("9♠ 9♦ 9♥, 3♥ 4♥ 5♥ 6♥ and A♣ 2♠ 4♦", "J♠ J♥ J♦, 7♥, 9♣, 6♠, 8♦, K♣, 2♦, 5♣",
         "6 + 8 + 10 + 2 + 5 = **31**", "31 − 7 = **24**")


def test_gin_example() -> None:
    outcome = settle(parse_cards("2c 3c 4c 5c 7d 7h 7s Jd Qd Kd"),
                     parse_cards("3d 3h 3s 8s 9s Ts Ah 2d 6c 9h"), STANDARD)
    assert (outcome.kind, outcome.points, outcome.defender_deadwood) == ("gin", 43, 18)
    assert outcome.layoffs == ()
    says("2♣ 3♣ 4♣ 5♣, 7♦ 7♥ 7♠, J♦ Q♦ K♦", "3♦ 3♥ 3♠, 8♠ 9♠ T♠ and A♥ 2♦ 6♣ 9♥",
         "1 + 2 + 6 + 9 = 18", "25 + 18 = **43**")


def test_undercut_example() -> None:
    outcome = settle(parse_cards("Qs Qd Qh 5c 6c 7c 8c As 3d 4s"),
                     parse_cards("Ks Kh Kd 8h 9h Th Qc 9c Ad 4h"), STANDARD)
    assert (outcome.kind, outcome.winner, outcome.points) == ("undercut", "defender", 28)
    assert (outcome.knocker_deadwood, outcome.defender_deadwood) == (8, 5)
    says("Q♠ Q♦ Q♥, 5♣ 6♣ 7♣ 8♣ and A♠ 3♦ 4♠", "K♠ K♥ K♦, 8♥ 9♥ T♥, Q♣, 9♣, A♦ and 4♥",
         "1 + 4 = **5**", "8 − 5 + 25 = **28**")


@pytest.mark.parametrize(("defender", "kind", "points"), [
    ("8c Jc Jh Jd 9s 9h 9d Kh Qc Ts", "knock", 20),       # left with 30
    ("8c Jc Jh Jd Js 9s 9h 9d Ah Kh", "knock", 1),        # left with 11
    ("8c Jc Jh Jd Js 9s 9h 9d 3h 7s", "undercut", 25),    # left with 10
])
def test_knocking_on_ten_example(defender: str, kind: str, points: int) -> None:
    # A knock on 10; the defender lays off one card (8c on the eights) each time.
    outcome = settle(parse_cards("2c 3c 4c 5d 6d 7d 8h 8s 8d Ks"), parse_cards(defender))
    assert outcome.knocker_deadwood == 10 and [str(c) for c, _ in outcome.layoffs] == ["8c"]
    assert (outcome.kind, outcome.points) == (kind, points)
    says("left with 30. You score the difference, 20", "Left with 11, you would score 1",
         "scores 0 + 25 = 25", "That one point swings 26 points")


def test_match_example() -> None:
    totals = match_totals([104, 60], [4, 3], STANDARD)
    assert totals.totals == (304, 135)
    assert match_totals([104, 0], [4, 0], STANDARD).totals == (404, 0)
    says("104 + 100 + 4 × 25 = **304**", "60 + 3 × 25 = **135**", "104 + 200 + 4 × 25 = 404")


def test_presets_table() -> None:
    assert (CLASSIC.gin_bonus, CLASSIC.undercut_bonus, CLASSIC.box_bonus) == (20, 10, 20)
    assert (STANDARD.gin_bonus, STANDARD.undercut_bonus, STANDARD.box_bonus) == (25, 25, 25)
    assert [OKLAHOMA.knock_limit_for(v) for v in (7, 10, 1)] == [7, 10, 0]
    assert STANDARD.big_gin_bonus is None and STANDARD.dead_stock == 2
    says("| gin | deadwood + 25 | deadwood + 20 | deadwood + 25 |",
         "| undercut | difference + 25 | difference + 10 | difference + 25 |",
         "| box bonus per hand won | 25 | 20 | 25 |", "for 31 plus the other player's deadwood",
         "**only two cards in the stock**")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_stand_alone(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"DESIGN\.md|\.\./shared|shared/seeds", text), page
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not re.match(r"[a-z]+:", target):  # a relative link: it must exist here
            assert (page.parent / target).exists(), f"{page.name} links to {target}"


# -- README's own figures (issue 28): short, and true of the build and the suite -------

README = (ROOT / "README.md").read_text(encoding="utf-8")
README_FLAT = " ".join(README.split())


def about(pattern: str, text: str = README_FLAT) -> float:
    """The number the text states where ``pattern`` (one group) matches, once."""
    found = re.findall(pattern, text)
    assert len(found) == 1, f"README states {pattern!r} {len(found)} times"
    return float(found[0].replace(",", ""))


def test_readme_is_short_and_sets_up_in_a_virtual_environment_first() -> None:
    assert len(README.splitlines()) <= 200
    venv = README.index("python3 -m venv .venv && . .venv/bin/activate")
    assert venv < README.index("pip install -e '.[dev]'") < README.index("## Play")


def test_readme_states_the_boards_size_as_built() -> None:
    from relay.static import BOARD_DIR, FILES, compressed

    files = [BOARD_DIR / name for name in FILES]
    if not all(f.exists() for f in files):
        pytest.skip("the board is not built (client/web/dist)")
    built = sum(f.stat().st_size for f in files)
    gzipped = sum(len(compressed(f.read_bytes())) for f in files)
    stated = about(r"about (\d+) KB as built"), about(r"and (\d+) KB gzipped")
    for figure, actual in zip(stated, (built, gzipped), strict=True):
        assert abs(actual / 1000 - figure) <= 0.1 * figure, (stated, built, gzipped)
    # docs/performance.md gives each file: within a tenth of the build too.
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for f in files:
        row = re.search(rf"\| `{f.name}`[^|]*\| ([\d,]+) \| ([\d,]+) \|", page)
        assert row is not None, f"docs/performance.md gives no size of {f.name}"
        size, packed = (int(x.replace(",", "")) for x in row.groups())
        assert abs(f.stat().st_size - size) <= 0.1 * size, f.name
        assert abs(len(compressed(f.read_bytes())) - packed) <= 0.1 * packed, f.name


def collected(*args: str) -> int:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         check=False).stdout
    count = re.search(r"(\d+)(?:/(\d+))? tests? collected", out)
    assert count is not None, out[-500:]
    return int(count.group(1))


@pytest.mark.slow
def test_readme_states_the_test_count_the_suite_has() -> None:
    everything = about(r"runs everything: about ([\d,]+) tests")
    quick = about(r"leaves out the slow ones .*? about ([\d,]+) tests in")
    assert abs(collected() - everything) <= 0.1 * everything
    assert abs(collected("-m", "not slow") - quick) <= 0.1 * quick
