"""The shuffle proof (protocol.md §8.8): message 2 is a re-keyed permutation of message 1.

Statement: inputs ``X_0 … X_{n−1}`` (message 1) and outputs ``Y_0 … Y_{n−1}``
(message 2). The prover (the second shuffler) knows a permutation ``π`` and
per-position keys ``b_j`` with

    Y_j = b_j · X_{π(j)}        for every j.

It proves that, without revealing ``π`` or any ``b_j``, in one message (the same
signed message as the deck), with the challenges taken from SHA-512 of the
statement and its own commitments (Fiat–Shamir), so there is nothing to see before
answering and nothing to abort after.

Construction — Terelius–Wikström's permutation argument (as in CHVote and
Verificatum) without its permutation commitment: the inputs are themselves
independent generators (nobody knows a discrete logarithm between two card points,
so none between two entries of an honest message 1), so the outputs, written over
them, *are* the commitment. With ``G`` the group's generator, ``H`` a hashed
generator, ``u`` challenges from the hash:

1. ``K = κ·H + r_κ·G`` with ``κ = Π b_j⁻¹`` — committed before ``u`` exists;
2. ``u_i = hash(statement, K, i)``; the prover's ``v_j = u_{π(j)} · b_j⁻¹`` satisfy
   ``Σ_j v_j·Y_j = Σ_i u_i·X_i =: X̂`` and ``Π_j v_j = κ · Π_i u_i``;
3. a commitment chain to the running products: ``C_0 = H``,
   ``C_{j+1} = r̂_j·G + v_j·C_j``, so ``C_n = (Π v_j)·H + ρ·G`` and
   ``C_n − (Π u_i)·K = d·G`` for a ``d`` the prover knows;
4. one Schnorr-style proof of knowledge of ``(v_j, r̂_j, d)`` for all of
   ``Σ v_j·Y_j = X̂``, ``C_{j+1} = r̂_j·G + v_j·C_j`` (every j) and
   ``C_n − (Π u)·K = d·G``, the ``v_j`` shared between the first two (commitments
   ``t_C = Σ ω_j·Y_j``, ``t̂_j = ω̂_j·G + ω_j·C_j``, ``t_D = ω_D·G``; challenge
   ``e = hash(…, C, t̂, t_C, t_D)``; responses ``s_j = ω_j + e·v_j``,
   ``ŝ_j = ω̂_j + e·r̂_j``, ``s_D = ω_D + e·d``).

Why that is a shuffle: a prover who answers for random ``u`` knows ``v`` with
``Σ v_j·Y_j = Σ u_i·X_i``; were two outputs multiples of one input (a duplicate),
some input would have no output to carry its ``u_i`` and the prover would know a
discrete-logarithm relation between the inputs. So the outputs' matrix over the
inputs is invertible and ``v = M·u`` for a matrix ``M`` fixed before ``u``; then
``Π_j (M·u)_j = κ·Π_i u_i`` for random ``u`` (Schwartz–Zippel, error ≤ n/L) makes the
linear forms ``(M·u)_j`` the ``u_i`` up to factors (unique factorisation), i.e.
``Y_j = λ_j·X_{π(j)}`` for a permutation ``π``. Soundness error per hash query:
about ``(n + 2)/L < 2⁻²⁴⁶``; a prover grinding ``2^q`` hashes offline cheats with
probability below ``2^(q−246)``.

Zero knowledge: every point the prover sends besides the statement is blinded by a
fresh ``r`` or ``ω`` (K, C_j, t's), and each response by a fresh ``ω``. The nonces
are derived from a secret key (the prover's hand seed, revealed only at hand end)
and the statement, so a proof is a function of seed and statement, reproducible
for audits and test vectors, and no nonce ever serves two different challenges.

Sizes for n = 52: ``2n + 3`` points and ``2n + 1`` scalars, 212 × 32 = 6 784 bytes.
Costs (group operations): prover ``2n + 2`` base multiplications, ``3n + 1``
variable-base ones and ``3n`` additions; verifier ``n + 1`` base, ``4n + 3``
variable-base, ``4n`` additions (or one MSM of ``4n + 5`` points where there is one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gin.engine.errors import MalformedInput
from gin.protocol.deal import group as g

DOMAIN = g.DOMAIN
N = g.CARDS
PROOF_BYTES = (4 * N + 4) * g.POINT_BYTES  # 2n + 3 points, 2n + 1 scalars: 6 784 bytes


class ProofMalformed(MalformedInput):
    """Bytes that are not a shuffle proof of the expected shape."""


def _tag(label: bytes) -> bytes:
    return DOMAIN + b"\x00" + label + b"\x00"


def statement_hash(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes]) -> bytes:
    """SHA-512(DOMAIN ‖ 00 ‖ "shuffle/statement" ‖ 00 ‖ u16be(len ctx) ‖ ctx ‖ u8(n) ‖ X… ‖ Y…)."""
    if not isinstance(context, bytes) or len(context) > 0xFFFF:
        raise MalformedInput("context must be at most 65535 bytes")
    n = len(inputs)
    if len(outputs) != n or not 1 <= n <= 255:
        raise MalformedInput("inputs and outputs must be 1..255 points each, as many")
    return hashlib.sha512(
        _tag(b"shuffle/statement") + len(context).to_bytes(2, "big") + context + bytes((n,))
        + b"".join(inputs) + b"".join(outputs)).digest()


def _u_hash(h_stmt: bytes, k: bytes) -> bytes:
    return hashlib.sha512(_tag(b"shuffle/u") + h_stmt + k).digest()


def challenges(h_u: bytes, n: int) -> tuple[int, ...]:
    """``u_i = LE(SHA-512(DOMAIN ‖ 00 ‖ "shuffle/u-i" ‖ 00 ‖ h_u ‖ u16be(i))) mod L``."""
    tag = _tag(b"shuffle/u-i") + h_u
    return tuple(g.hash_to_scalar(tag, i.to_bytes(2, "big")) for i in range(n))


def _challenge(h_u: bytes, chain: Sequence[bytes], chain_t: Sequence[bytes], t_sum: bytes,
               t_end: bytes) -> int:
    return g.hash_to_scalar(_tag(b"shuffle/challenge"), h_u, *chain, *chain_t, t_sum, t_end)


def _nonce(key: bytes, h_stmt: bytes, kind: bytes, index: int) -> int:
    # Deterministic, like an EdDSA nonce: a secret key and the statement. 0 is never
    # used (probability 2⁻²⁵²): take the next index's value instead.
    tag = _tag(b"shuffle/nonce") + key + h_stmt + kind
    while True:
        value = g.hash_to_scalar(tag, index.to_bytes(4, "big"))
        if value:
            return value
        index += 1 << 16


def words(proof: bytes) -> list[bytes]:
    """A proof's bytes as its 32-byte points and scalars, as ``deck`` carries them."""
    return [proof[i:i + 32] for i in range(0, len(proof), 32)]


