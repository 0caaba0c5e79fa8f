"""Hand records (strict JSON) and their independent audit, on records of a real match."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from gin.engine.actions import BigGin, Discard, DrawStock, Knock, parse_action
from gin.engine.cards import DECK, Card, parse_cards
from gin.engine.errors import MalformedInput
from gin.engine.hand import Hand, stacked_deck
from gin.engine.rules import CLASSIC
from gin.players import get
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import cosign
from gin.protocol.records.audit import audit_record, audit_records
from gin.protocol.records.audit_text import laid_down
from gin.protocol.records.identity import Identity
from gin.protocol.records.records import SEATS, HandRecord, Step, parse_record
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session, play_local

SECRET = bytes(range(32))
# The players' signing keys of the fixture's match, to sign edited records again:
# the checks beyond the signatures must hold even for a record both players signed.
SIGNERS: list[cosign.Signer] = []


@pytest.fixture(scope="module")
def both_copies() -> tuple[list[HandRecord], list[HandRecord]]:
    """The host's and the guest's records of one whole match."""
    host = Session("host", SECRET, CLASSIC, random.Random("h").randbytes, b"h" * 32)
    guest = Session("guest", SECRET, None, random.Random("g").randbytes, b"g" * 32)
    play_local(host, guest, [get("normal", random.Random(i)) for i in (0, 1)])
    copies = tuple([e.record for e in s.events() if isinstance(e, HandVerified)]
                   for s in (host, guest))
    SIGNERS[:] = [s._flow.keys.signer for s in (host, guest) if s._flow.keys is not None]
    assert len(copies[0]) == len(copies[1]) >= 4 and host.failure is guest.failure is None
    return copies[0], copies[1]


@pytest.fixture(scope="module")
def records(both_copies: tuple[list[HandRecord], list[HandRecord]]) -> list[HandRecord]:
    return both_copies[0]


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


def test_the_replay_says_a_gin_has_no_deadwood() -> None:
    # Issue 21 item 13: `gin audit` printed "deadwood - = 0" for a gin.
    hand = Hand(stacked_deck(parse_cards("Ac 2c 3c 4d 4h 4s 7s 8s 9s Kh"),
                             parse_cards("5c 9c Jd Jh Js 7d 8d 2h 3h 5h"),
                             Card.parse("Qd"), parse_cards("Ts")), dealer=1)
    for seat, action in ((0, "pass"), (1, "pass"), (0, "stock"), (0, "knock Kh")):
        hand.apply(seat, parse_action(action))
    assert hand.result is not None and hand.result.outcome is not None
    assert list(laid_down(hand.result.outcome, "host", "guest")) == [
        "  host goes gin: Ac2c3c 7s8s9sTs 4d4h4s, no deadwood",
        "  guest lays off nothing, melds JdJhJs, deadwood 5c 9c 7d 8d 2h 3h 5h = 39"]


def mutate(record: HandRecord, change: Callable[[dict[str, Any]], object]) -> str:
    data = record.to_dict()
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d.pop("seeds"), "record.seeds: missing"),
    (lambda d: d.update(extra=1), "record.extra: unexpected field"),
    (lambda d: d.update(format="other"), "record.format"),
    (lambda d: d.update(version=3), "record.version: 3 is an older format that gin no longer "
                                    "reads (this gin reads version 4)"),
    (lambda d: d.update(version=5), "record.version: 5 is outside 1..4"),
    (lambda d: d.update(proof="00" * 31), "record.proof: expected 64 hex digits"),
    (lambda d: d["signatures"].update(host="00"), "record.signatures.host: expected 128"),
    (lambda d: d.pop("signing_keys"), "record.signing_keys: missing"),
    (lambda d: d.update(dealer=2), "record.dealer: 2 is outside 0..1"),
    (lambda d: d.update(hand=True), "record.hand: expected an integer"),
    (lambda d: d["seeds"].update(first="zz" * 32), "record.seeds.first: not hexadecimal"),
    # bytes.fromhex alone would skip the spaces and read 21 bytes
    (lambda d: d["signing_keys"].update(host="ab " * 21 + "a"),
     "record.signing_keys.host: not hexadecimal"),
    (lambda d: d["commitments"].update(second="00"), "record.commitments.second: expected 64"),
    (lambda d: d["messages"]["message2"].pop(), "record.messages.message2: 51 entries"),
    (lambda d: d["steps"][0]["keys"][0].__setitem__(0, 52), "record.steps[0].keys[0][0]"),
    (lambda d: d["steps"].append({"seat": 0}), "needs an action or keys"),
    (lambda d: d["steps"].append({"seat": 0, "action": "fly"}), "record.steps"),
    (lambda d: d["result"].update(kind="win"), "record.result.kind"),
    (lambda d: d["rules"].update(target=-1), "record.rules"),
    (lambda d: d.update(seats=["guest", "host"]), "record.seats"),
], ids=["missing", "unknown", "format", "older-version", "newer-version", "proof", "signature",
        "signing-keys", "dealer", "bool", "hex", "hex-spaces", "length",
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


@pytest.mark.parametrize(("text", "at"), [
    ("[" * 100_000 + "]" * 100_000, 64), ("[" * 65 + "]" * 65, 64),
    ('{"a": ' * 65 + "1" + "}" * 65, 64 * 6), (b"[" * 100_000, 64),
    (r'["]\\", ' + "[" * 70, 71), ('"é" ' + "[" * 70, 68),
], ids=["100000-deep", "65-deep", "objects", "bytes-unclosed", "after-a-string", "code-points"])
def test_deep_nesting_is_not_a_record(text: str | bytes, at: int) -> None:
    """Refused before Python's json recurses (100,000 deep was a RecursionError)."""
    with pytest.raises(MalformedInput) as info:
        parse_record(text)
    assert str(info.value) == ("hand record: not JSON (more than 64 arrays and objects "
                               f"nested at char {at})")


