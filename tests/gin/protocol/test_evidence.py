"""Deal evidence: the signed message 2 of a second shuffler whose proof failed proves
its cheat to anyone, and cannot be turned against an honest second shuffler."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gin.conformance.evidence_cases import refused_evidence
from gin.engine.errors import MalformedInput
from gin.protocol.records.audit import audit_evidence, audit_records
from gin.protocol.records.evidence import DealEvidence, parse_file
from gin.protocol.records.records import SEATS


@pytest.fixture(scope="module")
def kept() -> tuple[DealEvidence, DealEvidence]:
    cheat, honest, _ = refused_evidence()
    return cheat, honest


def findings(e: DealEvidence) -> list[tuple[str, str]]:
    return [(f.who, f.where) for f in audit_evidence(e).findings]


def test_the_evidence_names_the_second_shuffler(kept: tuple[DealEvidence, DealEvidence]) -> None:
    cheat, _ = kept
    assert parse_file(cheat.to_json()) == cheat == parse_file(cheat.to_json().encode())
    assert findings(cheat) == [(SEATS[cheat.second], "proof")]
    result = audit_evidence(cheat)
    assert not result.ok and "signed message 2" in result.replay[0]
    # gin audit takes it among hand records.
    (together,) = audit_records([cheat])
    assert together == result


def test_the_first_shuffler_cannot_frame_the_second(kept: tuple[DealEvidence, DealEvidence]
                                                    ) -> None:
    cheat, honest = kept
    # The signature binds message 1: another message 1 makes it fail.
    swapped = (honest.message1[1], honest.message1[0], *honest.message1[2:])
    assert findings(replace(honest, message1=swapped)) == [("record", "signature")]
    assert findings(replace(cheat, signature=bytes(64))) == [("record", "signature")]
    # An honest message 2 proves nothing against its sender.
    assert findings(honest) == [("record", "proof")]
    keys = (honest.signing_keys[1], honest.signing_keys[0])
    assert findings(replace(honest, signing_keys=keys)) == [("record", "vouches.host")]


@pytest.mark.parametrize(("text", "said"), [
    ('{"format": "gin-deal-evidence"}', "deal evidence: evidence.version: missing"),
    ("{", "hand record: not JSON"),
    ('{"format": "gin-hand-record"}', "hand record: record."),
])
def test_files_that_are_not_evidence(text: str, said: str) -> None:
    with pytest.raises(MalformedInput) as info:
        parse_file(text)
    assert said in str(info.value)
