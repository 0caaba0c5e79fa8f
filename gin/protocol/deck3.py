"""Protocol v3's deck messages over ristretto255 (prototype; see shuffle_proof3).

The three messages are protocol v2's (protocol.md §8.6) in the new group:

1. first shuffler: ``m1[i] = a·M_{πA[i]}`` (one key ``a``);
2. second shuffler: ``m2[j] = b_j·m1[πB[j]]`` (per-position keys) **and, in the
   same message, the shuffle proof** of :mod:`gin.protocol.shuffle_proof3`;
3. first shuffler: ``m3[k] = (a_k·a⁻¹)·m2[k]``.

Position ``k`` opens to ``(a_k·b_k)⁻¹·m3[k] = M_{deck[k]}``, ``deck[k] = πA[πB[k]]``.
Seeds derive the permutation as in v2 (§8.4) and the scalars, modulo L, as
``LE(SHA-512(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i))) mod L`` for the first
``i`` that gives a nonzero value. Pure; no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from gin.engine.errors import MalformedInput
from gin.protocol import fairdeal as fd
from gin.protocol import group3 as g
from gin.protocol import shuffle_proof3 as sp

DECK_SIZE = g.CARDS
Deck = tuple[bytes, ...]


def derive_scalar(label: bytes, seed: bytes) -> int:
    """The nonzero scalar for ``label`` (wide reduction of SHA-512, bias < 2⁻²⁵⁹)."""
    if not isinstance(seed, bytes) or len(seed) != fd.SEED_BYTES:
        raise MalformedInput(f"seed must be {fd.SEED_BYTES} bytes")
    prefix = g.DOMAIN + b"\x00" + label + b"\x00" + seed
    counter = 0
    while True:
        value = g.hash_to_scalar(prefix, counter.to_bytes(4, "big"))
        if value:
            return value
        counter += 1  # pragma: no cover  (probability 2⁻²⁵²)


@dataclass(frozen=True)
class SeedMaterial:
    """Everything one shuffler derives from its seed. Secret until the hand ends."""

    seed: bytes = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    deck_key: int = field(repr=False)
    position_keys: tuple[int, ...] = field(repr=False)
    nonce_key: bytes = field(repr=False)

    @classmethod
    def from_seed(cls, seed: bytes) -> SeedMaterial:
        return cls(
            seed=seed,
            permutation=fd.derive_permutation(seed),
            deck_key=derive_scalar(b"deck-key", seed),
            position_keys=tuple(derive_scalar(b"position-key" + bytes((k,)), seed)
                                for k in range(DECK_SIZE)),
            nonce_key=hashlib.sha512(g.DOMAIN + b"\x00shuffle-nonce-key\x00" + seed).digest(),
        )


def context(match_id: bytes, hand_number: int) -> bytes:
    """What a proof is bound to: ``u16be(len id) ‖ id ‖ u32be(hand)``."""
    if not isinstance(match_id, bytes) or not 1 <= len(match_id) <= 0xFFFF:
        raise MalformedInput("match id must be 1..65535 bytes")
    if isinstance(hand_number, bool) or not isinstance(hand_number, int) or not (
            0 <= hand_number <= 0xFFFFFFFF):
        raise MalformedInput("hand number must be 0..2^32-1")
    return len(match_id).to_bytes(2, "big") + match_id + hand_number.to_bytes(4, "big")


def build_message1(first: SeedMaterial) -> Deck:
    points = g.card_points()
    return tuple(g.mul(points[c], first.deck_key) for c in first.permutation)


def build_message2(second: SeedMaterial, message1: Sequence[bytes], ctx: bytes
                   ) -> tuple[Deck, sp.ShuffleProof]:
    """Message 2 and its proof (message 1 MUST have been validated)."""
    m2 = tuple(g.mul(message1[second.permutation[j]], second.position_keys[j])
               for j in range(DECK_SIZE))
    proof = sp.prove(ctx, message1, m2, second.permutation, second.position_keys,
                     second.nonce_key)
    return m2, proof


def build_message3(first: SeedMaterial, message2: Sequence[bytes]) -> Deck:
    undo = g.sinv(first.deck_key)
    return tuple(g.mul(message2[k], g.smul(undo, first.position_keys[k]))
                 for k in range(DECK_SIZE))


def validate_message(value: object, name: str) -> Deck:
    """52 distinct valid non-identity elements, else MalformedInput naming the position."""
    if not isinstance(value, list | tuple) or len(value) != DECK_SIZE:
        raise MalformedInput(f"{name}: expected a list of {DECK_SIZE} entries")
    seen: dict[bytes, int] = {}
    for position, entry in enumerate(value):
        try:
            g.check_point(entry)
        except g.InvalidPoint as exc:
            raise MalformedInput(f"{name}[{position}]: {exc}") from None
        if entry in seen:
            raise MalformedInput(f"{name}[{position}]: repeats position {seen[entry]}")
        seen[entry] = position
    return tuple(value)


def open_card(final: Sequence[bytes], position: int, own_key: int, their_key: int) -> int | None:
    """The card at ``position`` of message 3 opened with both keys, or None if it is none."""
    undo = g.sinv(g.smul(g.check_secret(own_key), g.check_secret(their_key)))
    return g.card_of(g.mul(final[position], undo))


def deck_order(first: SeedMaterial, second: SeedMaterial) -> tuple[int, ...]:
    return fd.deck_order(first.permutation, second.permutation)
