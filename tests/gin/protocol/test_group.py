"""ristretto255 through libsodium: RFC 9496's vectors, the group law, the card points,
what is refused, and the constant-time scalar arithmetic agreeing with Python's."""

from __future__ import annotations

import hashlib
import random

import pytest

from gin.protocol.deal import group as g

RNG_SEED = 20240601
# RFC 9496 §A.1: the encodings of 0·B, 1·B, 2·B, 3·B.
MULTIPLES = (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
)
# RFC 9496 §A.2: non-canonical field encodings and negative field elements.
BAD_ENCODINGS = (
    "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
)


def _scalars(count: int) -> list[int]:
    rng = random.Random(RNG_SEED)
    return [rng.randrange(1, g.L) for _ in range(count)]


def test_rfc_9496_multiples_of_the_generator() -> None:
    assert g.G.hex() == MULTIPLES[1]
    assert [g.base_mul(k).hex() for k in range(4)] == list(MULTIPLES)
    assert g.add(g.G, g.G) == g.mul(g.G, 2) == bytes.fromhex(MULTIPLES[2])
    assert g.base_mul(g.L - 1) == g.sub(g.IDENTITY, g.G)


@pytest.mark.parametrize("bad", BAD_ENCODINGS)
def test_non_canonical_encodings_are_refused(bad: str) -> None:
    with pytest.raises(g.InvalidPoint):
        g.check_point(bytes.fromhex(bad))


def test_the_identity_and_wrong_lengths_are_refused() -> None:
    for bad in (g.IDENTITY, b"\x01" * 31, b"\xe2" * 33, b"", "e2" * 32):
        with pytest.raises(g.InvalidPoint):
            g.check_point(bad)
    with pytest.raises(g.InvalidPoint):
        g.mul(g.IDENTITY, 5)


def test_card_points_and_h_are_hashed_to_the_group() -> None:
    points = g.card_points()
    assert len(set(points)) == 52
    for card, p in enumerate(points):
        assert g.check_point(p) == p and g.card_of(p) == card
        assert g.hash_to_point(b"card-point" + bytes((card,))) == p
    assert g.generator_h() == g.hash_to_point(b"generator H")
    assert g.generator_h() not in points and g.G not in points


def test_multiplication_commutes_composes_and_inverts() -> None:
    a, b, c = _scalars(3)
    for card in (0, 17, 51):
        p = g.card_points()[card]
        ab = g.mul(g.mul(p, a), b)
        assert ab == g.mul(g.mul(p, b), a) == g.mul(p, g.smul(a, b))
        assert g.mul(ab, c) == g.mul(g.mul(g.mul(p, c), a), b)
        assert g.mul(ab, g.sinv(g.smul(b, a))) == p
        assert g.card_of(g.mul(ab, g.sinv(a))) is None
        assert g.add(g.mul(p, a), g.mul(p, b)) == g.mul(p, (a + b) % g.L)


def test_constant_time_scalar_arithmetic_agrees_with_python() -> None:
    for a, b in zip(_scalars(20), _scalars(21)[1:], strict=True):
        assert g.smul(a, b) == a * b % g.L
        assert g.sadd(a, b) == (a + b) % g.L
        assert g.sneg(a) == -a % g.L
        assert g.sinv(a) == pow(a, -1, g.L)
    for data in (b"", b"x", bytes(range(200))):
        wide = int.from_bytes(hashlib.sha512(data).digest(), "little")
        assert g.hash_to_scalar(data) == wide % g.L


@pytest.mark.parametrize("bad", [0, g.L, g.L + 1, -1, True])
def test_invalid_secret_scalars_are_refused(bad: int) -> None:
    with pytest.raises(g.InvalidScalar):
        g.mul(g.card_points()[0], bad)
    with pytest.raises(g.InvalidScalar):
        g.sinv(bad)


def test_scalar_encoding_is_canonical_little_endian() -> None:
    (k,) = _scalars(1)
    assert g.scalar_from_bytes(g.scalar_to_bytes(k)) == k
    assert g.scalar_to_bytes(1) == b"\x01" + bytes(31)
    with pytest.raises(g.InvalidScalar):
        g.scalar_from_bytes(g.L.to_bytes(32, "little"))
    with pytest.raises(g.InvalidScalar):
        g.scalar_to_bytes(g.L)


def test_public_multiplication_takes_the_identity_and_zero() -> None:
    p = g.card_points()[3]
    assert g.mul_public(p, 0) == g.IDENTITY == g.mul_public(g.IDENTITY, 7)
    assert g.mul_public(p, 5) == g.mul(p, 5)
    assert g.msm([p, g.G], [2, 3]) == g.add(g.mul(p, 2), g.base_mul(3))
    assert g.total([]) == g.IDENTITY
