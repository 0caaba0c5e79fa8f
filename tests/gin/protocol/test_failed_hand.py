"""Issue 26 item 2: the record kept of a hand whose hand-end audit failed is evidence a
third party can check. It carries both signatures of the hand's transcript (the
cheater's own, when it signed the hand as played), so `gin audit` verifies them and
names the cheater (exit 1); it had empty signatures and was refused as "not a record"
(exit 2), naming nobody."""

from __future__ import annotations

import pytest

from gin.conformance.session_cases import _CHEATS, cheat_once
from gin.protocol.records import cosign
from gin.protocol.records.audit_report import Given, audit_report
from gin.protocol.records.records import SEATS, HandRecord, parse_record
from gin.protocol.session.events import CheatDetected

HAND_END = {"wrong-commitment": "commitment", "message1-substitute": "message1[0]",
            "message2-another-seed": "message2[0]", "message3-swapped": "message3[50]"}


@pytest.mark.parametrize("kind", sorted(HAND_END))
def test_a_cheat_found_at_hand_end_leaves_evidence_naming_the_cheater(kind: str) -> None:
    msg_type, change, silence = next((t, c, s) for n, t, c, s in _CHEATS if n == kind)
    honest, cheater = cheat_once(msg_type, change, silence)
    failure = honest.failure
    assert isinstance(failure, CheatDetected) and isinstance(failure.record, HandRecord)
    record = parse_record(failure.record.to_json())
    for seat in (0, 1):  # both signed this very transcript
        assert cosign.verify(record.signing_keys[seat], cosign.seat_signed(record, seat),
                             record.signatures[seat])
    report = audit_report([Given("hand-1-failed.json", failure.record.to_json().encode())])
    assert report.status == 1 and not report.errors
    failed = [line for line in report.files[0].lines() if line.startswith("FAILED")]
    who = SEATS[cheater.seat]
    assert failed and all(line.endswith(f"(at fault: {who})") for line in failed)
    assert failed[0].startswith(f"FAILED {HAND_END[kind]}: ")
