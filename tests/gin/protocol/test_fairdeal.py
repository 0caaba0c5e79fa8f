"""The fair deal: derivation, commitments, the three messages, message 2's check,
opening, attacks, audit."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from gin.engine.errors import MalformedInput, PeerFault
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group as g
from gin.protocol.deal import shuffle_proof as sp
from gin.protocol.deal.fairdeal import Role

DOC = Path(__file__).resolve().parents[3] / "protocol.md"
FIRST_SEED = bytes(range(32))
SECOND_SEED = bytes(range(32, 64))
MATCH = b"vector-match"
HAND = 1
CTX = fd.context(MATCH, HAND)


def doc_vectors() -> dict[str, str]:
    """``name = value`` lines of the ```vectors block of protocol.md."""
    block = re.search(r"```vectors\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None, "no vectors block in the doc"
    pairs = (line.split(" = ", 1) for line in block.group(1).splitlines() if line.strip())
    return {name.strip(): value.strip() for name, value in pairs}


def ints(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(","))


@pytest.fixture(scope="module")
def hand() -> dict[str, object]:
    """One honest hand from the vector seeds, computed once."""
    first = fd.SeedMaterial.from_seed(FIRST_SEED)
    second = fd.SeedMaterial.from_seed(SECOND_SEED)
    m1 = fd.build_message1(first)
    m2, proof = fd.build_message2(second, m1, CTX)
    m3 = fd.build_message3(first, m2)
    return {"first": first, "second": second, "m1": m1, "m2": m2, "m3": m3, "proof": proof}


def materials(hand: dict[str, object]) -> tuple[fd.SeedMaterial, fd.SeedMaterial]:
    first, second = hand["first"], hand["second"]
    assert isinstance(first, fd.SeedMaterial) and isinstance(second, fd.SeedMaterial)
    return first, second


def messages(hand: dict[str, object]) -> tuple[fd.Deck, fd.Deck, fd.Deck]:
    m1, m2, m3 = hand["m1"], hand["m2"], hand["m3"]
    assert isinstance(m1, tuple) and isinstance(m2, tuple) and isinstance(m3, tuple)
    return m1, m2, m3


# --- test vectors -----------------------------------------------------------------


def test_vectors_in_the_doc(hand: dict[str, object]) -> None:
    v = doc_vectors()
    first, second = materials(hand)
    m1, m2, m3 = messages(hand)
    for card in (0, 1, 13, 51):
        assert g.card_points()[card].hex() == v[f"card_point_{card}"]
    assert g.generator_h().hex() == v["generator_h"]
    assert first.permutation == ints(v["first_permutation"])
    assert second.permutation == ints(v["second_permutation"])
    assert fd.key_bytes(first.deck_key).hex() == v["first_deck_key"]
    for k in range(3):
        assert fd.key_bytes(first.position_keys[k]).hex() == v[f"first_position_key_{k}"]
        assert fd.key_bytes(second.position_keys[k]).hex() == v[f"second_position_key_{k}"]
    assert second.nonce_key.hex() == v["second_nonce_key"]
    assert fd.commitment(FIRST_SEED, MATCH, HAND, Role.FIRST).hex() == v["first_commitment"]
    assert fd.commitment(SECOND_SEED, MATCH, HAND, Role.SECOND).hex() == v["second_commitment"]
    assert (m1[0].hex(), m2[0].hex(), m3[0].hex()) == (
        v["message1_0"], v["message2_0"], v["message3_0"],
    )
    proof = hand["proof"]
    assert isinstance(proof, bytes)
    assert (len(proof), fd.proof_digest(proof).hex()) == (6784, v["proof_sha256"])
    assert proof[:32].hex() == v["proof_k"] and proof[-32:].hex() == v["proof_s_d"]
    assert fd.deck_order(first.permutation, second.permutation) == ints(v["deck"])


# --- derivation -------------------------------------------------------------------


