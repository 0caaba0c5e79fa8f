"""Deal evidence: a second shuffler's signed message 2 whose shuffle proof fails, as
strict JSON that anyone can check with ``gin audit`` (protocol.md §10.2).

The first shuffler keeps it when message 2 is refused on arrival: the match ends
there, before any card is dealt, so there is no hand record. It holds the match id
with the link id and both signing keys it derives from, the hand, the dealer, the
message 1 that was sent, message 2 and its proof as received, and the second
shuffler's signature of :func:`gin.protocol.cosign.message2_digest`, which binds
message 1 too: the first shuffler cannot present another message 1 to make an
honest proof fail. :func:`gin.protocol.audit.audit_evidence` checks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gin.protocol import abandonment, cosign, strict_json
from gin.protocol import fairdeal as fd
from gin.protocol import shuffle_proof as sp
from gin.protocol.records import (
    MAX_RECORD_BYTES,
    SEATS,
    HandRecord,
    binding_dict,
    parse_record,
)
from gin.protocol.strict_json import StrictJson

FORMAT = "gin-deal-evidence"
FORMAT_VERSION = 3
_JSON = StrictJson("deal evidence")
_fail, _hex, _object, _integer = _JSON.fail, _JSON.hex, _JSON.fields, _JSON.integer


@dataclass(frozen=True, slots=True)
class DealEvidence:
    """Message 2 of hand ``hand_number`` as the second shuffler (seat ``1 − dealer``)
    signed it, with the message 1 it answered."""

    match_id: bytes
    hand_number: int
    dealer: int
    message1: fd.Deck
    message2: tuple[bytes, ...]  # as received: 52 entries of 32 bytes, maybe no points
    proof: bytes  # as received
    signature: bytes
    link_id: bytes
    signing_keys: tuple[bytes, bytes]
    identities: tuple[bytes, bytes]
    vouches: tuple[bytes, bytes]
    previous: bytes | None

    @property
    def second(self) -> int:
        """The seat of the second shuffler, who signed."""
        return 1 - self.dealer

    def digest(self) -> bytes:
        """What the second shuffler signed."""
        return cosign.message2_digest(self.second, fd.context(self.match_id, self.hand_number),
                                      self.message1, self.message2, self.proof)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "match_id": self.match_id.hex(),
            "hand": self.hand_number,
            "seats": list(SEATS),
            "dealer": self.dealer,
            "link": self.link_id.hex(),
            "signing_keys": {seat: key.hex() for seat, key in zip(SEATS, self.signing_keys,
                                                                   strict=True)},
            "messages": {"message1": [x.hex() for x in self.message1],
                         "message2": [x.hex() for x in self.message2]},
            "proof": self.proof.hex(),
            "signature": self.signature.hex(),
            **binding_dict(self.identities, self.vouches, self.previous),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"


def _deck(value: object, path: str) -> tuple[bytes, ...]:
    if not isinstance(value, list) or len(value) != fd.DECK_SIZE:
        _fail(path, f"expected a list of {fd.DECK_SIZE} entries")
    return tuple(_hex(x, f"{path}[{i}]", 32) for i, x in enumerate(value))


def parse_evidence(value: object) -> DealEvidence:
    """Deal evidence from its JSON value; MalformedInput names the path of what is wrong."""
    top = _object(value, "evidence", ("format", "version", "match_id", "hand", "seats",
                                      "dealer", "link", "signing_keys", "messages", "proof",
                                      "signature", "identities", "vouches", "previous"))
    if top["format"] != FORMAT:
        _fail("evidence.format", f"expected {FORMAT!r}")
    if _integer(top["version"], "evidence.version", 1 << 16) != FORMAT_VERSION:
        _fail("evidence.version", f"expected {FORMAT_VERSION}")
    if top["seats"] != list(SEATS):
        _fail("evidence.seats", f"expected {list(SEATS)}")
    keys = _object(top["signing_keys"], "evidence.signing_keys", SEATS)
    ids = _object(top["identities"], "evidence.identities", SEATS)
    vouches = _object(top["vouches"], "evidence.vouches", SEATS)
    messages = _object(top["messages"], "evidence.messages", ("message1", "message2"))
    hand = _integer(top["hand"], "evidence.hand", fd.MAX_HAND_NUMBER)
    if hand < 1:
        _fail("evidence.hand", f"expected an integer 1..{fd.MAX_HAND_NUMBER}")
    return DealEvidence(
        match_id=_hex(top["match_id"], "evidence.match_id", cosign.MATCH_ID_BYTES),
        hand_number=hand,
        dealer=_integer(top["dealer"], "evidence.dealer", 1),
        message1=_deck(messages["message1"], "evidence.messages.message1"),
        message2=_deck(messages["message2"], "evidence.messages.message2"),
        proof=_hex(top["proof"], "evidence.proof", sp.PROOF_BYTES),
        signature=_hex(top["signature"], "evidence.signature", cosign.SIGNATURE_BYTES),
        link_id=_hex(top["link"], "evidence.link", cosign.LINK_ID_BYTES),
        signing_keys=(_hex(keys["host"], "evidence.signing_keys.host", cosign.KEY_BYTES),
                      _hex(keys["guest"], "evidence.signing_keys.guest", cosign.KEY_BYTES)),
        identities=(_hex(ids["host"], "evidence.identities.host", cosign.KEY_BYTES),
                    _hex(ids["guest"], "evidence.identities.guest", cosign.KEY_BYTES)),
        vouches=(_hex(vouches["host"], "evidence.vouches.host", cosign.SIGNATURE_BYTES),
                 _hex(vouches["guest"], "evidence.vouches.guest", cosign.SIGNATURE_BYTES)),
        previous=None if top["previous"] is None else _hex(
            top["previous"], "evidence.previous", cosign.MATCH_ID_BYTES),
    )


def parse_file(data: str | bytes) -> HandRecord | DealEvidence | abandonment.AbandonmentRecord:
    """A hand record, deal evidence or an abandonment record from a file's text, told
    apart by its ``format``; MalformedInput (as
    :func:`gin.protocol.records.parse_record` words it) otherwise."""
    if len(data) <= MAX_RECORD_BYTES:
        try:
            value = strict_json.loads(data if isinstance(data, str) else data.decode(
                json.detect_encoding(data), "surrogatepass"))
        except (strict_json.JsonSyntaxError, ValueError):  # parse_record words it
            value = None
        if isinstance(value, dict) and value.get("format") == FORMAT:
            return parse_evidence(value)
        if isinstance(value, dict) and value.get("format") == abandonment.FORMAT:
            return abandonment.parse(data)
    return parse_record(data)
