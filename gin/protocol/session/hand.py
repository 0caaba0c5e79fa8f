"""The fair-deal bookkeeping of the hand in play, beside the engine's Hand, and the
handshake's derivations (protocol.md §4): the twin of
client/web/src/protocol/session/hand.ts."""

from __future__ import annotations

import hashlib
import json

from gin.engine.actions import Action
from gin.engine.rules import Ruleset
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records.cosign import DOMAIN
from gin.protocol.records.records import Step


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
