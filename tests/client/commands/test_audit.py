"""`gin audit`: verdicts, the replay, exit statuses, one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from client.cli import main
from gin.conformance.identity_cases import link_matches
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.records.history import identities_text
from gin.protocol.records.records import HandRecord
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session, play_local


@pytest.fixture(scope="module")
def record() -> HandRecord:
    rules = STANDARD.with_options(target=1)  # the first scored hand ends the match
    host = Session("host", bytes(32), rules, random.Random(1).randbytes, b"h" * 32)
    guest = Session("guest", bytes(32), None, random.Random(2).randbytes, b"g" * 32)
    play_local(host, guest, [get("easy"), get("easy")])
    return next(e.record for e in host.events() if isinstance(e, HandVerified))


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_good_record_verifies(record: HandRecord, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "hand.json", record.to_json())
    assert main(["audit", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:\n") and out.rstrip().endswith("verified")
    assert "is dealt" in out and "result:" in out
    assert main(["audit", "--quiet", path]) == 0
    ids = identities_text(record.identities)
    assert ids.startswith("identities: host ") and ", guest " in ids
    assert capsys.readouterr().out == f"{path}:\n{ids}\nverified\n"


def test_a_tampered_record_says_what_and_who(record: HandRecord, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Two entries of message 3 swapped in the file: neither player signed that, so the
    # file is at fault, not the dealer whose message 3 it seems to be (issue 26).
    data = record.to_dict()
    m3 = data["messages"]["message3"]
    m3[30], m3[31] = m3[31], m3[30]
    path = write(tmp_path, "bad.json", json.dumps(data))
    assert main(["audit", "-q", path]) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert failed == [f"FAILED signatures.{seat}: the {seat}'s signature does not sign this "
                      "hand and its seed as recorded (at fault: record)"
                      for seat in ("host", "guest")]
    assert "verified" not in out


def test_a_failed_proofs_evidence_names_the_second_shuffler(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # What the first shuffler keeps when a signed message 2's shuffle proof fails.
    from gin.conformance.evidence_cases import refused_evidence

    evidence, _, _ = refused_evidence()
    path = write(tmp_path, "gin-hand-01-failed.json", evidence.to_json())
    assert main(["audit", path]) == 1
    out = capsys.readouterr().out
    cheat = ("host", "guest")[evidence.second]
    assert "signed message 2 and its shuffle proof" in out
    assert "FAILED proof: message 2 is not proven a shuffle of message 1" in out
    assert out.rstrip().endswith(f"(at fault: {cheat})") and "verified" not in out


@pytest.mark.parametrize(("content", "text"), [
    (None, "cannot read"),
    ("{not json", "not JSON"),
    ('{"format": "gin-hand-record"}', "record.version"),
], ids=["missing", "corrupt", "incomplete"])
def test_unreadable_files_are_one_line_errors(
    record: HandRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    content: str | None, text: str,
) -> None:
    bad = str(tmp_path / "nope.json") if content is None else write(tmp_path, "x.json", content)
    good = write(tmp_path, "good.json", record.to_json())
    assert main(["audit", "-q", bad, good]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"gin audit: {bad}: ") and text in line
    assert "Traceback" not in captured.err and captured.out.endswith("verified\n")


def test_edited_scores_fail(record: HandRecord, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    data = record.to_dict()
    data["scores"] = [0, 99]
    path = write(tmp_path, "edited.json", json.dumps(data))
    assert main(["audit", path]) == 1
    out = capsys.readouterr().out
    assert "FAILED scores: recorded host 0, guest 99" in out and "verified" not in out


@pytest.fixture(scope="module")
def two_hands() -> list[HandRecord]:
    # Another link than ``record``'s: two first matches of one link are a conflict.
    host = Session("host", bytes([1] * 32), STANDARD.with_options(target=60),
                   random.Random(3).randbytes, b"h" * 32)
    guest = Session("guest", bytes([1] * 32), None, random.Random(4).randbytes, b"g" * 32)
    play_local(host, guest, [get("easy"), get("easy")])
    found = [e.record for e in host.events() if isinstance(e, HandVerified)]
    assert len(found) >= 2
    return found[:2]


def test_what_one_record_cannot_prove_is_not_called_verified(
    two_hands: list[HandRecord], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = (write(tmp_path, f"{r.hand_number}.json", r.to_json()) for r in two_hands)
    assert main(["audit", "-q", second]) == 3  # verified, but not everything is proven
    out = capsys.readouterr().out
    ids = identities_text(two_hands[0].identities)
    assert out.startswith(f"{second}:\n{ids}\nverified, except what these records cannot prove:\n")
    assert "  not verified: the match scores before hand 2" in out
    assert main(["audit", "-q", second, first]) == 0  # together: hand 2 follows hand 1
    assert capsys.readouterr().out == f"{second}:\n{ids}\nverified\n{first}:\n{ids}\nverified\n"


def test_a_record_is_printed_as_plain_text(record: HandRecord, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = record.to_dict()
    data["rules"]["name"] = "\x1b[2J\x1b]0;pwned\x07"
    path = write(tmp_path, "escape\x1b[31m.json", json.dumps(data))
    assert main(["audit", path]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.err and "\x07" not in captured.err
    assert "the rules' name must be" in captured.err


def test_deep_nesting_is_not_a_record_and_no_traceback(
    record: HandRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    deep = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    assert main(["audit", deep]) == 2  # was a RecursionError's traceback, exit 1
    captured = capsys.readouterr()
    assert captured.err == (f"gin audit: {deep}: hand record: not JSON (more than 64 arrays "
                            "and objects nested at char 64)\n")
    assert captured.out == ""


def test_the_exit_status_of_several_files_is_the_worst(
    record: HandRecord, two_hands: list[HandRecord], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """2 (not a record) before 1 (failed) before 3 (unproven) before 0 (proven)."""
    good = write(tmp_path, "good.json", record.to_json())
    later = write(tmp_path, "later.json", two_hands[1].to_json())
    data = record.to_dict()
    data["scores"] = [0, 99]
    bad = write(tmp_path, "bad.json", json.dumps(data))
    junk = write(tmp_path, "junk.json", "{")
    assert main(["audit", "-q", good]) == 0
    assert main(["audit", "-q", good, later]) == 3
    assert main(["audit", "-q", later, bad]) == 1
    assert main(["audit", "-q", bad, junk, later]) == 2
    capsys.readouterr()


def test_a_match_minted_on_a_real_link_is_reported_as_a_conflict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One party holding the link plays both seats (its own identity and a fresh one) and
    mints a whole match: alone it verifies; beside the real match of that link neither
    does, and the conflict names both matches and their players."""
    real, minted = link_matches()
    real_files = [write(tmp_path, f"real-{r.hand_number}.json", r.to_json()) for r in real]
    minted_files = [write(tmp_path, f"minted-{r.hand_number}.json", r.to_json()) for r in minted]
    for files, records in ((real_files, real), (minted_files, minted)):
        assert main(["audit", "-q", *files]) == 0
        out = capsys.readouterr().out
        assert out.count(identities_text(records[0].identities)) == len(files)
        assert out.count("\nverified\n") == len(files)
    assert main(["audit", "-q", *real_files, *minted_files]) == 1
    out = capsys.readouterr().out
    assert "\nverified" not in out
    assert out.count("FAILED link: records of link ") == len(real_files) + len(minted_files)
    assert f"match {real[0].match_id.hex()} (identities " in out
    assert f"match {minted[0].match_id.hex()} (identities " in out
    assert "both begin it; at most one is the real match" in out


def test_the_help_tells_every_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for status in ("0: every record verified", "1: a record failed", "2: a file is missing",
                   "3: every record verified except", "do not form one history",
                   "the match a rematch continues"):
        assert status in text


def test_the_command_prints_the_report_the_board_shows(
    record: HandRecord, two_hands: list[HandRecord], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """gin audit prints gin.protocol.records.audit_report's lines (the browser board's twin
    shows the same, held by the conformance corpus), each as plain text."""
    from client.text import plain
    from gin.protocol.records.audit_report import Given, audit_report

    paths = [write(tmp_path, "1\u202e.json", record.to_json()),
             write(tmp_path, "2.json", two_hands[1].to_json()), str(tmp_path / "gone.json")]
    report = audit_report([Given(p, Path(p).read_bytes()) for p in paths[:2]]
                          + [Given(paths[2], None, "No such file or directory")])
    assert main(["audit", *paths]) == report.status == 2
    captured = capsys.readouterr()
    assert captured.out == "".join(plain(line) + "\n" for line in report.lines())
    assert captured.err == "".join(plain(line) + "\n" for line in report.errors)
    assert "\u202e" not in captured.out and "1.json:\n" in captured.out
