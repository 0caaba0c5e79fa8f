"""How an online match ended, in one line for the player (the end of `gin host`/`gin
join`, the saved match's note) — and the failures the connection and the storage
add to the session's (:mod:`gin.protocol.session.events`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from client.text import plain
from gin.protocol.session.events import (
    Abandoned,
    CheatDetected,
    ClaimedAbandoned,
    Failure,
    FrameRejected,
    LeftOwing,
    MatchOver,
    PeerAborted,
    PeerTimedOut,
    ProtocolError,
    RulesDeclined,
)
from gin.protocol.session.session import Session


@dataclass(frozen=True)
class ConnectionFailed(Failure):
    """The relay refused this side for good or could not be reached again."""


@dataclass(frozen=True)
class FriendLeft(Failure):
    """The friend left the match for good while this side was away (the relay's word):
    it cannot go on. ``who``: the friend's seat."""


def friend_left(session: Session) -> FriendLeft | None:
    """This side is back to a match under way whose friend left it for good meanwhile (the
    relay's word): it cannot go on. None if the match had not started or is over. A move
    this side owed says why the friend may have ended it."""
    if session.over or not session.received:
        return None
    friend = "guest" if session.role == "host" else "host"
    reason = (f"your friend (the {friend}) left this match for good while you were away, "
              "so it cannot go on")
    if session.legal_actions():
        reason += ("; you owed your move, so once their grace ran out they may have ended "
                   "it as abandoned by you (their word, not a verdict)")
    return FriendLeft(friend, "connection", reason)


@dataclass(frozen=True)
class StorageFailed(Failure):
    """This side could not save the match in time; it sent nothing it had not saved."""


class Ending(Protocol):
    """What the line is told from (a :class:`client.net.peer.OnlineMatch`)."""

    @property
    def seat(self) -> int: ...
    @property
    def failure(self) -> Failure | None: ...
    @property
    def result(self) -> MatchOver | None: ...
    @property
    def verified(self) -> int: ...
    @property
    def files(self) -> object | None: ...
    @property
    def records(self) -> list[Path]: ...
    @property
    def unrecorded(self) -> list[int]: ...
    @property
    def storage_problem(self) -> str: ...
    @property
    def declined(self) -> bool: ...


def outcome_line(match: Ending) -> str:
    """One line telling how the match ended, from the local player's seat.

    Only a proven fault names someone at fault; a timeout or a rejected frame names
    both possible causes, and a friend's abort is quoted as what the friend said.
    """
    failure, result = match.failure, match.result
    unrecorded = _unrecorded_note(match)
    if failure is not None:
        kind = {CheatDetected: "cheat detected", ProtocolError: "protocol error",
                PeerTimedOut: "no answer", FrameRejected: "frame rejected",
                ClaimedAbandoned: "your friend ended the match as abandoned by you",
                LeftOwing: "your friend left the match (counted as abandoned by your friend)",
                PeerAborted: "match stopped by your friend",
                ConnectionFailed: "connection failed",
                FriendLeft: "your friend left",
                StorageFailed: "could not save",
                RulesDeclined: "rules declined"}.get(type(failure), "failed")
        reason = plain(failure.reason)
        if isinstance(failure, Abandoned):
            line = abandoned_words(failure)
        elif failure.proven:
            line = (f"{kind}: {reason} (at fault: {failure.who}, field "
                    f"{plain(failure.field)}; the match is forfeited)")
        elif isinstance(failure, PeerAborted | ConnectionFailed | RulesDeclined
                        | StorageFailed | FriendLeft):
            line = f"{kind}: {reason}"
        else:
            line = f"{kind}: {reason} (not proven: nobody forfeits)"
        return line + (f"; {unrecorded}" if unrecorded else "")
    if result is None and match.declined:  # a normal end of the series: nobody at fault
        who = "you" if match.seat == 1 else "your friend"
        return f"no rematch: {who} declined it, so the matches on this link end here"
    if result is None:
        return "the match did not finish" + (f"; {unrecorded}" if unrecorded else "")
    who = "you won" if result.winner == match.seat else "your friend won"
    if result.totals is None:
        return f"the match is over: {who}"
    totals = result.totals.totals
    return (f"the match is over: {who}, {totals[match.seat]} to {totals[1 - match.seat]}; "
            + (unrecorded or f"{hands(match.verified)} verified"
               + (" and recorded" if match.files is not None else "")))


def hands(count: int) -> str:
    """"1 hand", "3 hands"."""
    return f"{count} hand{'s' * (count != 1)}"


def abandoned_words(failure: Abandoned) -> str:
    """The end of a match this player ended as abandoned by the silent friend."""
    said = plain(failure.reason).partition(": ")[2].rstrip(".") + "."
    kept = ("Saved as a signed record you can audit." if failure.record is not None else
            "Nothing is signed: the match had not started.")
    return f"Abandoned by your friend (the {failure.who}): {said} {kept}"


def _unrecorded_note(match: Ending) -> str:
    """How many hands are recorded, when some could not be; else ""."""
    if not match.unrecorded:
        return ""
    recorded, lost = len(match.records), len(match.unrecorded)
    return (f"only {recorded} of {hands(recorded + lost)} verified recorded: "
            f"{lost} could not be saved ({match.storage_problem})")
