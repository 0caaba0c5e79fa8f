"""Silence has a name (protocol.md §10.3): a peer that stops answering while it owes a
message ends the match as *abandoned by* it, with a record signed by the waiting side;
never a cheat, never a forfeit, and the audit says it is that side's word."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from dataclasses import replace

import msgpack
import pytest

from gin.conformance.abandonment_cases import abandoned_match
from gin.conformance.records_cases import RECORD_MATCHES, play_match
from gin.conformance.session_cases import _claim_while_owing, cheat_once, tamper_once
from gin.conformance.session_peer import Fields, Tamper, computer_players
from gin.engine.errors import IllegalAction, MalformedInput, PeerFault
from gin.engine.rules import STANDARD
from gin.protocol.records import abandonment, cosign
from gin.protocol.records.abandonment import AbandonmentRecord, iso_time
from gin.protocol.records.audit import audit_records
from gin.protocol.records.audit_report import Given, audit_report
from gin.protocol.records.evidence import parse_file
from gin.protocol.records.records import SEATS, HandRecord
from gin.protocol.session.events import (
    Abandoned,
    CheatDetected,
    ClaimedAbandoned,
    HandVerified,
    LeftOwing,
    MatchOver,
    PeerAborted,
    Unresolved,
)
from gin.protocol.session.session import Session, play_local, pump
from gin.protocol.wire import channel as wire
from tests.gin.protocol.test_session import PROTOCOL, protocol_vectors

SINCE = 1_796_198_400  # 2026-12-02 08:00:00 UTC
SECRET = bytes(range(32))


class Mute(Session):
    """A session whose outgoing messages pass through ``tamper``; None: the relay loses
    the message's frame (the channel sent it and waits for its acknowledgement)."""

    tamper: Tamper | None = None

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        out: Fields | None = dict(fields)
        if self.tamper is not None:
            out = self.tamper(self, msg_type, dict(fields))  # type: ignore[arg-type]
        kept = len(self._outbox)
        super()._send(msg_type, dict(fields) if out is None else out, version)
        if out is None:
            del self._outbox[kept:]


def pair(seed: int) -> tuple[Mute, Mute]:
    return (Mute("host", SECRET, STANDARD, random.Random(f"{seed}/h").randbytes, b"h" * 32),
            Mute("guest", SECRET, None, random.Random(f"{seed}/g").randbytes, b"g" * 32))


def silent(msg_type: str, seed: int = 2, hand: int = 1) -> tuple[Mute, Mute, list[HandRecord]]:
    """A match whose first side to send a ``msg_type`` message in hand ``hand`` stays
    silent from then on: (the side left waiting, the silent side, the hand records the
    first kept)."""
    cheater: list[Session] = []
    host, guest = pair(seed)
    host.tamper = guest.tamper = tamper_once(
        msg_type, lambda s, f: f if s._flow.observation() is None and hand < 2
        or s._flow.state().number >= hand else None, True, cheater)
    play_local(host, guest, computer_players(seed))
    assert cheater, f"nobody sent a {msg_type} message"
    honest = guest if cheater[0] is host else host
    hands = [e.record for e in honest.events() if isinstance(e, HandVerified)]
    return honest, (host if honest is guest else guest), hands


@pytest.mark.parametrize(("owed", "hand"), [
    ("move", 2), ("key", 1), ("seed", 1), ("commit", 2), ("start", 0), ("deck", 1)])
def test_a_silent_peer_ends_the_match_as_abandoned_by_it(owed: str, hand: int) -> None:
    honest, quiet, hands = silent(owed, hand=hand)
    assert honest.waiting_for() == owed and not honest.over
    received = honest.received
    honest.abandon(SINCE, SINCE + 300)
    failure = honest.failure
    assert isinstance(failure, Abandoned) and not isinstance(failure, Unresolved)
    assert not failure.proven and failure.who == quiet.role and failure.field == owed
    assert not any(isinstance(e, MatchOver) for e in honest.events())  # no forfeit
    record = failure.record
    assert record is not None
    assert (record.owed_seat, record.owed, record.claimant) == (quiet.seat, owed, honest.seat)
    assert (record.since, record.claimed) == (SINCE, SINCE + 300)
    assert record.match_id == honest.match_id and record.received == received
    assert record.hand_number == (0 if owed == "start" else len(hands) + 1)  # 0: not dealt
    assert record.scores == (hands[-1].scores if hands else (0, 0)) or owed == "seed"
    assert abandonment.check(record) == []
    assert abandonment.contradiction(record, hands) is None
    assert cosign.verify(record.signing_keys[honest.seat], record.digest(), record.signature)
    assert f"abandoned by the {quiet.role}" in failure.reason.lower()
    assert "cheat" in failure.reason and "not a cheat" in failure.reason
    with pytest.raises(PeerFault):
        honest.abandon(SINCE, SINCE + 400)  # sticky, like every failure
    assert honest.data_to_send()  # the peer is told, should it come back


