"""Conformance cases for what ``gin audit FILE...`` prints (kind ``audit_report``):
sets of files given together, records honest and tampered with, alone or with the
hands before them, deal evidence, files that are no record or could not be read,
and each set's exact text (standard output, quiet or not, and the error lines) and
exit status. The TypeScript twin (``client/web/src/protocol/records/audit_report.ts``),
which the browser board shows, must give the same, line for line.

Pure: generators of plain dicts, from the seeded matches of records_cases.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace

from gin.conformance.abandonment_cases import abandoned_match
from gin.conformance.encoding_cases import top_bit
from gin.conformance.evidence_cases import refused_evidence
from gin.conformance.records_cases import RECORD_MATCHES, edited_record, play_match, with_scores
from gin.protocol.records.audit_report import Given, audit_report
from gin.protocol.records.audit_text import EXIT_STATUSES

Case = dict[str, object]


def audit_report_case(name: str, given: Sequence[Given]) -> Case:
    """The files (name, text or null, why unreadable) and gin audit's whole answer."""
    report = audit_report(given)
    return {"kind": "audit_report", "name": name,
            "files": [[g.name, None if g.data is None else g.data.decode(), g.unreadable]
                      for g in given],
            "errors": list(report.errors), "lines": list(report.lines()),
            "quiet": list(report.lines(quiet=True)), "status": report.status,
            "meaning": dict(EXIT_STATUSES)[report.status]}


def _file(name: str, text: str) -> Given:
    return Given(name, text.encode())


def audit_report_cases() -> Iterator[Case]:
    classic = play_match(*RECORD_MATCHES[0])
    first, second = classic.host[0], classic.host[1]
    hand1, hand2 = (_file(f"gin-hand-0{r.hand_number}.json", r.to_json()) for r in (first, second))
    yield audit_report_case("hand 1 verified", [hand1])
    yield audit_report_case("hand 2 alone: scores not proven", [hand2])
    yield audit_report_case("hand 2 with hand 1", [hand2, hand1])
    yield audit_report_case("the match's every record", [
        _file(f"hand{r.hand_number}.json", r.to_json()) for r in classic.host])
    swapped = edited_record(first, lambda d: d["messages"]["message3"].insert(30, d["messages"][
        "message3"].pop(31)))
    yield audit_report_case("a cheat: message 3 re-signed", [
        _file("cheat.json", classic.resign(swapped).to_json())])
    yield audit_report_case("tampered, not signed again", [
        _file("edited.json", edited_record(first, lambda d: d.update(scores=[0, 99])).to_json())])
    yield audit_report_case("hand 1 edited before hand 2", [
        _file("1.json", with_scores(classic, first, [0, 99]).to_json()), hand2])
    # Issue 26: a point under the top bit of byte 31 in a record signed by both is no
    # record (it was read, and its signatures blamed).
    under = top_bit(first.messages[1][3])
    yield audit_report_case("a record's point under the top bit", [_file("top-bit.json", (
        classic.resign(replace(first, messages=(first.messages[0], (
            *first.messages[1][:3], under, *first.messages[1][4:]), first.messages[2])))
    ).to_json())])
    evidence, _, _ = refused_evidence()
    yield audit_report_case("deal evidence", [_file("gin-hand-01-failed.json", evidence.to_json())])
    yield audit_report_case("deal evidence with a repeated key", [_file(
        "gin-hand-01-failed.json", evidence.to_json().replace('"hand": ', '"hand": 2, "hand": '))])
    abandoned, kept, _ = abandoned_match()
    claim = _file("gin-abandoned.json", abandoned.to_json())
    yield audit_report_case("an abandonment alone", [claim])
    yield audit_report_case("an abandonment after its hands", [
        *(_file(f"h{r.hand_number}.json", r.to_json()) for r in kept), claim])
    local_hand = {"hand": 1, "hand_number": 1, "players": [], "result": {}, "scores_after": [0, 0]}
    saves = [
        _file("incomplete.json", '{"format": "gin-hand-record"}'),
        _file("hands/1.json", json.dumps(local_hand)),
        _file("match.json", json.dumps({"format": 1, "vs": "easy", "match": {}, "seed": 7})),
        _file("session.json", json.dumps({"format": 1, "role": "host", "session": {}})),
        _file("deep.json", "[" * 100 + "]" * 100),
        Given("gone.json", None, "No such file or directory"),
    ]
    yield audit_report_case("no records, and a good one", [*saves, hand1])
    yield audit_report_case("every status at once", [hand2, _file("x.json", "[]"), hand1,
                                                      _file("cheat.json", swapped.to_json())])
    # A file's name and the rules' name are shown as given: the page and the terminal
    # strip control characters as they show them.
    hostile = first.to_dict()
    hostile["rules"]["name"] = "\u202egin\x1b[2J"
    yield audit_report_case("hostile names", [_file("\u202eevil\x07.json", json.dumps(hostile)),
                                              _file("name\x1b.json", first.to_json())])
