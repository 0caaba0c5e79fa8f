"""The online session: whole matches in memory, cheats caught and attributed,
hostile frames refused, privacy after the deal, resumption, the protocol vectors."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgpack
import pytest

from gin.conformance.session_cases import duplicate_in_message2, other_scalar, tamper_once
from gin.engine.actions import Discard, DrawPile, parse_action
from gin.engine.cards import DECK
from gin.engine.errors import IllegalAction, PeerFault
from gin.engine.hand import UPCARD_POSITION, dealt_positions
from gin.engine.rules import OKLAHOMA, STANDARD, Ruleset
from gin.players import Player, get
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group as g
from gin.protocol.records import cosign
from gin.protocol.records.audit import audit_evidence, audit_record
from gin.protocol.records.cosign import link_id_for
from gin.protocol.records.evidence import DealEvidence, parse_file
from gin.protocol.records.identity import Identity, fingerprint
from gin.protocol.records.records import SEATS, HandRecord, Score, Step, parse_record
from gin.protocol.session.events import (
    CheatDetected,
    FrameRejected,
    HandDealt,
    HandScored,
    HandVerified,
    MatchOver,
    PeerAborted,
    PeerTimedOut,
    ProtocolError,
    SessionEvent,
    Unresolved,
    VersionMismatch,
)
from gin.protocol.session.flow import SessionRole
from gin.protocol.session.hand import coin, first_dealer_for, rules_digest
from gin.protocol.session.session import CorruptState, Session
from gin.protocol.wire import channel as wire

PROTOCOL = Path(__file__).resolve().parents[3] / "protocol.md"
SECRET = bytes(range(32))
Fields = dict[str, Any]
Tamper = Callable[[Session, str, Fields], Fields | None]


def b_id(letter: str) -> bytes:
    """The identity public key of the seeds ``b"h" * 32`` and ``b"g" * 32`` the tests use."""
    return Identity(letter.encode() * 32).public


class Cheater(Session):
    """A session whose outgoing messages pass through ``tamper`` (None drops one)."""

    tamper: Tamper | None = None

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        out: Fields | None = dict(fields)
        if self.tamper is not None and out is not None:
            out = self.tamper(self, msg_type, out)
        if out is not None:
            super()._send(msg_type, out, version)


def source(label: str) -> Callable[[int], bytes]:
    return random.Random(label).randbytes


class Relay:
    """A perfect relay: every frame arrives once, in order. Subclasses misbehave."""

    def route(self, frame: bytes, to: int) -> list[tuple[bytes, int]]:
        return [(frame, to)]

    def release(self) -> list[tuple[bytes, int]]:
        """Frames held back, delivered once the network is otherwise quiet."""
        return []


class Lossy(Relay):
    """Drops, duplicates, delays and reorders frames at random (a fixed seed)."""

    def __init__(self, seed: int, drop: float = 0.15, dup: float = 0.1, hold: float = 0.15
                 ) -> None:
        self.rng = random.Random(seed)
        self.drop, self.dup, self.hold = drop, dup, hold
        self.held: list[tuple[bytes, int]] = []
        self.dropped = self.duplicated = self.delayed = 0

    def route(self, frame: bytes, to: int) -> list[tuple[bytes, int]]:
        roll = self.rng.random()
        if roll < self.drop:
            self.dropped += 1
            return []
        if roll < self.drop + self.hold:
            self.delayed += 1
            self.held.append((frame, to))
            return []
        if roll < self.drop + self.hold + self.dup:
            self.duplicated += 1
            return [(frame, to), (frame, to)]
        return [(frame, to)]

    def release(self) -> list[tuple[bytes, int]]:
        out, self.held = self.held, []
        self.rng.shuffle(out)
        return out


class Link:
    """Two sessions joined through a relay model, with a clock that drives their
    re-send timers. ``wire`` keeps every frame either side put on the network.
    Frames numbered in ``lose`` are lost with the connection (and everything after
    them in flight); then both sides reconnect and re-send what is unacknowledged."""

    def __init__(self, rules: Ruleset = STANDARD, cls: type[Session] = Session,
                 seed: int = 0, relay: Relay | None = None, secret: bytes = SECRET) -> None:
        self.random = [source(f"{seed}/host"), source(f"{seed}/guest")]
        self.s = [cls("host", secret, rules, self.random[0], b"h" * 32),
                  cls("guest", secret, None, self.random[1], b"g" * 32)]
        self.players: list[Player] = [get("normal", random.Random(f"{seed}/p{i}"))
                                      for i in (0, 1)]
        self.events: list[list[SessionEvent]] = [[], []]
        self.relay = relay or Relay()
        self.wire: list[tuple[int, bytes]] = []  # (receiving seat, frame)
        self.lose: set[int] = set()
        self.sent = 0
        self.reconnects = 0
        self.now = 0.0
        self.ticks = 0

    def deliver(self, frame: bytes, to: int) -> None:
        if not self.s[to].failure:
            self.s[to].receive(frame)

    def pump(self) -> None:
        while True:
            frames = [(f, 1) for f in self.s[0].data_to_send()]
            frames += [(f, 0) for f in self.s[1].data_to_send()]
            for i in (0, 1):
                self.events[i] += self.s[i].events()
            self.wire += [(to, f) for f, to in frames]
            routed = [r for f, to in frames for r in self.relay.route(f, to)]
            if not routed:
                routed = self.relay.release()
            if not routed:
                if not frames:
                    return
                continue
            down = False
            for frame, to in routed:
                self.sent += 1
                down = down or self.sent in self.lose
                if not down:
                    self.deliver(frame, to)
            if down:
                self.reconnect()

    def reconnect(self) -> None:
        self.reconnects += 1
        for i in (0, 1):
            for frame in self.s[i].resend():
                self.deliver(frame, 1 - i)

    def settle(self, patience: int = 300) -> None:
        """Pump, and let time pass (re-send timers fire) until someone can move, the
        match is over, or nothing has arrived for ``patience`` seconds."""
        self.pump()
        quiet, last = 0, [s.received for s in self.s]
        while not any(s.legal_actions() for s in self.s) and not all(s.over for s in self.s):
            if any(s.failure for s in self.s) or quiet >= patience:
                return
            self.ticks += 1
            self.now += 1.0
            for s in self.s:
                s.poll(self.now)
            self.pump()
            now = [s.received for s in self.s]
            quiet = 0 if now != last else quiet + 1
            last = now

    def step(self) -> bool:
        """One local move by whoever may move; False when nobody can. The guest
        accepts custom rules."""
        self.settle()
        if self.s[1].rules_offered is not None and not self.s[1].over:
            self.s[1].accept_rules()
            self.settle()
        movers = [s for s in self.s if s.legal_actions()]
        if not movers:
            return False
        s = movers[0]
        obs = s.observation()
        assert obs is not None
        s.act(self.players[s.seat].choose(obs, s.legal_actions()))
        self.pump()
        return True

    def run(self, on_move: Callable[[Link, int], None] | None = None) -> None:
        moves = 0
        while self.step():
            moves += 1
            if on_move is not None:
                on_move(self, moves)
        self.settle()

    def of(self, kind: type[SessionEvent], seat: int) -> list[Any]:
        return [e for e in self.events[seat] if isinstance(e, kind)]

    def records(self, seat: int) -> list[HandRecord]:
        return [e.record for e in self.of(HandVerified, seat)]


@pytest.fixture(scope="module")
def baseline() -> Link:
    link = Link()
    link.run()
    return link


# --- whole matches ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rules", [STANDARD, OKLAHOMA], ids=lambda r: r.name)
def test_whole_match_agrees_and_audits_clean(rules: Ruleset, baseline: Link) -> None:
    link = baseline if rules is STANDARD else Link(rules, seed=1)
    if link is not baseline:
        link.run()
    over = [link.of(MatchOver, seat) for seat in (0, 1)]
    assert len(over[0]) == len(over[1]) == 1
    assert over[0][0] == over[1][0] and over[0][0].forfeited_by is None
    assert over[0][0].totals.points[over[0][0].winner] >= rules.target
    host, guest = link.records(0), link.records(1)
    assert len(host) == len(guest) >= 2
    for mine, theirs in zip(host, guest, strict=True):
        assert (mine.seeds, mine.messages, mine.score, mine.scores) == (
            theirs.seeds, theirs.messages, theirs.score, theirs.scores)
        assert mine.rules == rules and mine.match_id == link.s[0].match_id
        assert mine.match_id == cosign.match_id_for(link_id_for(SECRET), mine.signing_keys,
                                                    (b_id("h"), b_id("g")), b"")
        assert mine.identities == (b_id("h"), b_id("g")) and mine.previous is None
        assert mine.signatures == theirs.signatures
        for record in (mine, theirs):
            assert audit_record(record).ok
            assert parse_record(record.to_json()) == record
            assert all(cosign.verify(k, cosign.seat_signed(record, seat), s) for seat, (k, s)
                       in enumerate(zip(record.signing_keys, record.signatures, strict=True)))
    assert all(s.failure is None and s.over for s in link.s)


def test_observation_and_legal_actions_follow_the_turn() -> None:
    link = Link()
    link.pump()
    host, guest = link.s
    obs = [s.observation() for s in link.s]
    assert obs[0] is not None and obs[1] is not None
    assert obs[0].hand != obs[1].hand and len(obs[0].hand) == len(obs[1].hand) == 10
    assert obs[0].pile == obs[1].pile
    mover = [s for s in link.s if s.legal_actions()]
    assert len(mover) == 1 and mover[0].seat == 1 - obs[0].dealer
    idle = link.s[obs[0].dealer]
    assert idle.waiting_for() == "move"
    with pytest.raises(IllegalAction, match="waiting for"):
        idle.act(DrawPile())


# --- cheats ------------------------------------------------------------------------------


def cheat_once(msg_type: str, change: Callable[[Session, Fields], Fields | None],
               silence_after: bool = False) -> tuple[Link, str]:
    """Play with ``change`` applied to the ``msg_type`` messages of both sides until it
    alters one; from then on only that side (the cheater) is changed. Returns the link
    and the cheater's seat name. ``silence_after``: the cheater then says nothing."""
    cheater: list[Session] = []
    link = Link(cls=Cheater, seed=2)
    for s in link.s:
        assert isinstance(s, Cheater)
        s.tamper = tamper_once(msg_type, change, silence_after, cheater)
    link.run()
    assert cheater, f"no {msg_type} message was tampered with"
    return link, SEATS[cheater[0].seat]


