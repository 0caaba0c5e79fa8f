"""Issue 26 item 1: one byte string per group element. libsodium (under gin/) accepts a
ristretto255 encoding whose top bit of byte 31 is set, as the same element; RFC 9496
and @noble/curves (under the board) refuse it. gin/ now refuses it too, explicitly, on
arrival, so a cheater cannot be dealt past one twin and blamed wrongly at hand end; a hand
record holding such a point, or a key not reduced modulo L, is refused when it is read,
naming the field (once: a finding named it twice)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
import rbcl

from gin.conformance.encoding_cases import cheating_message2, top_bit
from gin.conformance.evidence_cases import refused_evidence
from gin.conformance.records_cases import RECORD_MATCHES, play_match
from gin.conformance.session_cases import cheat_once, top_bit_in_message2
from gin.engine.errors import MalformedInput
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group as g
from gin.protocol.records.audit import audit_evidence, audit_record
from gin.protocol.records.audit_report import Given, audit_report
from gin.protocol.records.audit_text import NOT_A_RECORD
from gin.protocol.records.evidence import DealEvidence, parse_file
from gin.protocol.records.records import SEATS, HandRecord, parse_record
from gin.protocol.session.events import CheatDetected

FIRST = fd.SeedMaterial.from_seed(bytes(range(32)))
SECOND = fd.SeedMaterial.from_seed(bytes(range(32, 64)))
CTX = fd.context(b"canonical", 1)
NOT_ELEMENT = "not a ristretto255 element other than the identity"


def test_libsodium_alone_takes_the_top_bit_but_check_point_refuses_it() -> None:
    card = g.card_points()[7]
    assert rbcl.crypto_core_ristretto255_is_valid_point(top_bit(card))  # the premise
    for data in (top_bit(card), g.P.to_bytes(32, "little"), (g.P + 1).to_bytes(32, "little"),
                 (int.from_bytes(card, "little") | 1).to_bytes(32, "little")):
        try:
            g.check_point(data)
        except g.InvalidPoint as exc:
            assert "canonical" in str(exc) or "identity" in str(exc)
        else:
            raise AssertionError(f"{data.hex()} was taken as a point")
    assert g.check_point(card) == card


def test_message2_under_the_top_bit_is_refused_on_arrival_despite_a_proof_over_its_bytes(
) -> None:
    m1 = fd.build_message1(FIRST)
    deck, proof = cheating_message2(SECOND, m1, CTX, 45)
    assert fd.message2_refusal(CTX, m1, deck, proof) == ("message2[45]", NOT_ELEMENT)


def test_one_card_twice_under_two_encodings_is_not_two_entries() -> None:
    m1 = list(fd.build_message1(FIRST))
    m1[1] = top_bit(m1[0])
    try:
        fd.validate_message(m1, "message1")
    except fd.MalformedDeck as exc:
        assert exc.position == 1 and NOT_ELEMENT in str(exc)
    else:
        raise AssertionError("one element under two encodings passed as two cards")


def test_the_first_shuffler_refuses_it_at_once_and_its_evidence_names_the_cheater() -> None:
    """The issue's steps: the hand is no longer dealt and played, and the evidence the
    honest side keeps is audited as the second shuffler's cheat (it cleared the cheater
    and blamed the record)."""
    honest, cheater = cheat_once("deck", top_bit_in_message2, False)
    failure = honest.failure
    assert isinstance(failure, CheatDetected)
    assert (failure.who, failure.field) == (SEATS[cheater.seat], "message2[45]")
    assert honest._flow.state().dealt is False
    assert isinstance(failure.record, DealEvidence)
    findings = audit_evidence(failure.record).findings
    assert [(f.who, f.where) for f in findings] == [(SEATS[cheater.seat], "message2[45]")]


# --- records: a point or a key that is not its one encoding is no record ----------------


def _signed_record() -> tuple[HandRecord, Callable[[HandRecord], HandRecord]]:
    played = play_match(*RECORD_MATCHES[2])
    return played.host[0], played.resign


@pytest.mark.parametrize("message", [0, 1, 2])
@pytest.mark.parametrize("edge", ["top bit", "p", "identity", "odd"])
def test_a_record_with_a_point_not_its_one_encoding_is_refused_at_parse_naming_its_field(
        message: int, edge: str) -> None:
    """It parsed: the audit then blamed the record's signatures, and listed the point
    only as what was not verified, its field named twice ("message2[3]: message2[3]:")."""
    record, resign = _signed_record()
    entry = record.messages[message][3]
    data = {"top bit": top_bit(entry), "p": g.P.to_bytes(32, "little"), "identity": g.IDENTITY,
            "odd": (int.from_bytes(entry, "little") ^ 1).to_bytes(32, "little")}[edge]
    messages = list(record.messages)
    messages[message] = (*messages[message][:3], data, *messages[message][4:])
    spoiled = resign(replace(record, messages=(messages[0], messages[1], messages[2])))
    name = f"message{message + 1}"
    with pytest.raises(MalformedInput) as refused:
        parse_record(spoiled.to_json())
    assert str(refused.value) == f"hand record: record.messages.{name}[3]: {NOT_ELEMENT}"
    # gin audit: no record (exit 2), the file named, nobody's signature blamed.
    report = audit_report([Given("spoiled.json", spoiled.to_json().encode())])
    assert report.status == NOT_A_RECORD
    assert report.errors == (f"gin audit: spoiled.json: {refused.value}",)


@pytest.mark.parametrize("number", ["L", "2^256 - 1", "the key plus L"])
def test_a_record_with_a_key_not_reduced_modulo_l_is_refused_at_parse(number: str) -> None:
    record, resign = _signed_record()
    at = next(i for i, s in enumerate(record.steps) if s.keys)
    position, key = record.steps[at].keys[0]
    value = {"L": g.L, "2^256 - 1": 2**256 - 1, "the key plus L": key + g.L}[number]
    steps = list(record.steps)
    steps[at] = replace(steps[at], keys=((position, value), *steps[at].keys[1:]))
    spoiled = resign(replace(record, steps=tuple(steps)))
    with pytest.raises(MalformedInput) as refused:
        parse_record(spoiled.to_json())
    assert str(refused.value) == (
        f"hand record: record.steps[{at}].keys[0][1]: scalar is not reduced modulo L")
    assert parse_record(record.to_json()) == record  # the honest record still reads


def test_evidence_keeps_its_messages_as_signed_and_its_audit_names_the_signer() -> None:
    """Deal evidence is the exception, on purpose: its message 2 and proof are what was
    refused on arrival (an entry under the top bit among them) and its message 1 what
    the signer answered, so they are read as bytes and the audit blames the signer."""
    kept, _, signers = refused_evidence()
    under = replace(kept, message1=(*kept.message1[:5], top_bit(kept.message1[5]),
                                    *kept.message1[6:]))
    under = replace(under, signature=signers[kept.second].sign(under.digest()))
    parsed = parse_file(under.to_json())
    assert parsed == under
    assert isinstance(parsed, DealEvidence)
    (finding,) = audit_evidence(parsed).findings
    assert (finding.who, finding.where) == (SEATS[kept.second], "message1")


# --- a finding names its field once -------------------------------------------------


def test_a_finding_names_its_field_once() -> None:
    """It said "message3[8]: message3[8]: repeats position 7" and "message2[45]:
    message2[45]: not a ristretto255 element…": the deck check's words already began
    with the field, and the finding put it before them again."""
    record, resign = _signed_record()
    m3 = record.messages[2]
    repeated = resign(replace(record, messages=(*record.messages[:2], (*m3[:8], m3[7],
                                                                       *m3[9:]))))
    findings = audit_record(parse_record(repeated.to_json())).findings
    assert [str(f) for f in findings] == [
        f"message3[8]: repeats position 7 (at fault: {SEATS[record.dealer]})"]
    m1 = fd.build_message1(FIRST)
    deck, proof = cheating_message2(SECOND, m1, CTX, 45)
    assert fd.message2_refusal(CTX, m1, deck, proof) == ("message2[45]", NOT_ELEMENT)
    with pytest.raises(fd.MalformedDeck) as refused:
        fd.validate_message(deck, "message2")
    assert (refused.value.where, refused.value.reason) == ("message2[45]", NOT_ELEMENT)
    assert str(refused.value) == f"message2[45]: {NOT_ELEMENT}"  # alone, it says where
    evidence = _kept_top_bit_evidence()
    assert [str(f) for f in audit_evidence(evidence).findings] == [
        f"message2[45]: {NOT_ELEMENT} (at fault: {SEATS[evidence.second]})"]


def _kept_top_bit_evidence() -> DealEvidence:
    honest, _ = cheat_once("deck", top_bit_in_message2, False)
    failure = honest.failure
    assert isinstance(failure, CheatDetected) and isinstance(failure.record, DealEvidence)
    # The session's own words still say where: they are shown without the field.
    assert failure.reason == f"message2[45]: {NOT_ELEMENT}"
    return failure.record
