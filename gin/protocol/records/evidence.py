"""Deal evidence: a second shuffler's signed message 2 whose shuffle proof fails, as
strict JSON that anyone can check with ``gin audit`` (protocol.md §10.2).

The first shuffler keeps it when message 2 is refused on arrival: the match ends
there, before any card is dealt, so there is no hand record. It holds the match id
with the link id and both signing keys it derives from, the hand, the dealer, the
message 1 that was sent, message 2 and its proof as received, and the second
shuffler's signature of :func:`gin.protocol.records.cosign.message2_digest`, which binds
message 1 too: the first shuffler cannot present another message 1 to make an
honest proof fail. :func:`gin.protocol.records.audit.audit_evidence` checks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import shuffle_proof as sp
from gin.protocol.records import abandonment, cosign, strict_json
from gin.protocol.records.envelope import (
    MAX_RECORD_BYTES,
    Reader,
    load,
    open_envelope,
    read_binding,
    write,
)
from gin.protocol.records.records import HandRecord, parse_record

FORMAT = "gin-deal-evidence"
FORMAT_VERSION = 3
#: The fields of deal evidence, in the order it is written and a missing one is named.
FIELDS = ("format", "version", "match_id", "hand", "seats", "dealer", "link", "signing_keys",
          "messages", "proof", "signature", "identities", "vouches", "previous")


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
        return write(self, FORMAT, FORMAT_VERSION, FIELDS, {
            "hand": self.hand_number,
            "dealer": self.dealer,
            "messages": {"message1": [x.hex() for x in self.message1],
                         "message2": [x.hex() for x in self.message2]},
            "proof": self.proof.hex(),
            "signature": self.signature.hex(),
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"


def parse_evidence(value: object) -> DealEvidence:
    """Deal evidence from its JSON value; MalformedInput names the path of what is wrong."""
    r = Reader(value, "evidence", "deal evidence")
    pairs = open_envelope(r, FORMAT, FORMAT_VERSION, FIELDS)
    messages = r.child("messages").only(("message1", "message2"))
    hand = r.integer("hand", 0, fd.MAX_HAND_NUMBER)
    if hand < 1:
        r.fail(r.at("hand"), f"expected an integer 1..{fd.MAX_HAND_NUMBER}")
    return DealEvidence(
        match_id=r.hex("match_id", cosign.MATCH_ID_BYTES),
        hand_number=hand,
        dealer=r.integer("dealer", 0, 1),
        message1=messages.hex_list("message1", fd.DECK_SIZE, 32),
        message2=messages.hex_list("message2", fd.DECK_SIZE, 32),
        proof=r.hex("proof", sp.PROOF_BYTES),
        signature=r.hex("signature", cosign.SIGNATURE_BYTES),
        **read_binding(r, pairs),
    )


def parse(data: str | bytes) -> DealEvidence:
    """Deal evidence from a file's text under the hand records' limits (size, nesting)."""
    return parse_evidence(load(data, "deal evidence"))


def parse_file(data: str | bytes) -> HandRecord | DealEvidence | abandonment.AbandonmentRecord:
    """A hand record, deal evidence or an abandonment record from a file's text, told
    apart by its ``format`` and read by that kind's own reader, which refuses it in its
    own words (a repeated key too: the kind is told with the last value kept); a text
    that is not JSON, or names no other kind, as
    :func:`gin.protocol.records.records.parse_record` words it."""
    if len(data) <= MAX_RECORD_BYTES:
        try:
            value = strict_json.loads(data if isinstance(data, str) else data.decode(
                json.detect_encoding(data), "surrogatepass"), repeats=True)
        except (strict_json.JsonSyntaxError, ValueError):  # parse_record words it
            value = None
        if isinstance(value, dict) and value.get("format") == FORMAT:
            return parse(data)
        if isinstance(value, dict) and value.get("format") == abandonment.FORMAT:
            return abandonment.parse(data)
    return parse_record(data)