def caught(link: Link, cheater: str) -> CheatDetected:
    link.pump()
    honest = link.s[1 - SEATS.index(cheater)]
    failure = honest.failure
    assert isinstance(failure, CheatDetected), failure
    assert failure.who == cheater
    over = link.of(MatchOver, honest.seat)
    assert over and over[-1].forfeited_by == cheater and over[-1].winner == honest.seat
    with pytest.raises(PeerFault):
        honest.receive(b"\x00" * 64)  # sticky
    return failure


def test_wrong_commitment_is_caught_at_hand_end() -> None:
    link, cheater = cheat_once("commit", lambda s, f: f | {"c": bytes(32)})
    failure = caught(link, cheater)
    assert failure.field == "commitment" and failure.record is not None
    assert not audit_record(failure.record).ok


def test_duplicated_card_in_message1_is_refused_on_arrival() -> None:
    def duplicate(s: Session, f: Fields) -> Fields | None:
        return f | {"deck": [f["deck"][0], *f["deck"][:51]]} if f["n"] == 1 else None

    failure = caught(*cheat_once("deck", duplicate))
    assert failure.field == "message1[1]" and "repeats position 0" in failure.reason


def duplicating_match(seed: int, after: str = "") -> tuple[Link, str]:
    """A match whose second shuffler of hand 1 duplicates the dealer's hand into its
    own (issue 19's cheat) and signs it; ``after`` "abort": it sends an abort at once,
    "silent": nothing more."""
    cheater: list[Session] = []

    def tamper(s: Session, t: str, f: Fields) -> Fields | None:
        if cheater and s is cheater[0] and after == "silent":
            return None
        if t == "deck" and not cheater and (changed := duplicate_in_message2(s, f)):
            cheater.append(s)
            if after == "abort":
                Session._send(s, "deck", changed)
                Session._send(s, "abort", {"why": "timeout", "field": "deck", "reason": ""})
                return None
            return changed
        return f

    link = Link(cls=Cheater, seed=seed)
    for side in link.s:
        assert isinstance(side, Cheater)
        side.tamper = tamper
    link.run()
    assert cheater
    return link, cheater[0].role


