"""The online session: one peer of a match played through the fair deal, sans I/O.

A :class:`Session` is a state machine with no I/O of its own (like h11 or the
protocol core of websockets). The transport feeds it what arrives and sends what
it produces; the interface feeds it the local player's moves and shows its
events. Every call that changes the state returns nothing; its output collects
in two queues that the caller drains:

* :meth:`Session.data_to_send` — sealed frames for the peer, in order;
* :meth:`Session.events` — :class:`SessionEvent` values for the interface.

Inputs: :meth:`receive` (a frame), :meth:`act` (the local player's action),
:meth:`peer_timed_out` (the transport's timer ran out while
:meth:`waiting_for` named a message the peer owes). Both peers run the rules
engine in lockstep; each opponent move is checked the moment it can be, the
rest at hand end by :func:`gin.audit.audit_record`. Any fault is final: the
session emits one :class:`Failure` event, tells the peer (``abort``) when the
channel still works, and every later input raises the same :class:`PeerFault`.

The protocol is specified in ``protocol.md``; section numbers below refer to it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gin import fairdeal as fd
from gin import wire
from gin.actions import Action, BigGin, Discard, DrawStock, Knock, parse_action
from gin.audit import audit_record
from gin.cards import Card
from gin.errors import IllegalAction, MalformedInput, PeerFault
from gin.hand import UPCARD_POSITION, Hand, HandResult, Observation, Phase, dealt_positions
from gin.match import Match
from gin.players import Player
from gin.records import SEATS, HandRecord, Score, Step
from gin.rules import Ruleset
from gin.scoring import MatchTotals

DOMAIN = b"gin/session/v1/"
NONCE_BYTES = 32
KEY_BYTES = 32
MATCH_ID_BYTES = 16
MAX_ACTION_CHARS = 256
MAX_REASON_CHARS = 400
MAX_RULE_NUMBER = 10_000
HAND_KEYS = 11  # ten dealt cards and the upcard
STATE_VERSION = 1

SessionRole = Literal["host", "guest"]


def match_id_for(secret: bytes) -> bytes:
    """The match id both peers derive from the invite secret (protocol.md §4)."""
    return hashlib.sha256(DOMAIN + b"match-id\x00" + secret).digest()[:MATCH_ID_BYTES]


def rules_digest(rules: Ruleset) -> bytes:
    """SHA-256 of the ruleset's canonical JSON: what the guest agrees to (§4, §7.1)."""
    text = json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(DOMAIN + b"rules\x00" + text.encode()).digest()


def _coin(nonce: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + b"coin\x00" + nonce).digest()


def first_dealer_for(host_nonce: bytes, guest_nonce: bytes) -> int:
    """The seat that deals the first hand: a coin both sides toss (§4, §7.1)."""
    return hashlib.sha256(DOMAIN + b"first-dealer\x00" + host_nonce + guest_nonce).digest()[0] & 1


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionEvent:
    """Something the interface should know about."""


@dataclass(frozen=True)
class MatchStarted(SessionEvent):
    rules: Ruleset
    seat: int  # the local player's seat: 0 host, 1 guest
    first_dealer: int
    match_id: bytes


@dataclass(frozen=True)
class RulesOffered(SessionEvent):
    """The host proposes custom rules (not a preset). The guest plays them only once
    its player, shown ``rules.describe()``, accepts (:meth:`Session.accept_rules`)."""

    rules: Ruleset


@dataclass(frozen=True)
class HandDealt(SessionEvent):
    hand_number: int
    dealer: int
    cards: tuple[Card, ...]  # the local player's ten cards
    upcard: Card


@dataclass(frozen=True)
class Moved(SessionEvent):
    """A move applied to the hand, by either seat (the knock once both have shown)."""

    seat: int
    action: Action


@dataclass(frozen=True)
class CardDrawn(SessionEvent):
    """The local player's stock draw, now opened."""

    card: Card


@dataclass(frozen=True)
class HandScored(SessionEvent):
    """The hand is over in the engine; it is verified when both seeds are in."""

    hand_number: int
    result: HandResult
    scores: tuple[int, int]


@dataclass(frozen=True)
class HandVerified(SessionEvent):
    """The hand audited clean. ``record`` is to be saved (see :mod:`gin.records`)."""

    hand_number: int
    record: HandRecord


@dataclass(frozen=True)
class MatchOver(SessionEvent):
    """The match ended: by reaching the target (``totals``) or by a forfeit."""

    winner: int
    totals: MatchTotals | None
    forfeited_by: str | None  # "host" or "guest" when the match was forfeited


@dataclass(frozen=True)
class Failure(SessionEvent):
    """The session stopped. ``who`` is at fault: "host", "guest" or "relay"."""

    who: str
    field: str
    reason: str