def test_derivation_is_deterministic_and_seed_specific(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    assert fd.SeedMaterial.from_seed(FIRST_SEED) == first
    assert first.permutation != second.permutation
    assert sorted(first.permutation) == list(range(52))
    keys = (first.deck_key, *first.position_keys, *second.position_keys)
    assert len(set(keys)) == len(keys)
    assert all(1 <= k < g.L for k in keys)
    assert first.nonce_key != second.nonce_key and len(first.nonce_key) == 64
    assert fd.derive_position_key(FIRST_SEED, 7) == first.position_keys[7]
    # Secrets stay out of reprs (and so out of logs).
    assert "deck_key" not in repr(first) and str(first.deck_key) not in repr(first)
    assert first.nonce_key.hex() not in repr(first)


def test_scalars_are_the_wide_hash_reduced() -> None:
    digest = hashlib.sha512(b"gin/fairdeal/v3\x00deck-key\x00" + FIRST_SEED + bytes(4)).digest()
    assert fd.derive_scalar(b"deck-key", FIRST_SEED) == int.from_bytes(digest, "little") % g.L
    assert fd.key_from_bytes(fd.key_bytes(12345)) == 12345
    assert fd.key_bytes(1) == b"\x01" + bytes(31)


def test_permutation_is_uniform_enough() -> None:
    # Where card 0 lands over 5200 seeds: each of 52 positions expects 100.
    counts: Counter[int] = Counter()
    for i in range(5200):
        seed = hashlib.sha256(i.to_bytes(4, "big")).digest()
        counts[fd.derive_permutation(seed).index(0)] += 1
    assert set(counts) == set(range(52))
    chi2 = sum((counts[p] - 100) ** 2 / 100 for p in range(52))
    assert chi2 < 90  # 51 degrees of freedom: p ≈ 0.001 at 87


def test_permutation_rejects_biased_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Feed a stream that starts with a byte in the rejected zone for m = 52.
    stream = iter([bytes([255, 0]) + bytes(30), bytes(32), bytes(32)])
    monkeypatch.setattr(fd, "_blocks", lambda label, seed: stream)
    order = fd.derive_permutation(FIRST_SEED)
    # 255 ≥ 256 − 256 mod 52 = 208 is skipped; 0 picks j = 0 for i = 51.
    assert order[51] == 0


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33)])
def test_bad_seed_is_malformed(seed: bytes) -> None:
    with pytest.raises(MalformedInput):
        fd.SeedMaterial.from_seed(seed)


# --- commitment -------------------------------------------------------------------


def test_commitment_binds_seed_match_hand_and_role() -> None:
    base = fd.commitment(FIRST_SEED, MATCH, HAND, Role.FIRST)
    assert fd.verify_commitment(base, FIRST_SEED, MATCH, HAND, Role.FIRST)
    assert not fd.verify_commitment(base, SECOND_SEED, MATCH, HAND, Role.FIRST)
    assert not fd.verify_commitment(base, FIRST_SEED, b"other-match", HAND, Role.FIRST)
    assert not fd.verify_commitment(base, FIRST_SEED, MATCH, HAND + 1, Role.FIRST)
    assert not fd.verify_commitment(base, FIRST_SEED, MATCH, HAND, Role.SECOND)
    assert not fd.verify_commitment(base, FIRST_SEED[:31], MATCH, HAND, Role.FIRST)
    with pytest.raises(MalformedInput):
        fd.commitment(FIRST_SEED, b"", HAND, Role.FIRST)
    with pytest.raises(MalformedInput):
        fd.commitment(FIRST_SEED, MATCH, -1, Role.FIRST)
    assert CTX == b"\x00\x0cvector-match\x00\x00\x00\x01"


# --- messages and opening -------------------------------------------------------------