@pytest.mark.parametrize("after", ["", "abort", "silent"])
@pytest.mark.parametrize("seed", range(4))
def test_a_duplicating_second_shuffler_is_a_proven_cheat_every_time(seed: int, after: str
                                                                    ) -> None:
    # Issue 19: the proof arrives with message 2, so the verdict comes before the
    # cheater could learn anything or walk away; it is signed evidence for anyone.
    link, cheater = duplicating_match(seed, after)
    failure = caught(link, cheater)
    assert failure.field == "proof" and "not proven a shuffle" in failure.reason
    assert not link.of(HandDealt, SEATS.index(cheater))  # it never saw a card of the hand
    evidence = failure.record
    assert isinstance(evidence, DealEvidence)
    assert parse_file(evidence.to_json()) == evidence  # as gin audit reads the saved file
    (finding,) = audit_evidence(evidence).findings
    assert (finding.who, finding.where) == (cheater, "proof")


def test_substituted_card_in_message1_is_caught() -> None:
    # One card point replaced by another point (twice it): no card opens there.
    def substitute(s: Session, f: Fields) -> Fields | None:
        return f | {"deck": [g.mul(f["deck"][0], 2), *f["deck"][1:]]} if f["n"] == 1 else None

    failure = caught(*cheat_once("deck", substitute))
    assert "message1[0]" in failure.field or "does not open" in failure.reason


def test_marker_on_the_second_shuffle_finds_nothing_and_is_caught() -> None:
    # The first shuffler plants E_2(E_a(M_c)) in place of another card and, after
    # message 2, looks for the pair; per-position keys leave nothing to find.
    hits: list[int] = []
    searched: list[bool] = []

    def plant(s: Session, f: Fields) -> Fields | None:
        if f["n"] == 1:
            deck = list(f["deck"])
            deck[1] = g.mul(deck[0], 2)
            return f | {"deck": deck}
        if f["n"] == 3:
            hs = s._flow.state()
            m2 = hs.messages[1]
            assert m2 is not None
            undo = g.sinv(hs.mine.deck_key)
            stripped = [g.mul(x, undo) for x in m2]
            doubled = {g.mul(x, 2) for x in stripped}
            hits.extend(j for j, x in enumerate(stripped) if x in doubled)
            searched.append(True)
        return None

    link, cheater = cheat_once("deck", plant)
    assert searched and hits == []
    caught(link, cheater)


def test_wrong_key_for_a_dealt_position() -> None:
    failure = caught(*cheat_once(
        "deal", lambda s, f: f | {"keys": [other_scalar(f["keys"][0]), *f["keys"][1:]]}))
    assert failure.field == "deal.keys[0]" and "does not open" in failure.reason


def test_wrong_key_for_a_drawn_position() -> None:
    failure = caught(*cheat_once("key", lambda s, f: f | {"key": other_scalar(f["key"])}))
    assert failure.field == "key.key"


def play_until(link: Link, ready: Callable[[Session], bool]) -> Session:
    link.pump()
    while not (found := [s for s in link.s if s.legal_actions() and ready(s)]):
        assert link.step()
    return found[0]


def inject(link: Link, s: Session, action_text: str, pos: list[int], keys: list[bytes]) -> None:
    s._send("move", {"h": s._flow.state().number, "a": action_text, "pos": pos, "keys": keys})
    link.pump()


