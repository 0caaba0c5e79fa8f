"""The match as one peer of an online session plays it (the game half of the session;
the twin of client/web/src/protocol/session_flow.ts): the handshake, each hand's fair
deal with its shuffle proof (:mod:`gin.protocol.session_deal`), the moves checked on
arrival, the keys sent and the hand's end with its audit and signatures.

A :class:`MatchFlow` sends, emits, draws randomness and fails through its
:class:`Outlet`, the session, which owns the channel, the log and the failure. A
message that breaks the protocol raises a :class:`ProtocolFault`, one that cheats a
:class:`CheatFault`; the session turns them into failures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from gin.engine.actions import Action, BigGin, Discard, DrawStock, Knock, parse_action
from gin.engine.cards import Card
from gin.engine.errors import MalformedInput, PeerFault
from gin.engine.hand import UPCARD_POSITION, Hand, dealt_positions
from gin.engine.match import Match
from gin.engine.observation import HandResult, Observation, Phase
from gin.engine.rules import Ruleset
from gin.protocol import cosign, wire
from gin.protocol import fairdeal as fd
from gin.protocol import session_deal as deal
from gin.protocol import session_moves as moves
from gin.protocol.audit import audit_record
from gin.protocol.evidence import DealEvidence
from gin.protocol.identity import Identity
from gin.protocol.records import SEATS, HandRecord, Score, Step
from gin.protocol.session_deal import DealIo
from gin.protocol.session_events import (
    CardDrawn,
    CheatDetected,
    ClaimedAbandoned,
    Failure,
    HandDealt,
    HandScored,
    HandVerified,
    MatchOver,
    MatchStarted,
    Moved,
    PeerAborted,
    RematchDeclined,
    RulesDeclined,
    RulesOffered,
    SessionEvent,
)
from gin.protocol.session_hand import HandState, coin, rules_digest
from gin.protocol.session_handshake import MatchKeys, read_rules
from gin.protocol.session_rematch import (
    NOT_PLAYED,
    NOT_PLAYED_TOLD,
    PreviousMatch,
    first_dealer,
    prev_fault,
)

SessionRole = Literal["host", "guest"]
NONCE_BYTES = 32
MAX_ACTION_CHARS = 256
MAX_REASON_CHARS = 400
MAX_FIELD_CHARS = 64
HAND_KEYS = 11  # ten dealt cards and the upcard
ABORT_KINDS = ("cheat", "protocol", "tampered", "timeout", "declined", "abandoned")


class ProtocolFault(PeerFault):
    """The peer's message is malformed or out of turn."""


class CheatFault(PeerFault):
    """The peer's message is well formed but breaks the rules or the fair deal;
    ``evidence``, when the peer signed what proves it (a refused message 2)."""

    def __init__(self, message: str, *, who: str, field: str,
                 evidence: DealEvidence | None = None) -> None:
        super().__init__(message, who=who, field=field)
        self.evidence = evidence


@dataclass(frozen=True)
class Outlet:
    """What the match flow needs of its session."""

    failure: Callable[[], Failure | None]  # the session's failure (the flow stops with it)
    send: Callable[[str, Mapping[str, object]], None]
    emit: Callable[[SessionEvent], None]
    random: Callable[[int], bytes]  # fresh randomness, logged: a restored session replays it
    fail: Callable[[Failure], None]