def test_nesting_inside_strings_or_at_the_limit_is_read(record: HandRecord) -> None:
    with pytest.raises(MalformedInput, match="record: expected an object, got list"):
        parse_record("[" * 64 + "]" * 64)
    text = record.to_json().replace('"steps": [', '"steps": [' + '{"seat": 0, "action": "' +
                                    "[" * 200 + '"},', 1)
    with pytest.raises(MalformedInput, match=r"record\.steps\[0\]\.action"):
        parse_record(text)


def signed(record: HandRecord) -> HandRecord:
    """``record`` signed again by both players, as if both had agreed to it."""
    host, guest = SIGNERS
    return replace(record, signatures=(host.sign(cosign.seat_signed(record, 0)),
                                       guest.sign(cosign.seat_signed(record, 1))))


def audited(record: HandRecord, change: Callable[[dict[str, Any]], object]) -> Any:
    return audit_record(signed(parse_record(mutate(record, change))))


def test_wrong_seed_fails_the_commitment(record: HandRecord) -> None:
    result = audited(record, lambda d: d["seeds"].update(first="00" * 32))
    assert not result.ok and result.replay == ()
    (finding,) = result.findings
    assert (finding.who, finding.where) == (SEATS[record.dealer], "commitment")


def test_a_seed_edited_in_the_file_blames_the_file_not_its_side(record: HandRecord) -> None:
    """Issue 26: each side signs its own seed with the hand, so whoever edits a side's
    seed in a file breaks that side's signature; the commitment the new seed does not
    open is no longer put on that side (before, the seeds were unsigned and the audit
    blamed the dealer for a file anyone could edit)."""
    dealer = SEATS[record.dealer]
    result = audit_record(parse_record(mutate(record, lambda d: d["seeds"].update(
        first="00" * 32))))
    assert [(f.who, f.where) for f in result.findings] == [("record", f"signatures.{dealer}")]
    assert ("commitment: seed does not open the commitment, which the "
            f"{dealer} did not sign") in result.unproven


def test_swapped_message2_entries_are_the_second_shufflers(record: HandRecord) -> None:
    def swap(d: dict[str, Any]) -> None:
        m2 = d["messages"]["message2"]
        m2[50], m2[51] = m2[51], m2[50]

    result = audited(record, swap)
    assert {(f.who, f.where) for f in result.findings} >= {
        (SEATS[1 - record.dealer], "message2[50]"), (SEATS[1 - record.dealer], "message2[51]")}
    assert "message1" in result.findings[0].detail


def test_the_proof_the_record_names_must_be_the_one_the_seed_makes(record: HandRecord
                                                                   ) -> None:
    # The record keeps the proof's digest; the second's seed rebuilds the proof.
    (finding,) = audited(record, lambda d: d.update(proof="00" * 32)).findings
    assert (finding.who, finding.where) == (SEATS[1 - record.dealer], "proof")
    assert finding.detail == "not the shuffle proof the seed makes"
    # A player checked it on arrival: its own audit does not rebuild it.
    changed = signed(parse_record(mutate(record, lambda d: d.update(proof="00" * 32))))
    assert audit_record(changed, trust_seat=record.dealer).ok


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


# --- the match scores -------------------------------------------------------------


def scores_edited(record: HandRecord, scores: list[int]) -> HandRecord:
    return signed(parse_record(mutate(record, lambda d: d.update(scores=scores))))


def test_hand_one_alone_proves_its_scores(records: list[HandRecord]) -> None:
    first = records[0]
    assert first.hand_number == 1
    result = audit_record(first)
    assert result.ok and result.unproven == ()
    assert not any("not verified" in line for line in result.replay)
    (finding,) = audit_record(scores_edited(first, [0, 99])).findings
    assert (finding.who, finding.where) == ("record", "scores")
    assert "recorded host 0, guest 99" in finding.detail