@dataclass(frozen=True)
class ShuffleProof:
    """``K``, the chain ``C_1 … C_n``, the commitments ``t̂_0 … t̂_{n−1}``, ``t_C``,
    ``t_D``, and the responses ``s_j``, ``ŝ_j``, ``s_D``."""

    k: bytes
    chain: tuple[bytes, ...]
    chain_t: tuple[bytes, ...]
    t_sum: bytes
    t_end: bytes
    s_v: tuple[int, ...]
    s_r: tuple[int, ...]
    s_end: int

    def to_bytes(self) -> bytes:
        """``K ‖ C_1…C_n ‖ t̂_0…t̂_{n−1} ‖ t_C ‖ t_D ‖ s_0…s_{n−1} ‖ ŝ_0…ŝ_{n−1} ‖ s_D``."""
        return b"".join((
            self.k, *self.chain, *self.chain_t, self.t_sum, self.t_end,
            *(g.scalar_to_bytes(s) for s in (*self.s_v, *self.s_r, self.s_end))))

    @classmethod
    def from_bytes(cls, data: bytes, n: int = N) -> ShuffleProof:
        """Parse; ProofMalformed for a wrong length, a point that is not a non-identity
        element, or a scalar that is not canonical."""
        size = (4 * n + 4) * 32
        if not isinstance(data, bytes) or len(data) != size:
            raise ProofMalformed(f"a shuffle proof of {n} entries is {size} bytes")
        words = [data[i:i + 32] for i in range(0, size, 32)]
        points, scalars = words[:2 * n + 3], words[2 * n + 3:]
        for where, p in enumerate(points):
            try:
                g.check_point(p)
            except g.InvalidPoint:
                raise ProofMalformed(f"proof point {where} is not a valid element") from None
        try:
            values = [g.scalar_from_bytes(s) for s in scalars]
        except g.InvalidScalar:
            raise ProofMalformed("a proof scalar is not canonical") from None
        return cls(k=points[0], chain=tuple(points[1:n + 1]),
                   chain_t=tuple(points[n + 1:2 * n + 1]),
                   t_sum=points[2 * n + 1], t_end=points[2 * n + 2],
                   s_v=tuple(values[:n]), s_r=tuple(values[n:2 * n]), s_end=values[2 * n])


def prove(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
          permutation: Sequence[int], keys: Sequence[int], nonce_key: bytes) -> ShuffleProof:
    """A proof that ``outputs[j] = keys[j]·inputs[permutation[j]]``.

    Refuses (MalformedInput) a ``permutation`` that is not one, or keys that are not
    secret scalars. It does not re-check the outputs against the keys (the caller
    built them); a false statement gives a proof that does not verify.
    """
    n = len(inputs)
    if sorted(permutation) != list(range(n)) or len(keys) != n or len(outputs) != n:
        raise MalformedInput("the permutation must be one of 0..n-1, with n keys and n outputs")
    inverse_keys = [g.sinv(b) for b in keys]
    kappa = 1
    for b_inv in inverse_keys:
        kappa = g.smul(kappa, b_inv)
    return prove_with(context, inputs, outputs, kappa,
                      lambda u: [g.smul(u[permutation[j]], inverse_keys[j]) for j in range(n)],
                      nonce_key)


