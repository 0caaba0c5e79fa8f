"""Group primitives for protocol v3: µs per operation in Python, three candidate groups.

Run: ``python benchmarks/groups.py [--runs 7]``. Prints medians of CPU time (each
sample times a loop of calls), fixed inputs; asserts nothing but the algebra it
needs (a failed sanity check means the library does not do what the table says).
The twin in node (pure-JS @noble) is ``benchmarks/groups_ts.ts``.

Groups and libraries:

- P-256 via ``cryptography`` (protocol v2's baseline): scalar multiplication only,
  as ECDH on x-coordinates; no point addition is exposed.
- secp256k1 via ``coincurve`` (libsecp256k1): points are ``PublicKey`` objects
  (parsed once, 33-byte compressed on the wire); ``multiply`` is
  ``secp256k1_ec_pubkey_tweak_mul`` (``ecmult_const``), ``from_secret`` is
  ``ecmult_gen``, ``combine_keys`` adds any number of points in one call.
- ristretto255 via ``rbcl`` (libsodium bundled in the wheel; ``pynacl`` has the
  Ed25519 core functions but no ristretto255 bindings): points are their 32-byte
  canonical encodings, so each operation decodes its inputs and encodes its result.

None of the three exposes a multi-scalar multiplication; its cost here is that of
``n`` multiplications and one ``n``-point sum (a single ``combine_keys`` call for
coincurve, ``n − 1`` additions for libsodium).

The constant-time column is what the library's C code does, checked here only
coarsely: the time for a random 256-bit scalar against a 2-bit one (a variable-time
double-and-add would be ~100× faster for the small scalar; a ratio near 1 is what a
fixed-window constant-time ladder gives).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from collections.abc import Callable

import coincurve
import rbcl
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
K1_P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
R255_L = 2**252 + 27742317777372353535851937790883648493

MSM_SIZE = 52


def scalar(label: str, order: int) -> int:
    """A fixed, full-size scalar in [1, order-1]."""
    return int.from_bytes(hashlib.sha512(label.encode()).digest(), "big") % (order - 1) + 1


def per_call_us(fn: Callable[[], object], repeat: int, runs: int) -> float:
    """Median over ``runs`` samples of the CPU µs per call of ``fn`` (a loop of ``repeat``)."""
    fn()  # warm-up (caches, lazily built tables)
    samples = []
    for _ in range(runs):
        start = time.process_time_ns()
        for _ in range(repeat):
            fn()
        samples.append((time.process_time_ns() - start) / repeat / 1e3)
    return statistics.median(samples)


# --- P-256 via cryptography ---------------------------------------------------------


def p256_rows(runs: int) -> dict[str, float | str]:
    curve = ec.SECP256R1()

    def hash_to_x(label: bytes) -> ec.EllipticCurvePublicKey:
        for counter in range(256):  # try-and-increment, as protocol v2's card points
            x = int.from_bytes(hashlib.sha256(label + bytes((counter,))).digest(), "big") % P256_P
            try:
                return ec.EllipticCurvePublicKey.from_encoded_point(
                    curve, b"\x02" + x.to_bytes(32, "big"))
            except ValueError:
                continue
        raise AssertionError

    point = hash_to_x(b"bench/p256/point")
    encoded = point.public_bytes(serialization.Encoding.X962,
                                 serialization.PublicFormat.CompressedPoint)
    k = scalar("p256/k", P256_N)
    key = ec.derive_private_key(k, curve)
    small = ec.derive_private_key(3, curve)
    labels = [b"bench/p256/h2c/%d" % i for i in range(64)]
    it = iter(range(10**9))
    var = per_call_us(lambda: ec.derive_private_key(k, curve).exchange(ec.ECDH(), point), 300, runs)
    var_key = per_call_us(lambda: key.exchange(ec.ECDH(), point), 300, runs)
    var_small = per_call_us(lambda: small.exchange(ec.ECDH(), point), 300, runs)
    fixed = per_call_us(lambda: ec.derive_private_key(k, curve), 300, runs)
    decode = per_call_us(lambda: ec.EllipticCurvePublicKey.from_encoded_point(curve, encoded),
                         1000, runs)
    encode = per_call_us(lambda: point.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint), 1000, runs)
    h2c = per_call_us(lambda: hash_to_x(labels[next(it) % 64]), 300, runs)
    return {
        "var": var, "var_note": f"ECDH incl. key setup; {var_key:.0f} with the key built",
        "fixed": fixed, "add": "—", "msm": "—",
        "decode": decode, "encode": encode, "h2c": h2c,
        "ct": f"yes (OpenSSL ECDH, ladder); 2-bit/full ratio {var_small / var_key:.2f}",
    }


# --- secp256k1 via coincurve ----------------------------------------------------------


def k1_rows(runs: int) -> dict[str, float | str]:
    def hash_to_point(label: bytes) -> coincurve.PublicKey:
        for counter in range(256):  # try-and-increment on x, even y
            x = int.from_bytes(hashlib.sha256(label + bytes((counter,))).digest(), "big") % K1_P
            try:
                return coincurve.PublicKey(b"\x02" + x.to_bytes(32, "big"))
            except ValueError:
                continue
        raise AssertionError

    point = hash_to_point(b"bench/k1/point")
    other = hash_to_point(b"bench/k1/other")
    encoded = point.format(compressed=True)
    k = scalar("k1/k", K1_N).to_bytes(32, "big")
    small = (3).to_bytes(32, "big")
    points = [hash_to_point(b"bench/k1/msm/%d" % i) for i in range(MSM_SIZE)]
    scalars = [scalar(f"k1/msm/{i}", K1_N).to_bytes(32, "big") for i in range(MSM_SIZE)]
    labels = [b"bench/k1/h2c/%d" % i for i in range(64)]
    it = iter(range(10**9))

    # Sanity: (a+b)·P = a·P + b·P, and k·G from the fixed-base path matches G·k.
    a, b = scalar("k1/a", K1_N), scalar("k1/b", K1_N)
    lhs = point.multiply(((a + b) % K1_N).to_bytes(32, "big"))
    rhs = coincurve.PublicKey.combine_keys(
        [point.multiply(a.to_bytes(32, "big")), point.multiply(b.to_bytes(32, "big"))])
    assert lhs.format() == rhs.format()

    def msm() -> coincurve.PublicKey:
        return coincurve.PublicKey.combine_keys(
            [p.multiply(s) for p, s in zip(points, scalars, strict=True)])

    # tweak_mul is secp256k1_ecmult, variable time in the scalar. The constant-time
    # variable-base path is secp256k1_ecdh (ecmult_const) with a hash callback that
    # copies the point out instead of hashing it: a cffi callback (libffi closure).
    from coincurve._libsecp256k1 import ffi, lib

    @ffi.callback("int(unsigned char *, unsigned char *, unsigned char *, void *)")
    def copy_point(out, x, y, data):  # type: ignore[no-untyped-def]
        out[0] = 2 | (y[31] & 1)
        ffi.memmove(out + 1, x, 32)
        return 1

    out = ffi.new("unsigned char[33]")

    def ct_mul(p: coincurve.PublicKey, s: bytes) -> bytes:
        assert lib.secp256k1_ecdh(coincurve.context.GLOBAL_CONTEXT.ctx, out, p.public_key, s,
                                  copy_point, ffi.NULL)
        return bytes(ffi.buffer(out, 33))

    assert ct_mul(point, k) == point.multiply(k).format()
    var = per_call_us(lambda: point.multiply(k), 1000, runs)
    var_small = per_call_us(lambda: point.multiply(small), 1000, runs)
    ct = per_call_us(lambda: ct_mul(point, k), 1000, runs)
    ct_small = per_call_us(lambda: ct_mul(point, small), 1000, runs)
    return {
        "var": var, "var_note": f"tweak_mul on a parsed point (variable time); constant-time "
                                f"via secp256k1_ecdh + copying callback {ct:.1f} µs "
                                f"(+ ~8 to parse the result back)",
        "fixed": per_call_us(lambda: coincurve.PublicKey.from_secret(k), 1000, runs),
        "add": per_call_us(lambda: coincurve.PublicKey.combine_keys([point, other]), 3000, runs),
        "msm": per_call_us(msm, 20, runs) / MSM_SIZE,
        "decode": per_call_us(lambda: coincurve.PublicKey(encoded), 3000, runs),
        "encode": per_call_us(lambda: point.format(compressed=True), 3000, runs),
        "h2c": per_call_us(lambda: hash_to_point(labels[next(it) % 64]), 1000, runs),
        "ct": f"k·G yes (ecmult_gen); tweak_mul NO (ecmult, 2-bit/full ratio "
              f"{var_small / var:.2f}); ecdh yes (ratio {ct_small / ct:.2f}); add var-time",
    }


# --- ristretto255 via rbcl (libsodium) --------------------------------------------------


def r255_rows(runs: int) -> dict[str, float | str]:
    def enc(k: int) -> bytes:
        return k.to_bytes(32, "little")

    def hash_to_point(label: bytes) -> bytes:
        return rbcl.crypto_core_ristretto255_from_hash(hashlib.sha512(label).digest())

    point = hash_to_point(b"bench/r255/point")
    other = hash_to_point(b"bench/r255/other")
    k = enc(scalar("r255/k", R255_L))
    small = enc(3)
    points = [hash_to_point(b"bench/r255/msm/%d" % i) for i in range(MSM_SIZE)]
    scalars = [enc(scalar(f"r255/msm/{i}", R255_L)) for i in range(MSM_SIZE)]
    labels = [b"bench/r255/h2c/%d" % i for i in range(64)]
    it = iter(range(10**9))

    # Sanity: no clamping (libsodium clears only bit 255), so the group law holds for
    # reduced scalars: (a+b)·P = a·P + b·P and k⁻¹·(k·P) = P.
    a, b = scalar("r255/a", R255_L), scalar("r255/b", R255_L)
    mul = rbcl.crypto_scalarmult_ristretto255
    assert mul(enc((a + b) % R255_L), point) == rbcl.crypto_core_ristretto255_add(
        mul(enc(a), point), mul(enc(b), point))
    assert mul(enc(pow(a, -1, R255_L)), mul(enc(a), point)) == point

    def msm() -> bytes:
        acc = mul(scalars[0], points[0])
        for p, s in zip(points[1:], scalars[1:], strict=True):
            acc = rbcl.crypto_core_ristretto255_add(acc, mul(s, p))
        return acc

    var = per_call_us(lambda: mul(k, point), 1000, runs)
    var_small = per_call_us(lambda: mul(small, point), 1000, runs)
    return {
        "var": var, "var_note": "decode + ladder + encode",
        "fixed": per_call_us(lambda: rbcl.crypto_scalarmult_ristretto255_base(k), 1000, runs),
        "add": per_call_us(lambda: rbcl.crypto_core_ristretto255_add(point, other), 3000, runs),
        "msm": per_call_us(msm, 20, runs) / MSM_SIZE,
        "decode": per_call_us(lambda: rbcl.crypto_core_ristretto255_is_valid_point(point),
                              3000, runs),
        "encode": "in every op",
        "h2c": per_call_us(lambda: hash_to_point(labels[next(it) % 64]), 3000, runs),
        "ct": f"mul, k·G yes (ge25519_scalarmult: cmov windows); add has no secret; "
              f"2-bit/full ratio {var_small / var:.2f}",
    }


def scalar_rows(runs: int) -> dict[str, float]:
    a, b = scalar("s/a", R255_L), scalar("s/b", R255_L)
    return {
        "mul mod q": per_call_us(lambda: a * b % R255_L, 20000, runs),
        "inverse mod q": per_call_us(lambda: pow(a, -1, R255_L), 5000, runs),
        "sha512 → scalar": per_call_us(
            lambda: int.from_bytes(hashlib.sha512(b"x" * 64).digest(), "little") % R255_L,
            20000, runs),
    }


def cell(value: float | str) -> str:
    return f"{value:7.1f}" if isinstance(value, float) else f"{value:>7}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    versions = (f"Python {sys.version.split()[0]}, cryptography "
                f"{__import__('cryptography').__version__}, coincurve "
                f"{__import__('importlib.metadata').metadata.version('coincurve')}, rbcl "
                f"{__import__('importlib.metadata').metadata.version('rbcl')}")
    print(f"{versions}; CPU µs per operation, median of {runs} runs")
    print(f"msm = one term of a {MSM_SIZE}-point multi-scalar multiplication "
          "(n multiplications + the sum), per point")
    header = ("group (library)", "var k·P", "k·G", "P+Q", "msm/pt", "decode", "encode", "h2c")
    print(f"{header[0]:<28}" + "".join(f"{h:>9}" for h in header[1:]))
    notes = []
    for name, rows in (("P-256 (cryptography)", p256_rows), ("secp256k1 (coincurve)", k1_rows),
                       ("ristretto255 (rbcl)", r255_rows)):
        r = rows(runs)
        print(f"{name:<28}" + "".join(f"  {cell(r[c])}" for c in
                                      ("var", "fixed", "add", "msm", "decode", "encode", "h2c")))
        notes.append(f"  {name}: var k·P = {r['var_note']}; constant-time: {r['ct']}")
    print("\n".join(notes))
    s = scalar_rows(runs)
    print("scalars (Python int): " + ", ".join(f"{k} {v:.2f} µs" for k, v in s.items()))


if __name__ == "__main__":
    main()