def test_a_later_hand_alone_says_its_scores_are_not_proven(records: list[HandRecord]) -> None:
    later = records[2]
    result = audit_record(later)
    assert result.ok
    (unproven,) = result.unproven
    assert f"before hand {later.hand_number}" in unproven and "one record cannot" in unproven
    assert result.replay[-1].endswith("(not verified: see below)")


def test_a_later_hand_alone_still_refuses_impossible_scores(records: list[HandRecord]) -> None:
    later = next(r for r in records[1:] if r.score.winner is not None)
    winner = later.score.winner
    assert winner is not None
    too_few = list(later.scores)
    too_few[winner] = later.score.points - 1  # less than this hand alone gave
    (finding,) = audit_record(scores_edited(later, too_few)).findings
    assert (finding.who, finding.where) == ("record", "scores")
    over = list(later.scores)
    over[1 - winner] = later.rules.target  # the match was over before this hand
    (finding,) = audit_record(scores_edited(later, over)).findings
    assert finding.where == "scores" and "already ended" in finding.detail


def test_a_whole_match_proves_every_score(records: list[HandRecord]) -> None:
    results = audit_records(records)
    assert all(r.ok and r.unproven == () for r in results)


def test_scores_chain_from_hand_to_hand(records: list[HandRecord]) -> None:
    edited = list(records)
    edited[2] = scores_edited(records[2], [0, 99])
    results = audit_records(edited)
    assert results[0].ok and results[1].ok
    (finding,) = results[2].findings
    assert (finding.who, finding.where) == ("record", "scores")
    assert "the scores after hand 2" in finding.detail
    # The next hand's scores cannot follow from a hand that failed: unproven, and why.
    assert results[3].ok and any("did not verify" in u for u in results[3].unproven)


def test_scores_that_fit_the_hand_alone_fail_the_chain(records: list[HandRecord]) -> None:
    record = records[3]
    shifted = scores_edited(record, [record.scores[0] + 1, record.scores[1]])
    assert audit_record(shifted).ok  # alone it cannot be told from the truth
    results = audit_records([*records[:3], shifted])
    assert [f.where for f in results[3].findings] == ["scores"]


def test_a_gap_in_the_hands_leaves_the_later_scores_unproven(
    records: list[HandRecord],
) -> None:
    results = audit_records([records[0], records[2], records[3]])
    assert results[0].unproven == ()
    assert all(r.ok and r.unproven for r in results[1:])


def test_the_dealer_and_rules_follow_from_the_hand_before(records: list[HandRecord]) -> None:
    first, second = records[0], records[1]
    assert audit_record(second, previous=first).ok
    assert first.score.winner is not None
    dead = replace(first, score=replace(first.score, kind="dead", winner=None, knocker=None,
                                        points=0), scores=(0, 0))
    wheres = [f.where for f in audit_record(second, previous=dead).findings]
    assert "dealer" in wheres  # after a dead hand the same dealer deals again
    other_rules = replace(first, rules=first.rules.with_options(gin_bonus=1))
    assert [f.where for f in audit_record(second, previous=other_rules).findings] == ["rules"]


def test_no_hand_follows_the_end_of_the_match(records: list[HandRecord]) -> None:
    last, before = records[-1], records[-2]
    assert max(last.scores) >= last.rules.target
    over = replace(before, scores=(before.scores[0], last.rules.target))
    wheres = [f.where for f in audit_record(last, previous=over).findings]
    assert "hand" in wheres


def test_both_copies_of_a_match_verify_together(
    both_copies: tuple[list[HandRecord], list[HandRecord]],
) -> None:
    host, guest = both_copies
    assert all(r.ok and not r.unproven for r in audit_records([*host, *guest]))


def test_two_copies_of_a_hand_that_disagree_both_fail(
    both_copies: tuple[list[HandRecord], list[HandRecord]],
) -> None:
    host, guest = both_copies
    forged = replace(guest[0], scores=(0, 99))
    results = audit_records([host[0], forged], ["host.json", "guest.json"])
    assert any(f.where == "hand" and "guest.json" in f.detail for f in results[0].findings)
    assert any(f.where == "hand" and "host.json" in f.detail for f in results[1].findings)


# --- the keys each step reveals ------------------------------------------------------


def step_index(record: HandRecord, found: Callable[[Step], bool], after: int = 0) -> int:
    return next(i for i, s in enumerate(record.steps) if i >= after and found(s))


def removed_step(record: HandRecord, index: int) -> Callable[[dict[str, Any]], object]:
    return lambda d: d["steps"].pop(index)


def stock_answer(record: HandRecord) -> int:
    return step_index(record, lambda s: isinstance(s.action, DrawStock)) + 1