def test_discard_of_a_card_the_opponent_holds() -> None:
    link = Link()
    s = play_until(link, lambda s: any(isinstance(a, Discard) for a in s.legal_actions()))
    other = link.s[1 - s.seat].observation()
    assert other is not None
    inject(link, s, f"discard {other.hand[0]}", [], [])
    failure = caught(link, s.role)
    assert failure.field == "move.a" and "does not hold" in failure.reason


@pytest.mark.parametrize("text", ["layoff 8h>\u00b2", "layoff 8h>\u0663", "pass\x1c"])
def test_an_action_with_unicode_digits_or_spaces_is_a_protocol_error(text: str) -> None:
    # "8h>²" once crashed the receiver: str.isdigit accepts "²", int() does not.
    link = Link()
    s = play_until(link, lambda s: any(isinstance(a, Discard) for a in s.legal_actions()))
    inject(link, s, text, [], [])
    honest = link.s[1 - s.seat]
    assert isinstance(honest.failure, ProtocolError), honest.failure
    assert (honest.failure.who, honest.failure.field) == (s.role, "move.a")


def test_discard_of_a_card_not_held_with_a_real_key() -> None:
    link = Link()
    s = play_until(link, lambda s: any(isinstance(a, Discard) for a in s.legal_actions()))
    obs = s.observation()
    other = link.s[1 - s.seat].observation()
    assert obs is not None and other is not None
    seen = set(obs.hand) | set(other.hand) | set(obs.pile)
    fake = next(c for c in DECK if c not in seen)
    pos = s._flow.position_of(obs.hand[0])  # a real hidden position, its real key
    inject(link, s, f"discard {fake}", [pos], [fd.key_bytes(
        s._flow.state().mine.position_keys[pos])])
    failure = caught(link, s.role)
    assert failure.field == "move.keys[0]" and f"not the discarded {fake}" in failure.reason


def test_big_gin_that_reveals_no_card_is_caught_on_arrival() -> None:
    # Protocol §7.6: a big gin, like a knock, must reveal every card it lays down.
    link = Link(STANDARD.with_options(big_gin_bonus=31))
    s = play_until(link, lambda s: any(isinstance(a, Discard) for a in s.legal_actions())
                   and not link.s[1 - s.seat]._flow.engine().cards(s.seat))  # none known
    honest = 1 - s.seat
    inject(link, s, "biggin", [], [])
    failure = caught(link, s.role)
    assert failure.field == "move.a" and "must all be revealed" in failure.reason
    assert not link.of(HandScored, honest)  # never scored as the cheater's win


def test_throwing_the_card_just_taken() -> None:
    link = Link()
    s = play_until(link, lambda s: DrawPile() in s.legal_actions())
    obs = s.observation()
    assert obs is not None and obs.top_of_pile is not None
    upcard = obs.top_of_pile
    s.act(DrawPile())
    link.pump()
    inject(link, s, f"discard {upcard}", [], [])
    failure = caught(link, s.role)
    assert failure.field == "move.a" and "just taken" in failure.reason


def test_a_withheld_seed_is_unresolved_not_a_cheat() -> None:
    # The seed may have been withheld, or dropped by the relay: nobody forfeits.
    link, cheater = cheat_once("seed", lambda s, f: f, silence_after=True)
    honest = link.s[1 - SEATS.index(cheater)]
    assert honest.waiting_for() == "seed"
    honest.peer_timed_out()
    failure = honest.failure
    assert isinstance(failure, PeerTimedOut) and isinstance(failure, Unresolved)
    assert not failure.proven and failure.field == "seed"
    assert failure.who == f"{cheater} or the relay"
    assert f"the {cheater}'s seed did not arrive in time: the {cheater} withheld it, " \
        "or the relay dropped it" in failure.reason
    assert "cheat" not in failure.reason and "audit" not in failure.reason
    assert not link.of(MatchOver, honest.seat)


def test_refusing_the_seed_by_abort() -> None:
    def refuse(s: Session, f: Fields) -> Fields | None:
        Session._send(s, "abort", {"why": "cheat", "field": "seed", "reason": "no"})
        return f

    link, cheater = cheat_once("seed", refuse, silence_after=True)
    failure = caught(link, cheater)
    assert failure.field == "seed" and "refused to reveal" in failure.reason


def test_timeout_during_play_names_both_causes_and_tells_the_peer() -> None:
    link = Link()
    link.pump()
    idle = next(s for s in link.s if not s.legal_actions())
    idle.peer_timed_out()
    peer = SEATS[idle.peer]
    assert isinstance(idle.failure, PeerTimedOut) and idle.failure.field == "move"
    assert idle.failure.who == f"{peer} or the relay" and not idle.failure.proven
    assert not any(isinstance(e, MatchOver) for e in idle.events())
    link.pump()  # the notice reaches the other side, which is not blamed either
    other = link.s[idle.peer].failure
    assert isinstance(other, PeerAborted) and not other.proven
    assert other.who == idle.role and "saying:" in other.reason
    assert not link.of(MatchOver, idle.peer)


def test_an_abort_is_shown_as_the_peers_claim_never_as_a_verdict() -> None:
    # A cheater says the honest side cheated: the honest side reports what it said.
    link = Link()
    link.pump()
    liar = link.s[0]
    Session._send(liar, "abort", {"why": "cheat", "field": "deal.keys",
                                  "reason": "guest cheated: at fault: guest"})
    link.pump()
    failure = link.s[1].failure
    assert isinstance(failure, PeerAborted) and not failure.proven
    assert failure.who == "host"  # the side that ended the match, not the one it blames
    assert failure.reason.startswith("the host ended the match (cheat), saying: ")
    assert not link.of(MatchOver, 1)