class MatchFlow:
    """One peer's match: handshake, hands, moves, checks. It is the :class:`DealIo` of
    the deal's handlers."""

    def __init__(self, role: SessionRole, link_id: bytes, proposed: Ruleset | None,
                 identity: Identity, out: Outlet, rematch: PreviousMatch | None = None
                 ) -> None:
        self.role = role
        self.seat = SEATS.index(role)
        self.peer = 1 - self.seat
        self.link_id = link_id
        self.proposed = proposed
        self.agreed = proposed
        self.offered: Ruleset | None = None  # custom rules awaiting the local player
        self.finished = False
        self.declined = False  # a rematch the guest declined: a normal end (RematchDeclined)
        self.identity = identity
        self.keys: MatchKeys | None = None  # drawn by begin()
        self.rematch = rematch  # the match this one continues (§7.1), or None
        self._out = out
        self._nonce: bytes | None = None
        self._peer_coin: bytes | None = None
        self._match: Match | None = None
        self._hand: HandState | None = None

    def begin(self) -> None:
        """Draw the signing key; the host proposes its rules and commits to its coin."""
        self.keys = MatchKeys(self.seat, self.link_id, self.identity,
                              self._out.random(cosign.KEY_SEED_BYTES),
                              b"" if self.rematch is None else self.rematch.match_id)
        if self.role == "host":
            assert self.agreed is not None
            self._nonce = self._out.random(NONCE_BYTES)
            self.send("hello", {"rules": self.agreed.to_dict(),
                                "coin": coin(self.link_id, self._nonce), **self.keys.fields()})

    @property
    def match_id(self) -> bytes | None:
        """The match id, once both sides' keys are known."""
        return None if self.keys is None else self.keys.match_id

    # -- queries ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Finished normally (a rematch declined too) or by a failure."""
        return self.finished or self.declined or self._out.failure() is not None

    def observation(self) -> Observation | None:
        """What the local player sees, or None before the first deal."""
        if self._match is None or self._match.hand is None:
            return None
        return self._match.observation(self.seat)

    def results(self) -> tuple[HandResult, ...]:
        """Every finished hand of the match, in order."""
        return () if self._match is None else tuple(self._match.results)

    def as_previous(self) -> PreviousMatch | None:
        """What a rematch of this match needs, once it has ended normally (§7.1)."""
        totals = None if self._match is None or not self.finished else self._match.totals
        return None if totals is None else PreviousMatch(self.match_id or b"", 1 - totals.winner)

    def legal_actions(self) -> list[Action]:
        """The local player's legal actions; empty unless it is its move now."""
        if self._local_refusal() is not None:
            return []
        assert self._match is not None
        return self._match.legal_actions()

    def refusal(self, action: Action) -> str | None:
        """Why the local player may not play ``action`` now, or None."""
        why = self._local_refusal()
        return why if why is not None else self.engine().refusal(self.seat, action)

    def waiting_for(self) -> str | None:
        """The message type the peer owes now, or None (our move, or the match is over)."""
        if self.over:
            return None
        if self._match is None:
            if self.role == "host":
                return "welcome"
            if self.offered is not None:
                return None  # the local player is deciding on the rules
            return "hello" if self._peer_coin is None else "start"
        hs = self.state()
        if hs.role.other not in hs.commits:
            return "commit"
        if hs.expected_deck() is not None:
            return "deck"
        if not hs.dealt:
            return "deal"
        hand = self.engine()
        if hand.phase is Phase.OVER:
            return "seed"
        if hs.draw_pending is not None:
            return "key"
        if hs.knock_pending is not None:
            return "show"
        return "move" if hand.turn == self.peer else None

    def engine(self) -> Hand:
        """The engine's hand in play."""
        assert self._match is not None and self._match.hand is not None
        return self._match.hand

    def state(self) -> HandState:
        """The fair-deal state of the hand in play."""
        assert self._hand is not None
        return self._hand

    def position_of(self, card: Card) -> int:
        """The deck position of a card whose place is known."""
        hand = self.engine()
        return next(p for p in range(fd.DECK_SIZE) if hand.card_at(p) == card)

    def _local_refusal(self) -> str | None:
        if self.over:
            return "the match is over"
        if self._hand is None or not self._hand.dealt:
            return "the hand is not dealt yet"
        owed = self.waiting_for()
        if owed is not None:
            return f"waiting for {SEATS[self.peer]}'s {owed}"
        return None

    # -- what the deal's handlers use (DealIo) ----------------------------------------

    def send(self, msg_type: str, fields: Mapping[str, object]) -> None:
        self._out.send(msg_type, fields)

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

    # -- the peer's messages: the handshake ---------------------------------------------

    def handle(self, msg: wire.Message) -> None:
        """One message the peer owes now (the session checked its type), applied."""
        _HANDLERS[msg.type](self, msg)

    def _on_hello(self, msg: wire.Message) -> None:
        msg.only("rules", "coin", "key", "id", "prev", "vouch")
        rules = read_rules(msg)
        if self.proposed is not None and rules != self.proposed:
            raise self.protocol(f"the host proposes the {rules.name} rules {rules.to_dict()}, "
                                "which this guest did not agree to", "hello.rules")
        self._peer_coin = msg.blob("coin", size=32)
        assert self.keys is not None
        self.keys.read(msg, self.protocol)
        prev, wrong = self.keys.previous, prev_fault(self.keys.previous, self.rematch)
        if prev and self.rematch is None:
            self._refuse("hello.prev", NOT_PLAYED, NOT_PLAYED_TOLD)
        elif wrong is not None:
            raise self.protocol(wrong, "hello.prev")
        elif prev or (self.proposed is None and not rules.is_preset):  # shown first (§7.1)
            self.offered = rules
            self._out.emit(RulesOffered(rules, rematch=bool(prev)))
        else:
            self._welcome(rules)

    def accept(self) -> None:
        """The local player accepted the offered rules."""
        assert self.offered is not None
        rules, self.offered = self.offered, None
        self._welcome(rules)

    def decline(self, reason: str | None) -> None:
        """The local player declines the offered rules or rematch: tell the host, stop."""
        self.offered = None
        if self.rematch is not None:  # a normal end of the series, not a failure
            self.send("abort", {"why": "declined", "field": "hello.prev",
                                "reason": "the guest declined the rematch"})
            self.declined = True
            self._out.emit(RematchDeclined("guest", reason or "you declined the rematch"))
        else:
            self._refuse("hello.rules", reason or "you declined the host's custom rules",
                         "the guest declined the host's custom rules")

    def _refuse(self, field: str, reason: str, told: str) -> None:
        """End the match unplayed: ``told`` is what the host reads, ``reason`` ours."""
        self.send("abort", {"why": "declined", "field": field, "reason": told})
        self._out.fail(RulesDeclined("guest", field, reason))

    def _welcome(self, rules: Ruleset) -> None:
        assert self.keys is not None
        self.agreed = rules
        self._nonce = self._out.random(NONCE_BYTES)
        self.send("welcome", {"rules": rules_digest(rules), "nonce": self._nonce,
                              **self.keys.fields()})

    def _on_welcome(self, msg: wire.Message) -> None:
        msg.only("rules", "nonce", "key", "id", "vouch")
        assert self.agreed is not None and self._nonce is not None and self.keys is not None
        if msg.blob("rules", size=32) != rules_digest(self.agreed):
            raise self.protocol("the guest agreed to another ruleset", "welcome.rules")
        guest_nonce = msg.blob("nonce", size=NONCE_BYTES)
        self.keys.read(msg, self.protocol)
        assert self.match_id is not None
        self.send("start", {"nonce": self._nonce})
        self._start_match(first_dealer(self.match_id, self._nonce, guest_nonce, self.rematch))

    def _on_start(self, msg: wire.Message) -> None:
        msg.only("nonce")
        host_nonce = msg.blob("nonce", size=NONCE_BYTES)
        if coin(self.link_id, host_nonce) != self._peer_coin:
            raise self.cheat("the host's nonce does not open its coin commitment",
                             "start.nonce")
        assert self._nonce is not None and self.match_id is not None
        self._start_match(first_dealer(self.match_id, host_nonce, self._nonce, self.rematch))

    def _start_match(self, first_dealer: int) -> None:
        assert self.agreed is not None and self.match_id is not None
        self._match = Match(self.agreed, first_dealer)
        self._out.emit(MatchStarted(self.agreed, self.seat, first_dealer, self.match_id))
        self._start_hand()

    def _start_hand(self) -> None:
        assert self._match is not None and self.match_id is not None
        number = 1 if self._hand is None else self._hand.number + 1
        hs = HandState(number, self._match.dealer, self.seat, self._out.random(fd.SEED_BYTES),
                       self.match_id)
        self._hand = hs
        self.send("commit", {"h": number, "c": hs.commits[hs.role]})

    # -- the peer's messages: the deal and the moves ------------------------------------

    def _on_deal(self, msg: wire.Message) -> None:
        self.hand_fields(msg, "keys")
        hs = self.state()
        assert self._match is not None
        keys = msg.blobs("keys", min_len=HAND_KEYS, max_len=HAND_KEYS, size=fd.KEY_BYTES)
        positions = [*dealt_positions(self.seat == hs.dealer), UPCARD_POSITION]
        deck: list[Card | None] = [None] * fd.DECK_SIZE
        pairs = []
        for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
            deck[pos] = _open(hs, pos, key, f"deal.keys[{i}]", self)
            pairs.append((pos, fd.key_from_bytes(key)))
        try:
            hand = self._match.deal(deck)
        except MalformedInput as exc:
            raise self.cheat(f"the dealt cards are corrupt: {exc}", "deal.keys") from None
        hs.dealt = True
        hs.peer_positions.update(dealt_positions(self.peer == hs.dealer))
        hs.steps.append(Step(self.peer, None, tuple(pairs)))
        self._out.emit(HandDealt(hs.number, hs.dealer, hand.cards(self.seat), hand.pile[-1]))

    def _on_move(self, msg: wire.Message) -> None:
        self.hand_fields(msg, "a", "pos", "keys")
        hs = self.state()
        hand = self.engine()
        peer = SEATS[self.peer]
        text = msg.text("a", max_len=MAX_ACTION_CHARS)
        try:
            action = parse_action(text)
        except MalformedInput as exc:
            raise self.protocol(str(exc), "move.a") from None
        allowed = HAND_KEYS if isinstance(action, Knock | BigGin) else (
            1 if isinstance(action, Discard) else 0)
        pairs = _reveal_all(hs, hand, msg, "move", allowed, self)
        if isinstance(action, Discard) and pairs:
            shown = hand.card_at(pairs[0][0])
            if shown != action.card:
                raise self.cheat(f"move.keys[0]: opens {shown}, not the discarded "
                                 f"{action.card}", "move.keys[0]")
        why = hand.refusal(self.peer, action)
        if why is not None:
            raise self.cheat(f"{peer} cannot {action}: {why}", "move.a")
        hs.steps.append(Step(self.peer, action, pairs))
        drawn = hand.next_stock_position
        self.apply(self.peer, action)
        if isinstance(action, DrawStock):  # announced: only now may the key go (§7.4)
            hs.peer_positions.add(drawn)
            key = hs.mine.position_keys[drawn]
            hs.keys_sent.add(drawn)
            hs.steps.append(Step(self.seat, None, ((drawn, key),)))
            self.send("key", {"h": hs.number, "pos": drawn, "key": fd.key_bytes(key)})
        elif isinstance(action, Knock | BigGin):
            pairs = moves.unrevealed_keys(self)
            hs.steps.append(Step(self.seat, None, pairs))
            self.send("show", {"h": hs.number, "pos": [p for p, _ in pairs],
                               "keys": [fd.key_bytes(k) for _, k in pairs]})
        self.after_move()

    def _on_key(self, msg: wire.Message) -> None:
        self.hand_fields(msg, "pos", "key")
        hs = self.state()
        pos = msg.integer("pos", low=0, high=fd.DECK_SIZE - 1)
        if pos != hs.draw_pending:
            raise self.protocol(f"key for position {pos}, but the card drawn is at "
                                f"{hs.draw_pending}", "key.pos")
        key = msg.blob("key", size=fd.KEY_BYTES)
        card = _open(hs, pos, key, "key.key", self)
        try:
            self.engine().reveal(pos, card)
        except MalformedInput as exc:
            raise self.cheat(f"key.key: {exc}", "key.key") from None
        hs.draw_pending = None
        hs.steps.append(Step(self.peer, None, ((pos, fd.key_from_bytes(key)),)))
        self._out.emit(CardDrawn(card))

    def _on_show(self, msg: wire.Message) -> None:
        self.hand_fields(msg, "pos", "keys")
        hs = self.state()
        pairs = _reveal_all(hs, self.engine(), msg, "show", HAND_KEYS, self)
        hidden = self.engine().hidden_count(self.peer)
        if hidden:
            raise self.cheat(f"show: {hidden} of {SEATS[self.peer]}'s cards are still hidden",
                             "show.pos")
        hs.steps.append(Step(self.peer, None, pairs))
        action, hs.knock_pending = hs.knock_pending, None
        assert action is not None
        self.apply(self.seat, action)
        self.after_move()

    def _on_seed(self, msg: wire.Message) -> None:
        self.hand_fields(msg, "seed", "sig")
        hs = self.state()
        peer = SEATS[self.peer]
        hs.their_seed = msg.blob("seed", size=fd.SEED_BYTES)
        signature = msg.blob("sig", size=cosign.SIGNATURE_BYTES)
        record = self._record()
        report = audit_record(record, trust_seat=self.seat)
        if not report.ok:
            first = report.findings[0]
            self._out.fail(CheatDetected(first.who, first.where, str(first), record))
            return
        assert self.keys is not None
        if not cosign.verify(self.keys.signing_keys[self.peer], cosign.hand_digest(record),
                             signature):
            raise self.protocol(f"the {peer}'s signature does not sign this hand as played",
                                "seed.sig")
        assert hs.my_signature is not None
        signatures = {self.seat: hs.my_signature, self.peer: signature}
        self._out.emit(HandVerified(hs.number, replace(
            record, signatures=(signatures[0], signatures[1]))))
        assert self._match is not None
        totals = self._match.totals
        if totals is not None:
            self.finished = True
            self._out.emit(MatchOver(totals.winner, totals, None))
        else:
            self._start_hand()

    def _on_abort(self, msg: wire.Message) -> None:
        msg.only("why", "field", "reason")
        why = msg.text("why", max_len=16, choices=ABORT_KINDS)
        field = msg.text("field", max_len=MAX_FIELD_CHARS)
        reason = msg.text("reason", max_len=MAX_REASON_CHARS)
        peer = SEATS[self.peer]
        if why == "declined" and self.role == "host" and self.rematch is not None \
                and self._match is None and reason != NOT_PLAYED_TOLD:
            self.declined = True  # the guest's answer to the offer: no fault, the end
            self._out.emit(RematchDeclined("guest", reason))
        elif self.waiting_for() == "seed" and why != "tampered":
            self._out.fail(CheatDetected(peer, "seed", f"the {peer} refused to reveal its seed "
                                         f"(a failed audit); it said: {reason}"))
        else:
            kind = ClaimedAbandoned if why == "abandoned" else PeerAborted
            self._out.fail(kind(peer, field, f"the {peer} ended the match ({why}), "
                                f"saying: {reason}"))

    # -- local moves (gin.protocol.session_moves) and the hand's end -------------------------

    def do_act(self, action: Action) -> None:
        """Play the local player's action (already checked legal)."""
        moves.play(self, action)

    def apply(self, seat: int, action: Action) -> None:
        assert self._match is not None
        self._match.apply(seat, action)
        self._out.emit(Moved(seat, action))

    def after_move(self) -> None:
        hand = self.engine()
        if hand.result is None:
            return
        hs = self.state()
        assert self._match is not None and self.keys is not None
        self._out.emit(HandScored(hs.number, hand.result,
                                  (self._match.scores[0], self._match.scores[1])))
        hs.my_signature = self.keys.signer.sign(cosign.hand_digest(self._record()))
        self.send("seed", {"h": hs.number, "seed": hs.mine.seed, "sig": hs.my_signature})

    def _record(self) -> HandRecord:
        hand = self.engine()
        assert self._match is not None and hand.result is not None
        assert self.keys is not None
        return _hand_record(self.state(), self._match, hand.result, self.keys)