def knock_show(record: HandRecord) -> int:
    return step_index(record, lambda s: isinstance(s.action, Knock | BigGin)) + 1


def discard_with_key(record: HandRecord) -> int:
    return step_index(record, lambda s: isinstance(s.action, Discard) and bool(s.keys))


@pytest.mark.parametrize(("where", "said"), [
    ("deal", "deal keys"), ("stock answer", "the key of the card"), ("show", "show")])
def test_a_key_only_step_removed_is_noticed(record: HandRecord, where: str, said: str) -> None:
    index = {"deal": 0, "stock answer": stock_answer(record), "show": knock_show(record)}[where]
    step = record.steps[index]
    assert step.action is None and step.keys
    result = audited(record, removed_step(record, index))
    (finding,) = result.findings
    assert finding.who == "record" and finding.where.startswith("steps")
    assert said in finding.detail


def test_a_discards_key_removed_is_noticed(record: HandRecord) -> None:
    index = discard_with_key(record)
    (finding,) = audited(record, lambda d: d["steps"][index].pop("keys")).findings
    assert (finding.who, finding.where) == ("record", f"steps[{index}]")
    assert "should reveal the keys for position" in finding.detail


def test_a_knocks_key_removed_is_noticed(record: HandRecord) -> None:
    index = knock_show(record) - 1
    assert len(record.steps[index].keys) > 1
    (finding,) = audited(record, lambda d: d["steps"][index]["keys"].pop()).findings
    assert (finding.who, finding.where) == ("record", f"steps[{index}]")


def test_a_true_key_the_protocol_never_sent_is_noticed(record: HandRecord) -> None:
    last = record.steps[-1]
    seat = 1 - last.seat
    seed = record.seeds[0 if seat == record.dealer else 1]
    position = 51  # a stock card nobody drew in this hand
    assert not any(p == position for s in record.steps for p, _ in s.keys)
    key = fd.key_bytes(fd.derive_position_key(seed, position)).hex()
    result = audited(record, lambda d: d["steps"].append({"seat": seat,
                                                          "keys": [[position, key]]}))
    (finding,) = result.findings
    assert finding.who == "record" and "where the protocol sends none" in finding.detail


def test_a_key_answering_the_wrong_step_is_noticed(record: HandRecord) -> None:
    index = stock_answer(record)

    def move_it(d: dict[str, Any]) -> None:
        d["steps"].insert(index + 1, d["steps"].pop(index))

    (finding,) = audited(record, move_it).findings
    assert (finding.who, finding.where) == ("record", f"steps[{index}]")
    assert "the key of the card" in finding.detail


# --- the players' signatures --------------------------------------------------------


def test_any_edit_breaks_both_signatures(record: HandRecord) -> None:
    for change in (lambda d: d.update(scores=[0, 99]),
                   lambda d: d["steps"].pop(0),  # a deal's keys
                   lambda d: d["result"].update(points=record.score.points + 1)):
        result = audit_record(parse_record(mutate(record, change)))
        wheres = {f.where for f in result.findings if f.who == "record"}
        assert {"signatures.host", "signatures.guest"} <= wheres


def test_one_player_cannot_sign_a_hand_alone(record: HandRecord) -> None:
    forged = parse_record(mutate(record, lambda d: d.update(scores=[0, 99])))
    host_only = replace(forged, signatures=(SIGNERS[0].sign(cosign.seat_signed(forged, 0)),
                                            record.signatures[1]))
    wheres = [f.where for f in audit_record(host_only).findings]
    assert "signatures.guest" in wheres and "signatures.host" not in wheres


def test_keys_not_bound_to_the_match_id_are_refused(record: HandRecord) -> None:
    stranger = cosign.Signer(bytes(32))
    swapped = replace(record, signing_keys=(record.signing_keys[0], stranger.public),
                      signatures=(record.signatures[0],
                                  stranger.sign(cosign.seat_signed(record, 1))))
    (finding,) = audit_record(swapped).findings  # the guest's identity vouched for another
    assert (finding.who, finding.where) == ("record", "vouches.guest")
    # A stranger's identity that vouches for that key: the match id names other players.
    other = Identity(bytes(range(32)))
    vouched = replace(swapped, identities=(record.identities[0], other.public),
                      vouches=(record.vouches[0], other.vouch(record.link_id, 1,
                                                              stranger.public, b"")))
    (finding,) = audit_record(vouched).findings
    assert (finding.who, finding.where) == ("record", "match_id")


def test_a_record_whose_seats_share_one_identity_is_refused(record: HandRecord) -> None:
    host = Identity(b"h" * 32)
    same = replace(record, identities=(host.public, host.public), vouches=(
        record.vouches[0], host.vouch(record.link_id, 1, record.signing_keys[1], b"")))
    (finding,) = audit_record(same).findings
    assert (finding.who, finding.where) == ("record", "identities")