# --- another protocol version ----------------------------------------------------------------


class OtherVersion(Session):
    """A peer whose messages say protocol ``version`` (2: as v2 code packs them)."""

    def __init__(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
                 random_bytes: Callable[[int], bytes], identity: bytes, version: int = 2
                 ) -> None:
        self.version = version
        super().__init__(role, secret, rules, random_bytes, identity)

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        super()._send(msg_type, fields, self.version)


def delivered(s: Session, version: int) -> list[wire.Message]:
    """The messages ``s`` received, decoded as a peer of protocol ``version`` would."""
    return [wire.unpack(entry[1], versions=(version,)) for entry in s._log
            if entry[0] == "in" and isinstance(entry[1], bytes)]


@pytest.mark.parametrize("older", [2, 3])
def test_an_older_hello_meets_this_peer_cleanly(older: int) -> None:
    # A host of an older protocol (its messages as that code packs them) and a guest of 4:
    # 3 is the protocol before each side signed its own seed at hand end.
    link = Link()
    host = link.s[0] = OtherVersion("host", SECRET, STANDARD, link.random[0], b"h" * 32,
                                    version=older)
    link.pump()
    failure = link.s[1].failure
    assert isinstance(failure, VersionMismatch) and not failure.proven
    assert (failure.who, failure.field) == ("nobody", "v")
    assert failure.reason == (f"your friend's gin speaks protocol {older}; this gin speaks 4: "
                              "your friend must update gin to play this match")
    assert not link.of(MatchOver, 1)
    # What the older host reads: an abort of its protocol with the fields and kinds v2
    # checks, telling its player to update (it shows it as the guest's own words).
    (abort,) = delivered(host, older)
    assert (abort.type, abort.version) == ("abort", older)
    assert abort.text("why", max_len=16, choices=(
        "cheat", "protocol", "tampered", "timeout", "declined")) == "protocol"
    assert abort.text("field", max_len=64) == "v"
    assert abort.text("reason", max_len=400) == (
        f"this gin speaks protocol 4, yours speaks {older}: you must update gin to play this "
        "match")


def test_a_v4_hello_meets_a_v2_peer_cleanly() -> None:
    # What v2 code does on a newer hello: its unpack refuses the version, naming field
    # "v" (shown as a protocol error of the host, in v2's words), and it sends an abort.
    with pytest.raises(wire.MalformedMessage) as info:
        wire.unpack(wire.pack("hello", {"n": 1}), versions=(2,))
    assert (info.value.field, str(info.value)) == ("v", "unsupported protocol version 4")
    # That abort (v2) reaches the v4 host: the other side must update, and the host
    # sends nothing back to a peer that has stopped.
    link = Link(cls=Cheater)
    guest = link.s[1]
    assert isinstance(guest, Cheater)
    guest.tamper = lambda s, t, f: None  # a v2 guest answers nothing but its abort
    link.pump()
    Session._send(guest, "abort", {"why": "protocol", "field": "v",
                                   "reason": "unsupported protocol version 4"}, 2)
    link.pump()
    host = link.s[0]
    failure = host.failure
    assert isinstance(failure, VersionMismatch) and not failure.proven
    assert failure.reason == ("your friend's gin speaks protocol 2; this gin speaks 4: your "
                              "friend must update gin to play this match")
    assert not link.of(MatchOver, 0)
    assert [m.type for m in delivered(guest, 4)] == ["hello"]  # no abort came back


def test_a_newer_peer_tells_this_side_to_update() -> None:
    link = Link()
    link.s[0] = OtherVersion("host", SECRET, STANDARD, link.random[0], b"h" * 32, version=5)
    link.pump()
    failure = link.s[1].failure
    assert isinstance(failure, VersionMismatch)
    assert failure.reason.endswith("speaks protocol 5; this gin speaks 4: you must update gin "
                                   "to play this match")


# --- hostile frames and malformed messages ----------------------------------------------------


def handshake() -> tuple[Session, Session, bytes]:
    """Host and guest after the offers; the host's hello, sealed, not yet delivered."""
    host = Session("host", SECRET, STANDARD, source("h"), b"h" * 32)
    guest = Session("guest", SECRET, None, source("g"), b"g" * 32)
    (host_offer,) = host.data_to_send()
    (guest_offer,) = guest.data_to_send()
    host.receive(guest_offer)
    guest.receive(host_offer)
    offer, hello = host.data_to_send()  # our offer (the guest lacked ours), then the hello
    assert offer[1] == wire.Kind.OFFER.value and hello[1] == wire.Kind.DATA.value
    (guest_offer,) = guest.data_to_send()  # the guest's offer again: the host lacked it
    host.receive(guest_offer)
    assert host.data_to_send() == []  # both now know both contributions
    return host, guest, hello


