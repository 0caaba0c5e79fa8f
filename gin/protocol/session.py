"""The online session: one peer of a match played through the fair deal, sans I/O.

A :class:`Session` is a state machine with no I/O of its own (like h11 or the
protocol core of websockets). The transport feeds it what arrives and sends what
it produces; the interface feeds it the local player's moves and shows its
events. Every call that changes the state returns nothing; its output collects
in two queues that the caller drains:

* :meth:`Session.data_to_send` — frames for the peer, in order (offers, sealed
  messages, acks, re-sends);
* :meth:`Session.events` — :class:`SessionEvent` values for the interface.

Inputs: :meth:`receive` (a frame), :meth:`act` (the local player's action),
:meth:`poll` (the time now: re-sends what the peer has not acknowledged, with
back-off), :meth:`resend` (after a reconnect) and :meth:`peer_timed_out` (the
transport's timer ran out while :meth:`waiting_for` named a message the peer
owes). Both peers run the rules engine in lockstep; each opponent move is checked
the moment it can be, the rest at hand end by :func:`gin.protocol.audit.audit_record`.
Any fault is final: the session emits one :class:`Failure` event, tells the peer
(``abort``), and every later input raises the same :class:`PeerFault`. Only a
proven fault forfeits the match (:mod:`gin.protocol.session_events`).

Write-ahead: the caller MUST save :meth:`to_state` after any call that queued
frames and before sending them. The traffic keys are fresh for every session
object (a new match, or one restored from a save), so no nonce is used twice.

The protocol is specified in ``protocol.md``; section numbers below refer to it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Literal

from gin.engine.actions import Action, BigGin, Discard, DrawStock, Knock, parse_action
from gin.engine.cards import Card
from gin.engine.errors import GinError, IllegalAction, MalformedInput, PeerFault
from gin.engine.hand import UPCARD_POSITION, Hand, Observation, Phase, dealt_positions
from gin.engine.match import Match
from gin.engine.rules import Ruleset
from gin.players import Player
from gin.protocol import cosign, ecc, wire
from gin.protocol import fairdeal as fd
from gin.protocol import shuffle_proof as sp
from gin.protocol.audit import audit_record
from gin.protocol.cosign import link_id_for
from gin.protocol.records import SEATS, HandRecord, Score, Step
from gin.protocol.session_events import (
    FAILURES,
    CardDrawn,
    CheatDetected,
    Failure,
    FrameRejected,
    HandDealt,
    HandScored,
    HandVerified,
    MatchOver,
    MatchStarted,
    Moved,
    PeerAborted,
    PeerTimedOut,
    ProtocolError,
    RulesDeclined,
    RulesOffered,
    SessionEvent,
    Unresolved,
)

__all__ = [
    "CardDrawn", "CheatDetected", "CorruptState", "Failure", "FrameRejected", "HandDealt",
    "HandScored", "HandVerified", "MatchOver", "MatchStarted", "Moved", "PeerAborted",
    "PeerTimedOut", "ProtocolError", "RulesDeclined", "RulesOffered", "Session",
    "SessionEvent", "Unresolved",
    "first_dealer_for", "link_id_for", "play_local", "pump", "rules_digest",
]

DOMAIN = b"gin/session/v2/"
NONCE_BYTES = 32
KEY_BYTES = 32
MAX_ACTION_CHARS = 256
MAX_REASON_CHARS = 400
MAX_FIELD_CHARS = 64
MAX_RULE_NUMBER = 10_000
HAND_KEYS = 11  # ten dealt cards and the upcard
STATE_VERSION = 2
# Re-send what the peer has not acknowledged after this long, doubling each time.
RESEND_AFTER = 2.0
MAX_RESEND_AFTER = 32.0
ABORT_KINDS = ("cheat", "protocol", "tampered", "timeout", "declined")

SessionRole = Literal["host", "guest"]


class CorruptState(MalformedInput):
    """A saved session that does not replay to the state it claims: damaged on this
    machine (a local fault, never the peer's)."""


def rules_digest(rules: Ruleset) -> bytes:
    """SHA-256 of the ruleset's canonical JSON: what the guest agrees to (§4, §7.1)."""
    text = json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(DOMAIN + b"rules\x00" + text.encode()).digest()


def _coin(link_id: bytes, nonce: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + b"coin\x00" + link_id + nonce).digest()


def first_dealer_for(match_id: bytes, host_nonce: bytes, guest_nonce: bytes) -> int:
    """The seat that deals the first hand: a coin both sides toss (§4, §7.1)."""
    return hashlib.sha256(DOMAIN + b"first-dealer\x00" + match_id + host_nonce + guest_nonce
                          ).digest()[0] & 1


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
        self.shadows: tuple[fd.Deck, ...] | None = None  # the second's shuffle proof (§8.9)
        self.challenge: int | None = None
        self.shuffle_proven = False
        self.my_signature: bytes | None = None
        self.steps: list[Step] = []

    def expected_deck(self) -> int | None:
        """The deck message (1..3) the peer owes next, or None."""
        m1, m2, m3 = self.messages
        if self.role is fd.Role.SECOND:
            return 1 if m1 is None else (3 if m3 is None and self.challenge is not None else None)
        return 2 if m1 is not None and m2 is None else None

    def owed_before_deal(self) -> str | None:
        """The deck-phase message the peer owes now (§7.2), or None."""
        if self.expected_deck() is not None:
            return "deck"
        if self.role is fd.Role.SECOND:
            return "challenge" if self.messages[0] is not None and self.challenge is None \
                else None
        if self.messages[1] is not None and self.shadows is None:
            return "shuffle"
        if self.shadows is not None and not self.shuffle_proven:
            return "proof"
        return None


# --- the session ----------------------------------------------------------------------


class Session:
    """One peer of an online match. See the module docstring and ``protocol.md``.

    ``role`` "host" (seat 0, proposes ``rules``) or "guest" (seat 1; ``rules``
    None plays a preset the host proposes, and custom rules once its player accepts
    them after :class:`RulesOffered`; a Ruleset insists on it). ``secret`` is the 32-byte
    invite secret; ``random_bytes(n)`` supplies fresh secret randomness (the
    traffic keys' epoch, signing key, seeds and the coin toss). The offer frame
    and, for the host, its ``hello`` are queued at once.
    """

    def __init__(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
                 random_bytes: Callable[[int], bytes]) -> None:
        self._setup(role, secret, rules, random_bytes)
        self._channel = wire.SealedChannel(secret, wire.Side(role), self._fresh(wire.EPOCH_BYTES))
        self._outbox.append(self._channel.offer())
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
        self.link_id = link_id_for(secret)
        self.match_id: bytes | None = None  # once both signing keys are known
        self._proposed = rules
        self._rules = rules
        self._offer: Ruleset | None = None  # custom rules awaiting the local player
        self._random_bytes = random_bytes
        self._nonce: bytes | None = None
        self._signer: cosign.Signer | None = None
        self._peer_key: bytes | None = None
        self._peer_coin: bytes | None = None
        self._match: Match | None = None
        self._hand: _HandState | None = None
        self._over = False
        self._failure: Failure | None = None
        self._events: list[SessionEvent] = []
        self._outbox: list[bytes] = []
        self._log: list[list[object]] = []  # the inputs, replayed by from_state
        self._muted = False  # while replaying a saved log: nothing is sealed
        self._replayed: list[bytes] = []  # what the replay would have sent
        self._resend_at: float | None = None
        self._resend_after = RESEND_AFTER
        self._resend_timing = (RESEND_AFTER, MAX_RESEND_AFTER)

    def _begin(self) -> None:
        self._signer = cosign.Signer(self._random(cosign.KEY_SEED_BYTES))
        if self.role == "host":
            assert self._rules is not None
            self._nonce = self._random(NONCE_BYTES)
            self._send("hello", {"rules": self._rules.to_dict(),
                                 "coin": _coin(self.link_id, self._nonce),
                                 "key": self._signer.public})

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
        """Our offer and every message the peer has not acknowledged, to send again
        after a reconnect or when the peer (re)joins. Also queued by :meth:`poll`."""
        return list(self._channel.resend())

    def set_resend_timing(self, first: float, longest: float) -> None:
        """Re-send after ``first`` seconds without an ack, doubling up to ``longest``
        (protocol.md §5.4 recommends 2 and 32)."""
        if not 0 < first <= longest:
            raise MalformedInput("resend timing must satisfy 0 < first <= longest")
        self._resend_timing = (first, longest)
        self._resend_after = first

    def poll(self, now: float) -> bool:
        """The time is ``now`` (seconds, any fixed origin): queue a re-send of what the
        peer has not acknowledged when it has waited long enough (§5.4). True when a
        re-send was queued."""
        if self._channel.keyed and not self._channel.pending:
            self._resend_at, self._resend_after = None, self._resend_timing[0]
        elif self._resend_at is None:
            self._resend_at = now + self._resend_after
        elif now >= self._resend_at:
            self._outbox += self._channel.resend()
            self._resend_after = min(2 * self._resend_after, self._resend_timing[1])
            self._resend_at = now + self._resend_after
            return True
        return False

    @property
    def unacknowledged(self) -> int:
        """Messages sent that the peer has not acknowledged yet."""
        return self._channel.pending

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
        owed = hs.owed_before_deal()
        if owed is not None:
            return owed
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
        """Take one frame from the transport. Duplicates, frames after a gap and
        frames of another epoch are answered (the peer re-sends), never faults."""
        self._check_alive()
        pending = self._channel.pending
        try:
            got = self._channel.receive(frame)
        except wire.ChannelFault as exc:
            entry = ["reject", exc.field, str(exc), exc.proven]
            self._log.append(entry)
            self._rejected(entry)
            return
        if self._channel.pending < pending:  # progress: back-off starts again
            self._resend_at, self._resend_after = None, self._resend_timing[0]
        if got.message is not None:
            self._log.append(["in", got.message])
            self._deliver(got.message)
        self._outbox += got.replies

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
        self._send("abort", {"why": "declined", "field": "hello.rules",
                             "reason": "the guest declined the host's custom rules"})
        self._fail(RulesDeclined("guest", "hello.rules", reason))

    def peer_timed_out(self) -> None:
        """The peer did not send what :meth:`waiting_for` names in time.

        Unproven (the peer did not send it, or the relay did not deliver it): the
        session ends without a forfeit. Does nothing when the peer owes nothing.
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
        """Rebuild a session from :meth:`to_state`: the log is replayed and must lead
        exactly to the saved channel; the channel starts a new epoch (fresh keys from
        ``random_bytes``). Its offer and unacknowledged messages are queued.

        Raises :class:`CorruptState` (a local fault) for anything that does not check.
        """
        try:
            return cls._restore(secret, state, random_bytes)
        except CorruptState:
            raise
        except (GinError, AssertionError, KeyError, IndexError, TypeError, ValueError,
                RuntimeError, StopIteration) as exc:
            raise CorruptState(f"the saved session is damaged ({type(exc).__name__}: {exc})"
                               ) from None

    @classmethod
    def _restore(cls, secret: bytes, state: Mapping[str, object],
                 random_bytes: Callable[[int], bytes]) -> Session:
        if not isinstance(state, Mapping):
            raise CorruptState("the saved session is not a map")
        reader = wire.Message("session-state", STATE_VERSION, state, "")
        reader.only("v", "role", "rules", "channel", "log", "failure")
        reader.integer("v", low=STATE_VERSION, high=STATE_VERSION)
        role: SessionRole = "host" if reader.text(
            "role", max_len=5, choices=SEATS) == "host" else "guest"
        rules = None if state.get("rules") is None else Ruleset.from_dict(state["rules"])
        log = _read_log(reader.array("log", max_len=1 << 20))
        channel = state["channel"]
        if not isinstance(channel, Mapping):
            raise CorruptState("session state: 'channel' must be a map")
        drawn = iter([entry[1] for entry in log if entry[0] == "rand"])

        def logged_random(n: int) -> bytes:
            value = next(drawn, None)
            if not isinstance(value, bytes) or len(value) != n:
                raise CorruptState("the log's random draws do not replay")
            return value

        session = cls.__new__(cls)
        session._setup(role, secret, rules, logged_random)
        session._muted = True
        session._begin()
        received = 0
        for entry in log:
            if entry[0] == "in":
                assert isinstance(entry[1], bytes)
                received += 1
                session._deliver(entry[1])
            elif entry[0] == "act":
                assert isinstance(entry[1], str)
                session._act(parse_action(entry[1]))
            elif entry[0] == "timeout":
                session._timed_out()
            elif entry[0] == "accept":
                session._accept()
            elif entry[0] == "reject":
                session._rejected(entry)
        if next(drawn, None) is not None:
            raise CorruptState("the log holds random draws the replay did not use")
        failure = _read_failure(state.get("failure"))
        if session._failure is not None and failure is None:
            # A damaged log can make an honest peer's message look like a cheat.
            raise CorruptState("the saved moves do not replay (they would fail as "
                               f"'{session._failure.reason}')")
        session._random_bytes = random_bytes  # the new epoch is fresh, not replayed
        restored = wire.SealedChannel.from_state(secret, channel, session._fresh(wire.EPOCH_BYTES))
        sent = session._replayed
        sent_digest = received_digest = bytes(32)
        for message in sent:
            sent_digest = wire.chain(sent_digest, message)
        for entry in log:
            if entry[0] == "in":
                assert isinstance(entry[1], bytes)
                received_digest = wire.chain(received_digest, entry[1])
        if (restored.next_send_seq, restored.sent_digest) != (len(sent), sent_digest) or (
                restored.next_receive_seq, restored.received_digest) != (
                received, received_digest) or any(
                sent[seq] != message for seq, message in restored.pending_messages()):
            raise CorruptState("the saved channel does not match the saved moves")
        session._channel = restored
        session._log = [list(entry) for entry in log]
        session._muted = False
        session._replayed = []
        session._events.clear()
        session._outbox = list(restored.resend())
        if failure is not None:
            session._failure = failure
        return session

    # -- internals: sending, failing -------------------------------------------------------

    def _fresh(self, n: int) -> bytes:
        """Fresh randomness that is not logged: a restored session draws it anew."""
        value = self._random_bytes(n)
        if not isinstance(value, bytes) or len(value) != n:
            raise MalformedInput(f"random_bytes({n}) must return {n} bytes")
        return value

    def _random(self, n: int) -> bytes:
        value = self._fresh(n)
        self._log.append(["rand", value])
        return value

    def _send(self, msg_type: str, fields: Mapping[str, object]) -> None:
        message = wire.pack(msg_type, fields)
        if self._muted:
            self._replayed.append(message)
        else:
            self._outbox += self._channel.send(message)

    def _emit(self, event: SessionEvent) -> None:
        self._events.append(event)

    def _check_alive(self) -> None:
        if self._failure is not None:
            f = self._failure
            raise PeerFault(f"the session has failed: {f.reason}", who=f.who, field=f.field)

    def _fail(self, failure: Failure) -> None:
        """End the session; tell the peer why (unless it ended it), so it does not wait."""
        self._failure = failure
        self._emit(failure)
        peer = SEATS[self.peer]
        if failure.proven:
            self._emit(MatchOver(self.seat, None, peer))
        if isinstance(failure, PeerAborted | RulesDeclined):  # the abort is sent already
            return
        why = ("timeout" if isinstance(failure, PeerTimedOut) else
               "tampered" if isinstance(failure, FrameRejected) else
               "cheat" if isinstance(failure, CheatDetected) else "protocol")
        self._send("abort", {"why": why, "field": failure.field[:MAX_FIELD_CHARS],
                             "reason": failure.reason[:MAX_REASON_CHARS]})

    def _rejected(self, entry: list[object]) -> None:
        """A frame the channel refused: ``["reject", field, text, proven]`` of the log."""
        _, field, text, proven = entry
        peer = SEATS[self.peer]
        if proven:
            self._fail(ProtocolError(peer, str(field), f"the {peer} broke the framing: {text}"))
        else:
            self._fail(FrameRejected(
                f"{peer} or the relay", str(field),
                f"a frame from the {peer} was rejected ({text}): the relay altered or "
                f"injected it, or the {peer} sent a bad frame"))

    def _timed_out(self) -> None:
        owed = self.waiting_for()
        peer = SEATS[self.peer]
        what = "seed" if owed == "seed" else f"{owed} message"
        self._fail(PeerTimedOut(f"{peer} or the relay", str(owed),
                                f"the {peer}'s {what} did not arrive in time: the {peer} "
                                "withheld it, or the relay dropped it"))

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
        if self._over:
            return  # the match is over: nothing more is owed (a late abort changes nothing)
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
        msg.only("rules", "coin", "key")
        rules = _read_rules(msg)
        if self._proposed is not None and rules != self._proposed:
            raise _Protocol(f"the host proposes the {rules.name} rules {rules.to_dict()}, which "
                            "this guest did not agree to", who="host", field="hello.rules")
        self._peer_coin = msg.blob("coin", size=32)
        self._peer_key = msg.blob("key", size=cosign.KEY_BYTES)
        assert self._signer is not None
        self.match_id = cosign.match_id_for(self.link_id, self._peer_key, self._signer.public)
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
        assert self._signer is not None
        self._rules = rules
        self._nonce = self._random(NONCE_BYTES)
        self._send("welcome", {"rules": rules_digest(rules), "nonce": self._nonce,
                               "key": self._signer.public})

    def _on_welcome(self, msg: wire.Message) -> None:
        msg.only("rules", "nonce", "key")
        assert self._rules is not None and self._nonce is not None and self._signer is not None
        if msg.blob("rules", size=32) != rules_digest(self._rules):
            raise _Protocol("the guest agreed to another ruleset", who="guest",
                            field="welcome.rules")
        guest_nonce = msg.blob("nonce", size=NONCE_BYTES)
        self._peer_key = msg.blob("key", size=cosign.KEY_BYTES)
        if self._peer_key == self._signer.public:
            raise _Protocol("the guest's signing key is the host's", who="guest",
                            field="welcome.key")
        self.match_id = cosign.match_id_for(self.link_id, self._signer.public, self._peer_key)
        self._send("start", {"nonce": self._nonce})
        self._start_match(first_dealer_for(self.match_id, self._nonce, guest_nonce))

    def _on_start(self, msg: wire.Message) -> None:
        msg.only("nonce")
        host_nonce = msg.blob("nonce", size=NONCE_BYTES)
        if _coin(self.link_id, host_nonce) != self._peer_coin:
            raise _Cheat("the host's nonce does not open its coin commitment", who="host",
                         field="start.nonce")
        assert self._nonce is not None and self.match_id is not None
        self._start_match(first_dealer_for(self.match_id, host_nonce, self._nonce))

    def _start_match(self, first_dealer: int) -> None:
        assert self._rules is not None and self.match_id is not None
        self._match = Match(self._rules, first_dealer)
        self._emit(MatchStarted(self._rules, self.seat, first_dealer, self.match_id))
        self._start_hand()

    def _start_hand(self) -> None:
        assert self._match is not None
        number = 1 if self._hand is None else self._hand.number + 1
        assert self.match_id is not None
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
        if n == 1:  # the second shuffle, and the shadows that prove it (§8.9)
            message2 = fd.build_message2(hs.mine, deck)
            hs.messages[1] = message2
            self._send("deck", {"h": hs.number, "n": 2, "deck": list(message2)})
            shadows = sp.shadows(hs.mine, deck)
            self._send("shuffle", {"h": hs.number, "s": [x for s in shadows for x in s]})
        elif n == 3:
            self._send_deal()

    def _on_shuffle(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "s")
        hs = self._state()
        size = sp.ROUNDS * fd.DECK_SIZE
        flat = msg.blobs("s", min_len=size, max_len=size, size=ecc.COORD_BYTES)
        hs.shadows = tuple(tuple(flat[r * fd.DECK_SIZE:(r + 1) * fd.DECK_SIZE])
                           for r in range(sp.ROUNDS))
        hs.challenge = int.from_bytes(self._random(1), "big") % (1 << sp.ROUNDS)
        self._send("challenge", {"h": hs.number, "c": hs.challenge})
        m2 = hs.messages[1]
        assert m2 is not None
        message3 = fd.build_message3(hs.mine, m2)
        hs.messages[2] = message3
        self._send("deck", {"h": hs.number, "n": 3, "deck": list(message3)})

    def _on_challenge(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "c")
        hs = self._state()
        hs.challenge = msg.integer("c", low=0, high=(1 << sp.ROUNDS) - 1)
        openings = sp.open_rounds(hs.mine, hs.challenge)
        self._send("proof", {
            "h": hs.number,
            "seeds": [o.seed for o in openings if o.seed is not None],
            "tau": [i for o in openings for i in o.tau],
            "keys": [_key_bytes(k) for o in openings for k in o.keys]})

    def _on_proof(self, msg: wire.Message) -> None:
        self._hand_fields(msg, "seeds", "tau", "keys")
        hs = self._state()
        peer = SEATS[self.peer]
        assert hs.challenge is not None and hs.shadows is not None
        ones = bin(hs.challenge).count("1")
        seeds = iter(msg.blobs("seeds", min_len=sp.ROUNDS - ones, max_len=sp.ROUNDS - ones,
                               size=fd.SEED_BYTES))
        size = ones * fd.DECK_SIZE
        taus = msg.integers("tau", min_len=size, max_len=size, low=0, high=fd.DECK_SIZE - 1)
        keys = msg.blobs("keys", min_len=size, max_len=size, size=KEY_BYTES)
        m1, m2, _ = hs.messages
        assert m1 is not None and m2 is not None
        opened = 0
        for r in range(sp.ROUNDS):
            bit = hs.challenge >> r & 1
            if bit:
                part = slice(opened * fd.DECK_SIZE, (opened + 1) * fd.DECK_SIZE)
                opening = sp.Opening(tau=taus[part], keys=tuple(
                    int.from_bytes(k, "big") for k in keys[part]))
                opened += 1
            else:
                opening = sp.Opening(seed=next(seeds))
            why = sp.check_round(m1, m2, hs.shadows[r], bit, opening)
            if why is not None:
                raise _Cheat(f"proof[{r}]: message 2 is not proven a shuffle of message 1: "
                             f"{why}", who=peer, field=f"proof[{r}]")
        hs.shuffle_proven = True
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
        self._hand_fields(msg, "seed", "sig")
        hs = self._state()
        peer = SEATS[self.peer]
        hs.their_seed = msg.blob("seed", size=fd.SEED_BYTES)
        signature = msg.blob("sig", size=cosign.SIGNATURE_BYTES)
        record = self._record()
        report = audit_record(record, trust_seat=self.seat)
        if not report.ok:
            first = report.findings[0]
            self._fail(CheatDetected(first.who, first.where, str(first), record))
            return
        assert self._peer_key is not None
        if not cosign.verify(self._peer_key, cosign.hand_digest(record), signature):
            raise _Protocol(f"the {peer}'s signature does not sign this hand as played",
                            who=peer, field="seed.sig")
        assert hs.my_signature is not None
        signatures = {self.seat: hs.my_signature, self.peer: signature}
        self._emit(HandVerified(hs.number, replace(record, signatures=(signatures[0],
                                                                       signatures[1]))))
        assert self._match is not None
        totals = self._match.totals
        if totals is not None:
            self._over = True
            self._emit(MatchOver(totals.winner, totals, None))
        else:
            self._start_hand()

    def _on_abort(self, msg: wire.Message) -> None:
        msg.only("why", "field", "reason")
        why = msg.text("why", max_len=16, choices=ABORT_KINDS)
        field = msg.text("field", max_len=MAX_FIELD_CHARS)
        reason = msg.text("reason", max_len=MAX_REASON_CHARS)
        peer = SEATS[self.peer]
        if self.waiting_for() == "seed" and why != "tampered":
            self._fail(CheatDetected(peer, "seed", f"the {peer} refused to reveal its seed "
                                     f"(a failed audit); it said: {reason}"))
        else:
            self._fail(PeerAborted(peer, field, f"the {peer} ended the match ({why}), "
                                   f"saying: {reason}"))

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
        assert self._signer is not None
        hs.my_signature = self._signer.sign(cosign.hand_digest(self._record()))
        self._send("seed", {"h": hs.number, "seed": hs.mine.seed, "sig": hs.my_signature})

    def _record(self) -> HandRecord:
        hs = self._state()
        hand = self._engine()
        assert self._match is not None and hand.result is not None
        assert self.match_id is not None and self._signer is not None
        assert self._peer_key is not None
        m1, m2, m3 = hs.messages
        assert m1 is not None and m2 is not None and m3 is not None
        # Before the peer's seed arrives the record is only signed: its digest
        # leaves the seeds out (their commitments bind them).
        seeds = {hs.role: hs.mine.seed, hs.role.other: hs.their_seed or bytes(fd.SEED_BYTES)}
        keys = {self.seat: self._signer.public, self.peer: self._peer_key}
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
            link_id=self.link_id,
            signing_keys=(keys[0], keys[1]),
        )


_HANDLERS: dict[str, Callable[[Session, wire.Message], None]] = {
    "hello": Session._on_hello,
    "welcome": Session._on_welcome,
    "start": Session._on_start,
    "commit": Session._on_commit,
    "deck": Session._on_deck,
    "shuffle": Session._on_shuffle,
    "challenge": Session._on_challenge,
    "proof": Session._on_proof,
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


def _read_failure(value: object) -> Failure | None:
    if value is None:
        return None
    if not (isinstance(value, list | tuple) and len(value) == 4 and value[0] in FAILURES
            and all(isinstance(x, str) for x in value)):
        raise CorruptState("session state: 'failure' must be [kind, who, field, reason]")
    return FAILURES[value[0]](value[1], value[2], value[3])


def _read_log(entries: list[object]) -> list[list[object]]:
    kinds: dict[object, tuple[type, ...]] = {
        "rand": (bytes,), "in": (bytes,), "act": (str,), "timeout": (), "accept": (),
        "reject": (str, str, bool)}
    out: list[list[object]] = []
    for i, entry in enumerate(entries):
        if not (isinstance(entry, list | tuple) and entry and entry[0] in kinds
                and len(entry) == 1 + len(want := kinds[entry[0]])
                and all(isinstance(x, w) for x, w in zip(entry[1:], want, strict=True))):
            raise CorruptState(f"session state: log[{i}] is not a valid entry")
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
