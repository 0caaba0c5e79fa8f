"""Conformance cases for abandonment records (protocol.md §10.3; kind ``abandonment``):
a record as JSON text, with the hand records given beside it, and gin's verdict — the
record written again, its digest, its words and its audit (findings and what is
unproven), or the parser's refusal word for word. The TypeScript twins
(``abandonment.ts``, ``audit.ts``) must agree. Pure: fixed seeds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from typing import Any

from gin.conformance.session_cases import ABANDON_SINCE, cheat_once
from gin.conformance.session_peer import Peer
from gin.engine.errors import MalformedInput
from gin.protocol.records import cosign
from gin.protocol.records.abandonment import AbandonmentRecord
from gin.protocol.records.audit import audit_records
from gin.protocol.records.evidence import parse_file
from gin.protocol.records.records import HandRecord, parse_record
from gin.protocol.session.events import Abandoned

Case = dict[str, Any]


def _records(peer: Peer) -> list[HandRecord]:
    """The hand records a conformance peer kept (its events are noted as JSON)."""
    return [parse_record(e[2]) for st in peer.steps for e in st[3] if e[0] == "HandVerified"]


@cache
def abandoned_match() -> tuple[AbandonmentRecord, tuple[HandRecord, ...], cosign.Signer]:
    """A match whose first side to send a move in hand 3 falls silent, and the record
    the other side signs 300 s later, with the hand records it kept."""
    honest, _ = cheat_once("move", lambda s, f: f if s._flow.state().number >= 3 else None,
                            silence_after=True)
    honest.abandon(ABANDON_SINCE, ABANDON_SINCE + 300)
    failure = honest.failure
    assert isinstance(failure, Abandoned) and failure.record is not None
    keys = honest._flow.keys
    assert keys is not None
    return failure.record, tuple(_records(honest)), keys.signer


def abandonment_case(name: str, text: str, hands: tuple[HandRecord, ...] = ()) -> Case:
    """gin's verdict on an abandonment record's ``text``, audited with ``hands``."""
    case: Case = {"kind": "abandonment", "name": name, "text": text,
                  "hands": [h.to_json() for h in hands]}
    try:
        parsed = parse_file(text)
    except MalformedInput as exc:
        return case | {"error": str(exc)}
    assert isinstance(parsed, AbandonmentRecord)
    result = audit_records([*hands, parsed])[-1]
    return case | {"parsed": parsed.to_json(), "digest": parsed.digest().hex(),
                   "words": parsed.words(),
                   "findings": [[f.who, f.where, f.detail, str(f)] for f in result.findings],
                   "unproven": list(result.unproven)}


def _spoiled(record: AbandonmentRecord, change: Callable[[dict[str, Any]], object]) -> str:
    data = record.to_dict()
    change(data)
    return json.dumps(data)


def abandonment_cases() -> Iterator[Case]:
    """The record alone and with the hands before it; re-signed records that do not
    follow them; a forged signature, another match id; another day, hand 0; texts the
    parser refuses (each field wrong in turn, impossible dates)."""
    record, hands, signer = abandoned_match()
    yield abandonment_case("alone", record.to_json())
    # Refused by the abandonment record's reader, in its words (issue 26: it was read
    # as a hand record's text), wherever the key repeats.
    yield abandonment_case("a repeated key", record.to_json().replace(
        '"hand": ', '"hand": 0, "hand": ', 1))
    yield abandonment_case("a repeated key in what was owed", record.to_json().replace(
        '"what": ', '"what": "seed", "what": ', 1))
    yield abandonment_case("not JSON", record.to_json()[:-3])
    yield abandonment_case("after its hands", record.to_json(), hands)
    yield abandonment_case("hands of another match", replace(
        record, match_id=bytes(16)).to_json(), hands)
    for name, changed in (
        ("a hand too far", replace(record, hand_number=record.hand_number + 1)),
        ("a hand back", replace(record, hand_number=record.hand_number - 2)),
        ("scores raised", replace(record, scores=(record.scores[0], record.scores[1] + 5))),
        ("claimed days later", replace(record, claimed=record.since + 2 * 86_400 + 7)),
        ("before the first hand", replace(record, hand_number=0, owed="start",
                                          scores=(0, 0))),
        # Issue 26: a claim the claimant's own signature on the hand contradicts.
        ("a move owed in a hand it signed complete", replace(
            record, hand_number=hands[-1].hand_number, owed="move", scores=hands[-1].scores)),
        ("a seed owed in a hand it signed (not proven received)", replace(
            record, hand_number=hands[-1].hand_number, owed="seed", scores=hands[-1].scores)),
    ):
        yield abandonment_case(name, changed.signed(signer).to_json(), hands)
    yield abandonment_case("signature forged", replace(record, claimed=record.claimed + 1
                                                       ).to_json(), hands)
    stranger = cosign.Signer(bytes(32))
    keys = list(record.signing_keys)
    keys[record.claimant] = stranger.public
    yield abandonment_case("a stranger's key", replace(
        record, signing_keys=(keys[0], keys[1])).signed(stranger).to_json())
    for name, change in (
        ("version 2", lambda d: d.update(version=2)),
        ("extra field", lambda d: d.update(comment="")),
        ("identities a list", lambda d: d.update(identities=[])),
        ("previous cut", lambda d: d.update(previous=d["match_id"][:-2])),
        ("signature missing", lambda d: d.pop("signature")),
        ("signature cut", lambda d: d.update(signature=d["signature"][:-2])),
        ("upper-case hex", lambda d: d.update(link=d["link"].upper())),
        ("seats swapped", lambda d: d.update(seats=["guest", "host"])),
        ("hand true", lambda d: d.update(hand=True)),
        ("hand 1.0", lambda d: d.update(hand=1.0)),
        ("owed what unknown", lambda d: d["owed"].update(what="sandwich")),
        ("owed what a list", lambda d: d["owed"].update(what=["seed"])),
        ("owed seat 2", lambda d: d["owed"].update(seat=2)),
        ("claimant owed", lambda d: d.update(claimant=d["owed"]["seat"])),
        ("no leap day", lambda d: d.update(since="2026-02-29T08:00:00Z")),
        ("leap day", lambda d: d.update(since="2024-02-29T08:00:00Z")),
        ("leap second", lambda d: d.update(since="2026-06-30T23:59:60Z")),
        ("year 0", lambda d: d.update(since="0000-01-01T00:00:00Z")),
        ("year 99", lambda d: d.update(since="0099-06-01T00:00:00Z")),
        ("hour 24", lambda d: d.update(since="2026-12-02T24:00:00Z")),
        ("with an offset", lambda d: d.update(since="2026-12-02T08:00:00+00:00")),
        ("with fractions", lambda d: d.update(since="2026-12-02T08:00:00.5Z")),
        ("claimed before since", lambda d: d.update(claimed="2026-12-01T08:00:00Z")),
        ("received a float", lambda d: d["received"].update(messages=3.0)),
        ("scores three", lambda d: d.update(scores=[1, 2, 3])),
        ("scores negative", lambda d: d.update(scores=[-1, 2])),
        ("not an object", lambda d: d.update(owed=[1, "seed"])),
    ):
        yield abandonment_case(name, _spoiled(record, change), hands)