@pytest.mark.parametrize(("make", "field"), [
    (lambda h, g, f: (g, f[:30] + bytes([f[30] ^ 1]) + f[31:]), "tag"),
    (lambda h, g, f: (h, f), "direction"),
    (lambda h, g, f: (g, Session("host", bytes(32), STANDARD, source("x"), b"h" * 32
                                 ).data_to_send()[0]),
     "link"),
    (lambda h, g, f: (g, f[:9]), "frame"),
], ids=["tampered", "reflected", "foreign-link", "truncated"])
def test_hostile_frames_are_unresolved_and_the_peer_is_told(
    make: Callable[[Session, Session, bytes], tuple[Session, bytes]], field: str
) -> None:
    host, guest, hello = handshake()
    target, frame = make(host, guest, hello)
    other = guest if target is host else host
    target.receive(frame)
    failure = target.failure
    assert isinstance(failure, FrameRejected) and not failure.proven
    assert (failure.who, failure.field) == (f"{other.role} or the relay", field)
    assert "the relay altered or injected it" in failure.reason
    assert not any(isinstance(e, MatchOver) for e in target.events())
    with pytest.raises(PeerFault, match="failed"):
        target.receive(hello)
    # The side that saw it tells the other, which stops at once, blaming nobody
    # (what the side sent is re-sent in order, as its re-send timer would).
    for frame in [*target.data_to_send(), *target.resend()]:
        if not other.failure:
            other.receive(frame)
    told = other.failure
    assert isinstance(told, PeerAborted) and not told.proven
    assert told.reason.startswith(f"the {target.role} ended the match (tampered), saying: ")
    assert not any(isinstance(e, MatchOver) for e in other.events())


def test_duplicated_reordered_and_stale_frames_are_answered_not_faults() -> None:
    host, guest, hello = handshake()
    guest.receive(hello)
    guest.receive(hello)  # a duplicate: answered with an ack, delivered once
    assert guest.received == 1 and guest.failure is None
    frames = guest.data_to_send()
    welcome = next(f for f in frames if len(f) > wire.ACK_BYTES)
    host.receive(welcome)
    data = [f for f in host.data_to_send() if len(f) > wire.ACK_BYTES]
    start, commit = data
    guest.receive(commit)  # early: nothing delivered, a gap ack asks for a re-send
    assert guest.received == 1 and guest.failure is None
    (gap,) = guest.data_to_send()
    host.receive(gap)
    resent = host.data_to_send()
    assert resent == [start, commit]  # byte for byte the same frames
    for frame in resent:
        guest.receive(frame)
    assert guest.received == 3 and guest.waiting_for() in ("deck", "commit")


@pytest.mark.slow
def test_a_relay_replaying_a_whole_earlier_session_is_refused() -> None:
    # A whole first match on this link, as the relay saw it.
    first = Link()
    first.run()
    to_guest = [f for to, f in first.wire if to == 1]
    # A second match on the same link: the replayed host frames never open.
    host = Session("host", SECRET, STANDARD, source("h2"), b"h" * 32)
    guest = Session("guest", SECRET, None, source("g2"), b"g" * 32)
    for frame in to_guest:
        guest.receive(frame)
    assert guest.received == 0 and guest.failure is None and guest.rules is None
    # ... and the real host still gets through afterwards.
    second = Link(seed=9)
    second.s = [host, guest]
    second.run()
    assert second.records(1) and guest.failure is None
    assert second.records(1)[0].match_id != first.records(1)[0].match_id


def frames_reuse_no_nonce(wire_log: list[tuple[int, bytes]]) -> None:
    """No two different frames of one direction share a (key, nonce): the epoch id
    names the key, the kind and counter the nonce."""
    seen: dict[tuple[int, bytes, int, bytes], bytes] = {}
    for to, frame in wire_log:
        if frame[1] == wire.Kind.OFFER.value:
            continue
        key = (to, frame[wire.PREFIX_BYTES:wire.PREFIX_BYTES + 8], frame[1],
               frame[wire.PREFIX_BYTES + 8:wire.HEADER_BYTES])
        assert seen.setdefault(key, frame) == frame, f"nonce reused: {key}"


@pytest.mark.slow
def test_no_nonce_is_used_twice_across_a_stale_restore_and_a_reused_link() -> None:
    # A side restored from an older save seals other messages under the sequence
    # numbers it had used: a fresh epoch gives them fresh keys.
    link = Link()
    stale: dict[str, object] = {}

    def crash_from_stale(link: Link, moves: int) -> None:
        if moves == 3:
            stale.update(msgpack.unpackb(msgpack.packb(link.s[1].to_state()), raw=False))
        if moves == 9:
            link.s[1].data_to_send()
            link.s[1] = Session.from_state(SECRET, stale, source("fresh"), b"g" * 32)
            link.pump()

    link.run(crash_from_stale)
    frames_reuse_no_nonce(link.wire)
    # Two matches on one invite link.
    again = Link(seed=4)
    again.run()
    frames_reuse_no_nonce(link.wire + again.wire)


def test_a_lossy_reordering_relay_slows_the_match_but_does_not_end_it(baseline: Link) -> None:
    relay = Lossy(seed=3)
    link = Link(relay=relay)
    link.run()
    assert relay.dropped > 50 and relay.duplicated > 30 and relay.delayed > 50
    assert all(s.failure is None for s in link.s)
    assert comparable(link) == comparable(baseline)


def test_the_host_cannot_change_its_coin_after_seeing_the_guests_nonce() -> None:
    def other_nonce(s: Session, t: str, f: Fields) -> Fields | None:
        return f | {"nonce": bytes(32)} if t == "start" else f

    link = Link(cls=Cheater)
    host = link.s[0]
    assert isinstance(host, Cheater)
    host.tamper = other_nonce
    link.pump()
    failure = link.s[1].failure
    assert isinstance(failure, CheatDetected) and failure.field == "start.nonce"


