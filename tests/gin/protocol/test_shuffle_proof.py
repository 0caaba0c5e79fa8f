"""The shuffle proof: an honest message 2 is proven; a message 2 that duplicates
entries, or re-keys a combination of entries, is never proven, in any try; a tampered
proof fails; the proof is bound to its hand; both implementations make the same bytes."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from gin.engine.errors import MalformedInput
from gin.protocol.deal import fairdeal as d
from gin.protocol.deal import group as g
from gin.protocol.deal import shuffle_proof as sp

CTX = d.context(b"vector-match", 1)
FIRST = d.SeedMaterial.from_seed(bytes(range(32)))
SECOND = d.SeedMaterial.from_seed(bytes(range(32, 64)))
M1 = d.build_message1(FIRST)
M2, PROOF_BYTES = d.build_message2(SECOND, M1, CTX)
PROOF = sp.ShuffleProof.from_bytes(PROOF_BYTES)
DECK = d.deck_order(FIRST.permutation, SECOND.permutation)
VECTORS = {
    "m1_0": "86e9795524e809752652137e1736ff8471d2dc609eec5e202037430b7d11122d",
    "m2_0": "40c6509c4308b7e7d050036d62650e7d01971510864ef8515856a90e3d461212",
    "m3_0": "8073665826bb05d2f8d182e60ca69d19c2f643173588a17c2c63596612fbe306",
    "proof_sha256": "8276d48feb36d54dfc41571e0075173b0de549794d419f5b20acf8cd4b5fcdef",
}
# Issue 19's duplicating message 2 and the proof of its claimed permutation.
DUPLICATING_M2 = "87fbc4fea392caac49f64d6bbb460a10ed01fc7c02c076f09c28bf358f76debf"
DUPLICATING_PROOF = "90e3e441d1ac96301e24584876c3cfaabb691b36cb4dc13451d92dd44573499e"
# Final positions 0..9 are dealt to the first shuffler (the dealer), 10..19 to the
# second, as in benchmarks/fairdeal.py.
DEALER = range(0, 10)
OWN = range(10, 20)


def seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def test_honest_proof_verifies_and_opens_the_deck() -> None:
    assert sp.verify(CTX, M1, M2, PROOF) is None
    assert len(PROOF_BYTES) == 6784 == sp.PROOF_BYTES == (4 * 52 + 4) * 32
    assert PROOF.to_bytes() == PROOF_BYTES
    assert b"".join(sp.words(PROOF_BYTES)) == PROOF_BYTES and len(sp.words(PROOF_BYTES)) == 212
    m3 = d.build_message3(FIRST, M2)
    assert [d.open_card(m3, k, FIRST.position_keys[k], SECOND.position_keys[k], d.Role.SECOND)
            for k in range(52)] == list(DECK)
    assert sorted(DECK) == list(range(52))


@pytest.mark.parametrize("run", range(3))
def test_other_seeds_verify(run: int) -> None:
    first = d.SeedMaterial.from_seed(seed(f"first/{run}"))
    second = d.SeedMaterial.from_seed(seed(f"second/{run}"))
    m1 = d.build_message1(first)
    m2, proof = d.build_message2(second, d.validate_message(m1, "message1"), CTX)
    d.validate_message(m2, "message2")
    assert sp.verify(CTX, m1, m2, sp.ShuffleProof.from_bytes(proof)) is None
    assert d.message2_refusal(CTX, m1, m2, proof) is None


def test_the_proof_is_a_function_of_seed_and_statement() -> None:
    assert d.build_message2(SECOND, M1, CTX) == (M2, PROOF_BYTES)
    # Another hand's statement: other nonces, other challenges.
    _, raw = d.build_message2(SECOND, M1, d.context(b"vector-match", 2))
    other = sp.ShuffleProof.from_bytes(raw)
    assert other.k != PROOF.k and other.chain[0] != PROOF.chain[0]


@pytest.mark.parametrize("ctx", [d.context(b"vector-match", 2), d.context(b"other-match", 1)])
def test_the_proof_is_bound_to_its_hand(ctx: bytes) -> None:
    assert sp.verify(ctx, M1, M2, PROOF) is not None


def test_the_prover_refuses_what_is_not_a_permutation() -> None:
    duplicated = list(SECOND.permutation)
    duplicated[OWN[0]] = duplicated[DEALER[0]]
    with pytest.raises(MalformedInput, match="permutation"):
        sp.prove(CTX, M1, M2, duplicated, SECOND.position_keys, SECOND.nonce_key)


# --- cheaters -----------------------------------------------------------------------------


def duplicating_message2() -> tuple[list[int], tuple[bytes, ...]]:
    """Issue 19's attack: the second shuffler's own ten positions re-key the message-1
    entries of the dealer's ten, under fresh keys (the entries differ, so message 2
    passes the shape checks), so its own cards open to the dealer's hand."""
    source = list(SECOND.permutation)
    for own, dealer in zip(OWN, DEALER, strict=True):
        source[own] = source[dealer]
    keys = SECOND.position_keys
    m2 = tuple(g.mul(M1[source[j]], keys[j]) for j in range(52))
    d.validate_message(m2, "message2")  # distinct, valid: only the proof can tell
    m3 = d.build_message3(FIRST, m2)
    assert [d.open_card(m3, k, FIRST.position_keys[k], keys[k], d.Role.SECOND)
            for k in OWN] == [DECK[k] for k in DEALER]  # the attack works if the proof lets it
    return source, m2


