"""Conformance cases for the encodings that arrive (kind ``encoding``, protocol.md §8.1):
every field that carries a group element or a scalar — the three deck messages, the
shuffle proof's points and scalars, a player's key for a position — given the edge
encodings RFC 9496 and §8.1 refuse (the top bit of byte 31 set, values ≥ p, an odd
value, the identity, a scalar not reduced modulo L), and gin's verdict, word for
word. libsodium under gin/ and @noble/curves under the TypeScript twin disagree on
some of these bytes, so each twin checks them itself and must refuse them the same
way. :func:`record_encoding_cases` puts the same encodings in a hand record's fields
(kind ``record_text``): a record is refused at parse, naming the field. Pure: fixed seeds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import Any

import rbcl

from gin.conformance.records_cases import RECORD_MATCHES, play_match, record_text_case
from gin.engine.errors import MalformedInput, PeerFault
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group, shuffle_proof

Case = dict[str, Any]

TOP_BIT = 1 << 255


def top_bit(point: bytes) -> bytes:
    """``point`` with the top bit of byte 31 set: the same element to libsodium, whose
    check ignores that bit; refused by RFC 9496, noble, and now both twins."""
    return point[:31] + bytes((point[31] | 0x80,))


@contextmanager
def unchecked_points() -> Iterator[None]:
    """A cheater's own software: builds proofs over whatever bytes it sends, checking
    its points only as libsodium does (the top bit ignored). Only the generators of
    cheats use it, to make the proof a cheater would really send."""
    checked = group.check_point

    def lenient(p: object) -> bytes:
        assert isinstance(p, bytes) and rbcl.crypto_core_ristretto255_is_valid_point(p)
        return p

    group.check_point = lenient
    try:
        yield
    finally:
        group.check_point = checked


def _edges(valid: bytes) -> list[tuple[str, bytes]]:
    """Encodings a peer might send where ``valid`` was due."""
    return [
        ("top bit set", top_bit(valid)),
        ("p", group.P.to_bytes(32, "little")),
        ("p + 1", (group.P + 1).to_bytes(32, "little")),
        ("2^255 - 2", (TOP_BIT - 2).to_bytes(32, "little")),
        ("odd (negative)", (int.from_bytes(valid, "little") ^ 1).to_bytes(32, "little")),
        ("the identity", group.IDENTITY),
        ("all ones", b"\xff" * 32),
    ]


def _verdict(check: Callable[[], object]) -> list[Any] | None:
    """None when accepted; otherwise [who, field, text] for a peer's fault, or the
    refusal's text."""
    try:
        check()
    except PeerFault as fault:
        return [fault.who, fault.field, str(fault)]
    except MalformedInput as exc:
        return [None, None, str(exc)]
    return None


def _messages(first: fd.SeedMaterial, second: fd.SeedMaterial, ctx: bytes
              ) -> tuple[fd.Deck, fd.Deck, bytes, fd.Deck]:
    m1 = fd.build_message1(first)
    m2, proof = fd.build_message2(second, m1, ctx)
    return m1, m2, proof, fd.build_message3(first, m2)


def cheating_message2(second: fd.SeedMaterial, m1: fd.Deck, ctx: bytes, at: int
                      ) -> tuple[list[bytes], bytes]:
    """Issue 26's cheat: an honest message 2 whose entry ``at`` is sent with the top bit
    set, with a shuffle proof made over those very bytes (it verifies where the
    encoding is not checked)."""
    deck = [group.mul(m1[second.permutation[j]], second.position_keys[j])
            for j in range(fd.DECK_SIZE)]
    deck[at] = top_bit(deck[at])
    with unchecked_points():
        proof = shuffle_proof.prove(ctx, m1, deck, second.permutation, second.position_keys,
                                    second.nonce_key).to_bytes()
    return deck, proof


def _deck_checks(messages: Sequence[fd.Deck]) -> Iterator[list[Any]]:
    for n, message in enumerate(messages, start=1):
        name = f"message{n}"
        for edge, data in _edges(message[7]):
            changed = list(message)
            changed[7] = data
            yield [f"{name}: {edge}", name, 7, data.hex(),
                   _verdict(partial(fd.validate_message, changed, name))]
        twice = list(message)
        twice[8] = top_bit(message[7])
        yield [f"{name}: one element under two encodings", name, 8, twice[8].hex(),
               _verdict(partial(fd.validate_message, twice, name))]