def test_a_forged_hand_signature_is_the_signers_fault() -> None:
    link, cheater = cheat_once("seed", lambda s, f: f | {"sig": bytes(64)})
    link.pump()
    failure = link.s[1 - SEATS.index(cheater)].failure
    assert isinstance(failure, ProtocolError) and failure.proven
    assert (failure.who, failure.field) == (cheater, "seed.sig")


@pytest.mark.parametrize(("msg_type", "fields", "field"), [
    ("bogus", {}, "t"),
    ("commit", {"h": 1, "c": b"x" * 31}, "c"),
    ("commit", {"h": 1, "c": b"x" * 32, "extra": 1}, "extra"),
    ("commit", {"h": 7, "c": b"x" * 32}, "commit.h"),
    ("commit", {"h": -1, "c": b"x" * 32}, "h"),
    ("seed", {"h": 1, "seed": b"x" * 32}, "t"),
    ("deck", {"h": 1, "n": 1, "deck": []}, "t"),
], ids=["unknown-type", "wrong-length", "unknown-field", "wrong-hand", "out-of-range",
        "seed-out-of-order", "deck-before-commit"])
def test_malformed_or_untimely_messages_are_the_peers_fault(
    msg_type: str, fields: Fields, field: str
) -> None:
    def replace_commit(s: Session, t: str, f: Fields) -> Fields | None:
        if t == "commit" and s.role == "host":
            Session._send(s, msg_type, fields)
            return None
        return f

    link = Link(cls=Cheater)
    host = link.s[0]
    assert isinstance(host, Cheater)
    host.tamper = replace_commit
    link.pump()
    failure = link.s[1].failure
    assert isinstance(failure, ProtocolError), failure
    assert (failure.who, failure.field) == ("host", field)


def test_guest_refuses_rules_it_did_not_agree_to() -> None:
    link = Link(OKLAHOMA)
    guest = link.s[1] = Session("guest", SECRET, STANDARD, source("g"), b"g" * 32)
    link.pump()
    assert isinstance(guest.failure, ProtocolError) and guest.failure.field == "hello.rules"


# --- privacy ------------------------------------------------------------------------------


def test_after_the_deal_nothing_held_opens_a_hidden_position() -> None:
    link = Link()
    link.pump()
    for s in link.s:
        hs = s._flow.state()
        m3 = hs.messages[2]
        assert m3 is not None
        mine = set(dealt_positions(s.seat == hs.dealer)) | {UPCARD_POSITION}
        received = {k for step in hs.steps if step.seat == s.peer for _, k in step.keys}
        assert len(received) == 11
        for pos in set(range(52)) - mine:
            own = hs.mine.position_keys[pos]
            for key in [*received, hs.mine.deck_key, 1]:
                assert g.card_of(g.mul(m3[pos], g.sinv(g.smul(own, key)))) is None


# --- resumption -------------------------------------------------------------------------


def comparable(link: Link) -> list[Any]:
    return [link.of(MatchOver, 0), link.of(MatchOver, 1), link.records(0), link.records(1)]


def test_frames_lost_in_flight_are_resent_after_reconnect(baseline: Link) -> None:
    link = Link()
    link.lose = {1, 2, 5, 9, 14, 40, 41, 77, 150, 151, 152, 300}
    link.run()
    assert link.reconnects >= 8
    assert comparable(link) == comparable(baseline)


@pytest.mark.slow
def test_save_and_restore_mid_hand(baseline: Link) -> None:
    def crash(link: Link, moves: int) -> None:
        # Six crashes at different points of the first hands: a restore replays the
        # whole log, so crashes late in the match would only cost time.
        if moves % 23 != 5 or moves > 130:
            return
        crashes.append(moves)
        for seat in (0, 1):
            old = link.s[seat]
            # Write-ahead: the state is saved with frames sealed but not yet sent, then
            # the process dies and those frames are lost.
            state = msgpack.unpackb(msgpack.packb(old.to_state()), raw=False)
            old.data_to_send()
            link.events[seat] += old.events()
            link.s[seat] = Session.from_state(SECRET, state, link.random[seat],
                                                  (b"h" * 32, b"g" * 32)[seat])
            assert link.s[seat].observation() == old.observation()
        link.reconnect()
        link.pump()

    crashes: list[int] = []
    link = Link()
    link.run(crash)
    assert crashes == [5, 28, 51, 74, 97]  # the seeded match has about 110 moves
    # A restored side draws a fresh epoch, so the later seeds differ from the
    # baseline's; the match must still finish, agreed and clean on both sides.
    over = [link.of(MatchOver, seat) for seat in (0, 1)]
    assert len(over[0]) == 1 and over[0] == over[1] and over[0][0].forfeited_by is None
    assert [r.to_dict()["signatures"] for r in link.records(0)] == [
        r.to_dict()["signatures"] for r in link.records(1)]
    assert all(audit_record(r).ok for seat in (0, 1) for r in link.records(seat))


