"""When the peer falls silent (protocol.md §11.3): the failure of a plain timeout,
when :meth:`gin.protocol.session.session.Session.abandon` may be called, and the failure it
ends with, carrying the claimant's signed record (§10.3). The twin of
client/web/src/protocol/session/silence.ts.
"""

from __future__ import annotations

from gin.engine.errors import IllegalAction, MalformedInput
from gin.protocol.records.abandonment import MAX_TIME, AbandonmentRecord
from gin.protocol.records.records import SEATS
from gin.protocol.session.events import Abandoned, PeerTimedOut
from gin.protocol.session.flow import MatchFlow
from gin.protocol.session.table import waiting_for
from gin.protocol.wire.messages import HANDSHAKE


def timed_out(flow: MatchFlow) -> PeerTimedOut:
    """What the peer owes did not arrive in time: unproven, and no record."""
    owed, peer = waiting_for(flow), SEATS[flow.peer]
    what = "seed" if owed == "seed" else f"{owed} message"
    return PeerTimedOut(f"{peer} or the relay", str(owed), f"the {peer}'s {what} did not "
                        f"arrive in time: the {peer} withheld it, or the relay dropped it")


def check(flow: MatchFlow, since: int, now: int) -> None:
    """MalformedInput for times that are not UTC seconds in order; IllegalAction,
    naming the state, when the peer owes nothing."""
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in (since, now)) or not (
            0 <= since <= now <= MAX_TIME):
        raise MalformedInput(f"abandon times must be UTC seconds, 0 <= since <= now <= "
                             f"{MAX_TIME}: got {since!r}, {now!r}")
    if waiting_for(flow) is None:
        why = ("the match is over" if flow.over else "custom rules await your answer"
               if flow.offered is not None else "it is your move")
        raise IllegalAction(f"{flow.role} cannot end the match as abandoned by the "
                            f"{SEATS[flow.peer]}: it owes nothing now ({why})")


def abandoned(flow: MatchFlow, since: int, now: int, delivered: tuple[int, bytes]) -> Abandoned:
    """The failure of ending the match at ``now`` while the peer has owed what it owes
    since ``since``, having had ``delivered`` (count, hash chain) messages from it; its
    record is signed, unless the handshake has not yet made a match id."""
    owed, peer = str(waiting_for(flow)), SEATS[flow.peer]
    keys = flow.keys
    if flow.match_id is None or keys is None:  # the match never began: nothing to sign
        return Abandoned(peer, owed, f"Abandoned by the {peer}: it did not answer the start "
                         f"of the match (its {owed}) in {now - since} s; not a cheat, and "
                         "not proven")
    seen = flow.observation()  # its scores are the match's, with a scored hand counted
    record = AbandonmentRecord(
        match_id=flow.match_id, **keys.binding(),
        hand_number=0 if owed in HANDSHAKE else flow.state().number, owed_seat=flow.peer,
        owed=owed, since=since, claimed=now, received=delivered[0],
        received_digest=delivered[1], scores=(0, 0) if seen is None else seen.scores,
        claimant=flow.seat).signed(keys.signer)
    words = record.words()
    return Abandoned(peer, owed, words[:1].upper() + words[1:], record)