def test_the_seed_owed_counts_the_hand_the_engine_scored() -> None:
    honest, quiet, hands = silent("seed", hand=2)
    honest.abandon(SINCE, SINCE + 60)
    record = honest.failure.record  # type: ignore[union-attr]
    assert record is not None
    assert record.hand_number == len(hands) + 1 and record.scores != (0, 0)
    # The silent peer kept the hand's record (it had the claimant's seed): it matches.
    theirs = [e.record for e in quiet.events() if isinstance(e, HandVerified)]
    assert theirs and theirs[-1].hand_number == record.hand_number
    assert abandonment.check(record) == []
    assert abandonment.contradiction(record, theirs) is None


def test_abandon_when_nothing_is_owed_is_an_illegal_action() -> None:
    host, guest = pair(3)
    pump(host, guest)
    mover = next(s for s in (host, guest) if s.legal_actions())
    with pytest.raises(IllegalAction, match="owes nothing now .it is your move."):
        mover.abandon(SINCE, SINCE + 1)
    assert mover.failure is None and not mover.over
    with pytest.raises(MalformedInput):
        (guest if mover is host else host).abandon(SINCE + 1, SINCE)


def test_before_the_match_id_there_is_no_record() -> None:
    host = Session("host", SECRET, STANDARD, random.Random(1).randbytes, b"h" * 32)
    assert host.waiting_for() == "welcome"
    host.abandon(SINCE, SINCE + 90)
    failure = host.failure
    assert isinstance(failure, Abandoned) and failure.record is None
    assert failure.who == "guest" and "in 90 s" in failure.reason


def test_a_restore_replays_the_abandonment_and_its_record() -> None:
    honest, _, _ = silent("key")
    honest.abandon(SINCE, SINCE + 200)
    state = msgpack.unpackb(msgpack.packb(honest.to_state(), use_bin_type=True), raw=False)
    assert state["log"][-1] == ["abandon", SINCE, SINCE + 200]
    back = Session.from_state(SECRET, state, random.Random(9).randbytes,
                              b"h" * 32 if honest.role == "host" else b"g" * 32)
    assert back.failure == honest.failure
    assert isinstance(back.failure, Abandoned) and back.failure.record is not None


def test_the_record_round_trips_and_the_audit_calls_it_a_claim() -> None:
    honest, quiet, hands = silent("move")
    honest.abandon(SINCE, SINCE + 300)
    record = honest.failure.record  # type: ignore[union-attr]
    assert record is not None and parse_file(record.to_json()) == record
    result = audit_records([*hands, record])[-1]
    assert result.ok and result.unproven  # status 3: never verified
    assert result.replay == (
        f"abandoned by the {quiet.role}: it owed its move for hand {record.hand_number} since "
        f"2026-12-02 08:00:00 UTC; the {honest.role} ended the match at 08:05:00 (after 300 s). "
        f"This is the {honest.role}'s signed word: not a cheat, and not proven (the "
        f"{quiet.role} may have withheld it, or the relay dropped it)",)


def test_the_audit_finds_a_record_that_does_not_follow_the_hands() -> None:
    honest, _, hands = silent("move", hand=3)
    honest.abandon(SINCE, SINCE + 300)
    record = honest.failure.record  # type: ignore[union-attr]
    assert record is not None and hands
    signer = honest._flow.keys.signer  # type: ignore[union-attr]
    assert signer is not None
    late = replace(record, hand_number=record.hand_number + 1).signed(signer)
    richer = replace(record, scores=(record.scores[0] + 1, record.scores[1])).signed(signer)
    # A hand past the next: the hand between is not given, so nothing is proven.
    assert audit_records([*hands, late])[-1].findings == ()
    assert audit_records([*hands, late])[-1].unproven[0].startswith("what happened in hand ")
    # Other scores than the claimant signed at the last hand: its own false claim.
    assert [(f.who, f.where) for f in audit_records([*hands, richer])[-1].findings] == [
        (SEATS[record.claimant], "scores")]
    assert audit_records([late])[0].ok  # alone it cannot be checked against anything
    forged = replace(record, claimed=record.claimed + 1)
    assert [f.where for f in audit_records([forged])[0].findings] == ["signature"]
    stranger = replace(record, match_id=bytes(16))
    assert [f.where for f in audit_records([stranger])[0].findings] == ["match_id"]