def _proof_checks(proof: bytes) -> Iterator[list[Any]]:
    n = fd.DECK_SIZE
    words = shuffle_proof.words(proof)
    slots = (("K", 0), ("a chain link", 1), ("a chain commitment", n + 1),
             ("t_C", 2 * n + 1), ("t_D", 2 * n + 2))
    for slot, at in slots:
        for edge, data in _edges(words[at]):
            changed = b"".join((*words[:at], data, *words[at + 1:]))
            yield [f"proof {slot}: {edge}", "proof", at, data.hex(),
                   _verdict(partial(shuffle_proof.ShuffleProof.from_bytes, changed))]
    for slot, at in (("s_0", 2 * n + 3), ("ŝ_0", 3 * n + 3), ("s_D", 4 * n + 3)):
        value = group.scalar_from_bytes(words[at])
        for edge, number in (("plus L", value + group.L), ("L", group.L),
                             ("2^256 - 1", 2**256 - 1)):
            data = number.to_bytes(32, "little")
            changed = b"".join((*words[:at], data, *words[at + 1:]))
            yield [f"proof {slot}: {edge}", "proof", at, data.hex(),
                   _verdict(partial(shuffle_proof.ShuffleProof.from_bytes, changed))]


def _key_checks(first: fd.SeedMaterial, second: fd.SeedMaterial, m3: fd.Deck
                ) -> Iterator[list[Any]]:
    position = 11
    key = second.position_keys[position]
    for edge, number in (("plus L", key + group.L), ("L", group.L), ("zero", 0),
                         ("2^256 - 1", 2**256 - 1)):
        data = number.to_bytes(32, "little")
        yield [f"key: {edge}", "key", position, data.hex(), _verdict(partial(
            fd.open_card, m3, position, first.position_keys[position], fd.key_from_bytes(data),
            fd.Role.SECOND))]


def encoding_case(rng: random.Random) -> Case:
    """One hand's messages and proof, and gin's verdict on each edge encoding in each
    field; last, message 2 with an entry under the top bit and a proof over those bytes."""
    first = fd.SeedMaterial.from_seed(rng.randbytes(32))
    second = fd.SeedMaterial.from_seed(rng.randbytes(32))
    ctx = fd.context(rng.randbytes(16), rng.randrange(1, 40))
    m1, m2, proof, m3 = _messages(first, second, ctx)
    checks = [*_deck_checks((m1, m2, m3)), *_proof_checks(proof),
              *_key_checks(first, second, m3)]
    cheat, cheat_proof = cheating_message2(second, m1, ctx, 45)
    refusal = fd.message2_refusal(ctx, m1, cheat, cheat_proof)
    return {
        "kind": "encoding",
        "first_seed": first.seed.hex(),
        "second_seed": second.seed.hex(),
        "context": ctx.hex(),
        "checks": checks,
        "message2_top_bit": {"deck": [x.hex() for x in cheat], "proof": cheat_proof.hex(),
                             "refusal": None if refusal is None else list(refusal)},
    }


def encoding_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` hands' edge encodings from seeded random seeds."""
    rng = random.Random(seed)
    for _ in range(n):
        yield encoding_case(rng)


def record_encoding_cases() -> Iterator[Case]:
    """A hand record with each edge encoding in each field that carries a point (an entry
    of each deck message) or a scalar (a revealed key), signed again by both players so
    that only the encoding is wrong: ``parse_record`` refuses each, naming the field
    (issue 26: it parsed, and the audit blamed the signatures)."""
    played = play_match(*RECORD_MATCHES[2])
    good = played.host[0]
    for n in range(3):
        for _, data in _edges(good.messages[n][7]):
            messages = list(good.messages)
            messages[n] = (*messages[n][:7], data, *messages[n][8:])
            yield record_text_case(played.resign(replace(
                good, messages=(messages[0], messages[1], messages[2]))).to_json())
    at = next(i for i, s in enumerate(good.steps) if s.keys)
    step = good.steps[at]
    position, key = step.keys[0]
    for number in (key + group.L, group.L, 2**256 - 1):
        steps = list(good.steps)
        steps[at] = replace(step, keys=((position, number), *step.keys[1:]))
        yield record_text_case(played.resign(replace(good, steps=tuple(steps))).to_json())
