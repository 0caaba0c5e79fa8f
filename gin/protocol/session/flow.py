"""The match as one peer of an online session plays it (the game half of the session;
the twin of client/web/src/protocol/session/flow.ts): its :class:`Stage` and the state
the stage's handlers read and change.

The handlers (:mod:`gin.protocol.session.start`, :mod:`gin.protocol.session.deal`,
:mod:`gin.protocol.session.moves`) take a :class:`MatchFlow` and the input, put what to
send and what to report in its :class:`Output`, and return the next stage; which of
them runs in which stage is :mod:`gin.protocol.session.table`'s table. A message that
breaks the protocol raises a :class:`ProtocolFault`, one that cheats a
:class:`CheatFault`; the session turns them into failures.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from gin.engine.actions import Action
from gin.engine.cards import Card
from gin.engine.errors import PeerFault
from gin.engine.hand import Hand
from gin.engine.match import Match
from gin.engine.observation import HandResult, Observation
from gin.engine.rules import Ruleset
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records.evidence import DealEvidence
from gin.protocol.records.identity import Identity
from gin.protocol.records.records import SEATS, HandRecord, Score
from gin.protocol.session.events import Failure, Moved, SessionEvent
from gin.protocol.session.hand import HandState
from gin.protocol.session.handshake import MatchKeys
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.wire import channel as wire
from gin.protocol.wire.messages import MessageType, Owed

SessionRole = Literal["host", "guest"]
MAX_ACTION_CHARS = 256
MAX_REASON_CHARS = 400
MAX_FIELD_CHARS = 64
HAND_KEYS = 11  # ten dealt cards and the upcard


class Stage(enum.Enum):
    """Where one peer's match is: what the peer owes, or what the local player decides."""

    NEW = "new"  # nothing sent yet
    HELLO = "hello"  # the guest awaits the host's hello
    WELCOME = "welcome"  # the host awaits the guest's welcome
    RULES = "rules"  # the guest's player decides on the offered rules or rematch
    START = "start"  # the guest awaits the host's start
    COMMIT = "commit"  # a hand begins: the peer's commitment is owed
    DECK = "deck"  # a deck message is owed (§7.2)
    DEAL = "deal"  # the peer's keys of the deal are owed
    PLAY = "play"  # the local player's move
    MOVE = "move"  # the peer's move
    KEY = "key"  # the key of the card we drew from the stock
    SHOW = "show"  # the peer's cards, shown after our knock
    SEED = "seed"  # the hand is over: the peer's seed and signature
    OVER = "over"  # the match ended normally
    FAILED = "failed"  # the match ended by a failure


#: What the peer owes in each stage (§7), or None: the local player's turn, or the end.
OWES: dict[Stage, Owed | None] = {
    Stage.NEW: None, Stage.HELLO: "hello", Stage.WELCOME: "welcome", Stage.RULES: None,
    Stage.START: "start", Stage.COMMIT: "commit", Stage.DECK: "deck", Stage.DEAL: "deal",
    Stage.PLAY: None, Stage.MOVE: "move", Stage.KEY: "key", Stage.SHOW: "show",
    Stage.SEED: "seed", Stage.OVER: None, Stage.FAILED: None,
}


class ProtocolFault(PeerFault):
    """The peer's message is malformed or out of turn."""


class CheatFault(PeerFault):
    """The peer's message is well formed but breaks the rules or the fair deal;
    ``evidence``, when the peer signed what proves it (a refused message 2)."""

    def __init__(self, message: str, *, who: str, field: str,
                 evidence: DealEvidence | None = None) -> None:
        super().__init__(message, who=who, field=field)
        self.evidence = evidence


@dataclass
class Output:
    """What the handlers of one input produced: messages to send, in order, events for
    the interface, and the failure that ends the match, if any (reported last)."""

    sends: list[tuple[MessageType, Mapping[str, object]]] = field(default_factory=list)
    events: list[SessionEvent] = field(default_factory=list)
    failure: Failure | None = None