# The hand's keys and record: functions of the hand (in TS, MatchFlow's methods).


def _open(hs: HandState, position: int, key: bytes, field: str, io: DealIo) -> Card:
    """The card at ``position``, opened with our key and the peer's; a cheat if not."""
    messages3 = hs.messages[2]
    assert messages3 is not None
    try:
        index = fd.open_card(messages3, position, hs.mine.position_keys[position],
                             fd.key_from_bytes(key), hs.role.other)
    except PeerFault as exc:
        raise io.cheat(f"{field}: {exc}", field) from None
    return Card.from_index(index)


def _reveal_all(hs: HandState, hand: Hand, msg: wire.Message, name: str, max_keys: int,
                io: DealIo) -> tuple[tuple[int, int], ...]:
    """Open and reveal the peer's hidden positions listed in ``pos``/``keys``."""
    positions = msg.integers("pos", max_len=max_keys, low=0, high=fd.DECK_SIZE - 1)
    keys = msg.blobs("keys", max_len=max_keys, size=fd.KEY_BYTES)
    if len(positions) != len(keys):
        raise io.protocol(f"{name}: {len(positions)} positions but {len(keys)} keys",
                          f"{name}.keys")
    pairs = []
    for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
        field = f"{name}.pos[{i}]"
        if pos not in hs.peer_positions or hand.card_at(pos) is not None:
            raise io.cheat(f"{field}: position {pos} is not a hidden card of "
                           f"{SEATS[io.peer]}", field)
        card = _open(hs, pos, key, f"{name}.keys[{i}]", io)
        try:
            hand.reveal(pos, card)
        except MalformedInput as exc:
            raise io.cheat(f"{field}: {exc}", field) from None
        pairs.append((pos, fd.key_from_bytes(key)))
    return tuple(pairs)


def _hand_record(hs: HandState, match: Match, result: HandResult, keys: MatchKeys
                 ) -> HandRecord:
    """The hand in play as its record. Before the peer's seed arrives the record is
    only signed: its digest leaves the seeds out (their commitments bind them)."""
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
        score=Score.of(result),
        scores=(match.scores[0], match.scores[1]),
        **keys.binding(),
    )


_Handler = Callable[[MatchFlow, wire.Message], None]


def _dealing(handler: Callable[[HandState, wire.Message, DealIo], None]) -> _Handler:
    return lambda flow, msg: handler(flow.state(), msg, flow)


_HANDLERS: dict[str, _Handler] = {
    "hello": MatchFlow._on_hello,
    "welcome": MatchFlow._on_welcome,
    "start": MatchFlow._on_start,
    "commit": _dealing(deal.on_commit),
    "deck": _dealing(deal.on_deck),
    "deal": MatchFlow._on_deal,
    "move": MatchFlow._on_move,
    "key": MatchFlow._on_key,
    "show": MatchFlow._on_show,
    "seed": MatchFlow._on_seed,
    "abort": MatchFlow._on_abort,
}
# The message types a peer may send (§6.2): the session refuses any other.
MESSAGE_TYPES = frozenset(_HANDLERS)

