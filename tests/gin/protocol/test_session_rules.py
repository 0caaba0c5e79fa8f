"""The rules a guest plays are the rules it was shown (issue 11.12), in two sessions."""

from __future__ import annotations

import random
from collections.abc import Mapping

import msgpack
import pytest

from gin.engine.errors import IllegalAction, PeerFault
from gin.engine.rules import STANDARD, Ruleset
from gin.players import get
from gin.protocol.session.events import (
    MatchStarted,
    PeerAborted,
    ProtocolError,
    RulesDeclined,
    RulesOffered,
)
from gin.protocol.session.session import Session, play_local, pump

SECRET = bytes(range(32))
HOUSE = STANDARD.with_options(name="house", big_gin_bonus=31, target=30)


def sessions(rules: Ruleset = HOUSE) -> tuple[Session, Session]:
    """The host proposes ``rules``; the guest insists on nothing."""
    return (Session("host", SECRET, rules, random.Random("h").randbytes, b"h" * 32),
            Session("guest", SECRET, None, random.Random("g").randbytes, b"g" * 32))


def test_a_preset_is_played_at_once() -> None:
    host, guest = sessions(STANDARD)
    pump(host, guest)
    assert not any(isinstance(e, RulesOffered) for e in guest.events())
    assert guest.rules == STANDARD and guest.rules_offered is None
    assert guest.observation() is not None  # dealt


def test_custom_rules_wait_for_the_player_then_play() -> None:
    host, guest = sessions()
    pump(host, guest)
    assert [e for e in guest.events() if isinstance(e, RulesOffered)] == [RulesOffered(HOUSE)]
    assert guest.rules_offered == HOUSE and guest.rules is None
    assert guest.waiting_for() is None  # no timer runs against the host meanwhile
    assert host.waiting_for() == "welcome" and guest.observation() is None
    guest.accept_rules()
    pump(host, guest)
    started = [e for e in guest.events() if isinstance(e, MatchStarted)]
    assert started and started[0].rules == HOUSE and guest.rules == HOUSE
    play_local(host, guest, [get("easy", random.Random(i)) for i in (0, 1)])
    assert host.failure is None and guest.failure is None and host.over


def test_declining_ends_the_match_unplayed_and_blames_nobody() -> None:
    host, guest = sessions()
    pump(host, guest)
    guest.decline_rules()
    pump(host, guest)
    failure = guest.failure
    assert isinstance(failure, RulesDeclined) and failure.field == "hello.rules"
    theirs = host.failure
    assert isinstance(theirs, PeerAborted) and "declined the host's custom rules" in theirs.reason
    with pytest.raises(PeerFault):
        guest.accept_rules()


def test_nothing_to_accept_is_an_illegal_action() -> None:
    host, guest = sessions(STANDARD)
    pump(host, guest)
    with pytest.raises(IllegalAction, match="no rules are waiting"):
        guest.accept_rules()


@pytest.mark.parametrize("rules", [
    STANDARD.to_dict() | {"big_gin_bonus": 500},  # named standard, but not standard
    STANDARD.to_dict() | {"name": "house", "dead_stock": 30},  # every hand dead
    STANDARD.to_dict() | {"name": "\x1b[2Jhouse"},  # a terminal escape in the name
], ids=["fake-standard", "dead-stock-30", "escape"])
def test_rules_out_of_bounds_are_the_hosts_protocol_error(rules: Mapping[str, object]) -> None:
    class Liar(Session):
        def _send(self, msg_type: str, fields: Mapping[str, object]) -> None:
            super()._send(msg_type, dict(fields) | ({"rules": rules} if msg_type == "hello"
                                                    else {}))

    host = Liar("host", SECRET, STANDARD, random.Random("h").randbytes, b"h" * 32)
    guest = Session("guest", SECRET, None, random.Random("g").randbytes, b"g" * 32)
    pump(host, guest)
    failure = guest.failure
    assert isinstance(failure, ProtocolError)
    assert failure.who == "host" and failure.field.startswith("rules")
    assert not any(isinstance(e, RulesOffered | MatchStarted) for e in guest.events())


def restored(session: Session) -> Session:
    state = msgpack.unpackb(msgpack.packb(session.to_state()))
    return Session.from_state(SECRET, state, random.Random("later").randbytes,
                              b"h" * 32 if session.role == "host" else b"g" * 32)


def test_the_offer_and_the_acceptance_survive_a_restart() -> None:
    host, guest = sessions()
    pump(host, guest)
    waiting = restored(guest)
    assert waiting.rules_offered == HOUSE and waiting.waiting_for() is None
    guest.accept_rules()
    pump(host, guest)
    accepted = restored(guest)
    assert accepted.rules == HOUSE and accepted.rules_offered is None
    assert accepted.observation() == guest.observation()
