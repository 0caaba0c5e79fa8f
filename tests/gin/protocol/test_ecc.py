"""P-256 x-only scalar multiplication: commutativity, inversion, sign, validation."""

from __future__ import annotations

import hashlib
import random

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gin.engine.errors import MalformedInput
from gin.protocol import ecc

RNG_SEED = 20240601


def _scalars(count: int) -> list[int]:
    rng = random.Random(RNG_SEED)
    return [rng.randrange(1, ecc.N) for _ in range(count)]


def test_curve_constants_match_cryptography() -> None:
    # G's x-coordinate from FIPS 186-4; derive_private_key(1) exposes G.
    g = ec.derive_private_key(1, ecc.CURVE).public_key().public_numbers()
    assert g.x == 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
    b = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
    assert (g.y**2 - g.x**3 + 3 * g.x) % ecc.P == b
    # n·G is infinity, so (n-1)·G is −G: same x, opposite y.
    minus_g = ec.derive_private_key(ecc.N - 1, ecc.CURVE).public_key().public_numbers()
    assert (minus_g.x, minus_g.y) == (g.x, ecc.P - g.y)


def test_card_points_are_distinct_valid_and_first_by_counter() -> None:
    points = ecc.card_points()
    assert len(points) == 52 and len(set(points)) == 52
    for card, x in enumerate(points):
        assert ecc.is_valid_x(x)
        found, counter = ecc.hash_to_x(card)
        assert found == x
        # Every smaller counter gave an x with no point on the curve.
        for earlier in range(counter):
            digest = hashlib.sha256(ecc.CARD_POINT_DOMAIN + bytes((card, earlier))).digest()
            candidate = (int.from_bytes(digest, "big") % ecc.P).to_bytes(32, "big")
            assert not ecc.is_valid_x(candidate)
        assert ecc.card_of(x) == card
        # Even y: the point used is the 02-prefixed one.
        assert ecc.point(x).public_numbers().y % 2 == 0


def test_encryption_commutes_and_composes() -> None:
    a, b, c = _scalars(3)
    for card in (0, 17, 51):
        x = ecc.card_points()[card]
        ab = ecc.mul(ecc.mul(x, a), b)
        assert ab == ecc.mul(ecc.mul(x, b), a)
        assert ab == ecc.mul(x, ecc.product(a, b))
        abc = ecc.mul(ab, c)
        assert abc == ecc.mul(ecc.mul(ecc.mul(x, c), a), b)


def test_inverse_decrypts_through_either_layer() -> None:
    a, b = _scalars(2)
    x = ecc.card_points()[30]
    both = ecc.mul(ecc.mul(x, a), b)
    assert ecc.mul(both, ecc.inverse(a)) == ecc.mul(x, b)
    assert ecc.mul(ecc.mul(both, ecc.inverse(a)), ecc.inverse(b)) == x
    assert ecc.mul(both, ecc.inverse(ecc.product(a, b))) == x
    assert ecc.card_of(ecc.mul(both, ecc.inverse(ecc.product(b, a)))) == 30


def test_sign_of_y_does_not_change_results() -> None:
    # x(k·P) == x(k·(−P)): multiplying the 03-prefixed point gives the same bytes.
    (k,) = _scalars(1)
    x = ecc.card_points()[5]
    negative = ec.EllipticCurvePublicKey.from_encoded_point(ecc.CURVE, b"\x03" + x)
    via_negative = ec.derive_private_key(k, ecc.CURVE).exchange(ec.ECDH(), negative)
    assert via_negative == ecc.mul(x, k)
    # And n−1 (i.e. −1) maps every class to itself.
    assert ecc.mul(x, ecc.N - 1) == x


def test_mul_many_equals_mul() -> None:
    (k,) = _scalars(1)
    xs = ecc.card_points()[:6]
    assert ecc.mul_many(xs, k) == tuple(ecc.mul(x, k) for x in xs)


def test_invalid_coordinates_are_rejected() -> None:
    # An x with no point: the first rejected hash-to-curve candidate of card 1.
    digest = hashlib.sha256(ecc.CARD_POINT_DOMAIN + bytes((1, 0))).digest()
    off_curve = (int.from_bytes(digest, "big") % ecc.P).to_bytes(32, "big")
    cases = [off_curve, ecc.P.to_bytes(32, "big"), b"\xff" * 32, b"\x01" * 31, b""]
    for bad in cases:
        assert not ecc.is_valid_x(bad)
        with pytest.raises(ecc.InvalidPoint):
            ecc.mul(bad, 5)
    with pytest.raises(MalformedInput):
        ecc.point(b"\x01" * 33)


@pytest.mark.parametrize("bad", [0, ecc.N, ecc.N + 1, -1, True])
def test_invalid_scalars_are_rejected(bad: int) -> None:
    with pytest.raises(ecc.InvalidScalar):
        ecc.mul(ecc.card_points()[0], bad)
    with pytest.raises(ecc.InvalidScalar):
        ecc.inverse(bad)


def test_card_of_unknown_point_is_none() -> None:
    (k,) = _scalars(1)
    assert ecc.card_of(ecc.mul(ecc.card_points()[0], k)) is None


@pytest.mark.parametrize("bad", [-1, 52, True])
def test_hash_to_x_rejects_bad_card(bad: int) -> None:
    with pytest.raises(MalformedInput):
        ecc.hash_to_x(bad)