def test_final_positions_open_to_the_composed_deck(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    _, _, m3 = messages(hand)
    deck = fd.deck_order(first.permutation, second.permutation)
    assert sorted(deck) == list(range(52))
    assert deck == tuple(first.permutation[second.permutation[k]] for k in range(52))
    for k in range(52):
        a_k, b_k = first.position_keys[k], second.position_keys[k]
        assert fd.open_card(m3, k, a_k, b_k, Role.SECOND) == deck[k]
        assert fd.open_card(m3, k, b_k, a_k, Role.FIRST) == deck[k]


def test_message_layers_are_as_specified(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    m1, m2, m3 = messages(hand)
    points = g.card_points()
    for i in (0, 25, 51):
        assert m1[i] == g.mul(points[first.permutation[i]], first.deck_key)
        assert m2[i] == g.mul(m1[second.permutation[i]], second.position_keys[i])
        # Message 3 in one multiplication equals decrypt-then-encrypt.
        two_step = g.mul(g.mul(m2[i], g.sinv(first.deck_key)), first.position_keys[i])
        assert m3[i] == two_step
    assert fd.reencrypt(second, m1) == m2


def test_open_card_rejects_a_wrong_key(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    _, _, m3 = messages(hand)
    with pytest.raises(PeerFault) as info:
        fd.open_card(m3, 4, second.position_keys[4], first.position_keys[5], Role.FIRST)
    assert (info.value.who, info.value.field) == ("first", "key[4]")
    with pytest.raises(PeerFault) as info:
        fd.open_card(m3, 4, second.position_keys[4], 0, Role.FIRST)
    assert info.value.field == "key[4]"
    with pytest.raises(MalformedInput):
        fd.open_card(m3, 52, 1, 1, Role.FIRST)
    with pytest.raises(PeerFault, match="not a valid scalar"):  # ≥ L: not a key
        fd.open_card(m3, 4, second.position_keys[4], g.L + 1, Role.FIRST)
    with pytest.raises(g.InvalidScalar):  # our own key is bad: a local error, no blame
        fd.open_card(m3, 4, 0, first.position_keys[4], Role.FIRST)


def test_validate_message_names_field_and_position(hand: dict[str, object]) -> None:
    _, m2, _ = messages(hand)
    assert fd.validate_message(list(m2), "message2") == m2
    not_element = "message2[40]: not a ristretto255 element other than the identity"
    cases: list[tuple[object, int | None, str]] = [
        ("nope", None, "expected a list"),
        (list(m2[:51]), None, "expected 52 entries, got 51"),
        ([*m2[:17], b"short", *m2[18:]], 17, "message2[17]: expected 32 bytes"),
        ([*m2[:17], m2[3], *m2[18:]], 17, "message2[17]: repeats position 3"),
        ([*m2[:40], b"\xff" * 32, *m2[41:]], 40, not_element),
        ([*m2[:40], g.IDENTITY, *m2[41:]], 40, not_element),
        ([*m2[:40], b"\x01" + bytes(31), *m2[41:]], 40, not_element),  # negative: refused
    ]
    for value, position, text in cases:
        with pytest.raises(fd.MalformedDeck) as info:
            fd.validate_message(value, "message2")
        assert info.value.field == "message2"
        assert info.value.position == position
        assert text in str(info.value)


def test_message2_refusal_says_where(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    m1, m2, _ = messages(hand)
    proof = hand["proof"]
    assert isinstance(proof, bytes)
    assert fd.message2_refusal(CTX, m1, m2, proof) is None
    # Issue 19's cheat: the second's ten dealt positions (even, 0..18) copy the dealer's.
    source = list(second.permutation)
    for own in range(0, 20, 2):
        source[own] = source[own + 1]
    dup = tuple(g.mul(m1[source[j]], second.position_keys[j]) for j in range(52))
    claimed = sp.prove(CTX, m1, dup, second.permutation, second.position_keys,
                       second.nonce_key).to_bytes()
    where, why = fd.message2_refusal(CTX, m1, dup, claimed) or ("", "")
    assert where == "proof" and why.startswith("message 2 is not proven a shuffle of message 1")
    assert fd.message2_refusal(CTX, m1, (*m2[:51], m2[0]), proof) == (
        "message2[51]", "repeats position 0")
    assert fd.message2_refusal(CTX, m1, (*m2[:9], b"\xff" * 32, *m2[10:]), proof) == (
        "message2[9]", "not a ristretto255 element other than the identity")
    assert fd.message2_refusal(CTX, m1, m2, g.IDENTITY + proof[32:]) == (
        "proof", "message 2's shuffle proof is malformed: proof point 0 is not a valid element")
    assert fd.message2_refusal(CTX, m1, m2, proof[:-32]) == (
        "proof", "message 2's shuffle proof is malformed: a shuffle proof of 52 entries is "
        "6784 bytes")
    assert fd.message2_refusal(fd.context(MATCH, HAND + 1), m1, m2, proof) is not None


# --- attacks ------------------------------------------------------------------------


def _marker_attack(first: fd.SeedMaterial, single_second_key: bool) -> tuple[list[int], int]:
    """First shuffler plants E_2(E_a(M_c)) in message 1 and hunts for card c after message 2.

    Returns (the positions the search flags, the position that truly holds card c).
    """
    target, sacrificed = 10, 20  # card 20's slot carries the marker instead
    points = g.card_points()
    m1 = list(fd.build_message1(first))
    marker_slot = first.permutation.index(sacrificed)
    m1[marker_slot] = g.mul(points[target], g.smul(2, first.deck_key))
    second = fd.SeedMaterial.from_seed(SECOND_SEED)
    if single_second_key:
        second = fd.SeedMaterial(
            seed=second.seed, permutation=second.permutation, deck_key=second.deck_key,
            position_keys=(second.deck_key,) * 52, nonce_key=second.nonce_key,
        )
    m2 = fd.reencrypt(second, fd.validate_message(m1, "message1"))
    truth = second.permutation.index(first.permutation.index(target))
    # The attacker strips its own key and looks for an entry whose double is another entry.
    stripped = tuple(g.mul(x, g.sinv(first.deck_key)) for x in m2)
    doubled = tuple(g.mul(x, 2) for x in stripped)
    return [j for j in range(52) if doubled[j] in set(stripped)], truth


def test_marker_attack_finds_the_card_with_a_single_second_key(hand: dict[str, object]) -> None:
    first, _ = materials(hand)
    hits, truth = _marker_attack(first, single_second_key=True)
    assert hits == [truth]  # the attack is real: it locates card 10 exactly


def test_marker_attack_finds_nothing_with_per_position_keys(hand: dict[str, object]) -> None:
    first, _ = materials(hand)
    hits, _ = _marker_attack(first, single_second_key=False)
    assert hits == []


def _guesses(known: list[int], own: int) -> list[int]:
    """Every key a side can form for a position: its own key alone or with a known key."""
    return [own, *known, *(g.smul(own, k) for k in known)]


def test_dealt_keys_open_nothing_else(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    _, _, m3 = messages(hand)
    # Deal: positions 0..9 to the first shuffler, 10..19 to the second, 20 the upcard.
    first_hand, second_hand, upcard = range(0, 10), range(10, 20), 20
    hidden_from_first = [*second_hand, *range(21, 52)]
    hidden_from_second = [*first_hand, *range(21, 52)]
    # Keys each side learns from the other: those of its own cards and the upcard.
    first_learns = [second.position_keys[k] for k in (*first_hand, upcard)]
    second_learns = [first.position_keys[k] for k in (*second_hand, upcard)]
    for k in hidden_from_first:
        own = [first.position_keys[k], first.deck_key, g.smul(first.position_keys[k],
                                                                   g.sinv(first.deck_key))]
        for own_key in own:
            for guess in _guesses(first_learns, own_key):
                assert g.card_of(g.mul(m3[k], g.sinv(guess))) is None
    for k in hidden_from_second:
        for guess in _guesses([*second_learns, second.deck_key], second.position_keys[k]):
            assert g.card_of(g.mul(m3[k], g.sinv(guess))) is None
    # Sanity: the same procedure does open the positions that were dealt.
    for k in first_hand:
        assert fd.open_card(m3, k, first.position_keys[k], second.position_keys[k], Role.SECOND)


# --- audit --------------------------------------------------------------------------


def _audit(hand: dict[str, object], **changes: object) -> fd.AuditReport:
    m1, m2, m3 = messages(hand)
    args: dict[str, object] = {
        "match_id": MATCH, "hand_number": HAND,
        "first_seed": FIRST_SEED, "second_seed": SECOND_SEED,
        "first_commitment": fd.commitment(FIRST_SEED, MATCH, HAND, Role.FIRST),
        "second_commitment": fd.commitment(SECOND_SEED, MATCH, HAND, Role.SECOND),
        "message1": m1, "message2": m2, "message3": m3,
    }
    args.update(changes)
    return fd.audit_hand(**args)  # type: ignore[arg-type]


def test_honest_hand_passes_audit(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    revealed = [(Role.FIRST, k, first.position_keys[k]) for k in range(10, 21)]
    revealed += [(Role.SECOND, k, second.position_keys[k]) for k in range(0, 10)]
    report = _audit(hand, revealed_keys=revealed)
    assert report.ok and report.deviations == ()
    assert report.deck == ints(doc_vectors()["deck"])


def test_wrong_seed_fails_commitment(hand: dict[str, object]) -> None:
    report = _audit(hand, second_seed=bytes(32))
    assert [(d.role, d.field) for d in report.deviations] == [(Role.SECOND, "commitment")]
    assert report.deck is None


def test_first_shuffler_with_another_permutation_is_caught(hand: dict[str, object]) -> None:
    first, _ = materials(hand)
    other = fd.SeedMaterial(seed=first.seed, permutation=tuple(range(52)),
                            deck_key=first.deck_key, position_keys=first.position_keys,
                            nonce_key=first.nonce_key)
    second = fd.SeedMaterial.from_seed(SECOND_SEED)
    m1 = fd.build_message1(other)
    m2 = fd.reencrypt(second, m1)
    m3 = fd.build_message3(first, m2)
    report = _audit(hand, message1=m1, message2=m2, message3=m3)
    # Message 2 and 3 were computed honestly from what was received: only message 1 is wrong.
    assert {d.role for d in report.deviations} == {Role.FIRST}
    assert {d.field for d in report.deviations} == {"message1"}
    moved = [k for k in range(52) if first.permutation[k] != k]
    assert [d.position for d in report.deviations] == moved
    d = report.deviations[0]
    assert f"holds {fd._card_text(d.position or 0)} instead of" in d.detail


def test_substituted_card_point_in_message1(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    m1 = list(messages(hand)[0])
    m1[5] = g.mul(m1[5], 3)  # not any card under the deck key
    m2 = fd.reencrypt(second, m1)
    m3 = fd.build_message3(first, m2)
    report = _audit(hand, message1=tuple(m1), message2=m2, message3=m3)
    assert [(d.role, d.field, d.position) for d in report.deviations] == [
        (Role.FIRST, "message1", 5)
    ]
    assert "not a card under the deck key" in report.deviations[0].detail


def test_duplicated_card_in_message1_fails_shape(hand: dict[str, object]) -> None:
    m1 = list(messages(hand)[0])
    m1[7] = m1[2]
    report = _audit(hand, message1=tuple(m1))
    d = report.deviations[0]
    assert (d.role, d.field, d.position) == (Role.FIRST, "message1", 7)
    assert "repeats position 2" in d.detail


def test_second_shuffler_reusing_an_entry_is_caught(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    m1, m2, _ = messages(hand)
    bad2 = list(m2)
    # Position 30 re-encrypts the entry meant for position 31: card duplicated, one dropped.
    bad2[30] = g.mul(m1[second.permutation[31]], second.position_keys[30])
    m3 = fd.build_message3(first, bad2)
    report = _audit(hand, message2=tuple(bad2), message3=m3)
    assert [(d.role, d.field, d.position) for d in report.deviations] == [
        (Role.SECOND, "message2", 30)
    ]
    assert f"re-encrypts message1[{second.permutation[31]}]" in report.deviations[0].detail


def test_first_shuffler_bad_rekey_and_bad_key(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    _, m2, m3 = messages(hand)
    bad3 = list(m3)
    # Position 12 re-keys the entry of position 13 (a card shown twice); 13 uses a wrong key.
    bad3[12] = g.mul(m2[13], g.smul(first.position_keys[12], g.sinv(first.deck_key)))
    bad3[13] = g.mul(m2[13], g.smul(first.position_keys[14], g.sinv(first.deck_key)))
    report = _audit(
        hand, message3=tuple(bad3),
        revealed_keys=[(Role.SECOND, 3, second.position_keys[4]), (Role.FIRST, 60, 1)],
    )
    summary = [(d.role, d.field, d.position) for d in report.deviations]
    assert summary == [
        (Role.FIRST, "message3", 12), (Role.FIRST, "message3", 13),
        (Role.SECOND, "key", 3), (Role.FIRST, "key", None),
    ]
    assert "re-keys message2[13] instead of message2[12]" in report.deviations[0].detail
    assert "not a re-keying of any message2 entry" in report.deviations[1].detail
    assert {d.role for d in report.deviations} == {Role.FIRST, Role.SECOND}


def test_both_cheating_are_both_attributed(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    m1, m2, m3 = messages(hand)
    bad1 = (*m1[:51], g.mul(m1[51], 5))
    bad2 = fd.reencrypt(second, bad1)
    bad2 = (g.mul(bad2[0], 7), *bad2[1:])
    bad3 = fd.build_message3(first, bad2)
    report = _audit(hand, message1=bad1, message2=bad2, message3=bad3)
    assert [(d.role, d.field, d.position) for d in report.deviations] == [
        (Role.FIRST, "message1", 51), (Role.SECOND, "message2", 0),
    ]


def test_the_proof_must_be_the_one_the_seed_makes(hand: dict[str, object]) -> None:
    proof = hand["proof"]
    assert isinstance(proof, bytes)
    assert _audit(hand, proof=fd.proof_digest(proof)).ok
    report = _audit(hand, proof=fd.proof_digest(proof + b"x"))
    assert [(d.role, d.field, d.position, d.detail) for d in report.deviations] == [
        (Role.SECOND, "proof", None, "not the shuffle proof the seed makes")]
    # A player checked it on arrival (or made it) and passes none.
    assert _audit(hand, trust=Role.FIRST).ok


def test_trusting_own_messages_finds_the_same_deviations(hand: dict[str, object]) -> None:
    first, second = materials(hand)
    _, m2, m3 = messages(hand)
    assert _audit(hand, trust=Role.FIRST).ok and _audit(hand, trust=Role.SECOND).ok
    # The second shuffler cheats at position 0; the first shuffler checks from card points.
    bad2 = (g.mul(m2[0], 5), *m2[1:])
    changed = {"message2": bad2, "message3": fd.build_message3(first, bad2)}
    for trust in (None, Role.FIRST):
        report = _audit(hand, trust=trust, **changed)
        assert [(d.role, d.field, d.position) for d in report.deviations] == [
            (Role.SECOND, "message2", 0)
        ]
    # The first shuffler cheats in message 3; the second checks it, but the first skips it.
    bad3 = (*m3[:5], g.mul(m3[5], 5), *m3[6:])
    for trust in (None, Role.SECOND):
        report = _audit(hand, trust=trust, message3=bad3)
        assert [(d.role, d.field, d.position) for d in report.deviations] == [
            (Role.FIRST, "message3", 5)
        ]
    assert _audit(hand, trust=Role.FIRST, message3=bad3).ok


def test_the_second_shuffler_trusting_its_message_2_built_on_a_bad_message_1(
    hand: dict[str, object],
) -> None:
    # The first shuffler cheats in message 1; the second builds message 2 on it
    # honestly and the first message 3 on that. Only message 1 deviates, whichever
    # point of view: message 3 is what the first's seed makes of the message 2 it got.
    first, second = materials(hand)
    m1, _, _ = messages(hand)
    bad1 = (*m1[:7], g.mul(m1[7], 5), *m1[8:])
    bad2 = fd.reencrypt(second, bad1)
    changed = {"message1": bad1, "message2": bad2, "message3": fd.build_message3(first, bad2)}
    for trust in (None, Role.SECOND):
        report = _audit(hand, trust=trust, **changed)
        assert [(d.role, d.field, d.position) for d in report.deviations] == [
            (Role.FIRST, "message1", 7)
        ]