@dataclass(frozen=True)
class CheatDetected(Failure):
    """The peer broke the rules or the fair deal (including refusing its seed).

    ``record`` is the hand's evidence when the hand-end audit found it.
    """

    record: HandRecord | None = None


@dataclass(frozen=True)
class ProtocolError(Failure):
    """A frame or message that is malformed, unexpected now, or not authentic."""


@dataclass(frozen=True)
class PeerTimedOut(Failure):
    """The transport reported that the peer did not send what it owed in time."""


@dataclass(frozen=True)
class PeerAborted(Failure):
    """The peer ended the match; ``who`` is whom it blames, ``reason`` its words."""


@dataclass(frozen=True)
class RulesDeclined(Failure):
    """The local player declined the host's custom rules: the match never began."""


_FAILURES: dict[str, type[Failure]] = {
    cls.__name__: cls
    for cls in (CheatDetected, ProtocolError, PeerTimedOut, PeerAborted, RulesDeclined)
}


class _Protocol(PeerFault):
    """The peer's message is malformed or out of turn."""


class _Cheat(PeerFault):
    """The peer's message is well formed but breaks the rules or the fair deal."""


# --- the state of one hand ------------------------------------------------------------


class _HandState:
    """The fair-deal bookkeeping of the hand in play, beside the engine's Hand."""

    def __init__(self, number: int, dealer: int, me: int, seed: bytes, match_id: bytes) -> None:
        self.number = number
        self.dealer = dealer
        self.role = fd.Role.FIRST if me == dealer else fd.Role.SECOND
        self.mine = fd.SeedMaterial.from_seed(seed)
        self.commits: dict[fd.Role, bytes] = {
            self.role: fd.commitment(seed, match_id, number, self.role)
        }
        self.messages: list[fd.Deck | None] = [None, None, None]
        self.dealt = False
        self.keys_sent: set[int] = set()  # positions whose key we gave the peer
        self.peer_positions: set[int] = set()  # positions the peer was dealt or drew
        self.draw_pending: int | None = None  # our stock draw, awaiting the peer's key
        self.knock_pending: Action | None = None  # our knock, awaiting the peer's show
        self.their_seed: bytes | None = None
        self.steps: list[Step] = []

    def expected_deck(self) -> int | None:
        """The deck message (1..3) the peer owes next, or None."""
        m1, m2, m3 = self.messages
        if self.role is fd.Role.SECOND:
            return 1 if m1 is None else (3 if m3 is None else None)
        return 2 if m1 is not None and m2 is None else None


# --- the session ----------------------------------------------------------------------


