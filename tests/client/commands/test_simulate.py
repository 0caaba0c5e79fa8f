import json

import pytest

from client.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_simulate_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "simulate", "--players", "easy,simple", "--matches", "3",
                           "--seed", "2", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["players"] == ["easy", "simple"] and data["matches"] == 3
    assert sum(data["wins"]) == 3
    assert data["ci95"][0] <= data["win_rate"] <= data["ci95"][1]
    assert set(data["ends_share"]) == {"knock", "gin", "undercut", "dead"}
    assert data["hands_per_second"] > 0


def test_results_do_not_depend_on_the_number_of_jobs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("simulate", "--players", "easy,simple", "--matches", "4", "--seed", "9", "--json")
    _, one, _ = run(capsys, *args)
    _, two, _ = run(capsys, *args, "--jobs", "2")
    timing = {"seconds", "hands_per_second", "jobs"}
    first, second = json.loads(one), json.loads(two)
    assert {k: v for k, v in first.items() if k not in timing} == \
        {k: v for k, v in second.items() if k not in timing}


def test_simulate_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "simulate", "--players", "normal,easy", "--matches", "2")
    assert status == 0
    assert "normal won" in out and "95% CI" in out and "hands/s" in out and "undercut" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--players", "easy,wizard"), "unknown player 'wizard'"),
        (("--players", "easy"), "two names"),
        (("--matches", "0"), "--matches must be at least 1"),
        (("--jobs", "0"), "--jobs must be between"),
        (("--rules", "martian"), "unknown ruleset"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, "simulate", *argv)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_non_numeric_matches_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--matches", "many"])
    assert exit_info.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_stats_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "stats", "--deals", "400", "--seed", "3", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["deals"] == 400 and 55 < data["mean_points"] < 75
    assert run(capsys, "stats", "--deals", "0")[0] == 2
