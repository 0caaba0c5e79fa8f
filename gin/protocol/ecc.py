"""NIST P-256 arithmetic for the fair deal, on x-coordinates only, via ``cryptography``.

The deck protocol needs one operation: multiply a curve point by a secret scalar.
OpenSSL exposes that, constant-time, as ECDH: the shared secret of private scalar
``k`` and public point ``P`` is the x-coordinate of ``k·P``. Only x-coordinates
ever travel, so a point is named by its 32-byte big-endian x, and the point used
for it is the one with even y (compressed prefix ``02``). Because ``x(k·P) ==
x(k·(−P))``, every result is the same whichever of ``±P`` was meant, so the
scheme works on points modulo sign and never needs to know y.

No I/O and no randomness here: scalars come from :mod:`gin.protocol.fairdeal`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric import ec

from gin.engine.errors import MalformedInput

CURVE = ec.SECP256R1()
# Field prime and group order of P-256 (FIPS 186-4, D.1.2.3). The cofactor is 1,
# so every point other than infinity generates the whole group.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
COORD_BYTES = 32
CARD_POINT_DOMAIN = b"gin/fairdeal/v1/card-point"
CARDS = 52


class InvalidPoint(MalformedInput):
    """32 bytes that are not the x-coordinate of a point on P-256."""


class InvalidScalar(MalformedInput):
    """A scalar outside [1, N-1]."""


def check_scalar(k: int) -> int:
    """Return ``k`` if it is a usable secret scalar, else raise :class:`InvalidScalar`."""
    # The value is left out of the message: a caller's mistake must not log a key.
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k < N:
        raise InvalidScalar(f"scalar must be an int in [1, n-1], got {type(k).__name__}")
    return k


def inverse(k: int) -> int:
    """The scalar that undoes ``k``: ``mul(mul(x, k), inverse(k)) == x``."""
    return pow(check_scalar(k), -1, N)


def product(*scalars: int) -> int:
    """The scalar equal to applying all ``scalars`` in turn (multiplication commutes)."""
    out = 1
    for k in scalars:
        out = out * check_scalar(k) % N
    return out


@lru_cache(maxsize=1024)
def _decode(x: bytes) -> ec.EllipticCurvePublicKey:
    # Decompression costs about a fifth of a scalar multiplication; a deck entry is
    # decoded once when validated and again when multiplied, so memoise. The cache
    # is a pure function memo: it changes timing only, never a result.
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVE, b"\x02" + x)


def point(x: bytes) -> ec.EllipticCurvePublicKey:
    """The point with x-coordinate ``x`` and even y; raise :class:`InvalidPoint` if none."""
    if not isinstance(x, bytes) or len(x) != COORD_BYTES:
        raise InvalidPoint(f"x-coordinate must be {COORD_BYTES} bytes")
    if int.from_bytes(x, "big") >= P:
        raise InvalidPoint("x-coordinate is not reduced modulo p")
    pinned = _card_keys().get(x)
    if pinned is not None:
        return pinned
    try:
        return _decode(x)
    except ValueError:
        raise InvalidPoint("no point on P-256 has this x-coordinate") from None


def is_valid_x(x: bytes) -> bool:
    """Whether ``x`` names a point on P-256."""
    try:
        point(x)
    except InvalidPoint:
        return False
    return True


def mul(x: bytes, k: int) -> bytes:
    """``x(k·P)`` for the point ``P`` named by ``x``: encrypt with ``k`` (decrypt with its inverse).

    Raises :class:`InvalidPoint` or :class:`InvalidScalar`.
    """
    public = point(x)
    return ec.derive_private_key(check_scalar(k), CURVE).exchange(ec.ECDH(), public)


def mul_many(xs: Iterable[bytes], k: int) -> tuple[bytes, ...]:
    """``mul(x, k)`` for each x, building the private key for ``k`` only once."""
    # derive_private_key also computes k·G (about 25 µs); one key serves the lot.
    private = ec.derive_private_key(check_scalar(k), CURVE)
    return tuple(private.exchange(ec.ECDH(), point(x)) for x in xs)


def hash_to_x(card: int) -> tuple[bytes, int]:
    """Hash-to-curve by try-and-increment: ``(x, counter)`` of card point M_card.

    x = SHA-256(CARD_POINT_DOMAIN ‖ card (1 byte) ‖ counter (1 byte)) as a big-endian
    integer mod p, for the first counter 0, 1, ... for which a point with that x
    exists. Nobody knows a discrete log between two such points.
    """
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < CARDS:
        raise MalformedInput(f"card index must be 0..51, got {card!r}")
    for counter in range(256):
        digest = hashlib.sha256(CARD_POINT_DOMAIN + bytes((card, counter))).digest()
        x = (int.from_bytes(digest, "big") % P).to_bytes(COORD_BYTES, "big")
        try:
            _decode(x)
        except ValueError:
            continue
        return x, counter
    # Each try succeeds with probability about 1/2; 256 failures do not happen.
    raise AssertionError("hash-to-curve exhausted its counter")  # pragma: no cover


@lru_cache(maxsize=1)
def card_points() -> tuple[bytes, ...]:
    """x of M_0 .. M_51, in card-index order."""
    return tuple(hash_to_x(c)[0] for c in range(CARDS))


@lru_cache(maxsize=1)
def _card_keys() -> dict[bytes, ec.EllipticCurvePublicKey]:
    # Every hand's first message multiplies all 52 card points: keep them decoded
    # for good rather than let the bounded cache evict them.
    return {x: _decode(x) for x in card_points()}


@lru_cache(maxsize=1)
def _card_of_x() -> dict[bytes, int]:
    return {x: c for c, x in enumerate(card_points())}


def card_of(x: bytes) -> int | None:
    """The card index whose point has x-coordinate ``x``, or None if it is no card."""
    return _card_of_x().get(x)