class Session:
    """One peer of an online match. See the module docstring and ``protocol.md``.

    ``role`` "host" (seat 0, proposes ``rules``) or "guest" (seat 1; ``rules``
    None plays a preset the host proposes, and custom rules once its player accepts
    them after :class:`RulesOffered`; a Ruleset insists on it). ``secret`` is the 32-byte
    invite secret; ``random_bytes(n)`` supplies fresh secret randomness (seeds
    and the coin toss). The host's ``hello`` is queued at once.
    """

    def __init__(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
                 random_bytes: Callable[[int], bytes]) -> None:
        self._setup(role, secret, rules, random_bytes)
        self._begin()

    def _setup(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
               random_bytes: Callable[[int], bytes]) -> None:
        if role not in SEATS:
            raise MalformedInput(f"session role must be 'host' or 'guest', got {role!r}")
        if role == "host" and rules is None:
            raise MalformedInput("the host proposes the ruleset: rules must be given")
        self.role: SessionRole = role
        self.seat = SEATS.index(role)
        self.peer = 1 - self.seat
        self.match_id = match_id_for(secret)
        self._channel = wire.SealedChannel(secret, self.match_id, wire.Side(role))
        self._proposed = rules
        self._rules = rules
        self._offer: Ruleset | None = None  # custom rules awaiting the local player
        self._random_bytes = random_bytes
        self._nonce: bytes | None = None
        self._peer_coin: bytes | None = None
        self._match: Match | None = None
        self._hand: _HandState | None = None
        self._over = False
        self._failure: Failure | None = None
        self._events: list[SessionEvent] = []
        self._outbox: list[bytes] = []
        self._log: list[list[object]] = []  # the inputs, replayed by from_state
        self._muted = False  # while replaying a saved log: nothing is sealed

    def _begin(self) -> None:
        if self.role == "host":
            assert self._rules is not None
            self._nonce = self._random(NONCE_BYTES)
            self._send("hello", {"rules": self._rules.to_dict(), "coin": _coin(self._nonce)})

    # -- queues and queries ---------------------------------------------------------

    def data_to_send(self) -> list[bytes]:
        """Frames to send, oldest first; the queue is emptied."""
        out, self._outbox = self._outbox, []
        return out

    def events(self) -> list[SessionEvent]:
        """Events since the last call, oldest first; the queue is emptied."""
        out, self._events = self._events, []
        return out

    def resend(self) -> list[bytes]:
        """Every frame the peer has not acknowledged, to send again after a reconnect."""
        return list(self._channel.unacked())

    @property
    def received(self) -> int:
        """Frames received from the peer so far (the next sequence number expected)."""
        return self._channel.next_receive_seq

    @property
    def failure(self) -> Failure | None:
        return self._failure

    @property
    def over(self) -> bool:
        """The match is finished (normally or by a failure): no more input is taken."""
        return self._over or self._failure is not None

    @property
    def rules(self) -> Ruleset | None:
        """The agreed ruleset (for a guest, None until the host's hello)."""
        return self._rules

    def observation(self) -> Observation | None:
        """What the local player sees, or None before the first deal."""
        if self._match is None or self._match.hand is None:
            return None
        return self._match.observation(self.seat)

    def legal_actions(self) -> list[Action]:
        """The local player's legal actions; empty unless it is its move now."""
        if self._local_refusal() is not None:
            return []
        assert self._match is not None
        return self._match.legal_actions()

    def waiting_for(self) -> str | None:
        """The message type the peer owes now, or None (our move, or the match is over).

        The transport starts its timer while this is not None.
        """
        if self.over:
            return None
        if self._match is None:
            if self.role == "host":
                return "welcome"
            if self._offer is not None:
                return None  # the local player is deciding on the rules
            return "hello" if self._peer_coin is None else "start"
        hs = self._hand
        assert hs is not None
        if self._peer_role() not in hs.commits:
            return "commit"
        if hs.expected_deck() is not None:
            return "deck"
        if not hs.dealt:
            return "deal"
        hand = self._engine()
        if hand.phase is Phase.OVER:
            return "seed"
        if hs.draw_pending is not None:
            return "key"
        if hs.knock_pending is not None:
            return "show"
        return "move" if hand.turn == self.peer else None

    # -- inputs ----------------------------------------------------------------------

    def receive(self, frame: bytes) -> None:
        """Take one frame from the transport. Duplicates and early frames are ignored."""
        self._check_alive()
        try:
            plaintext = self._channel.open(frame)
        except wire.FrameIgnored:
            return  # a re-send or reordering: harmless, nothing changed (§5)
        except wire.ChannelFault as exc:
            self._fail(ProtocolError(exc.who, exc.field, str(exc)))
            return
        self._log.append(["in", plaintext])
        self._deliver(plaintext)

    def act(self, action: Action) -> None:
        """Play the local player's move. IllegalAction (nothing changes) if not allowed."""
        self._check_alive()
        why = self._local_refusal()
        if why is None:
            why = self._engine().refusal(self.seat, action)
        if why is not None:
            raise IllegalAction(f"{self.role} cannot {action} now: {why}")
        self._log.append(["act", str(action)])
        self._act(action)

    @property
    def rules_offered(self) -> Ruleset | None:
        """The host's custom rules while they await the local player's answer."""
        return self._offer

    def accept_rules(self) -> None:
        """The local player accepts the offered custom rules: the match goes on."""
        self._check_alive()
        if self._offer is None:
            raise IllegalAction("no rules are waiting to be accepted")
        self._log.append(["accept"])
        self._accept()

    def decline_rules(self, reason: str = "you declined the host's custom rules") -> None:
        """The local player declines the offered custom rules: the match ends unplayed.
        ``reason`` is what the local failure says."""
        self._check_alive()
        if self._offer is None:
            raise IllegalAction("no rules are waiting to be declined")
        self._offer = None
        self._send("abort", {"who": "guest", "field": "hello.rules",
                             "reason": "the guest declined the host's custom rules"})
        self._fail(RulesDeclined("guest", "hello.rules", reason))

    def peer_timed_out(self) -> None:
        """The peer did not send what :meth:`waiting_for` names in time: it forfeits.

        A missing seed is a failed audit. Does nothing when the peer owes nothing.
        """
        self._check_alive()
        if self.waiting_for() is None:
            return
        self._log.append(["timeout"])
        self._timed_out()

    # -- persistence -------------------------------------------------------------------

    def to_state(self) -> dict[str, object]:
        """Plain data (msgpack-able; holds this hand's secret seed: keep it private).

        Write-ahead rule (§11.2): persist after every input whose call queued frames,
        and before sending them.
        """
        failure = self._failure
        return {
            "v": STATE_VERSION,
            "role": self.role,
            "rules": None if self._proposed is None else self._proposed.to_dict(),
            "channel": self._channel.to_state(),
            "log": [list(entry) for entry in self._log],
            "failure": None if failure is None else [
                type(failure).__name__, failure.who, failure.field, failure.reason],
        }

    @classmethod
    def from_state(cls, secret: bytes, state: Mapping[str, object],
                   random_bytes: Callable[[int], bytes]) -> Session:
        """Rebuild a session from :meth:`to_state`: the log is replayed, then the channel
        restored. Call :meth:`resend` once connected. MalformedInput if corrupt."""
        reader = wire.Message("session-state", STATE_VERSION, state, "")
        reader.only("v", "role", "rules", "channel", "log", "failure")
        reader.integer("v", low=STATE_VERSION, high=STATE_VERSION)
        role: SessionRole = "host" if reader.text(
            "role", max_len=5, choices=SEATS) == "host" else "guest"
        rules = None if state.get("rules") is None else Ruleset.from_dict(state["rules"])
        log = _read_log(reader.array("log", max_len=1 << 20))
        drawn = iter([entry[1] for entry in log if entry[0] == "rand"])

        def logged_random(n: int) -> bytes:
            value = next(drawn, None)
            if not isinstance(value, bytes) or len(value) != n:
                raise MalformedInput("session state: the log's random draws do not replay")
            return value

        session = cls.__new__(cls)
        session._setup(role, secret, rules, logged_random)
        session._muted = True
        session._begin()
        for entry in log:
            if entry[0] == "in":
                assert isinstance(entry[1], bytes)
                session._deliver(entry[1])
            elif entry[0] == "act":
                assert isinstance(entry[1], str)
                session._act(parse_action(entry[1]))
            elif entry[0] == "timeout":
                session._timed_out()
            elif entry[0] == "accept":
                session._accept()
        channel = state["channel"]
        if not isinstance(channel, Mapping):
            raise MalformedInput("session state: 'channel' must be a map")
        session._channel = wire.SealedChannel.from_state(secret, channel)
        session._log = [list(entry) for entry in log]
        session._random_bytes = random_bytes
        session._muted = False
        session._events.clear()
        session._outbox.clear()
        failure = state.get("failure")
        if failure is not None:
            if not (isinstance(failure, list | tuple) and len(failure) == 4
                    and failure[0] in _FAILURES and all(isinstance(x, str) for x in failure)):
                raise MalformedInput("session state: 'failure' must be [kind, who, field, reason]")
            session._failure = _FAILURES[failure[0]](failure[1], failure[2], failure[3])
        return session

    # -- internals: sending, failing -------------------------------------------------------

    def _random(self, n: int) -> bytes:
        value = self._random_bytes(n)
        if not isinstance(value, bytes) or len(value) != n:
            raise MalformedInput(f"random_bytes({n}) must return {n} bytes")
        self._log.append(["rand", value])
        return value

    def _send(self, msg_type: str, fields: Mapping[str, object]) -> None:
        if not self._muted:
            self._outbox.append(self._channel.seal(wire.pack(msg_type, fields)))

    def _emit(self, event: SessionEvent) -> None:
        self._events.append(event)

    def _check_alive(self) -> None:
        if self._failure is not None:
            f = self._failure
            raise PeerFault(f"the session has failed: {f.reason}", who=f.who, field=f.field)

    def _fail(self, failure: Failure) -> None:
        self._failure = failure
        self._emit(failure)
        peer = SEATS[self.peer]
        if failure.who == peer and not isinstance(failure, PeerAborted):
            self._emit(MatchOver(self.seat, None, peer))
            if self._channel.failed is None:
                self._send("abort", {"who": failure.who, "field": failure.field[:64],
                                     "reason": failure.reason[:MAX_REASON_CHARS]})

    def _timed_out(self) -> None:
        owed = self.waiting_for()
        peer = SEATS[self.peer]
        if owed == "seed":
            self._fail(CheatDetected(peer, "seed",
                                     f"{peer} did not reveal its seed in time: a failed audit"))
        else:
            self._fail(PeerTimedOut(peer, str(owed), f"{peer} did not send its {owed} in time"))

    # -- internals: accessors ------------------------------------------------------------

    def _engine(self) -> Hand:
        assert self._match is not None and self._match.hand is not None
        return self._match.hand

    def _state(self) -> _HandState:
        assert self._hand is not None
        return self._hand

    def _peer_role(self) -> fd.Role:
        return self._state().role.other

    def _local_refusal(self) -> str | None:
        if self.over:
            return "the match is over"
        if self._hand is None or not self._hand.dealt:
            return "the hand is not dealt yet"
        owed = self.waiting_for()
        if owed is not None:
            return f"waiting for {SEATS[self.peer]}'s {owed}"
        return None

    def _position_of(self, card: Card) -> int:
        hand = self._engine()
        return next(p for p in range(fd.DECK_SIZE) if hand.card_at(p) == card)

    # -- internals: the message loop --------------------------------------------------------

    def _deliver(self, plaintext: bytes) -> None:
        peer = SEATS[self.peer]
        try:
            msg = wire.unpack(plaintext)
            handler = _HANDLERS.get(msg.type)
            if handler is None:
                raise _Protocol(f"unknown message type {msg.type!r}", who=peer, field="t")
            owed = self.waiting_for()
            if msg.type != "abort" and msg.type != owed:
                raise _Protocol(
                    f"unexpected {msg.type!r} message while waiting for "
                    f"{owed or 'the local player'}", who=peer, field="t")
            handler(self, msg)
        except wire.MalformedMessage as exc:
            self._fail(ProtocolError(peer, exc.field, str(exc)))
        except _Protocol as exc:
            self._fail(ProtocolError(peer, exc.field, str(exc)))
        except PeerFault as exc:
            self._fail(CheatDetected(peer, exc.field, str(exc)))

    def _hand_fields(self, msg: wire.Message, *names: str) -> None:
        msg.only("h", *names)
        number = msg.integer("h", low=0, high=fd.MAX_HAND_NUMBER)
        if number != self._state().number:
            raise _Protocol(f"{msg.type}: hand {number}, but hand {self._state().number} is in "
                            "play", who=SEATS[self.peer], field=f"{msg.type}.h")

    def _on_hello(self, msg: wire.Message) -> None:
        msg.only("rules", "coin")
        rules = _read_rules(msg)
        if self._proposed is not None and rules != self._proposed:
            raise _Protocol(f"the host proposes the {rules.name} rules {rules.to_dict()}, which "
                            "this guest did not agree to", who="host", field="hello.rules")
        self._peer_coin = msg.blob("coin", size=32)
        if self._proposed is None and not rules.is_preset:  # shown, then accepted (§7.1)
            self._offer = rules
            self._emit(RulesOffered(rules))
        else:
            self._welcome(rules)

    def _accept(self) -> None:
        assert self._offer is not None
        rules, self._offer = self._offer, None
        self._welcome(rules)

    def _welcome(self, rules: Ruleset) -> None:
        self._rules = rules
        self._nonce = self._random(NONCE_BYTES)
        self._send("welcome", {"rules": rules_digest(rules), "nonce": self._nonce})

    def _on_welcome(self, msg: wire.Message) -> None:
        msg.only("rules", "nonce")
        assert self._rules is not None and self._nonce is not None
        if msg.blob("rules", size=32) != rules_digest(self._rules):
            raise _Protocol("the guest agreed to another ruleset", who="guest",
                            field="welcome.rules")
        guest_nonce = msg.blob("nonce", size=NONCE_BYTES)
        self._send("start", {"nonce": self._nonce})
        self._start_match(first_dealer_for(self._nonce, guest_nonce))

    def _on_start(self, msg: wire.Message) -> None:
        msg.only("nonce")
        host_nonce = msg.blob("nonce", size=NONCE_BYTES)
        if _coin(host_nonce) != self._peer_coin:
            raise _Cheat("the host's nonce does not open its coin commitment", who="host",
                         field="start.nonce")
        assert self._nonce is not None
        self._start_match(first_dealer_for(host_nonce, self._nonce))

    def _start_match(self, first_dealer: int) -> None:
        assert self._rules is not None
        self._match = Match(self._rules, first_dealer)
        self._emit(MatchStarted(self._rules, self.seat, first_dealer, self.match_id))
        self._start_hand()

    def _start_hand(self) -> None:
        assert self._match is not None
        number = 1 if self._hand is None else self._hand.number + 1
        hs = _HandState(number, self._match.dealer, self.seat, self._random(fd.SEED_BYTES),
                        self.match_id)
        self._hand = hs
        self._send("commit", {"h": number, "c": hs.commits[hs.role]})

    def _on_commit(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "c")
        hs = self._state()
        hs.commits[hs.role.other] = msg.blob("c", size=32)
        if hs.role is fd.Role.FIRST:  # commitments exchanged: the first shuffle may go
            message1 = fd.build_message1(hs.mine)
            hs.messages[0] = message1
            self._send("deck", {"h": hs.number, "n": 1, "deck": list(message1)})

    def _on_deck(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "n", "deck")
        hs = self._state()
        n = msg.integer("n", low=1, high=3)
        if n != hs.expected_deck():
            raise _Protocol(f"deck message {n} while waiting for message {hs.expected_deck()}",
                            who=SEATS[self.peer], field="deck.n")
        entries = msg.blobs("deck", min_len=fd.DECK_SIZE, max_len=fd.DECK_SIZE, size=32)
        try:
            deck = fd.validate_message(list(entries), f"message{n}")
        except fd.MalformedDeck as exc:
            where = exc.field if exc.position is None else f"{exc.field}[{exc.position}]"
            raise _Cheat(str(exc), who=SEATS[self.peer], field=where) from None
        hs.messages[n - 1] = deck
        if n in (1, 2):  # answer with the next message: 2 (second shuffler) or 3 (first)
            build = fd.build_message2 if n == 1 else fd.build_message3
            reply = build(hs.mine, deck)
            hs.messages[n] = reply
            self._send("deck", {"h": hs.number, "n": n + 1, "deck": list(reply)})
        if n in (2, 3):
            self._send_deal()

    def _send_deal(self) -> None:
        hs = self._state()
        positions = [*dealt_positions(self.peer == hs.dealer), UPCARD_POSITION]
        keys = [hs.mine.position_keys[p] for p in positions]
        hs.keys_sent.update(positions)
        hs.steps.append(Step(self.seat, None, tuple(zip(positions, keys, strict=True))))
        self._send("deal", {"h": hs.number, "keys": [_key_bytes(k) for k in keys]})

    def _on_deal(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "keys")
        hs = self._state()
        assert self._match is not None
        keys = msg.blobs("keys", min_len=HAND_KEYS, max_len=HAND_KEYS, size=KEY_BYTES)
        positions = [*dealt_positions(self.seat == hs.dealer), UPCARD_POSITION]
        deck: list[Card | None] = [None] * fd.DECK_SIZE
        pairs = []
        for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
            deck[pos] = self._open(pos, key, f"deal.keys[{i}]")
            pairs.append((pos, int.from_bytes(key, "big")))
        try:
            hand = self._match.deal(deck)
        except MalformedInput as exc:
            raise _Cheat(f"the dealt cards are corrupt: {exc}", who=SEATS[self.peer],
                         field="deal.keys") from None
        hs.dealt = True
        hs.peer_positions.update(dealt_positions(self.peer == hs.dealer))
        hs.steps.append(Step(self.peer, None, tuple(pairs)))
        self._emit(HandDealt(hs.number, hs.dealer, hand.cards(self.seat),
                             hand.pile[-1]))

    def _open(self, position: int, key: bytes, field: str) -> Card:
        """The card at ``position``, opened with our key and the peer's; PeerFault if not."""
        hs = self._state()
        messages3 = hs.messages[2]
        assert messages3 is not None
        try:
            index = fd.open_card(messages3, position, hs.mine.position_keys[position],
                                 int.from_bytes(key, "big"), hs.role.other)
        except PeerFault as exc:
            raise _Cheat(f"{field}: {exc}", who=SEATS[self.peer], field=field) from None
        return Card.from_index(index)

    def _reveal_all(self, msg: wire.Message, name: str, max_keys: int
                    ) -> tuple[tuple[int, int], ...]:
        """Open and reveal the peer's hidden positions listed in ``pos``/``keys``."""
        hs = self._state()
        hand = self._engine()
        positions = msg.integers("pos", max_len=max_keys, low=0, high=fd.DECK_SIZE - 1)
        keys = msg.blobs("keys", max_len=max_keys, size=KEY_BYTES)
        if len(positions) != len(keys):
            raise _Protocol(f"{name}: {len(positions)} positions but {len(keys)} keys",
                            who=SEATS[self.peer], field=f"{name}.keys")
        pairs = []
        for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
            field = f"{name}.pos[{i}]"
            if pos not in hs.peer_positions or hand.card_at(pos) is not None:
                raise _Cheat(f"{field}: position {pos} is not a hidden card of "
                             f"{SEATS[self.peer]}", who=SEATS[self.peer], field=field)
            card = self._open(pos, key, f"{name}.keys[{i}]")
            try:
                hand.reveal(pos, card)
            except MalformedInput as exc:
                raise _Cheat(f"{field}: {exc}", who=SEATS[self.peer], field=field) from None
            pairs.append((pos, int.from_bytes(key, "big")))
        return tuple(pairs)

    def _on_move(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "a", "pos", "keys")
        hs = self._state()
        hand = self._engine()
        peer = SEATS[self.peer]
        text = msg.text("a", max_len=MAX_ACTION_CHARS)
        try:
            action = parse_action(text)
        except MalformedInput as exc:
            raise _Protocol(str(exc), who=peer, field="move.a") from None
        allowed = HAND_KEYS if isinstance(action, Knock | BigGin) else (
            1 if isinstance(action, Discard) else 0)
        pairs = self._reveal_all(msg, "move", allowed)
        if isinstance(action, Discard) and pairs:
            shown = hand.card_at(pairs[0][0])
            if shown != action.card:
                raise _Cheat(f"move.keys[0]: opens {shown}, not the discarded {action.card}",
                             who=peer, field="move.keys[0]")
        why = hand.refusal(self.peer, action)
        if why is not None:
            raise _Cheat(f"{peer} cannot {action}: {why}", who=peer, field="move.a")
        hs.steps.append(Step(self.peer, action, pairs))
        drawn = hand.next_stock_position
        self._apply(self.peer, action)
        if isinstance(action, DrawStock):  # announced: only now may the key go (§7.4)
            hs.peer_positions.add(drawn)
            key = hs.mine.position_keys[drawn]
            hs.keys_sent.add(drawn)
            hs.steps.append(Step(self.seat, None, ((drawn, key),)))
            self._send("key", {"h": hs.number, "pos": drawn, "key": _key_bytes(key)})
        elif isinstance(action, Knock | BigGin):
            pairs = self._unrevealed_keys()
            hs.steps.append(Step(self.seat, None, pairs))
            self._send("show", {"h": hs.number, "pos": [p for p, _ in pairs],
                                "keys": [_key_bytes(k) for _, k in pairs]})
        self._after_move()

    def _on_key(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "pos", "key")
        hs = self._state()
        pos = msg.integer("pos", low=0, high=fd.DECK_SIZE - 1)
        if pos != hs.draw_pending:
            raise _Protocol(f"key for position {pos}, but the card drawn is at "
                            f"{hs.draw_pending}", who=SEATS[self.peer], field="key.pos")
        key = msg.blob("key", size=KEY_BYTES)
        card = self._open(pos, key, "key.key")
        try:
            self._engine().reveal(pos, card)
        except MalformedInput as exc:
            raise _Cheat(f"key.key: {exc}", who=SEATS[self.peer], field="key.key") from None
        hs.draw_pending = None
        hs.steps.append(Step(self.peer, None, ((pos, int.from_bytes(key, "big")),)))
        self._emit(CardDrawn(card))

    def _on_show(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "pos", "keys")
        hs = self._state()
        pairs = self._reveal_all(msg, "show", HAND_KEYS)
        hidden = self._engine().hidden_count(self.peer)
        if hidden:
            raise _Cheat(f"show: {hidden} of {SEATS[self.peer]}'s cards are still hidden",
                         who=SEATS[self.peer], field="show.pos")
        hs.steps.append(Step(self.peer, None, pairs))
        action, hs.knock_pending = hs.knock_pending, None
        assert action is not None
        self._apply(self.seat, action)
        self._after_move()

    def _on_seed(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "seed")
        hs = self._state()
        hs.their_seed = msg.blob("seed", size=fd.SEED_BYTES)
        record = self._record()
        report = audit_record(record, trust_seat=self.seat)
        if not report.ok:
            first = report.findings[0]
            self._fail(CheatDetected(first.who, first.where, str(first), record))
            return
        self._emit(HandVerified(hs.number, record))
        assert self._match is not None
        totals = self._match.totals
        if totals is not None:
            self._over = True
            self._emit(MatchOver(totals.winner, totals, None))
        else:
            self._start_hand()

    def _on_abort(self, msg: wire.Message) -> None:
        msg.only("who", "field", "reason")
        who = msg.text("who", max_len=5, choices=(*SEATS, "relay"))
        field = msg.text("field", max_len=64)
        reason = msg.text("reason", max_len=MAX_REASON_CHARS)
        peer = SEATS[self.peer]
        if self.waiting_for() == "seed":
            self._fail(CheatDetected(peer, "seed", f"{peer} refused to reveal its seed "
                                     f"(a failed audit); it said: {reason}"))
        else:
            self._fail(PeerAborted(who, field, f"{peer} ended the match: {reason}"))

    # -- internals: local moves and the hand's end ------------------------------------------

    def _act(self, action: Action) -> None:
        hs = self._state()
        hand = self._engine()
        pairs: tuple[tuple[int, int], ...] = ()
        if isinstance(action, Discard):
            pos = self._position_of(action.card)
            pairs = () if pos in hs.keys_sent else ((pos, hs.mine.position_keys[pos]),)
        elif isinstance(action, Knock | BigGin):
            pairs = self._unrevealed_keys()
        hs.keys_sent.update(p for p, _ in pairs)
        hs.steps.append(Step(self.seat, action, pairs))
        self._send("move", {"h": hs.number, "a": str(action), "pos": [p for p, _ in pairs],
                            "keys": [_key_bytes(k) for _, k in pairs]})
        if isinstance(action, Knock | BigGin):
            hs.knock_pending = action  # applied once the defender has shown its cards
            return
        if isinstance(action, DrawStock):
            hs.draw_pending = hand.next_stock_position
        self._apply(self.seat, action)
        self._after_move()

    def _unrevealed_keys(self) -> tuple[tuple[int, int], ...]:
        """Our keys for every card we hold that the peer cannot open yet."""
        hs = self._state()
        positions = sorted(self._position_of(c) for c in self._engine().cards(self.seat))
        pairs = tuple((p, hs.mine.position_keys[p]) for p in positions if p not in hs.keys_sent)
        hs.keys_sent.update(p for p, _ in pairs)
        return pairs

    def _apply(self, seat: int, action: Action) -> None:
        assert self._match is not None
        self._match.apply(seat, action)
        self._emit(Moved(seat, action))

    def _after_move(self) -> None:
        hand = self._engine()
        if hand.result is None:
            return
        hs = self._state()
        assert self._match is not None
        self._emit(HandScored(hs.number, hand.result,
                              (self._match.scores[0], self._match.scores[1])))
        self._send("seed", {"h": hs.number, "seed": hs.mine.seed})

    def _record(self) -> HandRecord:
        hs = self._state()
        hand = self._engine()
        assert self._match is not None and hand.result is not None
        assert hs.their_seed is not None
        m1, m2, m3 = hs.messages
        assert m1 is not None and m2 is not None and m3 is not None
        seeds = {hs.role: hs.mine.seed, hs.role.other: hs.their_seed}
        return HandRecord(
            rules=self._match.rules,
            match_id=self.match_id,
            hand_number=hs.number,
            dealer=hs.dealer,
            commitments=(hs.commits[fd.Role.FIRST], hs.commits[fd.Role.SECOND]),
            messages=(m1, m2, m3),
            steps=tuple(hs.steps),
            seeds=(seeds[fd.Role.FIRST], seeds[fd.Role.SECOND]),
            score=Score.of(hand.result),
            scores=(self._match.scores[0], self._match.scores[1]),
        )


