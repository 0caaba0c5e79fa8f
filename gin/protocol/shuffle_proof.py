"""A cut-and-choose proof that message 2 is a shuffle of message 1 (protocol.md §8.9).

The second shuffler could otherwise put one message-1 entry at two positions
under two different per-position keys: the entries differ and both open to a
card, so its opponent would be dealt copies of cards the cheater holds. Before
any card is dealt, the second shuffler proves that message 2 re-encrypts a
permutation of message 1, without revealing which:

1. for each round ``r`` it derives a *shadow*: from ``round_seed(seed, r)`` a
   permutation ``σ`` and keys ``c_0 … c_51`` (as a seed derives them, §8.4), and
   ``S[i] = E_{c_i}(m1[σ[i]])`` — the same form as message 2;
2. the first shuffler answers with one fresh random challenge bit per round;
3. bit 0: the prover reveals the round seed, and the verifier rebuilds ``S``
   from message 1. Bit 1: it reveals ``τ = σ⁻¹ ∘ πB`` and ``d_j = b_j · c_{τ[j]}⁻¹``,
   and the verifier checks ``m2[j] = E_{d_j}(S[τ[j]])`` for every ``j``.

If message 2 is no such shuffle, no shadow can pass both checks, so each round
catches it with probability 1/2 and all ``ROUNDS`` pass with probability
``2^-ROUNDS``. Each opening alone is uniformly random (σ and the ``c_i`` are),
so the verifier learns nothing about ``πB`` or the ``b_j``. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gin.protocol import ecc
from gin.protocol import fairdeal as fd

ROUNDS = 4


def round_seed(seed: bytes, round_number: int) -> bytes:
    """The seed of shadow ``round_number``: ``block("shadow" ‖ u8(r), seed, 0)``."""
    return fd.derive_bytes(b"shadow" + bytes((round_number,)), seed)


def shadows(second: fd.SeedMaterial, message1: Sequence[bytes]) -> tuple[fd.Deck, ...]:
    """The ``ROUNDS`` shadows of the second shuffler's message 2."""
    return tuple(
        fd.build_message2(fd.SeedMaterial.from_seed(round_seed(second.seed, r)), message1)
        for r in range(ROUNDS))


@dataclass(frozen=True)
class Opening:
    """One round's answer: the round seed (bit 0), or ``τ`` and the keys ``d`` (bit 1)."""

    seed: bytes | None = None
    tau: tuple[int, ...] = ()
    keys: tuple[int, ...] = ()


def open_rounds(second: fd.SeedMaterial, challenge: int) -> tuple[Opening, ...]:
    """The answers to ``challenge`` (bit ``r`` for round ``r``)."""
    out = []
    for r in range(ROUNDS):
        seed = round_seed(second.seed, r)
        if not challenge >> r & 1:
            out.append(Opening(seed=seed))
            continue
        shadow = fd.SeedMaterial.from_seed(seed)
        where = {source: i for i, source in enumerate(shadow.permutation)}  # σ⁻¹
        tau = tuple(where[second.permutation[j]] for j in range(fd.DECK_SIZE))
        keys = tuple(ecc.product(second.position_keys[j], ecc.inverse(shadow.position_keys[tau[j]]))
                     for j in range(fd.DECK_SIZE))
        out.append(Opening(tau=tau, keys=keys))
    return tuple(out)


def check_round(message1: Sequence[bytes], message2: Sequence[bytes], shadow: Sequence[bytes],
                bit: int, opening: Opening) -> str | None:
    """Why round's opening fails to link the shadow to message 1 (bit 0) or to
    message 2 (bit 1); None when it holds."""
    if bit == 0:
        if opening.seed is None or opening.tau or opening.keys:
            return "expected the round seed"
        rebuilt = fd.build_message2(fd.SeedMaterial.from_seed(opening.seed), message1)
        bad = next((i for i in range(fd.DECK_SIZE) if rebuilt[i] != shadow[i]), None)
        return None if bad is None else f"the shadow's entry {bad} is not what its seed makes"
    if opening.seed is not None or sorted(opening.tau) != list(range(fd.DECK_SIZE)) or len(
            opening.keys) != fd.DECK_SIZE:
        return "expected a permutation of the 52 positions and 52 keys"
    for j in range(fd.DECK_SIZE):
        try:
            entry = ecc.mul(shadow[opening.tau[j]], opening.keys[j])
        except ecc.InvalidScalar:
            return f"key {j} is not a scalar"
        except ecc.InvalidPoint:
            return f"the shadow's entry {opening.tau[j]} is not a point"
        if entry != message2[j]:
            return f"message2[{j}] is not the shadow's entry {opening.tau[j]} re-keyed"
    return None
