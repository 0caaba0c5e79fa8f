"""Signatures: each side's per-match Ed25519 key, the match id it is bound to, the
digest of message 2 that the second shuffler signs with its proof, and the digest
of a hand that both sides sign at hand end (protocol.md §4, §7.2, §10).

A side draws 32 random bytes for its signing key when the match starts and sends
the public key in the handshake, vouched for by its long-term identity
(:mod:`gin.protocol.records.identity`); the match id is derived from the invite link, both
public keys and both identities, so a record names exactly one pair of keys and of
players. At hand end each
side signs :func:`hand_digest` of the hand as it played it followed by its own seed
(:func:`seed_signed`), so the seed it reveals is its signed word; the second shuffler
signs :func:`message2_digest` of its deck message, so that a proof that fails is
evidence anyone can check (:mod:`gin.protocol.records.evidence`). The digest does not
depend on the order in which the two sides processed the deal's keys, so both
peers' records of a hand have the same digest. Pure: no randomness, no I/O.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gin.engine.errors import MalformedInput
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records.envelope import (  # the sizes of the envelope's fields
    KEY_BYTES,
    LINK_ID_BYTES,
    MATCH_ID_BYTES,
    SIGNATURE_BYTES,
)
from gin.protocol.records.records import HandRecord

DOMAIN = b"gin/session/v2/"
KEY_SEED_BYTES = 32


def link_id_for(secret: bytes) -> bytes:
    """The id of an invite link: names its saved match; the relay never sees it."""
    return hashlib.sha256(DOMAIN + b"link-id\x00" + secret).digest()[:LINK_ID_BYTES]


def match_id_for(link_id: bytes, signing_keys: tuple[bytes, bytes],
                 identities: tuple[bytes, bytes], previous: bytes) -> bytes:
    """The match id (§4): the link, both sides' fresh signing keys and long-term
    identities (host's first), and the match on this link it continues (b"": none)."""
    if len(link_id) != LINK_ID_BYTES or any(
            len(key) != KEY_BYTES for key in (*signing_keys, *identities)) or len(
            previous) not in (0, MATCH_ID_BYTES):
        raise MalformedInput("match id inputs have the wrong lengths")
    return hashlib.sha256(b"gin/session/v3/match-id\x00" + link_id + b"".join(signing_keys)
                          + b"".join(identities) + bytes((len(previous),)) + previous
                          ).digest()[:MATCH_ID_BYTES]


class Signer:
    """One side's per-match signing key, from 32 secret random bytes."""

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes) or len(seed) != KEY_SEED_BYTES:
            raise MalformedInput(f"a signing key seed is {KEY_SEED_BYTES} bytes")
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, digest: bytes) -> bytes:
        return self._key.sign(digest)


def verify(public: bytes, digest: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public``'s Ed25519 signature of ``digest``."""
    if len(public) != KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, digest)
    except (InvalidSignature, ValueError):
        return False
    return True


def message2_digest(seat: int, ctx: bytes, message1: Sequence[bytes],
                    message2: Sequence[bytes], proof: bytes) -> bytes:
    """SHA-256("gin/session/v2/deck2" ‖ 00 ‖ u8(seat) ‖ ctx ‖ m1 ‖ m2 ‖ proof): what the
    second shuffler (``seat``) signs with message 2, binding the message 1 it answered."""
    return hashlib.sha256(DOMAIN + b"deck2\x00" + bytes((seat,)) + ctx + b"".join(message1)
                          + b"".join(message2) + proof).digest()


def transcript(record: HandRecord) -> dict[str, Any]:
    """What both sides sign, as plain data: the hand without its seeds (their
    commitments bind them) and with the revealed keys in a canonical order."""
    keys = sorted((step.seat, pos, key) for step in record.steps for pos, key in step.keys)
    return {
        "match_id": record.match_id.hex(),
        "hand": record.hand_number,
        "dealer": record.dealer,
        "rules": record.rules.to_dict(),
        "commitments": [c.hex() for c in record.commitments],
        "messages": [hashlib.sha256(b"".join(m)).hexdigest() for m in record.messages],
        "proof": record.proof.hex(),
        "actions": [[s.seat, str(s.action)] for s in record.steps if s.action is not None],
        "keys": [[seat, pos, fd.key_bytes(key).hex()] for seat, pos, key in keys],
        "result": {"kind": record.score.kind, "knocker": record.score.knocker,
                   "winner": record.score.winner, "points": record.score.points},
        "scores": list(record.scores),
    }


def hand_digest(record: HandRecord) -> bytes:
    """SHA-256("gin/session/v2/hand" ‖ 00 ‖ canonical JSON of :func:`transcript`)."""
    text = json.dumps(transcript(record), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(DOMAIN + b"hand\x00" + text.encode()).digest()


def seed_signed(digest: bytes, seed: bytes) -> bytes:
    """What a side signs at hand end (§7.7): the hand digest, then its own seed. Both
    sides still sign one digest, each before it sees the other's seed, and a seed that
    does not open its commitment is the signed word of its side, not of the file."""
    return digest + seed


def seat_signed(record: HandRecord, seat: int) -> bytes:
    """What ``seat`` signed of ``record``: its digest and that seat's seed."""
    return seed_signed(hand_digest(record), record.seeds[0 if seat == record.dealer else 1])
