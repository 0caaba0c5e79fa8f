"""The fair-deal bookkeeping of the hand in play, beside the engine's Hand, and the
handshake's derivations (protocol.md §4): the twin of
client/web/src/protocol/session_hand.ts."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from gin.engine.actions import Action
from gin.engine.errors import MalformedInput
from gin.engine.rules import Ruleset
from gin.protocol import fairdeal as fd
from gin.protocol.cosign import DOMAIN, MATCH_ID_BYTES
from gin.protocol.records import Step


def rules_digest(rules: Ruleset) -> bytes:
    """SHA-256 of the ruleset's canonical JSON: what the guest agrees to (§4, §7.1)."""
    text = json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(DOMAIN + b"rules\x00" + text.encode()).digest()


def coin(link_id: bytes, nonce: bytes) -> bytes:
    """The host's commitment to its nonce (§4)."""
    return hashlib.sha256(DOMAIN + b"coin\x00" + link_id + nonce).digest()


def first_dealer_for(match_id: bytes, host_nonce: bytes, guest_nonce: bytes) -> int:
    """The seat that deals the first hand: a coin both sides toss (§4, §7.1)."""
    return hashlib.sha256(DOMAIN + b"first-dealer\x00" + match_id + host_nonce + guest_nonce
                          ).digest()[0] & 1


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


class HandState:
    """The fair-deal state of the hand in play."""

    def __init__(self, number: int, dealer: int, me: int, seed: bytes, match_id: bytes) -> None:
        self.number = number
        self.dealer = dealer
        self.match_id = match_id
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
        self.proof: bytes | None = None  # the digest of message 2's proof, once checked
        self.my_signature: bytes | None = None
        self.steps: list[Step] = []

    def expected_deck(self) -> int | None:
        """The deck message (1..3) the peer owes next (§7.2), or None."""
        m1, m2, m3 = self.messages
        if self.role is fd.Role.SECOND:
            return 1 if m1 is None else (3 if m3 is None else None)
        return 2 if m1 is not None and m2 is None else None
