"""Issue 26 item 1: one byte string per group element. libsodium (under gin/) accepts a
ristretto255 encoding whose top bit of byte 31 is set, as the same element; RFC 9496
and @noble/curves (under the board) refuse it. gin/ now refuses it too, explicitly, on
arrival, so a cheater cannot be dealt past one twin and blamed wrongly at hand end."""

from __future__ import annotations

import rbcl

from gin.conformance.encoding_cases import cheating_message2, top_bit
from gin.conformance.session_cases import _cheat_once, top_bit_in_message2
from gin.protocol import fairdeal as fd
from gin.protocol import group as g
from gin.protocol.audit import audit_evidence
from gin.protocol.evidence import DealEvidence
from gin.protocol.records import SEATS
from gin.protocol.session_events import CheatDetected

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
    assert fd.message2_refusal(CTX, m1, deck, proof) == (
        "message2[45]", f"message2[45]: {NOT_ELEMENT}")


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
    honest, cheater = _cheat_once("deck", top_bit_in_message2, False)
    failure = honest.failure
    assert isinstance(failure, CheatDetected)
    assert (failure.who, failure.field) == (SEATS[cheater.seat], "message2[45]")
    assert honest._flow.state().dealt is False
    assert isinstance(failure.record, DealEvidence)
    findings = audit_evidence(failure.record).findings
    assert [(f.who, f.where) for f in findings] == [(SEATS[cheater.seat], "message2[45]")]