def kappa_of(keys: Sequence[int]) -> int:
    out = 1
    for b in keys:
        out = out * pow(b, -1, g.L) % g.L
    return out


def test_a_duplicating_second_shuffler_is_never_proven() -> None:
    source, m2 = duplicating_message2()
    keys = SECOND.position_keys
    # 1. It claims its honest permutation: the proof fails. The TypeScript twin builds
    # the same forged bytes and rejects them too (client/web/test/protocol_proof3.test.ts).
    proof = sp.prove(CTX, M1, m2, SECOND.permutation, keys, SECOND.nonce_key)
    assert hashlib.sha256(b"".join(m2)).hexdigest() == DUPLICATING_M2
    assert hashlib.sha256(proof.to_bytes()).hexdigest() == DUPLICATING_PROOF
    assert d.message2_refusal(CTX, M1, m2, proof.to_bytes()) == ("proof", (
        "message 2 is not proven a shuffle of message 1: the outputs are not the inputs' "
        "re-keyed permutation (sum check)"))
    # 2. Every strategy for v that the cheater can compute, over many grinding tries
    # (fresh nonces, so fresh K and challenges each time), fails. v_j = u_{source(j)}/b_j
    # makes Σ v_j·Y_j carry the duplicated inputs twice and the missing ones never;
    # the other strategies drop duplicates or give them a missing input's u.
    missing = sorted(set(range(52)) - set(source))

    def strategies(u: Sequence[int]) -> list[list[int]]:
        straight = [u[source[j]] * pow(keys[j], -1, g.L) % g.L for j in range(52)]
        dropped = [0 if j in OWN else v for j, v in enumerate(straight)]
        moved = list(straight)
        for j, i in zip(OWN, missing, strict=True):
            moved[j] = u[i] * pow(keys[j], -1, g.L) % g.L
        return [straight, dropped, moved]

    for attempt in range(24):
        which = attempt % 3

        def strategy(u: Sequence[int], which: int = which) -> list[int]:
            return strategies(u)[which]

        forged = sp.prove_with(CTX, M1, m2, kappa_of(keys), strategy, seed(f"grind/{attempt}"))
        assert sp.verify(CTX, M1, m2, forged) is not None, attempt


def test_a_combination_passes_the_sum_but_not_the_product() -> None:
    # Output j* re-keys X_{π(j*)} + X_{π(j2)}: the outputs still span the inputs, so
    # the cheater can solve Σ v_j·Y_j = X̂ exactly; opening j* would show it the sum of
    # two card points (which two cards: a pair from the other's hand). Only the product
    # argument stops it.
    perm, keys = SECOND.permutation, SECOND.position_keys
    j_star, j2 = OWN[0], DEALER[0]
    m2 = list(M2)
    m2[j_star] = g.mul(g.add(M1[perm[j_star]], M1[perm[j2]]), keys[j_star])
    m2t = tuple(d.validate_message(m2, "message2"))

    def solve(u: Sequence[int]) -> list[int]:
        v = [u[perm[j]] * pow(keys[j], -1, g.L) % g.L for j in range(52)]
        v[j2] = (u[perm[j2]] - u[perm[j_star]]) * pow(keys[j2], -1, g.L) % g.L
        return v

    for attempt in range(6):
        forged = sp.prove_with(CTX, M1, m2t, kappa_of(keys), solve, seed(f"combo/{attempt}"))
        assert sp.verify(CTX, M1, m2t, forged) == (
            "the product of the chain is not the permuted challenges' (product check)")


