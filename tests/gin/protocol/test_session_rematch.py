"""A rematch on the same link (protocol.md §7.1): a new session whose hello names the
match just finished, dealt first by its loser, its records chained to it."""

from __future__ import annotations

import random

import pytest

from gin.engine.errors import IllegalAction, MalformedInput
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.records.audit import audit_record
from gin.protocol.records.history import place
from gin.protocol.session.events import (
    HandVerified,
    MatchOver,
    MatchStarted,
    PeerAborted,
    ProtocolError,
    RematchDeclined,
    RulesDeclined,
    RulesOffered,
)
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.session.session import Session, play_local, pump

SECRET = bytes(range(32))
SHORT = STANDARD.with_options(name="short", target=10)


def pair(label: str, host_prev: PreviousMatch | None = None,
         guest_prev: PreviousMatch | None = None, guest_rules: object = None
         ) -> tuple[Session, Session]:
    return (Session("host", SECRET, SHORT, random.Random(f"h{label}").randbytes, b"h" * 32,
                    rematch=host_prev),
            Session("guest", SECRET, guest_rules,  # type: ignore[arg-type]
                    random.Random(f"g{label}").randbytes, b"g" * 32, rematch=guest_prev))


def play(host: Session, guest: Session) -> list[HandVerified]:
    """Play the match out; the host's verified hands (its MatchOver is checked too)."""
    play_local(host, guest, [get("easy", random.Random(i)) for i in (0, 1)])
    assert host.failure is None and guest.failure is None and host.over and guest.over
    events = host.events()
    over = [e for e in events if isinstance(e, MatchOver)]
    assert len(over) == 1 and over[0].totals is not None
    assert host.as_previous() == PreviousMatch(host.match_id or b"", 1 - over[0].winner)
    return [e for e in events if isinstance(e, HandVerified)]


@pytest.fixture(scope="module")
def first() -> tuple[Session, Session, list[HandVerified]]:
    host, guest = pair("1")
    return host, guest, play(host, guest)


def test_a_finished_match_knows_its_id_and_loser(first: tuple[Session, Session, list]) -> None:
    host, guest, _ = first
    previous = host.as_previous()
    assert previous is not None and previous == guest.as_previous()
    assert previous.match_id == host.match_id


def test_a_rematch_is_offered_then_dealt_by_the_loser_and_chained(
        first: tuple[Session, Session, list[HandVerified]]) -> None:
    old_host, old_guest, old_hands = first
    previous = old_host.as_previous()
    assert previous is not None
    host, guest = pair("2", previous, old_guest.as_previous(), old_guest.rules)
    pump(host, guest)
    offered = [e for e in guest.events() if isinstance(e, RulesOffered)]
    assert offered == [RulesOffered(SHORT, rematch=True)]  # even for rules played before
    assert guest.rules_offered == SHORT and guest.waiting_for() is None
    guest.accept_rules()
    pump(host, guest)
    started = [e for e in host.events() if isinstance(e, MatchStarted)]
    assert started[0].first_dealer == previous.loser
    hands = play(host, guest)
    assert host.match_id not in (None, previous.match_id)
    assert {h.record.previous for h in hands} == {previous.match_id}
    assert {h.record.previous for h in old_hands} == {None}
    records = [h.record for h in old_hands + hands]
    assert all(audit_record(r).ok for r in records)
    assert place(records) == {}  # one history of the link, not a conflict


def test_a_wrong_prev_is_the_hosts_protocol_error(first: tuple[Session, Session, list]) -> None:
    _, old_guest, _ = first
    mine = old_guest.as_previous()
    assert mine is not None
    other = PreviousMatch(bytes(16), mine.loser)
    host, guest = pair("3", other, mine)
    pump(host, guest)
    assert isinstance(guest.failure, ProtocolError)
    assert guest.failure.who == "host" and guest.failure.field == "hello.prev"
    assert isinstance(host.failure, PeerAborted)
    # A guest that expects a rematch refuses a hello that continues nothing, too.
    host, guest = pair("4", None, mine)
    pump(host, guest)
    assert isinstance(guest.failure, ProtocolError) and guest.failure.field == "hello.prev"


