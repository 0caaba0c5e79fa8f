"""The online session: one peer of a match played through the fair deal, sans I/O
(the twin of client/web/src/protocol/session/session.ts).

A :class:`Session` is a state machine with no I/O of its own (like h11 or the
protocol core of websockets). The transport feeds it what arrives and sends what
it produces; the interface feeds it the local player's moves and shows its
events. Every call that changes the state returns nothing; its output collects
in two queues that the caller drains:

* :meth:`Session.data_to_send` — frames for the peer, in order (offers, sealed
  messages, acks, re-sends);
* :meth:`Session.events` — :class:`~gin.protocol.session.events.SessionEvent`
  values for the interface.

Inputs: :meth:`receive` (a frame), :meth:`act` (the local player's action),
:meth:`poll` (the time now: re-sends what the peer has not acknowledged, with
back-off), :meth:`resend` (after a reconnect), :meth:`abandon` (the grace for what
:meth:`waiting_for` names ran out and the local player ends the match as abandoned by
the peer, with a signed record) and :meth:`peer_timed_out` (the same without a claim).
Both peers run the rules engine in lockstep; each opponent move is checked the moment
it can be, the rest at hand end by :func:`gin.protocol.records.audit.audit_record`.
Any fault is final: the session emits one :class:`~gin.protocol.session.events.Failure`
event, tells the peer (``abort``), and every later input raises the same
:class:`PeerFault`. Only a proven fault forfeits the match
(:mod:`gin.protocol.session.events`).

The session owns the sealed channel, the input log and the failure; the match
itself (handshake, deal, moves, hand end) is its
:class:`~gin.protocol.session.flow.MatchFlow`.

Write-ahead: the caller MUST save :meth:`to_state` after any call that queued
frames and before sending them. The traffic keys are fresh for every session
object (a new match, or one restored from a save), so no nonce is used twice.

The protocol is specified in ``protocol.md``; section numbers below refer to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gin.engine.actions import Action, parse_action
from gin.engine.errors import GinError, IllegalAction, MalformedInput, PeerFault
from gin.engine.observation import HandResult, Observation
from gin.engine.rules import Ruleset
from gin.players import Player
from gin.protocol.records.cosign import link_id_for
from gin.protocol.records.identity import Identity
from gin.protocol.records.records import SEATS
from gin.protocol.session import silence as session_silence
from gin.protocol.session import table as session_table
from gin.protocol.session.events import (
    Abandoned,
    CheatDetected,
    Failure,
    FrameRejected,
    MatchOver,
    PeerAborted,
    PeerTimedOut,
    ProtocolError,
    RulesDeclined,
    SessionEvent,
    VersionMismatch,
)
from gin.protocol.session.flow import (
    MAX_FIELD_CHARS,
    MAX_REASON_CHARS,
    CheatFault,
    MatchFlow,
    ProtocolFault,
    SessionRole,
    Stage,
)
from gin.protocol.session.log import (
    STATE_VERSION,
    CorruptState,
    LoggedRandom,
    check_channel,
    failure_entry,
    read_failure,
    read_state,
)
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.wire import channel as wire
from gin.protocol.wire.messages import Owed

# Re-send what the peer has not acknowledged after this long, doubling each time.
RESEND_AFTER = 2.0
MAX_RESEND_AFTER = 32.0


class Session:
    """One peer of an online match. See the module docstring and ``protocol.md``.

    ``role`` "host" (seat 0, proposes ``rules``) or "guest" (seat 1; ``rules`` None
    plays a preset the host proposes, and custom rules once its player accepts them
    after :class:`~gin.protocol.session.events.RulesOffered`; a Ruleset insists on it).
    ``secret``: the 32-byte invite secret; ``random_bytes(n)``: fresh secret randomness
    (traffic keys, signing key, seeds, coin toss). ``identity``: the 32 secret bytes of
    the player's identity key (:mod:`gin.protocol.records.identity`), which vouches for this
    match's signing key. ``rematch``: the match on this link that this one continues
    (§7.1; :meth:`as_previous` of this side's finished session): the host's ``hello``
    names it, the guest requires that, its loser deals first. The offer frame and, for
    the host, its ``hello`` are queued at once.
    """

    def __init__(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
                 random_bytes: Callable[[int], bytes], identity: bytes,
                 rematch: PreviousMatch | None = None) -> None:
        self._setup(role, secret, rules, random_bytes, identity, rematch)
        self._channel = wire.SealedChannel(secret, wire.Side(role), self._fresh(wire.EPOCH_BYTES))
        self._outbox.append(self._channel.offer())
        self._local("begin")

    def _setup(self, role: SessionRole, secret: bytes, rules: Ruleset | None,
               random_bytes: Callable[[int], bytes], identity: bytes,
               rematch: PreviousMatch | None) -> None:
        if role not in SEATS:
            raise MalformedInput(f"session role must be 'host' or 'guest', got {role!r}")
        if role == "host" and rules is None:
            raise MalformedInput("the host proposes the ruleset: rules must be given")
        self.role: SessionRole = role
        self.seat = SEATS.index(role)
        self.peer = 1 - self.seat
        self.link_id = link_id_for(secret)
        self._random_bytes = random_bytes
        self._failure: Failure | None = None
        self._events: list[SessionEvent] = []
        self._outbox: list[bytes] = []
        self._log: list[list[object]] = []  # the inputs, replayed by from_state
        self._muted = False  # while replaying a saved log: nothing is sealed
        self._replayed: list[bytes] = []  # what the replay would have sent
        self._delivered = (0, bytes(32))  # from the peer, and their chain: a replay rebuilds it
        self._resend_at: float | None = None
        self._resend_after = RESEND_AFTER
        self._resend_timing = (RESEND_AFTER, MAX_RESEND_AFTER)
        self._flow = MatchFlow(role, self.link_id, rules, Identity(identity), self._random,
                               lambda: self._channel.pending, rematch)

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
        return self._flow.over

    @property
    def declined(self) -> bool:
        """The guest declined the rematch (a :class:`RematchDeclined` event): over,
        normally, unplayed."""
        return self._flow.declined

    @property
    def match_id(self) -> bytes | None:
        """The match id, once both signing keys are known."""
        return self._flow.match_id

    @property
    def identities(self) -> tuple[bytes, bytes] | None:
        """(the host's, the guest's) identity public keys, once both are known."""
        keys = self._flow.keys
        return None if keys is None or keys.match_id is None else keys.identities

    @property
    def rules(self) -> Ruleset | None:
        """The agreed ruleset (for a guest, None until the host's hello)."""
        return self._flow.agreed

    @property
    def rules_offered(self) -> Ruleset | None:
        """The host's custom rules or rematch while they await the local player's
        answer (:attr:`rematch` says which)."""
        return self._flow.offered

    @property
    def rematch(self) -> PreviousMatch | None:
        """The match this one continues, as the session was given it, or None."""
        return self._flow.rematch

    def as_previous(self) -> PreviousMatch | None:
        """Its id and loser once the match has ended normally: what a rematch's session
        on this link is given (None after a failure: no rematch follows)."""
        return None if self._failure is not None else self._flow.as_previous()

    @property
    def hand_results(self) -> tuple[HandResult, ...]:
        """Every finished hand of the match, in order (the score sheet's source)."""
        return self._flow.results()

    def observation(self) -> Observation | None:
        """What the local player sees, or None before the first deal."""
        return self._flow.observation()

    def legal_actions(self) -> list[Action]:
        """The local player's legal actions; empty unless it is its move now."""
        return session_table.legal_actions(self._flow)

    def waiting_for(self) -> Owed | None:
        """The message type the peer owes now, or None (our move, or the match is over).

        The transport starts its timer while this is not None.
        """
        return session_table.waiting_for(self._flow)

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
        self._outbox += got.replies  # acknowledged before what the message makes us send
        if got.message is not None:
            self._log.append(["in", got.message])
            self._deliver(got.message)

    def act(self, action: Action) -> None:
        """Play the local player's move. IllegalAction (nothing changes) if not allowed."""
        self._check_alive()
        why = session_table.refusal(self._flow, action)
        if why is not None:
            raise IllegalAction(f"{self.role} cannot {action} now: {why}")
        self._log.append(["act", str(action)])
        self._local("act", action)

    def accept_rules(self) -> None:
        """The local player accepts the offered custom rules: the match goes on."""
        self._check_alive()
        if not session_table.allows(self._flow, "accept"):
            raise IllegalAction(session_table.NOTHING_OFFERED["accept"])
        self._log.append(["accept"])
        self._local("accept")

    def decline_rules(self, reason: str | None = None) -> None:
        """The local player declines the offered custom rules (a :class:`RulesDeclined`
        failure) or rematch (:class:`RematchDeclined`: a normal end, nobody at fault); the
        match ends unplayed. ``reason`` is what this side's event says (None: "you declined …")."""
        self._check_alive()
        if not session_table.allows(self._flow, "decline"):
            raise IllegalAction(session_table.NOTHING_OFFERED["decline"])
        if self.rematch is not None:  # no failure keeps it: the log replays it on restore
            self._log.append(["decline"])
        self._local("decline", reason)

    def peer_timed_out(self) -> None:
        """The peer did not send what :meth:`waiting_for` names in time: unproven, the
        session ends without a forfeit or a record. Nothing when the peer owes nothing."""
        self._check_alive()
        if self.waiting_for() is None:
            return
        self._log.append(["timeout"])
        self._timed_out()

    def abandon(self, since: int, now: int) -> None:
        """End the match as abandoned by the peer, which has owed what :meth:`waiting_for`
        names since ``since``, at ``now`` (UTC seconds: the caller's clock); see
        :mod:`gin.protocol.session.silence`. IllegalAction when the peer owes nothing."""
        self._check_alive()
        session_silence.check(self._flow, since, now)
        self._log.append(["abandon", since, now])
        self._abandoned(since, now)

    # -- persistence -------------------------------------------------------------------

    def to_state(self) -> dict[str, object]:
        """Plain data (msgpack-able; holds this hand's secret seed: keep it private).

        Write-ahead rule (§11.2): persist after every input whose call queued frames,
        and before sending them.
        """
        return {
            "v": STATE_VERSION,
            "role": self.role,
            "rules": None if self._flow.proposed is None else self._flow.proposed.to_dict(),
            "rematch": None if self.rematch is None else self.rematch.to_state(),
            "channel": self._channel.to_state(),
            "log": [list(entry) for entry in self._log],
            "failure": None if self._failure is None else failure_entry(self._failure),
        }

    @classmethod
    def from_state(cls, secret: bytes, state: Mapping[str, object],
                   random_bytes: Callable[[int], bytes], identity: bytes) -> Session:
        """Rebuild a session from :meth:`to_state`: the log is replayed and must lead
        exactly to the saved channel; the channel starts a new epoch (fresh keys from
        ``random_bytes``). Its offer and unacknowledged messages are queued. ``identity``
        is the player's identity key, as for a new session (the save does not hold it).

        Raises :class:`CorruptState` (a local fault) for anything that does not check.
        """
        try:
            return cls._restore(secret, state, random_bytes, identity)
        except CorruptState:
            raise
        except (GinError, AssertionError, KeyError, IndexError, TypeError, ValueError,
                RuntimeError, StopIteration) as exc:
            raise CorruptState(f"the saved session is damaged ({type(exc).__name__}: {exc})"
                               ) from None

    @classmethod
    def _restore(cls, secret: bytes, state: Mapping[str, object],
                 random_bytes: Callable[[int], bytes], identity: bytes) -> Session:
        saved = read_state(state)
        drawn = LoggedRandom(saved.log)
        session = cls.__new__(cls)
        session._setup(saved.role, secret, saved.rules, drawn, identity, saved.rematch)
        session._muted = True
        session._local("begin")
        _replay(session, saved.log)
        drawn.check_all_used()
        failure = read_failure(state.get("failure"))
        if session._failure is not None and failure is None:
            # A damaged log can make an honest peer's message look like a cheat.
            raise CorruptState("the saved moves do not replay (they would fail as "
                               f"'{session._failure.reason}')")
        session._random_bytes = random_bytes  # the new epoch is fresh, not replayed
        restored = wire.SealedChannel.from_state(secret, saved.channel,
                                                 session._fresh(wire.EPOCH_BYTES))
        check_channel(restored, session._replayed, session._delivered)
        session._channel = restored
        session._log = [list(entry) for entry in saved.log]
        session._muted = False
        session._replayed = []
        session._events.clear()
        session._outbox = list(restored.resend())
        if failure is not None and (session._failure is None or failure_entry(
                session._failure) != failure_entry(failure)):
            session._failure = failure  # else the replayed one, with its record
            session._flow.stage = Stage.FAILED
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

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        message = wire.pack(msg_type, fields, version=version)
        if self._muted:
            self._replayed.append(message)
        else:
            self._outbox += self._channel.send(message)

    def _emit(self, event: SessionEvent) -> None:
        self._events.append(event)

    def _local(self, action: session_table.LocalAction, arg: object = None) -> None:
        session_table.local(self._flow, action, arg)
        self._drain()

    def _drain(self) -> None:
        """Send and report what the flow's handlers produced, its failure last."""
        out = self._flow.take()
        for msg_type, fields in out.sends:
            self._send(msg_type, fields)
        self._events += out.events
        if out.failure is not None:
            self._fail(out.failure)

    def _check_alive(self) -> None:
        if self._failure is not None:
            f = self._failure
            raise PeerFault(f"the session has failed: {f.reason}", who=f.who, field=f.field)

    def _fail(self, failure: Failure) -> None:
        """End the session; tell the peer why (unless it ended it), so it does not wait."""
        self._failure = failure
        self._flow.stage = Stage.FAILED
        self._emit(failure)
        peer = SEATS[self.peer]
        if failure.proven:
            self._emit(MatchOver(self.seat, None, peer))
        if isinstance(failure, PeerAborted | RulesDeclined):  # the abort is sent already
            return
        why = ("timeout" if isinstance(failure, PeerTimedOut) else
               "abandoned" if isinstance(failure, Abandoned) else
               "tampered" if isinstance(failure, FrameRejected) else
               "cheat" if isinstance(failure, CheatDetected) else "protocol")
        self._send("abort", {"why": why, "field": failure.field[:MAX_FIELD_CHARS],
                             "reason": failure.reason[:MAX_REASON_CHARS]})

    def _other_version(self, exc: wire.UnsupportedVersion) -> None:
        """A message of another protocol version: say who must update, here and there (§6.3)."""
        self._failure, abort = version_mismatch(exc.version)
        self._flow.stage = Stage.FAILED
        self._emit(self._failure)
        if exc.msg_type != "abort":  # else the peer has stopped already
            self._send("abort", abort, version=min(exc.version, wire.PROTOCOL_VERSION))

    def _rejected(self, entry: list[object]) -> None:
        """A frame the channel refused: ``["reject", field, text, proven]`` of the log."""
        self._fail(rejection(SEATS[self.peer], entry))

    def _timed_out(self) -> None:
        self._fail(session_silence.timed_out(self._flow))

    def _abandoned(self, since: int, now: int) -> None:
        self._fail(session_silence.abandoned(self._flow, since, now, self._delivered))

    # -- internals: the message loop --------------------------------------------------------

    def _deliver(self, plaintext: bytes) -> None:
        self._delivered = (self._delivered[0] + 1, wire.chain(self._delivered[1], plaintext))
        if self._flow.finished:
            return  # the match is over: nothing more is owed (a late abort changes nothing)
        try:
            session_table.receive(self._flow, wire.unpack(plaintext))
        except (wire.MalformedMessage, PeerFault) as exc:
            self._drain()  # what the handler produced before the fault goes first
            if isinstance(exc, wire.UnsupportedVersion):
                self._other_version(exc)
            else:
                self._fail(fault_failure(SEATS[self.peer], exc))
        else:
            self._drain()


def fault_failure(peer: str, exc: wire.MalformedMessage | PeerFault) -> Failure:
    """The failure of a message of the peer that breaks the protocol, or cheats."""
    if isinstance(exc, wire.MalformedMessage | ProtocolFault):
        return ProtocolError(peer, exc.field, str(exc))
    return CheatDetected(peer, exc.field, str(exc),
                         exc.evidence if isinstance(exc, CheatFault) else None)


def _replay(session: Session, log: list[list[object]]) -> None:
    """Play a saved session's log into ``session`` (muted: nothing is sent again)."""
    for entry in log:
        if entry[0] == "in":
            assert isinstance(entry[1], bytes)
            session._deliver(entry[1])
        elif entry[0] == "act":
            assert isinstance(entry[1], str)
            session._local("act", parse_action(entry[1]))
        elif entry[0] == "timeout":
            session._timed_out()
        elif entry[0] == "abandon":
            assert isinstance(entry[1], int) and isinstance(entry[2], int)
            session._abandoned(entry[1], entry[2])
        elif entry[0] in ("accept", "decline"):
            session._local(entry[0])
        elif entry[0] == "reject":
            session._rejected(entry)


def rejection(peer: str, entry: list[object]) -> Failure:
    """The failure of a frame the channel refused (``["reject", field, text, proven]``):
    the peer's proven fault, or nobody's when the relay could have altered it."""
    _, field, text, proven = entry
    if proven:
        return ProtocolError(peer, str(field), f"the {peer} broke the framing: {text}")
    return FrameRejected(f"{peer} or the relay", str(field),
                         f"a frame from the {peer} was rejected ({text}): the relay altered or "
                         f"injected it, or the {peer} sent a bad frame")


def version_mismatch(theirs: int) -> tuple[VersionMismatch, dict[str, object]]:
    """The failure of meeting a peer of protocol ``theirs``, and the ``abort`` that tells
    it, in words for that peer (sent in its version when it is older: v2's abort has
    the same fields)."""
    ours = wire.PROTOCOL_VERSION
    friend, you = ("your friend", "you") if theirs < ours else ("you", "your friend")
    return (VersionMismatch("nobody", "v", f"your friend's gin speaks protocol {theirs}; this "
                            f"gin speaks {ours}: {friend} must update gin to play this match"),
            {"why": "protocol", "field": "v", "reason": f"this gin speaks protocol {ours}, "
             f"yours speaks {theirs}: {you} must update gin to play this match"})


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