# --- tampering ----------------------------------------------------------------------------


def other_point(label: str) -> bytes:
    return g.hash_to_point(label.encode())


def tampered() -> list[tuple[str, sp.ShuffleProof]]:
    p = PROOF
    chain = list(p.chain)
    chain[3], chain[4] = chain[4], chain[3]
    return [
        ("k", sp.ShuffleProof(**{**p.__dict__, "k": other_point("x")})),
        ("chain", sp.ShuffleProof(**{**p.__dict__, "chain": (other_point("x"), *p.chain[1:])})),
        ("chain swap", sp.ShuffleProof(**{**p.__dict__, "chain": tuple(chain)})),
        ("chain_t", sp.ShuffleProof(**{**p.__dict__, "chain_t": (*p.chain_t[:-1],
                                                                   other_point("x"))})),
        ("t_sum", sp.ShuffleProof(**{**p.__dict__, "t_sum": other_point("x")})),
        ("t_end", sp.ShuffleProof(**{**p.__dict__, "t_end": other_point("x")})),
        ("s_v", sp.ShuffleProof(**{**p.__dict__, "s_v": ((p.s_v[0] + 1) % g.L, *p.s_v[1:])})),
        ("s_r", sp.ShuffleProof(**{**p.__dict__, "s_r": (*p.s_r[:-1], (p.s_r[-1] + 1) % g.L)})),
        ("s_end", sp.ShuffleProof(**{**p.__dict__, "s_end": (p.s_end + 1) % g.L})),
    ]


@pytest.mark.parametrize(("what", "proof"), tampered(), ids=[w for w, _ in tampered()])
def test_a_tampered_proof_fails(what: str, proof: sp.ShuffleProof) -> None:
    assert sp.verify(CTX, M1, M2, proof) is not None


def test_another_statement_fails() -> None:
    swapped = list(M2)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert sp.verify(CTX, M1, tuple(swapped), PROOF) is not None
    rekeyed = (g.mul(M2[0], 2), *M2[1:])
    assert sp.verify(CTX, M1, rekeyed, PROOF) is not None
    assert sp.verify(CTX, (g.mul(M1[0], 3), *M1[1:]), M2, PROOF) is not None


@pytest.mark.parametrize("offset", [0, 32 * 60, 32 * 107 - 1, 32 * 107, 32 * 211])
def test_every_byte_counts(offset: int) -> None:
    raw = bytearray(PROOF_BYTES)
    raw[offset] ^= 0x01
    try:
        proof = sp.ShuffleProof.from_bytes(bytes(raw))
    except sp.ProofMalformed:
        return
    assert sp.verify(CTX, M1, M2, proof) is not None


def test_malformed_proofs_are_refused() -> None:
    raw = PROOF_BYTES
    with pytest.raises(sp.ProofMalformed, match="bytes"):
        sp.ShuffleProof.from_bytes(raw[:-1])
    with pytest.raises(sp.ProofMalformed, match="point 0"):
        sp.ShuffleProof.from_bytes(g.IDENTITY + raw[32:])
    with pytest.raises(sp.ProofMalformed, match="point 5"):
        sp.ShuffleProof.from_bytes(raw[:160] + b"\xff" * 32 + raw[192:])
    not_reduced = (g.L + 1).to_bytes(32, "little")
    with pytest.raises(sp.ProofMalformed, match="canonical"):
        sp.ShuffleProof.from_bytes(raw[:-32] + not_reduced)


def test_vectors_shared_with_the_typescript_twin() -> None:
    # client/web/test/protocol_proof.test.ts pins the same values: both build the same
    # proof bytes from the same seeds, so both accept the same proofs; protocol.md §13
    # has the honest proof's digest among its vectors.
    assert (M1[0].hex(), M2[0].hex()) == (VECTORS["m1_0"], VECTORS["m2_0"])
    assert d.build_message3(FIRST, M2)[0].hex() == VECTORS["m3_0"]
    assert hashlib.sha256(PROOF_BYTES).hexdigest() == VECTORS["proof_sha256"]