class MatchFlow:
    """One peer's match: its stage, its keys, the engine's match and the hand's fair-deal
    state. ``random(n)`` draws fresh randomness (logged by the session: a restored
    session replays it); ``unacknowledged()`` counts our messages the peer has not
    acknowledged (a claim that we fell silent can be a lost frame's doing while it is
    not 0)."""

    def __init__(self, role: SessionRole, link_id: bytes, proposed: Ruleset | None,
                 identity: Identity, random: Callable[[int], bytes],
                 unacknowledged: Callable[[], int], rematch: PreviousMatch | None = None
                 ) -> None:
        self.role = role
        self.seat = SEATS.index(role)
        self.peer = 1 - self.seat
        self.link_id = link_id
        self.proposed = proposed
        self.agreed = proposed
        self.offered: Ruleset | None = None  # custom rules awaiting the local player
        self.declined = False  # a rematch the guest declined: a normal end (RematchDeclined)
        self.identity = identity
        self.keys: MatchKeys | None = None  # drawn by begin
        self.rematch = rematch  # the match this one continues (§7.1), or None
        self.random = random
        self.unacknowledged = unacknowledged
        self.stage = Stage.NEW
        self.out = Output()
        self.nonce: bytes | None = None
        self.peer_coin: bytes | None = None
        self.match: Match | None = None
        self.hand: HandState | None = None

    def take(self) -> Output:
        """What the handlers produced since the last call; emptied."""
        out, self.out = self.out, Output()
        return out

    def send(self, msg_type: MessageType, fields: Mapping[str, object]) -> None:
        self.out.sends.append((msg_type, fields))

    def emit(self, event: SessionEvent) -> None:
        self.out.events.append(event)

    def fail(self, failure: Failure) -> Stage:
        """End the match with ``failure`` (the session tells the peer): the next stage."""
        self.out.failure = failure
        return Stage.FAILED

    @property
    def match_id(self) -> bytes | None:
        """The match id, once both sides' keys are known."""
        return None if self.keys is None else self.keys.match_id

    # -- queries ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Finished normally or by a failure."""
        return self.stage in (Stage.OVER, Stage.FAILED)

    @property
    def finished(self) -> bool:
        """Finished normally."""
        return self.stage is Stage.OVER

    def observation(self) -> Observation | None:
        """What the local player sees, or None before the first deal."""
        if self.match is None or self.match.hand is None:
            return None
        return self.match.observation(self.seat)

    def results(self) -> tuple[HandResult, ...]:
        """Every finished hand of the match, in order."""
        return () if self.match is None else tuple(self.match.results)

    def as_previous(self) -> PreviousMatch | None:
        """What a rematch of this match needs, once it has ended normally (§7.1)."""
        totals = None if self.match is None or not self.finished else self.match.totals
        return None if totals is None else PreviousMatch(self.match_id or b"", 1 - totals.winner)

    def engine(self) -> Hand:
        """The engine's hand in play."""
        assert self.match is not None and self.match.hand is not None
        return self.match.hand

    def state(self) -> HandState:
        """The fair-deal state of the hand in play."""
        assert self.hand is not None
        return self.hand

    def turn(self) -> Stage:
        """After a move: the hand's end, the peer's move or ours."""
        hand = self.engine()
        if hand.result is not None:
            return Stage.SEED
        return Stage.MOVE if hand.turn == self.peer else Stage.PLAY

    def position_of(self, card: Card) -> int:
        """The deck position of a card whose place is known."""
        hand = self.engine()
        return next(p for p in range(fd.DECK_SIZE) if hand.card_at(p) == card)

    # -- what the handlers share ---------------------------------------------------------

    def hand_fields(self, msg: wire.Message, *names: str) -> None:
        """Schema of a hand message: only ``h`` and ``names``, and ``h`` the hand in play."""
        msg.only("h", *names)
        number = msg.integer("h", low=0, high=fd.MAX_HAND_NUMBER)
        if number != self.state().number:
            raise self.protocol(f"{msg.type}: hand {number}, but hand {self.state().number} "
                                "is in play", f"{msg.type}.h")

    def protocol(self, message: str, field: str) -> ProtocolFault:
        return ProtocolFault(message, who=SEATS[self.peer], field=field)

    def cheat(self, message: str, field: str, evidence: DealEvidence | None = None
              ) -> CheatFault:
        return CheatFault(message, who=SEATS[self.peer], field=field, evidence=evidence)

    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat`` in the engine and tell the interface."""
        assert self.match is not None
        self.match.apply(seat, action)
        self.emit(Moved(seat, action))

    def record(self) -> HandRecord:
        """The hand in play as its record. Before the peer's seed arrives the record is
        only signed: its digest leaves the seeds out (their commitments bind them)."""
        hand = self.engine()
        assert self.match is not None and hand.result is not None and self.keys is not None
        hs, match, keys = self.state(), self.match, self.keys
        m1, m2, m3 = hs.messages
        assert m1 is not None and m2 is not None and m3 is not None and hs.proof is not None
        seeds = {hs.role: hs.mine.seed, hs.role.other: hs.their_seed or bytes(fd.SEED_BYTES)}
        assert keys.match_id is not None
        return HandRecord(
            rules=match.rules,
            match_id=keys.match_id,
            hand_number=hs.number,
            dealer=hs.dealer,
            commitments=(hs.commits[fd.Role.FIRST], hs.commits[fd.Role.SECOND]),
            messages=(m1, m2, m3),
            proof=hs.proof,
            steps=tuple(hs.steps),
            seeds=(seeds[fd.Role.FIRST], seeds[fd.Role.SECOND]),
            score=Score.of(hand.result),
            scores=(match.scores[0], match.scores[1]),
            **keys.binding(),
        )
