"""Issue 26 item 5: records are read as strictly as protocol.md §10 says. A rule left
out of a hand record was filled with today's default before the digest, so the record
still verified; a repeated key was taken (the last won) in hand records, deal evidence
and abandonment records; and a text that is not JSON was worded by Python's json, not
as the board words it. Now each is refused in the board's words (the corpus holds
the TypeScript twin to them); deal evidence and abandonment records that repeat a key
in their own kind's words, not a hand record's."""

from __future__ import annotations

import json

import pytest

from gin.conformance.abandonment_cases import abandoned_match  # the silent guest's record
from gin.conformance.evidence_cases import refused_evidence  # a duplicating second's
from gin.conformance.records_cases import RECORD_MATCHES, play_match
from gin.engine.errors import MalformedInput
from gin.protocol.records import abandonment
from gin.protocol.records.audit import audit_record
from gin.protocol.records.evidence import parse_file
from gin.protocol.records.records import parse_record
from gin.protocol.records.strict_json import JsonSyntaxError, loads


@pytest.fixture(scope="module")
def record_text() -> str:
    record = play_match(*RECORD_MATCHES[2]).host[0]
    assert audit_record(record).ok
    return record.to_json()


@pytest.mark.parametrize("rule", ["name", "gin_bonus", "dead_stock"])
def test_a_rule_left_out_is_refused_not_filled_in(record_text: str, rule: str) -> None:
    data = json.loads(record_text)
    del data["rules"][rule]
    with pytest.raises(MalformedInput, match=rf"^hand record: record\.rules\.{rule}: missing$"):
        parse_record(json.dumps(data))


def test_a_repeated_key_is_refused_in_a_record_and_its_rules(record_text: str) -> None:
    for text in (record_text.replace('"hand": ', '"hand": 2, "hand": ', 1),
                 record_text.replace('"gin_bonus": ', '"gin_bonus": 99, "gin_bonus": ', 1)):
        with pytest.raises(MalformedInput, match=r"not JSON \(a key repeats in its object"):
            parse_record(text)


def test_a_repeated_key_is_refused_in_evidence_and_abandonment_records() -> None:
    text = abandoned_match()[0].to_json()
    spoiled = text.replace('"hand": ', '"hand": 0, "hand": ', 1)
    with pytest.raises(MalformedInput, match=r"a key repeats in its object \(char \d+\)"):
        abandonment.parse(spoiled)
    with pytest.raises(MalformedInput, match=r"a key repeats in its object"):
        parse_file(spoiled)


@pytest.mark.parametrize(("kind", "head"), [("evidence", "deal evidence"),
                                             ("abandonment", "abandonment record: record")])
def test_a_repeated_key_is_refused_in_the_words_of_the_files_own_kind(kind: str,
                                                                      head: str) -> None:
    """It was refused as "hand record: not JSON (…)": parse_file read a text its strict
    reader refused as a hand record's. A text that is JSON but for a repeated key is
    told apart by its format (the last one), and refused by that kind's own reader."""
    good = (refused_evidence()[0] if kind == "evidence" else abandoned_match()[0]).to_json()
    for old, new in (('"hand": ', '"hand": 0, "hand": '), ('"guest": ', '"guest": 1, "guest": '),
                     ('"format": ', '"format": "gin-hand-record", "format": ')):
        spoiled = good.replace(old, new, 1)
        with pytest.raises(MalformedInput) as refused:
            parse_file(spoiled)
        place = spoiled.index(new) + len(new) - len(old)
        assert str(refused.value) == (
            f"{head}: not JSON (a key repeats in its object (char {place}))")
    # The last format counts: a hand record's after the kind's own is a hand record.
    spoiled = good.replace('"version": ', '"format": "gin-hand-record", "version": ', 1)
    with pytest.raises(MalformedInput, match=r"^hand record: not JSON \(a key repeats"):
        parse_file(spoiled)
    # Text that is not JSON is worded as a hand record's, as before.
    with pytest.raises(MalformedInput, match=r"^hand record: not JSON \(expecting"):
        parse_file(good[:-3])


@pytest.mark.parametrize(("text", "why"), [
    ('{"a" 1}', "expecting ':' (char 5)"),
    ("[1,2", "expecting ',' or ']' (char 4)"),
    ('{"a": 1,}', "expecting a property name in double quotes (char 8)"),
    ('["😀😀", x]', "expecting a value (char 7)"),  # code points, not UTF-16 units
    ('{"x": 1, "x": 2}', "a key repeats in its object (char 9)"),
    ("[1] 2", "extra data (char 4)"),
])
def test_json_refusals_are_worded_with_their_place_as_the_board_words_them(
        text: str, why: str) -> None:
    with pytest.raises(JsonSyntaxError) as refused:
        loads(text)
    assert str(refused.value) == why
    with pytest.raises(MalformedInput) as record:
        parse_record(text)
    assert str(record.value) == f"hand record: not JSON ({why})"