@pytest.mark.parametrize(("change", "error"), [
    (lambda d: d.update(version=2), "record.version: expected 3"),
    (lambda d: d.pop("signature"), "record.signature: missing"),
    (lambda d: d.update(extra=1), "record.extra: unexpected field"),
    (lambda d: d["owed"].update(what="sandwich"), "record.owed.what: expected one of"),
    (lambda d: d.update(since="2026-02-30T00:00:00Z"), "record.since: expected a UTC time"),
    (lambda d: d.update(since="2026-12-02T08:00:00+01:00"), "record.since: expected a UTC"),
    (lambda d: d.update(claimed="1969-12-31T23:59:59Z"), "record.claimed: expected a time from"),
    (lambda d: d.update(claimant=1), "record.claimant: the claimant is the seat that owed"),
    (lambda d: d.update(claimed="2026-12-02T07:00:00Z"), "record.claimed: earlier than"),
    (lambda d: d.update(hand=True), "record.hand: expected an integer"),
    (lambda d: d["received"].update(digest="00"), "record.received.digest: expected 64 hex"),
    (lambda d: d.pop("identities"), "record.identities: missing"),
    (lambda d: d["vouches"].update(guest="00"), "record.vouches.guest: expected 128 hex"),
    (lambda d: d.update(previous="00"), "record.previous: expected 32 hex"),
])
def test_the_parser_is_strict_and_names_the_path(change: object, error: str) -> None:
    record = AbandonmentRecord(
        match_id=bytes(16), link_id=bytes(16), signing_keys=(bytes(32), bytes(32)),
        identities=(bytes(32), bytes(32)), vouches=(bytes(64), bytes(64)), previous=None,
        hand_number=3, owed_seat=1, owed="seed", since=SINCE, claimed=SINCE + 300,
        received=40, received_digest=bytes(32), scores=(10, 20), claimant=0,
        signature=bytes(64))
    data = record.to_dict()
    change(data)  # type: ignore[operator]
    with pytest.raises(MalformedInput, match=f"^abandonment record: {error}"):
        parse_file(json.dumps(data))
    assert abandonment.parse(record.to_json()) == record


def test_times_are_whole_utc_seconds() -> None:
    assert iso_time(SINCE) == "2026-12-02T08:00:00Z"
    assert iso_time(abandonment.MAX_TIME) == "9999-12-31T23:59:59Z"
    assert SEATS == ("host", "guest")


def test_the_abandonment_vectors_in_protocol_md() -> None:
    v = protocol_vectors()
    (literal,) = re.findall(r"```abandonment\n(.*?)\n```", PROTOCOL.read_text(encoding="utf-8"),
                            re.S)
    host, guest = cosign.Signer(bytes(range(32, 64))), cosign.Signer(bytes(range(64, 96)))
    record = AbandonmentRecord(
        match_id=bytes.fromhex(v["session_match_id"]), link_id=bytes.fromhex(v["session_link_id"]),
        signing_keys=(host.public, guest.public),
        identities=(bytes.fromhex(v["session_host_identity"]),
                    bytes.fromhex(v["session_guest_identity"])),
        vouches=(bytes.fromhex(v["session_host_vouch"]), bytes.fromhex(v["session_guest_vouch"])),
        previous=None, hand_number=3, owed_seat=1, owed="seed",
        since=SINCE, claimed=SINCE + 300, received=40, received_digest=bytes(range(96, 128)),
        scores=(45, 30), claimant=0).signed(host)
    fields = record.to_dict()
    del fields["signature"]
    assert json.dumps(fields, sort_keys=True, separators=(",", ":")) == literal
    assert record.digest().hex() == v["abandonment_digest"]
    assert record.signature.hex() == v["abandonment_signature_host"]
    assert abandonment.check(record) == []
    assert "it owed its seed for hand 3 since 2026-12-02 08:00:00 UTC; the host ended the " \
        "match at 08:05:00 (after 300 s)" in record.words()


def test_the_silent_side_is_told_and_shows_it_as_a_claim() -> None:
    honest, quiet, _ = silent("key")
    honest.abandon(SINCE, SINCE + 300)
    pump(honest, quiet)
    told = quiet.failure
    assert isinstance(told, ClaimedAbandoned) and isinstance(told, PeerAborted)
    assert not told.proven and told.who == honest.role and told.field == "key"
    assert f"the {honest.role} ended the match (abandoned), saying: Abandoned by the " \
        f"{quiet.role}: it owed the key of the card drawn" in told.reason


@pytest.mark.parametrize("owed", ["move", "key", "deck", "seed"])
def test_a_claim_of_abandonment_by_the_side_that_owes_is_it_leaving(owed: str) -> None:
    """Issue 26 item 4: the side whose own message is owed sends ``abort`` with ``why:
    abandoned`` instead. The receiver owed nothing and the claimant had every message
    it sent: the claimant left (counted as abandoned by it), never "abandoned by you"
    (a withheld seed stays a failed audit)."""
    honest, cheater = cheat_once(owed, _claim_while_owing, True)
    told = honest.failure
    if owed == "seed":
        assert isinstance(told, CheatDetected) and told.field == "seed"
        return
    assert isinstance(told, LeftOwing) and not isinstance(told, ClaimedAbandoned)
    assert not told.proven and told.who == cheater.role and told.field == owed
    assert told.reason == (f"the {cheater.role} left the match while the next message was "
                           f"its own ({owed}); it claimed you had gone silent, saying: "
                           "you were gone")


