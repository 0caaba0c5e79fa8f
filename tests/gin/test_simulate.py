import random

import pytest

from gin.simulate import (
    HandRecord,
    MatchRecord,
    deal_stats,
    match_rng,
    play_match,
    summarize,
    wilson,
)


def test_wilson_matches_the_textbook_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_match_rng_depends_only_on_seed_index_and_stream() -> None:
    assert match_rng(1, 5).random() == match_rng(1, 5).random()
    assert match_rng(1, 5).random() != match_rng(1, 6).random()
    assert match_rng(1, 5).random() != match_rng(2, 5).random()
    assert match_rng(1, 5, "player0").random() != match_rng(1, 5).random()


def test_a_match_is_deterministic_and_complete() -> None:
    first = play_match(("easy", "simple"), seed=3, index=0)
    assert first == play_match(("easy", "simple"), seed=3, index=0)
    assert first != play_match(("easy", "simple"), seed=3, index=1)
    assert first.winner in (0, 1)
    won = [h.points for h in first.hands if h.winner == first.winner]
    lost = [h.points for h in first.hands if h.winner == 1 - first.winner]
    assert sum(won) >= 100 > sum(lost)
    for hand in first.hands:
        assert hand.kind in ("knock", "gin", "undercut", "dead")
        assert (hand.winner is None) == (hand.kind == "dead")
        assert hand.moves >= 3


def test_summary_counts_every_hand_once() -> None:
    records = [
        MatchRecord(0, (HandRecord("knock", 0, 0, 20, 30), HandRecord("undercut", 0, 1, 30, 25),
                        HandRecord("dead", None, None, 0, 60), HandRecord("gin", 0, 0, 80, 20))),
        MatchRecord(1, (HandRecord("gin", 1, 1, 110, 22),)),
    ]
    summary = summarize(("a", "b"), records)
    assert summary.matches == 2 and summary.wins == (1, 1) and summary.hands == 5
    assert summary.points == (100, 140)
    assert summary.ends == {"knock": (1, 0), "gin": (1, 1), "undercut": (0, 1)}
    assert summary.dead == 1 and summary.moves == 157
    data = summary.to_dict()
    assert data["ends_share"]["gin"] == pytest.approx(0.4)
    assert data["hands_per_match"] == 2.5 and data["win_rate"] == 0.5


def test_easy_beats_random_every_time() -> None:
    summary = summarize(("easy", "random"), (play_match(("easy", "random"), 1, i)
                                              for i in range(6)))
    assert summary.wins == (6, 0)


def test_dealt_hands_look_like_the_rules_page_says() -> None:
    stats = deal_stats(3000, random.Random(1))
    assert stats.deals == 3000
    assert 63 < stats.mean_points < 67  # 340 points in 52 cards: 65.4 expected
    assert 54 < stats.mean_deadwood < 60
    assert 0.35 < stats.with_meld < 0.45
    assert stats.gins == 0 and stats.knockable <= 10
    assert deal_stats(3000, random.Random(1)) == stats