def prove_with(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], kappa: int,
               coefficients: Callable[[Sequence[int]], Sequence[int]],
               nonce_key: bytes) -> ShuffleProof:
    """The proof's steps for a given ``κ`` and map ``u ↦ v``: :func:`prove` with the
    honest ``κ = Π b_j⁻¹`` and ``v_j = u_{π(j)}·b_j⁻¹``; the tests' cheaters with others."""
    n = len(inputs)
    for p in (*inputs, *outputs):
        g.check_point(p)
    h = g.generator_h()
    h_stmt = statement_hash(context, inputs, outputs)

    r_kappa = _nonce(nonce_key, h_stmt, b"k", 0)
    k_point = g.add(g.mul(h, kappa), g.base_mul(r_kappa)) if kappa else g.base_mul(r_kappa)

    h_u = _u_hash(h_stmt, k_point)
    u = challenges(h_u, n)
    v = list(coefficients(u))

    chain = [h]
    r_hat = [_nonce(nonce_key, h_stmt, b"r", j) for j in range(n)]
    rho = 0  # C_j = (Π_{i<j} v_i)·H + ρ_j·G
    for j in range(n):
        term = g.mul(chain[j], v[j]) if v[j] else g.IDENTITY
        chain.append(g.add(g.base_mul(r_hat[j]), term))
        rho = g.sadd(g.smul(v[j], rho), r_hat[j])
    product_u = 1
    for ui in u:
        product_u = product_u * ui % g.L
    d = g.sadd(rho, g.sneg(g.smul(product_u, r_kappa)))

    omega = [_nonce(nonce_key, h_stmt, b"v", j) for j in range(n)]
    omega_hat = [_nonce(nonce_key, h_stmt, b"w", j) for j in range(n)]
    omega_end = _nonce(nonce_key, h_stmt, b"d", 0)
    chain_t = [g.add(g.base_mul(omega_hat[j]), g.mul(chain[j], omega[j])) for j in range(n)]
    t_sum = g.total(g.mul(outputs[j], omega[j]) for j in range(n))
    t_end = g.base_mul(omega_end)

    e = _challenge(h_u, chain[1:], chain_t, t_sum, t_end)
    return ShuffleProof(
        k=k_point, chain=tuple(chain[1:]), chain_t=tuple(chain_t), t_sum=t_sum, t_end=t_end,
        s_v=tuple(g.sadd(omega[j], g.smul(e, v[j])) for j in range(n)),
        s_r=tuple(g.sadd(omega_hat[j], g.smul(e, r_hat[j])) for j in range(n)),
        s_end=g.sadd(omega_end, g.smul(e, d)))


def verify(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
           proof: ShuffleProof) -> str | None:
    """Why ``proof`` does not show ``outputs`` to be a per-position-key shuffle of
    ``inputs`` in ``context``; None when it does. Inputs and outputs MUST have been
    checked (:func:`gin.protocol.deal.group.check_point`, no repeats) by the caller. The
    reasons are the TypeScript twin's, word for word."""
    n = len(inputs)
    if len(outputs) != n or len(proof.chain) != n or len(proof.chain_t) != n or len(
            proof.s_v) != n or len(proof.s_r) != n:
        return "the proof has the wrong number of entries"
    h_u = _u_hash(statement_hash(context, inputs, outputs), proof.k)
    u = challenges(h_u, n)
    e = _challenge(h_u, proof.chain, proof.chain_t, proof.t_sum, proof.t_end)
    if e == 0:
        return "the challenge is zero"  # probability 2⁻²⁵²: no proof is accepted then
    return _check(inputs, outputs, proof, u, e)


def _check(inputs: Sequence[bytes], outputs: Sequence[bytes], proof: ShuffleProof,
           u: Sequence[int], e: int) -> str | None:
    n = len(inputs)
    h = g.generator_h()

    # Σ s_j·Y_j = t_C + e·X̂, X̂ = Σ u_i·X_i
    x_hat = g.msm(inputs, u)
    if g.msm(outputs, proof.s_v) != g.add(proof.t_sum, g.mul_public(x_hat, e)):
        return "the outputs are not the inputs' re-keyed permutation (sum check)"
    # ŝ_j·G + s_j·C_j = t̂_j + e·C_{j+1}, C_0 = H
    previous = h
    for j in range(n):
        left = g.add(g.base_mul(proof.s_r[j]), g.mul_public(previous, proof.s_v[j]))
        if left != g.add(proof.chain_t[j], g.mul_public(proof.chain[j], e)):
            return f"product chain link {j} does not hold"
        previous = proof.chain[j]
    # s_D·G = t_D + e·(C_n − (Π u)·K)
    product_u = 1
    for ui in u:
        product_u = product_u * ui % g.L
    end = g.sub(proof.chain[-1], g.mul_public(proof.k, product_u))
    if g.base_mul(proof.s_end) != g.add(proof.t_end, g.mul_public(end, e)):
        return "the product of the chain is not the permuted challenges' (product check)"
    return None