def test_a_claim_while_our_last_message_may_be_lost_stays_the_peers_word() -> None:
    """When the claimant has not acknowledged all we sent, our message may be what the
    relay lost: the claim is shown as the claimant's word (ClaimedAbandoned)."""
    honest, quiet, _ = silent("key")  # quiet's key is lost on the way
    assert quiet.waiting_for() is not None and quiet.unacknowledged  # it believes it sent it
    honest.abandon(SINCE, SINCE + 300)
    pump(honest, quiet)
    assert type(quiet.failure) is ClaimedAbandoned


def test_a_claim_the_claimants_own_records_contradict_is_a_false_claim() -> None:
    """Issue 26 item 3: given with the hand records of its match, a claim that the silent
    seat owed a move in a hand the claimant signed complete fails (exit 1, at fault the
    claimant); a seed claimed for such a hand stays the claimant's word (exit 3: the
    transcript the claimant signed leaves the seeds out)."""
    record, hands, signer = abandoned_match()
    last = hands[-1]
    given = [Given(f"hand-{h.hand_number}.json", h.to_json().encode()) for h in hands]
    for owed, status in (("move", 1), ("key", 1), ("seed", 3)):
        claim = replace(record, hand_number=last.hand_number, owed=owed,
                        scores=last.scores).signed(signer)
        report = audit_report([*given, Given("abandoned.json", claim.to_json().encode())])
        assert report.status == status, owed
        lines = report.files[-1].lines()
        failed = [line for line in lines if line.startswith("FAILED")]
        if status == 1:
            assert failed == [f"FAILED owed: the host signed hand {last.hand_number} as "
                              "complete (its transcript holds every move, key and card "
                              "shown), so the guest owed nothing of that hand but its seed; "
                              f"this record says it owed {abandonment.OWED[owed]}: a false "
                              "claim, signed by the claimant (at fault: host)"]
        else:
            assert not failed and any(line.startswith("not verified:") for line in lines)


def test_a_claim_after_the_hand_that_ended_the_match_is_false() -> None:
    record, _, _ = abandoned_match()
    final = play_match(*RECORD_MATCHES[0]).host[-1]  # the hand that ended a whole match
    assert max(final.scores) >= final.rules.target
    claim = replace(record, match_id=final.match_id, hand_number=final.hand_number + 1,
                    owed="commit", scores=final.scores)
    why = abandonment.contradiction(claim, [final])
    assert why is not None and why[0] == "owed"
    assert f"signed hand {final.hand_number}, which ended the match" in why[1]
    assert abandonment.contradiction(replace(claim, hand_number=final.hand_number + 2),
                                     [final]) is None


def test_a_claim_of_an_earlier_hand_or_other_scores_is_the_claimants_false_claim() -> None:
    """Issue 26 item 3: the claimant signed the last hand given, with its scores: a claim
    that the match was left in an earlier hand, or at other scores, contradicts its own
    signature (exit 1, at fault the claimant; it was put on the record, naming nobody).
    A claim of a later hand than the next is not proven either way: the hands between
    are not among the records given (exit 3)."""
    record, hands, signer = abandoned_match()
    last = hands[-1]
    given = [Given(f"hand-{h.hand_number}.json", h.to_json().encode()) for h in hands]

    def audited(claim: AbandonmentRecord) -> tuple[int, list[str]]:
        report = audit_report([*given, Given("abandoned.json",
                                             claim.signed(signer).to_json().encode())])
        return report.status, list(report.files[-1].lines())

    status, lines = audited(replace(record, hand_number=last.hand_number - 1))
    assert status == 1 and f"FAILED hand: the host signed hand {last.hand_number} as " \
        f"complete, so the match was not left in hand {last.hand_number - 1}: a false claim, " \
        "signed by the claimant (at fault: host)" in lines
    status, lines = audited(replace(record, scores=(last.scores[0], last.scores[1] + 5)))
    assert status == 1 and any(line.startswith("FAILED scores: the host signed hand ")
                               and line.endswith("(at fault: host)") for line in lines)
    status, lines = audited(replace(record, hand_number=last.hand_number + 3))
    assert status == 3 and not any(line.startswith("FAILED") for line in lines)
    assert (f"not verified: what happened in hands {last.hand_number + 1} to "
            f"{last.hand_number + 2}: the records given end with hand {last.hand_number}, "
            f"and the claim is of hand {last.hand_number + 3}") in lines
