"""Hand records (strict JSON) and their independent audit, on records of a real match."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from gin.actions import Discard
from gin.audit import audit_record
from gin.cards import DECK
from gin.errors import MalformedInput
from gin.players import get
from gin.records import SEATS, HandRecord, parse_record
from gin.rules import CLASSIC
from gin.session import HandVerified, Session, play_local

SECRET = bytes(range(32))


@pytest.fixture(scope="module")
def records() -> list[HandRecord]:
    host = Session("host", SECRET, CLASSIC, random.Random("h").randbytes)
    guest = Session("guest", SECRET, None, random.Random("g").randbytes)
    play_local(host, guest, [get("normal", random.Random(i)) for i in (0, 1)])
    found = [e.record for e in host.events() if isinstance(e, HandVerified)]
    assert len(found) >= 3 and host.failure is None
    return found


@pytest.fixture()
def record(records: list[HandRecord]) -> HandRecord:
    """A hand with a knock (so it has lay-offs to tell) from the match."""
    return next(r for r in records if r.score.kind in ("knock", "undercut"))


def test_records_round_trip_and_audit_clean(records: list[HandRecord]) -> None:
    for record in records:
        assert parse_record(record.to_json()) == record
        assert parse_record(record.to_json().encode()) == record
        result = audit_record(record)
        assert result.ok and result.findings == ()


def test_replay_tells_the_hand(record: HandRecord) -> None:
    lines = audit_record(record).replay
    text = "\n".join(lines)
    assert f"Hand {record.hand_number} of match {record.match_id.hex()} (classic rules)" in text
    assert text.count(" is dealt ") == 2 and "upcard" in text
    assert "lays out" in text and "lays off" in text
    assert "draws" in text and "discards" in text
    winner = SEATS[record.score.winner or 0]
    assert f"result: {winner} {record.score.points} by" in text


def mutate(record: HandRecord, change: Callable[[dict[str, Any]], object]) -> str:
    data = record.to_dict()
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d.pop("seeds"), "record.seeds: missing"),
    (lambda d: d.update(extra=1), "record.extra: unexpected field"),
    (lambda d: d.update(format="other"), "record.format"),
    (lambda d: d.update(version=1), "record.version: 1 is outside 2..2"),
    (lambda d: d["signatures"].update(host="00"), "record.signatures.host: expected 128"),
    (lambda d: d.pop("signing_keys"), "record.signing_keys: missing"),
    (lambda d: d.update(dealer=2), "record.dealer: 2 is outside 0..1"),
    (lambda d: d.update(hand=True), "record.hand: expected an integer"),
    (lambda d: d["seeds"].update(first="zz" * 32), "record.seeds.first: not hexadecimal"),
    (lambda d: d["commitments"].update(second="00"), "record.commitments.second: expected 64"),
    (lambda d: d["messages"]["message2"].pop(), "record.messages.message2: 51 entries"),
    (lambda d: d["steps"][0]["keys"][0].__setitem__(0, 52), "record.steps[0].keys[0][0]"),
    (lambda d: d["steps"].append({"seat": 0}), "needs an action or keys"),
    (lambda d: d["steps"].append({"seat": 0, "action": "fly"}), "record.steps"),
    (lambda d: d["result"].update(kind="win"), "record.result.kind"),
    (lambda d: d["rules"].update(target=-1), "record.rules"),
    (lambda d: d.update(seats=["guest", "host"]), "record.seats"),
], ids=["missing", "unknown", "format", "version", "signature", "signing-keys", "dealer", "bool", "hex", "length",
        "entries", "position", "empty-step", "action", "kind", "rules", "seats"])
def test_parsing_is_strict_and_names_the_path(
    record: HandRecord, change: Callable[[dict[str, Any]], object], where: str
) -> None:
    with pytest.raises(MalformedInput, match="hand record: .*") as info:
        parse_record(mutate(record, change))
    assert where in str(info.value)


@pytest.mark.parametrize("data", [b"", b"{", b"[]", b"x" * (1 << 20 + 1)],
                         ids=["empty", "truncated", "not-object", "too-big"])
def test_garbage_is_malformed(data: bytes) -> None:
    with pytest.raises(MalformedInput, match="hand record"):
        parse_record(data)


def audited(record: HandRecord, change: Callable[[dict[str, Any]], object]) -> Any:
    return audit_record(parse_record(mutate(record, change)))


def test_wrong_seed_fails_the_commitment(record: HandRecord) -> None:
    result = audited(record, lambda d: d["seeds"].update(first="00" * 32))
    assert not result.ok and result.replay == ()
    (finding,) = result.findings
    assert (finding.who, finding.where) == (SEATS[record.dealer], "commitment")


def test_swapped_message2_entries_are_the_second_shufflers(record: HandRecord) -> None:
    def swap(d: dict[str, Any]) -> None:
        m2 = d["messages"]["message2"]
        m2[50], m2[51] = m2[51], m2[50]

    result = audited(record, swap)
    assert {(f.who, f.where) for f in result.findings} >= {
        (SEATS[1 - record.dealer], "message2[50]"), (SEATS[1 - record.dealer], "message2[51]")}
    assert "message1" in result.findings[0].detail


def test_wrong_revealed_key_names_its_step(record: HandRecord) -> None:
    index, step = next((i, s) for i, s in enumerate(record.steps) if s.keys)
    position = step.keys[0][0]

    def change(d: dict[str, Any]) -> None:
        d["steps"][index]["keys"][0][1] = "00" * 31 + "07"

    (finding,) = audited(record, change).findings
    assert finding.who == SEATS[step.seat]
    assert finding.where == f"steps[{index}].keys[0] (key[{position}])"


def test_changed_move_fails_the_replay(record: HandRecord) -> None:
    index, step = next((i, s) for i, s in enumerate(record.steps)
                       if isinstance(s.action, Discard))
    assert isinstance(step.action, Discard)
    other = next(c for c in DECK if c != step.action.card)

    def change(d: dict[str, Any]) -> None:
        d["steps"][index]["action"] = f"discard {other}"

    result = audited(record, change)
    assert result.findings and result.findings[0].who == SEATS[step.seat]
    assert result.findings[0].where == f"steps[{index}]"


def test_wrong_score_is_the_records_own_fault(record: HandRecord) -> None:
    (finding,) = audited(record, lambda d: d["result"].update(points=999)).findings
    assert (finding.who, finding.where) == ("record", "result")
    assert "recorded" in finding.detail and "999" in finding.detail


def test_truncated_steps_leave_the_hand_unfinished(record: HandRecord) -> None:
    (finding,) = audited(record, lambda d: d["steps"].pop()).findings
    assert finding.who == "record" and "not over" in finding.detail
