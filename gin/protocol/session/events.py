"""What an online session tells its interface: events, and the ways a session ends.

A session that stops emits one :class:`Failure`. Its class says how much is
known, because only a proven fault may cost a player the match:

* :class:`CheatDetected` and :class:`ProtocolError` — an authentic message of the
  peer (which only the peer can make) breaks the rules, the fair deal or the
  protocol: proven, and the peer forfeits (``proven`` is True);
* :class:`Unresolved` — something did not arrive in time (:class:`PeerTimedOut`)
  or a frame failed authentication (:class:`FrameRejected`): the peer or the relay
  may have caused it, nobody forfeits, ``who`` names both;
* :class:`Abandoned` — the local player ended the match because the peer stayed
  silent while it owed something: not a cheat, no forfeit; ``record`` is the local
  player's signed word of it (:mod:`gin.protocol.records.abandonment`); the peer, told so,
  ends with :class:`ClaimedAbandoned`, a :class:`PeerAborted`;
* :class:`PeerAborted` — the peer stopped and said why; what it said is shown as
  its claim (``claim``), never as a verdict;
* :class:`VersionMismatch` — the peer's gin speaks another protocol version: nobody
  is at fault, and the reason says which side must update.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gin.engine.actions import Action
from gin.engine.cards import Card
from gin.engine.observation import HandResult
from gin.engine.rules import Ruleset
from gin.engine.scoring import MatchTotals
from gin.protocol.records.abandonment import AbandonmentRecord
from gin.protocol.records.evidence import DealEvidence
from gin.protocol.records.records import HandRecord


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
    """The host proposes custom rules (not a preset), or a rematch (``rematch``: its
    ``hello`` continues the guest's last match on this link). The guest plays only once
    its player, shown ``rules.describe()``, accepts (``Session.accept_rules``)."""

    rules: Ruleset
    rematch: bool = False


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
    """The hand audited clean and both sides signed it. ``record`` is to be saved."""

    hand_number: int
    record: HandRecord


@dataclass(frozen=True)
class MatchOver(SessionEvent):
    """The match ended: by reaching the target (``totals``) or by a proven forfeit."""

    winner: int
    totals: MatchTotals | None
    forfeited_by: str | None  # "host" or "guest" when the match was forfeited


@dataclass(frozen=True)
class RematchDeclined(SessionEvent):
    """The guest declined the host's offer of a rematch (§7.1): the series on this link
    ends here, normally. Not a failure: nobody is at fault and nothing is forfeited.
    ``reason``: the guest's words ("you declined the rematch" on its side)."""

    by: str  # "guest": only the guest answers an offer
    reason: str


@dataclass(frozen=True)
class Failure(SessionEvent):
    """The session stopped. ``field`` names what failed, ``reason`` says it in words.

    ``who``: for a proven fault the side at fault ("host" or "guest"); for an
    unresolved one both possible causes ("guest or the relay"); for an abort the
    side that ended the match.
    """

    who: str
    field: str
    reason: str
    proven: ClassVar[bool] = False  # True: ``who`` is proven at fault and forfeits


@dataclass(frozen=True)
class CheatDetected(Failure):
    """The peer broke the rules or the fair deal, or refused to reveal its seed.

    ``record`` is the evidence, when there is some anyone can check: the hand's
    record when the hand-end audit found it, or the signed message 2 whose shuffle
    proof failed (:class:`~gin.protocol.records.evidence.DealEvidence`).
    """

    record: HandRecord | DealEvidence | None = None
    proven: ClassVar[bool] = True


@dataclass(frozen=True)
class ProtocolError(Failure):
    """An authentic message of the peer that is malformed or not owed now."""

    proven: ClassVar[bool] = True


@dataclass(frozen=True)
class Unresolved(Failure):
    """A fault the peer or the relay may have caused: no forfeit, no cheat verdict."""


@dataclass(frozen=True)
class PeerTimedOut(Unresolved):
    """What the peer owed did not arrive in time: not sent, or not delivered."""


@dataclass(frozen=True)
class FrameRejected(Unresolved):
    """A frame failed authentication or framing: altered by the relay, or sent bad."""


@dataclass(frozen=True)
class Abandoned(Failure):
    """The local player ended the match: the peer (``who``) owed ``field`` and stayed
    silent past the grace period. Silence is not a verdict: no forfeit, no cheat.
    ``record`` is the signed abandonment record to keep, None when the handshake had
    not yet made a match id to sign it under."""

    record: AbandonmentRecord | None = None


@dataclass(frozen=True)
class PeerAborted(Failure):
    """The peer ended the match; ``reason`` quotes what it said, as its words, never
    as a verdict (a cheater could otherwise make the honest side blame itself)."""


@dataclass(frozen=True)
class ClaimedAbandoned(PeerAborted):
    """The peer ended the match as abandoned by this side (an ``abort`` of kind
    ``abandoned``): this side was silent past the peer's grace. The peer's claim,
    quoted; no forfeit."""


@dataclass(frozen=True)
class LeftOwing(PeerAborted):
    """The peer ended the match as abandoned by this side while it was the peer that
    owed the next message (``field`` names it): its claim does not hold against this
    side's own state, so the peer left the match. Counted as abandoned by the peer;
    nothing is proven (no forfeit, no cheat)."""


@dataclass(frozen=True)
class VersionMismatch(Failure):
    """A message of another protocol version arrived: the two gins cannot play each
    other. ``who`` is "nobody"; ``reason`` says which side must update."""


@dataclass(frozen=True)
class RulesDeclined(Failure):
    """The local player declined the host's custom rules or rematch, or its gin refused
    a rematch of a match it did not play (``field`` ``hello.prev``): the match never
    began."""


FAILURES: dict[str, type[Failure]] = {
    cls.__name__: cls for cls in (CheatDetected, ProtocolError, PeerTimedOut, FrameRejected,
                                  Abandoned, PeerAborted, ClaimedAbandoned, LeftOwing,
                                  VersionMismatch, RulesDeclined)
}


def abort_failure(peer: str, owed: str | None, why: str, field: str, reason: str,
                  all_acknowledged: bool) -> Failure:
    """What an ``abort`` from the ``peer`` ends the match as, given what the peer ``owed``
    (``waiting_for``) and whether it had acknowledged every message of ours."""
    if owed == "seed" and why != "tampered":
        return CheatDetected(peer, "seed", f"the {peer} refused to reveal its seed (a failed "
                             f"audit); it said: {reason}")
    if why == "abandoned" and owed is not None and all_acknowledged:
        # The claimant itself owed the next message and had every one of ours: this side
        # was not the silent one.
        return LeftOwing(peer, owed, f"the {peer} left the match while the next message was "
                         f"its own ({owed}); it claimed you had gone silent, saying: {reason}")
    kind = ClaimedAbandoned if why == "abandoned" else PeerAborted
    return kind(peer, field, f"the {peer} ended the match ({why}), saying: {reason}")