def test_a_rematch_of_a_match_this_gin_did_not_play_is_refused_in_words(
        first: tuple[Session, Session, list]) -> None:
    old_host, _, _ = first
    previous = old_host.as_previous()
    host, guest = pair("5", previous, None)
    pump(host, guest)
    assert isinstance(guest.failure, RulesDeclined) and not guest.failure.proven
    assert guest.failure.reason == ("your friend offers a rematch of a match this gin did "
                                    "not play")
    assert isinstance(host.failure, PeerAborted) and host.failure.field == "hello.prev"


def test_declining_a_rematch_ends_it_and_blames_nobody(first: tuple[Session, Session, list]
                                                       ) -> None:
    old_host, old_guest, _ = first
    host, guest = pair("6", old_host.as_previous(), old_guest.as_previous())
    pump(host, guest)
    guest.decline_rules()
    pump(host, guest)
    # A normal end of the series (issue 28): no failure on either side, nobody at fault.
    assert guest.failure is None and host.failure is None and guest.over and host.over
    assert [e for e in guest.events() if isinstance(e, RematchDeclined)] == [
        RematchDeclined("guest", "you declined the rematch")]
    assert [e for e in host.events() if isinstance(e, RematchDeclined)] == [
        RematchDeclined("guest", "the guest declined the rematch")]
    assert host.waiting_for() is None and guest.waiting_for() is None
    assert host.as_previous() is None and guest.as_previous() is None  # no rematch of it
    for side in (host, guest):  # still so once restored from its save
        again = Session.from_state(SECRET, side.to_state(), random.Random(1).randbytes,
                                   side.role[0].encode() * 32)
        assert again.over and again.failure is None and again.waiting_for() is None
    with pytest.raises(IllegalAction):
        Session("guest", SECRET, None, random.Random(0).randbytes, b"g" * 32).accept_rules()


def test_the_old_sessions_late_frames_do_not_break_the_rematch(
        first: tuple[Session, Session, list]) -> None:
    """§5.2: frames sealed under the finished session's epoch are answered with an offer
    and ignored; a late offer of it costs a round of offers, never a fault."""
    old_host, old_guest, _ = first
    host, guest = pair("7", old_host.as_previous(), old_guest.as_previous())
    pump(host, guest)
    late = old_host.resend()
    assert late  # at least its offer
    for frame in late:
        guest.receive(frame)
    pump(host, guest)
    guest.accept_rules()
    pump(host, guest)
    for frame in old_guest.resend():
        host.receive(frame)
    play(host, guest)
    assert host.failure is None and guest.failure is None and host.over and guest.over


def test_an_unfinished_or_failed_match_has_no_rematch() -> None:
    host, guest = pair("8")
    pump(host, guest)
    assert host.as_previous() is None
    with pytest.raises(MalformedInput):
        PreviousMatch(b"short", 0)
    with pytest.raises(MalformedInput):
        PreviousMatch(bytes(16), 2)


def test_the_rematch_survives_a_restart(first: tuple[Session, Session, list]) -> None:
    old_host, old_guest, _ = first
    host, guest = pair("9", old_host.as_previous(), old_guest.as_previous())
    pump(host, guest)
    guest = Session.from_state(SECRET, guest.to_state(), random.Random(9).randbytes, b"g" * 32)
    assert guest.rematch == old_guest.as_previous() and guest.rules_offered == SHORT
    host = Session.from_state(SECRET, host.to_state(), random.Random(8).randbytes, b"h" * 32)
    for frame in host.resend():
        guest.receive(frame)
    pump(host, guest)
    guest.accept_rules()
    play(host, guest)
    assert host.failure is None and guest.failure is None