@pytest.mark.slow
def test_a_damaged_save_is_refused_as_a_local_fault_never_blamed_on_the_peer() -> None:
    saved: list[dict[str, Any]] = []

    def save(link: Link, moves: int) -> None:
        if moves == 6:
            saved.append(link.s[1].to_state())

    link = Link()
    link.run(save)
    packed = msgpack.packb(saved[0])
    rng = random.Random(11)
    refused = 0
    for i in sorted(rng.sample(range(len(packed)), 120)):
        damaged = bytearray(packed)
        damaged[i] ^= 1 << rng.randrange(8)
        try:
            state = msgpack.unpackb(bytes(damaged), raw=False)
        except (ValueError, msgpack.UnpackException):
            continue  # not even msgpack: the storage layer refuses it
        try:
            restored = Session.from_state(SECRET, state, source("r"), b"g" * 32)
        except CorruptState as exc:
            assert str(exc), i
            refused += 1
            continue
        # Whatever restores is the undamaged session (an equivalent encoding).
        assert restored.failure is None
        assert restored.to_state() == saved[0], i
    assert refused > 60


def test_restored_failure_stays_failed() -> None:
    host, guest, hello = handshake()
    guest.receive(hello[:20])
    restored = Session.from_state(SECRET, guest.to_state(), source("g"), b"g" * 32)
    assert restored.failure == guest.failure
    with pytest.raises(PeerFault):
        restored.receive(hello)


# --- protocol.md vectors ---------------------------------------------------------------


def protocol_vectors() -> dict[str, str]:
    blocks = re.findall(r"```vectors\n(.*?)```", PROTOCOL.read_text(encoding="utf-8"), re.S)
    pairs = (line.split(" = ", 1) for block in blocks for line in block.splitlines()
             if line.strip())
    return {name.strip(): value.strip() for name, value in pairs}


def test_session_vectors_in_protocol_md() -> None:
    v = protocol_vectors()
    link = link_id_for(SECRET)
    assert link.hex() == v["session_link_id"]
    host_key = cosign.Signer(bytes(range(32, 64))).public
    guest_key = cosign.Signer(bytes(range(64, 96))).public
    assert host_key.hex() == v["session_host_key"]
    assert guest_key.hex() == v["session_guest_key"]
    host_id, guest_id = Identity(bytes(range(128, 160))), Identity(bytes(range(160, 192)))
    assert host_id.public.hex() == v["session_host_identity"]
    assert guest_id.public.hex() == v["session_guest_identity"]
    assert host_id.vouch(link, 0, host_key, b"").hex() == v["session_host_vouch"]
    assert guest_id.vouch(link, 1, guest_key, b"").hex() == v["session_guest_vouch"]
    assert fingerprint(host_id.public) == v["session_host_fingerprint"]
    assert fingerprint(guest_id.public) == v["session_guest_fingerprint"]
    ids = (host_id.public, guest_id.public)
    match_id = cosign.match_id_for(link, (host_key, guest_key), ids, b"")
    assert match_id.hex() == v["session_match_id"]
    assert cosign.match_id_for(link, (host_key, guest_key), ids, match_id).hex() == v[
        "session_next_match_id"]
    assert rules_digest(STANDARD).hex() == v["session_rules_digest_standard"]
    host_nonce, guest_nonce = bytes(range(64, 96)), bytes(range(96, 128))
    assert coin(link, host_nonce).hex() == v["session_coin"]
    assert first_dealer_for(match_id, host_nonce, guest_nonce) == int(v["session_first_dealer"])


def test_hand_signature_vectors_in_protocol_md() -> None:
    v = protocol_vectors()
    (literal,) = re.findall(r"```transcript\n(.*?)\n```", PROTOCOL.read_text(encoding="utf-8"),
                            re.S)
    first, second = bytes(range(32)), bytes(range(32, 64))
    a, b = fd.SeedMaterial.from_seed(first), fd.SeedMaterial.from_seed(second)
    m1 = fd.build_message1(a)
    match_id = bytes.fromhex(v["hand_match_id"])
    m2, proof = fd.build_message2(b, m1, fd.context(match_id, 1))
    record = HandRecord(
        rules=STANDARD, match_id=match_id, hand_number=1, dealer=0,
        commitments=(fd.commitment(first, match_id, 1, fd.Role.FIRST),
                     fd.commitment(second, match_id, 1, fd.Role.SECOND)),
        messages=(m1, m2, fd.build_message3(a, m2)), proof=fd.proof_digest(proof),
        steps=(Step(1, None, ((0, b.position_keys[0]),)),
               Step(0, None, ((1, a.position_keys[1]),)),
               Step(1, parse_action("pass")), Step(0, parse_action("pass"))),
        seeds=(first, second), score=Score("dead", None, None, 0), scores=(0, 0))
    assert json.dumps(cosign.transcript(record), sort_keys=True, separators=(",", ":")) == literal
    digest = cosign.hand_digest(record)
    assert digest.hex() == v["hand_digest"]
    # Message 2 of that hand, signed by its second shuffler (the guest: the host deals).
    signed = cosign.message2_digest(1, fd.context(match_id, 1), m1, m2, proof)
    assert signed.hex() == v["message2_digest"]
    guest = cosign.Signer(bytes(range(64, 96)))
    assert guest.sign(signed).hex() == v["message2_signature_guest"]
    # Each side signs the digest followed by its own seed (the host deals: seed 0 is its).
    for seat, key_seed in (("host", bytes(range(32, 64))), ("guest", bytes(range(64, 96)))):
        signer = cosign.Signer(key_seed)
        message = cosign.seat_signed(record, SEATS.index(seat))
        assert message == digest + record.seeds[SEATS.index(seat)]
        assert signer.sign(message).hex() == v[f"hand_signature_{seat}"]
        assert cosign.verify(signer.public, message, bytes.fromhex(v[f"hand_signature_{seat}"]))
        assert not cosign.verify(signer.public, digest, signer.sign(message))
