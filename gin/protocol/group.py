"""ristretto255, the group of the fair deal (protocol.md §8.1), via libsodium (``rbcl``).

ristretto255 (RFC 9496) is a prime-order group of order ``L = 2^252 + 2774…8493``
built on edwards25519: every element has exactly one 32-byte encoding, there is no
cofactor and no sign to lose, and libsodium and ``@noble/curves`` implement the
same encoding and the same hash to the group (RFC 9496 element derivation from 64
uniform bytes), so the Python and TypeScript peers agree byte for byte.

Unlike ``cryptography``'s P-256 this exposes point addition, which a shuffle proof
needs. Every operation on a secret scalar is libsodium's constant-time code: the
variable-base multiplication (``ge25519_scalarmult``: fixed 4-bit signed windows,
table look-ups by conditional moves), the base multiplication, and the scalar
arithmetic (``crypto_core_ristretto255_scalar_*``), which :func:`smul`, :func:`sadd`
and :func:`sinv` use. Public scalars (challenges, responses, an auditor's keys) may
use Python integers.

Points travel and are kept as their 32-byte encodings; each operation decodes its
inputs and encodes its result (libsodium has no point objects). This is the only
module that imports ``rbcl``: another binding of the same libsodium functions would
replace it without touching the protocol. ``rbcl``'s addition
does not report an undecodable input (it returns the identity's encoding), so every
point from outside MUST pass :func:`check_point` first; the points this module
computes from checked points are valid by construction.

Scalars are integers in ``[0, L)``; on the wire, 32 bytes little-endian (the
ristretto255 and libsodium convention), canonical (``< L``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache

import rbcl

from gin.engine.errors import MalformedInput

L = 2**252 + 27742317777372353535851937790883648493
P = 2**255 - 19  # the field of edwards25519: an encoding's value must be below it
POINT_BYTES = 32
SCALAR_BYTES = 32
IDENTITY = bytes(POINT_BYTES)
DOMAIN = b"gin/fairdeal/v3"
CARDS = 52


class InvalidPoint(MalformedInput):
    """32 bytes that are not the encoding of a ristretto255 element other than the identity."""


class InvalidScalar(MalformedInput):
    """A scalar outside the range the caller requires."""


# --- scalars ---------------------------------------------------------------------------


def scalar_to_bytes(k: int) -> bytes:
    """The canonical 32-byte little-endian encoding of ``k`` in ``[0, L)``."""
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < L:
        raise InvalidScalar("scalar must be an int in [0, L)")
    return k.to_bytes(SCALAR_BYTES, "little")


def scalar_from_bytes(data: bytes) -> int:
    """The scalar a canonical 32-byte encoding names; InvalidScalar if it is ``≥ L``."""
    if not isinstance(data, bytes) or len(data) != SCALAR_BYTES:
        raise InvalidScalar(f"scalar must be {SCALAR_BYTES} bytes")
    k = int.from_bytes(data, "little")
    if k >= L:
        raise InvalidScalar("scalar is not reduced modulo L")
    return k


def check_secret(k: int) -> int:
    """``k`` if it is a usable secret scalar (``1 ≤ k < L``), else InvalidScalar."""
    # The value stays out of the message: a caller's mistake must not log a key.
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k < L:
        raise InvalidScalar("secret scalar must be an int in [1, L)")
    return k


def hash_to_scalar(*parts: bytes) -> int:
    """SHA-512 of the concatenated ``parts``, little-endian, reduced modulo L (bias < 2⁻²⁵⁹)
    by libsodium's constant-time reduction: the result may be a secret key or nonce."""
    return int.from_bytes(rbcl.crypto_core_ristretto255_scalar_reduce(
        hashlib.sha512(b"".join(parts)).digest()), "little")


def smul(a: int, b: int) -> int:
    """``a·b mod L`` by libsodium's constant-time scalar multiplication (for secrets)."""
    return int.from_bytes(rbcl.crypto_core_ristretto255_scalar_mul(
        scalar_to_bytes(a), scalar_to_bytes(b)), "little")


def sadd(a: int, b: int) -> int:
    """``a + b mod L``, constant-time (for secrets)."""
    return int.from_bytes(rbcl.crypto_core_ristretto255_scalar_add(
        scalar_to_bytes(a), scalar_to_bytes(b)), "little")


def sneg(a: int) -> int:
    """``−a mod L``, constant-time (for secrets)."""
    return int.from_bytes(rbcl.crypto_core_ristretto255_scalar_negate(scalar_to_bytes(a)),
                          "little")


