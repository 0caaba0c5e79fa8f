"""The keys a match is bound to (protocol.md §4, §7.1): each side's per-match signing
key, its identity's vouch for it, and the match id they make; and the host's rules as
the guest reads them (the twin of client/web/src/protocol/session/handshake.ts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gin.engine.errors import MalformedInput, PeerFault
from gin.engine.rules import Ruleset
from gin.protocol.records import cosign
from gin.protocol.records.identity import Identity, check_vouch
from gin.protocol.records.records import SEATS
from gin.protocol.wire import channel as wire

MAX_RULE_NUMBER = 10_000


class MatchKeys:
    """One side's keys of the match and, once its ``hello`` or ``welcome`` came, the
    peer's: signing keys, identities, vouches, and the match id they make.

    ``previous`` is the match on this link that this one continues (b"" for a first
    match): the host chooses it and sends it in ``hello``; the guest takes it from there.
    """

    def __init__(self, seat: int, link_id: bytes, identity: Identity, signing_seed: bytes,
                 previous: bytes = b"") -> None:
        self.seat = seat
        self.link_id = link_id
        self.identity = identity
        self.signer = cosign.Signer(signing_seed)
        self.previous = previous
        self.match_id: bytes | None = None  # once the peer's keys are known
        self._peer: tuple[bytes, bytes, bytes] | None = None  # key, identity, vouch
        self._vouch = b""  # ours, made when we send it (the guest learns previous first)

    def fields(self) -> dict[str, object]:
        """Our keys as ``hello`` (with ``prev``) or ``welcome`` carry them."""
        self._vouch = self.identity.vouch(self.link_id, self.seat, self.signer.public,
                                          self.previous)
        out: dict[str, object] = {"key": self.signer.public, "id": self.identity.public,
                                  "vouch": self._vouch}
        if self.seat == 0:
            out["prev"] = self.previous
        return out

    def read(self, msg: wire.Message, fault: Callable[[str, str], PeerFault]) -> None:
        """The peer's keys from its ``hello`` or ``welcome``; ``fault(message, field)``
        makes the protocol error of a bad vouch or a key or identity that is ours."""
        name, peer = msg.type, 1 - self.seat
        if peer == 0:
            previous = msg.blob("prev", max_size=cosign.MATCH_ID_BYTES)
            if len(previous) not in (0, cosign.MATCH_ID_BYTES):
                raise fault(f"hello: the match before is {len(previous)} bytes, not 0 or "
                            f"{cosign.MATCH_ID_BYTES}", "hello.prev")
            self.previous = previous
        key = msg.blob("key", size=cosign.KEY_BYTES)
        identity = msg.blob("id", size=cosign.KEY_BYTES)
        vouch = msg.blob("vouch", size=cosign.SIGNATURE_BYTES)
        if peer == 1 and key == self.signer.public:
            raise fault("the guest's signing key is the host's", "welcome.key")
        if peer == 1 and identity == self.identity.public:
            raise fault("the guest's identity is the host's own: one data folder or browser "
                        "profile cannot play both seats", "welcome.id")
        if not check_vouch(identity, vouch, self.link_id, peer, key, self.previous):
            raise fault(f"the {SEATS[peer]}'s identity does not vouch for its signing key "
                        "on this link", f"{name}.vouch")
        self._peer = (key, identity, vouch)
        self.match_id = cosign.match_id_for(self.link_id, self.signing_keys, self.identities,
                                            self.previous)

    def _pair(self, mine: bytes, theirs: bytes) -> tuple[bytes, bytes]:
        return (mine, theirs) if self.seat == 0 else (theirs, mine)

    def _theirs(self, i: int) -> bytes:
        assert self._peer is not None, "the peer's keys are not known yet"
        return self._peer[i]

    @property
    def signing_keys(self) -> tuple[bytes, bytes]:
        """(the host's, the guest's) per-match signing keys."""
        return self._pair(self.signer.public, self._theirs(0))

    @property
    def identities(self) -> tuple[bytes, bytes]:
        """(the host's, the guest's) identity public keys."""
        return self._pair(self.identity.public, self._theirs(1))

    @property
    def vouches(self) -> tuple[bytes, bytes]:
        """(the host's, the guest's) vouches."""
        return self._pair(self._vouch, self._theirs(2))

    def binding(self) -> dict[str, Any]:
        """What a hand record or deal evidence names the match by, besides its id."""
        return {"link_id": self.link_id, "signing_keys": self.signing_keys,
                "identities": self.identities, "vouches": self.vouches,
                "previous": self.previous or None}


def read_rules(msg: wire.Message) -> Ruleset:
    """The ruleset of a ``hello``, each field bounded before the ruleset checks it."""
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
