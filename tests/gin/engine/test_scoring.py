"""Scoring: every worked example of the seeds, lay-offs, and the match bonuses."""

import pytest

from gin import (
    IllegalAction,
    best_defence_cards,
    match_totals,
    parse_cards,
    ruleset,
    settle,
)
from gin.engine.cards import format_cards

KNOCKER_10 = "2c 3c 4c 5d 5h 5s 7s 8s 9s Tc"  # three melds, deadwood 10


@pytest.mark.parametrize(
    ("loose", "kind", "winner", "points"),
    [
        ("Kd Qh Jd", "knock", "knocker", 20),  # 000: knock 10 vs 30 -> 20
        ("9d 2h", "knock", "knocker", 1),  # vs 11 -> 1
        ("8d 2h", "undercut", "defender", 25),  # vs 10 -> undercut, 25 (a tie)
    ],
)
def test_knock_with_ten_examples_from_000(loose: str, kind: str, winner: str, points: int) -> None:
    melds = "Ac Ad As 7h 8h 9h Th" if len(loose.split()) == 2 else "Ac Ad As 7h 8h 9h"
    defender = parse_cards(f"5c {loose} {melds}")  # 5c is laid off on 2c3c4c
    out = settle(parse_cards(KNOCKER_10), defender)
    assert (out.kind, out.winner, out.points) == (kind, winner, points)
    assert out.knocker_deadwood == 10
    assert format_cards(out.laid_off) == "5c"


def test_knock_example_from_003_scores_24() -> None:
    knocker = parse_cards("9s 9d 9h 3h 4h 5h 6h Ac 2d 4s")  # 7 = 1 + 2 + 4
    defender = parse_cards("7h 9c 6c 8d Ks 2c 5d Qc Qd Qh")
    out = settle(knocker, defender)
    assert out.knocker_deadwood == 7
    assert sorted(format_cards(out.laid_off).split()) == ["7h", "9c"]
    assert out.defender_deadwood == 31  # 6 + 8 + 10 + 2 + 5
    assert (out.kind, out.winner, out.points) == ("knock", "knocker", 24)


def test_gin_example_from_003_scores_43() -> None:
    knocker = parse_cards("2c 3c 4c 5c 9d 9h 9s Jh Qh Kh")
    defender = parse_cards("Ad 2d 3d 4d 6c 7c 8c Kd 5h 3s")  # 18 deadwood; 6c could lay off
    out = settle(knocker, defender)
    assert out.defender_deadwood == 18
    assert out.laid_off == ()  # nothing may be laid off against gin
    assert (out.kind, out.winner, out.points) == ("gin", "knocker", 43)


def test_nothing_is_laid_off_against_gin() -> None:
    knocker = parse_cards("2c 3c 4c 5c 9d 9h 9s Jh Qh Kh")
    defender = parse_cards("6c 9c Th 4d 5d 7d 8s 2s 3s As")  # 6c, 9c, Th would lay off
    out = settle(knocker, defender)
    assert out.kind == "gin"
    assert out.defender_deadwood == 6 + 9 + 10 + 4 + 5 + 7 + 8 + 0  # A-2-3s is a run


def test_undercut_example_from_003_scores_28() -> None:
    knocker = parse_cards("Qs Qd Qh 5c 6c 7c 8c Ad 3s 4h")  # 8 = 1 + 3 + 4
    defender = parse_cards("Qc 9c 2h 3d Js Jd Jh 4s 5s 6s")
    out = settle(knocker, defender)
    assert out.knocker_deadwood == 8
    assert sorted(format_cards(out.laid_off).split()) == ["9c", "Qc"]
    assert out.defender_deadwood == 5
    assert (out.kind, out.winner, out.points) == ("undercut", "defender", 28)


def test_knock_over_the_limit_is_an_error_not_a_score() -> None:
    with pytest.raises(IllegalAction, match="11 deadwood: the limit is 10"):
        settle(parse_cards("2c 3c 4c 5c 6c 9d 9h 9s Ad Ts"),
               parse_cards("Kd Qh Jd Ac Ah As 7h 8h 9c Th"))


def test_classic_bonuses() -> None:
    knocker = parse_cards("2c 3c 4c 5c 9d 9h 9s Jh Qh Kh")
    defender = parse_cards("Ad 2d 3d 4d 6c 7c 8c Kd 5h 3s")
    assert settle(knocker, defender, ruleset("classic")).points == 20 + 18


def test_layoffs_chain_on_either_end_of_a_run() -> None:
    # 8h, 9h and Th chain onto 5h6h7h; 4h goes below it.
    d = best_defence_cards(parse_cards("4h 8h 9h Th Kc Ks 2d 3s 6d Qd"),
                           [tuple(parse_cards("5h 6h 7h"))])
    assert sorted(format_cards(c for c, _ in d.laid_off).split()) == ["4h", "8h", "9h", "Th"]
    assert d.deadwood == 10 + 10 + 2 + 3 + 6 + 10


def test_fourth_card_of_a_set_lays_off() -> None:
    d = best_defence_cards(parse_cards("7c 2d"), [tuple(parse_cards("7d 7h 7s"))])
    assert format_cards(c for c, _ in d.laid_off) == "7c"
    assert d.deadwood == 2


def test_a_card_goes_to_own_meld_or_lay_off_whichever_is_better() -> None:
    # 8h could join the defender's 8c8d8h set or extend 5h6h7h; melding the eights
    # strands 9h (deadwood 9), laying off 8h lets 9h chain but strands 8c 8d (16).
    d = best_defence_cards(parse_cards("8c 8d 8h 9h"), [tuple(parse_cards("5h 6h 7h"))])
    assert d.deadwood == 9
    # With a third eight the set of three eights stays and 8h chains 9h.
    d = best_defence_cards(parse_cards("8c 8d 8s 8h 9h"), [tuple(parse_cards("5h 6h 7h"))])
    assert d.deadwood == 0


def test_end_of_match_example_from_003() -> None:
    totals = match_totals([104, 60], [4, 3], ruleset("standard"))
    assert totals.totals == (304, 135)
    assert totals.winner == 0 and not totals.shutout


def test_shutout_doubles_the_game_bonus() -> None:
    totals = match_totals([60, 110], [0, 3], ruleset("standard"))
    assert totals.shutout and totals.game_bonus == (0, 200)
    assert totals.totals == (60, 110 + 200 + 75)
    whole = ruleset("standard").with_options(shutout="double_total")
    assert match_totals([60, 110], [0, 3], whole).totals == (60, 2 * (110 + 100 + 75))


def test_classic_box_bonus_is_twenty() -> None:
    assert match_totals([104, 60], [4, 3], ruleset("classic")).totals == (104 + 100 + 80, 60 + 60)