def sinv(a: int) -> int:
    """``a⁻¹ mod L``, constant-time (for secrets); InvalidScalar for 0."""
    return int.from_bytes(rbcl.crypto_core_ristretto255_scalar_invert(
        scalar_to_bytes(check_secret(a))), "little")


# --- points ----------------------------------------------------------------------------


def check_point(p: object) -> bytes:
    """``p`` if it is the canonical encoding of a ristretto255 element other than the
    identity, else InvalidPoint.

    RFC 9496 allows one encoding per element: its 256 bits read little-endian are a
    value ``s < p`` that is even. libsodium's own check ignores the top bit of byte 31
    (so ``e | 2²⁵⁵`` would name the same element as ``e``) and ``@noble/curves``
    refuses it: the rule is checked here explicitly, as group.ts does, so both peers
    refuse the same bytes and byte comparison of checked points compares elements.
    """
    if not isinstance(p, bytes) or len(p) != POINT_BYTES:
        raise InvalidPoint(f"a point must be {POINT_BYTES} bytes")
    if int.from_bytes(p, "little") >= P or p[0] & 1:
        raise InvalidPoint("not a canonical encoding (RFC 9496: below 2^255 - 19 and even)")
    if p == IDENTITY or not rbcl.crypto_core_ristretto255_is_valid_point(p):
        raise InvalidPoint("not the encoding of a ristretto255 element other than the identity")
    return p


def mul(p: bytes, k: int) -> bytes:
    """``k·P`` for a secret ``k`` in ``[1, L)``: constant-time. ``p`` must be checked."""
    try:
        return rbcl.crypto_scalarmult_ristretto255(scalar_to_bytes(check_secret(k)), p)
    except RuntimeError:  # p undecodable or the identity: never for a checked p
        raise InvalidPoint("cannot multiply: not a valid non-identity point") from None


def mul_public(p: bytes, k: int) -> bytes:
    """``k·P`` for a public ``k`` in ``[0, L)`` and a ``P`` that may be the identity
    (a verifier's intermediate sum): the identity when either is zero."""
    if k == 0 or p == IDENTITY:
        return IDENTITY
    try:
        return rbcl.crypto_scalarmult_ristretto255(scalar_to_bytes(k), p)
    except RuntimeError:
        raise InvalidPoint("cannot multiply: not a valid non-identity point") from None


def base_mul(k: int) -> bytes:
    """``k·G`` for ``k`` in ``[0, L)``, constant-time (0 gives the identity)."""
    if k == 0:
        return IDENTITY
    return rbcl.crypto_scalarmult_ristretto255_base(scalar_to_bytes(k))


def add(p: bytes, q: bytes) -> bytes:
    """``P + Q`` (both checked or computed here; either may be the identity)."""
    return rbcl.crypto_core_ristretto255_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    """``P − Q``."""
    return rbcl.crypto_core_ristretto255_sub(p, q)


def total(points: Iterable[bytes]) -> bytes:
    """The sum of ``points`` (the identity for none)."""
    acc = IDENTITY
    for p in points:
        acc = add(acc, p)
    return acc


def msm(points: Sequence[bytes], scalars: Sequence[int]) -> bytes:
    """``Σ scalars[i]·points[i]`` for public scalars: one multiplication per term (libsodium
    has no multi-scalar multiplication)."""
    return total(mul_public(p, k) for p, k in zip(points, scalars, strict=True))


def hash_to_point(label: bytes) -> bytes:
    """RFC 9496 element derivation from SHA-512(``DOMAIN ‖ 00 ‖ label``): nobody knows
    the discrete logarithm of the result to ``G`` or to any other such point."""
    return rbcl.crypto_core_ristretto255_from_hash(
        hashlib.sha512(DOMAIN + b"\x00" + label).digest())


# The standard generator (RFC 9496): k·G for k = 1.
G = rbcl.crypto_scalarmult_ristretto255_base((1).to_bytes(SCALAR_BYTES, "little"))


@lru_cache(maxsize=1)
def generator_h() -> bytes:
    """``H``, the second Pedersen generator of the shuffle proof."""
    return hash_to_point(b"generator H")


@lru_cache(maxsize=1)
def card_points() -> tuple[bytes, ...]:
    """``M_0 … M_51``: ``hash_to_point("card-point" ‖ u8(c))``, in card-index order."""
    return tuple(hash_to_point(b"card-point" + bytes((c,))) for c in range(CARDS))


@lru_cache(maxsize=1)
def _card_of_point() -> dict[bytes, int]:
    return {p: c for c, p in enumerate(card_points())}


def card_of(p: bytes) -> int | None:
    """The card index whose point is ``p``, or None."""
    return _card_of_point().get(p)