_HANDLERS: dict[str, Callable[[Session, wire.Message], None]] = {
    "hello": Session._on_hello,
    "welcome": Session._on_welcome,
    "start": Session._on_start,
    "commit": Session._on_commit,
    "deck": Session._on_deck,
    "deal": Session._on_deal,
    "move": Session._on_move,
    "key": Session._on_key,
    "show": Session._on_show,
    "seed": Session._on_seed,
    "abort": Session._on_abort,
}


def _key_bytes(key: int) -> bytes:
    return key.to_bytes(KEY_BYTES, "big")


def _read_rules(msg: wire.Message) -> Ruleset:
    rules = msg.submap("rules")
    for name, value in rules.fields.items():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            rules.integer(name, low=0, high=MAX_RULE_NUMBER)
        else:
            rules.text(name, max_len=32)
    try:
        return Ruleset.from_dict(dict(rules.fields))
    except MalformedInput as exc:
        raise wire.MalformedMessage(f"message 'hello': field 'rules': {exc}",
                                    field="rules") from None


def _read_log(entries: list[object]) -> list[list[object]]:
    kinds: dict[object, type | None] = {"rand": bytes, "in": bytes, "act": str, "timeout": None,
                                        "accept": None}
    out: list[list[object]] = []
    for i, entry in enumerate(entries):
        if not (isinstance(entry, list | tuple) and entry and entry[0] in kinds and (
            len(entry) == 1 if (want := kinds[entry[0]]) is None
            else len(entry) == 2 and isinstance(entry[1], want)
        )):
            raise MalformedInput(f"session state: log[{i}] is not a valid entry")
        out.append(list(entry))
    return out


# --- two sessions in one process -----------------------------------------------------------


def pump(a: Session, b: Session) -> int:
    """Hand each session's queued frames to the other until both are quiet.

    For two sessions in one process (tests, benchmarks); returns the bytes moved.
    """
    moved = 0
    while True:
        frames = [(f, b) for f in a.data_to_send()] + [(f, a) for f in b.data_to_send()]
        if not frames:
            return moved
        for frame, target in frames:
            moved += len(frame)
            if not target.over:
                target.receive(frame)


def play_local(host: Session, guest: Session, players: Sequence[Player]) -> int:
    """Play a whole match between two sessions, ``players[seat]`` choosing each move.
    The guest accepts the host's rules, custom ones too.

    Stops when both are over or neither can move (a failure); returns wire bytes.
    """
    moved = pump(host, guest)
    if guest.rules_offered is not None:
        guest.accept_rules()
        moved += pump(host, guest)
    while not (host.over and guest.over):
        mover = next(((s, players[s.seat]) for s in (host, guest) if s.legal_actions()), None)
        if mover is None:
            return moved
        session, player = mover
        observation = session.observation()
        assert observation is not None
        session.act(player.choose(observation, session.legal_actions()))
        moved += pump(host, guest)
    return moved
