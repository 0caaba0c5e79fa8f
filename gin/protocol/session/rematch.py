"""A rematch: the next match on the same link (protocol.md §7.1), a new session whose
``hello`` names the match just finished as ``prev`` (the twin of
client/web/src/protocol/session/rematch.ts)."""

from __future__ import annotations

from dataclasses import dataclass

from gin.engine.errors import MalformedInput
from gin.protocol.records.cosign import MATCH_ID_BYTES
from gin.protocol.session.hand import first_dealer_for

#: The guest's words when it has no match for the host's ``prev`` (not a proven
#: fault: this gin may not be the one that played it), and the host's.
NOT_PLAYED = "your friend offers a rematch of a match this gin did not play"
NOT_PLAYED_TOLD = "the guest's gin did not play the match this rematch continues"


@dataclass(frozen=True)
class PreviousMatch:
    """The match on this link that a rematch continues (§7.1): its id, which the
    rematch's ``hello`` names as ``prev``, and its loser, who deals the rematch's first
    hand. Each side knows both from its own finished session."""

    match_id: bytes
    loser: int

    def __post_init__(self) -> None:
        if not (isinstance(self.match_id, bytes) and len(self.match_id) == MATCH_ID_BYTES
                and self.loser in (0, 1) and not isinstance(self.loser, bool)):
            raise MalformedInput("a previous match is a 16-byte match id and a seat, 0 or 1")

    def to_state(self) -> list[object]:
        return [self.match_id, self.loser]

    @classmethod
    def from_state(cls, value: object) -> PreviousMatch:
        if not (isinstance(value, list | tuple) and len(value) == 2
                and isinstance(value[0], bytes) and isinstance(value[1], int)):
            raise MalformedInput("a saved previous match is [match id, loser]")
        return cls(value[0], value[1])


def prev_fault(prev: bytes, rematch: PreviousMatch | None) -> str | None:
    """Why the guest expecting ``rematch`` refuses a ``hello`` whose ``prev`` is ``prev``
    as the host's protocol error (field ``hello.prev``), or None. A ``prev`` the guest
    has no match for is :data:`NOT_PLAYED`, checked first."""
    if prev == (b"" if rematch is None else rematch.match_id):
        return None
    return (f"the host's hello continues match {prev.hex() or 'none'}, not this guest's "
            "last match on this link")


def first_dealer(match_id: bytes, host_nonce: bytes, guest_nonce: bytes,
                 rematch: PreviousMatch | None) -> int:
    """The coin of §4; in a rematch the previous match's loser (the coin is still
    tossed and checked, so a rematch's messages are those of any match)."""
    return first_dealer_for(match_id, host_nonce, guest_nonce) if rematch is None \
        else rematch.loser
