"""Conformance cases for the protocol's building blocks: what ``gin.protocol.wire.unpack``
accepts and refuses (kind ``unpack``), the deck mathematics from fixed seeds
(kind ``deck``), and hand records from whole local online matches: written, parsed,
signed and audited (kinds ``record``, ``record_audit``, ``record_chain``,
``record_text``). ``python -m gin.conformance`` writes them with the engine's cases; the
TypeScript twins in ``client/web/src/protocol`` must reproduce them byte for byte.

Pure: generators of plain dicts, randomness from seeded ``random.Random``.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import msgpack
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from gin.engine.actions import BigGin, Discard, DrawStock, Knock, parse_action
from gin.engine.cards import DECK
from gin.engine.errors import MalformedInput, PeerFault
from gin.engine.rules import CLASSIC, STANDARD, Ruleset
from gin.players import get
from gin.protocol import cosign, ecc, fairdeal, shuffle_proof, wire
from gin.protocol.audit import Finding, audit_record, audit_records
from gin.protocol.records import HandRecord, Score, Step, parse_record
from gin.protocol.session import Session, play_local
from gin.protocol.session_events import HandVerified

Case = dict[str, Any]


def tokens(value: object) -> list[list[Any]]:
    """A decoded msgpack value as a flat list of tokens in pre-order, JSON that keeps
    every type apart (int from float, text from bytes, map order) and has no nesting
    (accepted messages nest up to 1024 deep): ``["array", n]`` and ``["map", n]``
    precede their n items (n key, value pairs)."""
    out: list[list[Any]] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if item is None:
            out.append(["nil"])
        elif isinstance(item, bool):
            out.append(["bool", item])
        elif isinstance(item, int):
            out.append(["int", str(item)])
        elif isinstance(item, float):
            out.append(["float", "nan" if math.isnan(item) else struct.pack(">d", item).hex()])
        elif isinstance(item, str):
            out.append(["str", item])
        elif isinstance(item, bytes):
            out.append(["bin", item.hex()])
        elif isinstance(item, list):
            out.append(["array", len(item)])
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            out.append(["map", len(item)])
            stack.extend(x for pair in reversed(item.items()) for x in reversed(pair))
        else:  # pragma: no cover - msgpack decodes to nothing else
            raise TypeError(f"no msgpack type for {type(item).__name__}")
    return out


def unpack_case(data: bytes) -> Case:
    """gin.protocol.wire.unpack's verdict on ``data``: the message, or the refusal's field
    (and its text when a field is named: decoding failures word it as msgpack does)."""
    case: Case = {"kind": "unpack", "data": data.hex()}
    try:
        message = wire.unpack(data)
    except wire.MalformedMessage as exc:
        case["error_field"] = exc.field
        if exc.field:
            case["error"] = str(exc)
        return case
    body = dict(message.fields)
    case["type"] = message.type
    case["version"] = message.version
    case["fields"] = tokens(body)
    # Nested deeper than msgpack-python packs: no canonical form to compare.
    with contextlib.suppress(ValueError):
        case["canonical"] = msgpack.packb(body, use_bin_type=True) == data
    return case


_HEAD = b"\x83\xa1t\xa1x\xa1v\x02\xa1n"  # {"t": "x", "v": 2, "n": <value follows>}


def _bases() -> list[bytes]:
    return [
        wire.pack("hello", {"n": 1}),
        wire.pack("deal", {"keys": [bytes(range(32))] * 3, "pos": [0, 1, 51]}),
        wire.pack("x", {"nested": {
            "a": [1, -1, 2**63 - 1, -(2**63), 2**64 - 1, 127, 128, 255, 256, -32, -33, -128,
                  -129, 300, -300, 65535, 65536, 70000, -70000, 2**32 - 1, 2**32, 2**40, -(2**40),
                  2**53, 2**53 + 1, -(2**53) - 1],
            "b": None, "c": True, "d": False, "e": 1.5, "f": "é✓𝄞", "g": b"\x00\xff",
            "h": {b"k": 1, "k": 2}, "i": [], "j": {},
        }}),
        wire.pack("y", {"s": "a" * 31, "s2": "a" * 32, "s3": "a" * 255, "s4": "a" * 256,
                        "bin": b"x" * 255, "bin2": b"x" * 256, "arr": list(range(15)),
                        "arr2": list(range(16)), "map": {str(i): i for i in range(16)}}),
        wire.pack("z" * 64, {"u": "\ufeff\u0000\U0010ffff"}),
    ]


def _str(n: int, fill: bytes = b"a") -> bytes:
    return b"\xda" + n.to_bytes(2, "big") + fill * n


def _edge_cases() -> Iterator[bytes]:
    # Limits: text and bytes 4096, arrays 256, maps 64 pairs; one over each.
    for n in (4096, 4097):
        yield _HEAD + _str(n)
        yield _HEAD + b"\xc5" + n.to_bytes(2, "big") + b"b" * n
    for n in (256, 257):
        yield _HEAD + b"\xdc" + n.to_bytes(2, "big") + b"\xc0" * n
        yield _HEAD + b"\xdd" + n.to_bytes(4, "big") + b"\xc0" * n
    for n in (64, 65):
        fields = b"".join(b"\xa3" + f"k{i:02d}".encode() + b"\x01" for i in range(n - 2))
        yield b"\xde" + n.to_bytes(2, "big") + b"\xa1t\xa1x\xa1v\x02" + fields
        yield _HEAD + b"\xde" + n.to_bytes(2, "big") + b"".join(
            b"\xa3" + f"k{i:02d}".encode() + b"\xc0" for i in range(n))
    # Nesting: the top map and the containers inside it, empty ones included.
    for depth in (1022, 1023, 1024):
        for inner in (b"\x00", b"\x90", b"\x80"):
            yield _HEAD + b"\x91" * depth + inner
            yield _HEAD + b"\x81\xa1a" * depth + inner
    # Extension types and the never-used byte, anywhere.
    for ext in (b"\xd4\x01\x00", b"\xd5\x01\x00\x00", b"\xd6\x01" + bytes(4),
                b"\xd7\x01" + bytes(8), b"\xd8\x01" + bytes(16), b"\xc7\x00\x01",
                b"\xc7\x01\x01\x00", b"\xc8\x00\x00\x01", b"\xc9\x00\x00\x00\x00\x01",
                b"\xd7\xff" + bytes(8), b"\xc1"):
        yield _HEAD + ext
        yield _HEAD + b"\x91" + ext
    # Text that is not UTF-8, as a value and as a key.
    for bad in (b"\xff", b"\xc0\x80", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf",
                b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xe2\x9c", b"\x80", b"a\xc3",
                b"\xf0\x9f\x98", b"\xef\xbb\xbf", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf"):
        yield _HEAD + bytes((0xA0 | len(bad),)) + bad
        yield _HEAD + b"\x81" + bytes((0xA0 | len(bad),)) + bad + b"\xc0"
    # Map keys: repeated (text, bytes, at the top), mixed, and of other types.
    yield b"\x83\xa1t\xa1x\xa1v\x02\xa1t\xa1y"
    yield _HEAD + b"\x82\xa1a\x01\xa1a\x02"
    yield _HEAD + b"\x82\xc4\x01a\x01\xc4\x01a\x02"
    yield _HEAD + b"\x82\xc4\x01a\x01\xa1a\x02"
    yield _HEAD + b"\x92\x81\xa1a\x01\x81\xa1a\x02"
    for key in (b"\x01", b"\xc0", b"\xc3", b"\xca\x00\x00\x00\x00", b"\x90", b"\x80", b"\xff"):
        yield _HEAD + b"\x81" + key + b"\x01"
        yield b"\x84\xa1t\xa1x\xa1v\x02" + key + b"\x01"
    yield b"\x83\xa1t\xa1x\xa1v\x02\xc4\x01n\xc0"  # a bytes field name at the top
    # The type and the version.
    for t in (b"\xa0", b"\x01", b"\xc0", b"\xc4\x01x", _str(64, "é".encode()),
              _str(65, "é".encode()), _str(64, b"z"), _str(65, b"z"), b"\x91\xa1x"):
        yield b"\x82\xa1t" + t + b"\xa1v\x02"
    for v in (b"\x02", b"\xcc\x02", b"\xcd\x00\x02", b"\xce\x00\x00\x00\x02",
              b"\xcf" + (2).to_bytes(8, "big"), b"\xd0\x02", b"\xd3" + (2).to_bytes(8, "big"),
              b"\xc3", b"\xcb" + struct.pack(">d", 2.0), b"\xca" + struct.pack(">f", 2.0),
              b"\x01", b"\x03", b"\xff", b"\xcd\xff\xff", b"\xce\x00\x01\x00\x00",
              b"\xcf" + bytes((255,)) * 8, b"\xa1\x02", b"\xc0"):
        yield b"\x82\xa1t\xa1x\xa1v" + v
    yield b"\x81\xa1v\x02"
    yield b"\x81\xa1t\xa1x"
    yield b"\x80"
    # What is not a map, and what is no value at all.
    yield from (b"", b"\x01", b"\x90", b"\x92\xa1t\xa1x", b"\xa1x", b"\xc4\x00", b"\xc0",
                b"\xca\x7f\xc0\x00\x00", b"\xcb" + struct.pack(">d", math.inf))
    # Non-canonical but valid encodings, and floats.
    yield _HEAD + b"\xd9\x01a"
    yield _HEAD + b"\xda\x00\x01a"
    yield _HEAD + b"\xdb\x00\x00\x00\x01a"
    yield _HEAD + b"\xc6\x00\x00\x00\x01a"
    yield _HEAD + b"\xdc\x00\x01\x01"
    yield _HEAD + b"\xdf\x00\x00\x00\x01\xa1a\x01"
    yield _HEAD + b"\xd1\x00\x05"
    yield _HEAD + b"\xd2\xff\xff\xff\xff"
    yield _HEAD + b"\xca\x3f\xc0\x00\x00"
    yield _HEAD + b"\xca\x7f\xc0\x00\x00"
    yield _HEAD + b"\xcb" + struct.pack(">d", -0.0)
    yield _HEAD + b"\xcb" + struct.pack(">d", 1e300)
    # Exactly at the message size limit, and one byte over.
    yield _sized(wire.MAX_PLAINTEXT_BYTES)
    yield _sized(wire.MAX_PLAINTEXT_BYTES + 1)


def _sized(size: int) -> bytes:
    """{"t": "x", "v": 2, "n": [16 byte strings]} of exactly ``size`` bytes."""
    head = _HEAD + b"\xdc\x00\x10"
    items = 16
    each, extra = divmod(size - len(head), items)
    lengths = [each - 3 + (i < extra) for i in range(items)]
    return head + b"".join(b"\xc5" + n.to_bytes(2, "big") + b"r" * n for n in lengths)


def _mutations(bases: list[bytes], n: int, seed: int) -> Iterator[bytes]:
    rng = random.Random(seed)
    for _ in range(n):
        data = bytearray(rng.choice(bases))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data) + 1)
            action = rng.randrange(3)
            if action == 0 and at < len(data):
                data[at] = rng.randrange(256)
            elif action == 1:
                data.insert(at, rng.randrange(256))
            elif at < len(data):
                del data[at]
        yield bytes(data)


def unpack_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """Hand-picked edge cases, every truncation and extension of a few messages, and
    ``n`` random mutations of them, each with gin.protocol.wire.unpack's verdict."""
    bases = _bases()
    for data in bases:
        yield unpack_case(data)
        for cut in range(len(data)):
            yield unpack_case(data[:cut])
        for extra in (b"\x00", b"\xc0", b"\xc1", b"\x80"):
            yield unpack_case(data + extra)
    for data in _edge_cases():
        yield unpack_case(data)
    for data in _mutations(bases, n, seed):
        yield unpack_case(data)


def _hex_keys(keys: tuple[int, ...]) -> list[str]:
    return [f"{k:064x}" for k in keys]


def deck_case(rng: random.Random) -> Case:
    """One hand's deck computations from two seeds: derivations, commitments, the
    three messages, the dealt deck, and a wrong key refused with the sender's blame."""
    first_seed, second_seed = rng.randbytes(32), rng.randbytes(32)
    match_id = rng.randbytes(rng.choice((1, 16, 40)))
    hand = rng.choice((0, 1, 7, 2**32 - 1))
    first = fairdeal.SeedMaterial.from_seed(first_seed)
    second = fairdeal.SeedMaterial.from_seed(second_seed)
    m1 = fairdeal.build_message1(first)
    m2 = fairdeal.build_message2(second, m1)
    m3 = fairdeal.build_message3(first, m2)
    position = rng.randrange(fairdeal.DECK_SIZE)
    wrong = second.position_keys[(position + 1) % fairdeal.DECK_SIZE]
    try:
        fairdeal.open_card(m3, position, first.position_keys[position], wrong,
                           fairdeal.Role.SECOND)
        raise AssertionError("a wrong key opened a card")  # pragma: no cover
    except PeerFault as fault:
        blame = [fault.who, fault.field, str(fault)]
    return {
        "kind": "deck",
        "first_seed": first_seed.hex(),
        "second_seed": second_seed.hex(),
        "match_id": match_id.hex(),
        "hand": hand,
        "first_permutation": list(first.permutation),
        "second_permutation": list(second.permutation),
        "first_deck_key": f"{first.deck_key:064x}",
        "second_deck_key": f"{second.deck_key:064x}",
        "first_position_keys": _hex_keys(first.position_keys),
        "second_position_keys": _hex_keys(second.position_keys),
        "commitments": [
            fairdeal.commitment(first_seed, match_id, hand, fairdeal.Role.FIRST).hex(),
            fairdeal.commitment(second_seed, match_id, hand, fairdeal.Role.SECOND).hex(),
        ],
        "messages": [[x.hex() for x in m] for m in (m1, m2, m3)],
        "deck": list(fairdeal.deck_order(first.permutation, second.permutation)),
        "wrong_key": {"position": position, "key": f"{wrong:064x}", "blame": blame},
        "card_points": [x.hex() for x in ecc.card_points()],
    }


def deck_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` hands' deck computations from seeded random seeds."""
    rng = random.Random(seed)
    for _ in range(n):
        yield deck_case(rng)


def _fault(exc: wire.ChannelFault) -> dict[str, Any]:
    return {"fault": type(exc).__name__, "who": exc.who, "field": exc.field, "text": str(exc),
            "proven": exc.proven}


def channel_case(rng: random.Random, steps: int) -> Case:
    """Two sealed channels (fixed secret and contributions) over a relay that drops,
    duplicates, reorders, reflects and, at the end, may tamper: every frame each side
    sends and every message it delivers, in order, for the TS channel to reproduce."""
    secret, host_epoch, guest_epoch = rng.randbytes(32), rng.randbytes(32), rng.randbytes(32)
    sides = {wire.Side.HOST: wire.SealedChannel(secret, wire.Side.HOST, host_epoch),
             wire.Side.GUEST: wire.SealedChannel(secret, wire.Side.GUEST, guest_epoch)}
    epochs = {wire.Side.HOST: host_epoch, wire.Side.GUEST: guest_epoch}
    # Frames in flight towards each side.
    flight: dict[wire.Side, list[bytes]] = {wire.Side.HOST: [], wire.Side.GUEST: []}
    log: list[list[Any]] = []

    def out(side: wire.Side, frames: tuple[bytes, ...]) -> list[str]:
        flight[side.other].extend(frames)
        return [f.hex() for f in frames]

    for side in sides:
        log.append(["offer", side.value, out(side, (sides[side].offer(),))])
    for _ in range(steps):
        side = rng.choice(list(sides))
        roll = rng.random()
        if roll < 0.3:
            fields = {"n": rng.randrange(1000), "b": rng.randbytes(rng.randrange(40))}
            message = wire.pack("m", fields)
            log.append(["send", side.value, message.hex(), out(side, sides[side].send(message))])
        elif roll < 0.35:
            log.append(["resend", side.value, out(side, sides[side].resend())])
        elif flight[side]:
            queue = flight[side]
            frame = queue.pop(rng.randrange(len(queue)) if rng.random() < 0.3 else 0)
            if rng.random() < 0.1:
                continue  # dropped by the relay
            if rng.random() < 0.1:
                queue.append(frame)  # duplicated
            got = sides[side].receive(frame)
            log.append(["receive", side.value, frame.hex(),
                        None if got.message is None else got.message.hex(), out(side, got.replies)])
    # The relay turns hostile once: a reflected, foreign, tampered or truncated frame.
    side = rng.choice(list(sides))
    mine = sides[side].offer()
    attacks = [
        mine,
        bytes((2, 2, 7)) + mine[3:],
        mine[:3] + bytes(8) + mine[11:],
        sides[side.other].offer()[:-1] + bytes((sides[side.other].offer()[-1] ^ 1,)),
        sides[side.other].offer()[:40],
        bytes((9,)) + mine[1:],
    ]
    # An authentic ack of more messages than were sent: the peer's proven fault.
    other = side.other
    key, epoch_id = wire.epoch_keys(secret, other.direction, epochs[other], epochs[side])
    header = bytes((wire.FRAME_VERSION, wire.Kind.ACK.value, other.direction)) + mine[3:11] \
        + epoch_id + (2**40).to_bytes(8, "big")
    body = (sides[side].next_send_seq + 1).to_bytes(8, "big") + b"\x00"
    nonce = bytes((wire.Kind.ACK.value, other.direction, 0, 0)) + (2**40).to_bytes(8, "big")
    attacks.append(header + ChaCha20Poly1305(key).encrypt(nonce, body, header))
    if flight[side]:
        flipped = bytearray(flight[side][0])
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        attacks.append(bytes(flipped))
    attack = rng.choice(attacks)
    for frame in (attack, sides[side.other].offer()):  # the second: refused after the fault
        try:
            got = sides[side].receive(frame)
            log.append(["receive", side.value, frame.hex(),
                        None if got.message is None else got.message.hex(),
                        [f.hex() for f in got.replies]])
        except wire.ChannelFault as exc:
            log.append(["receive", side.value, frame.hex(), _fault(exc)])
    return {
        "kind": "channel", "secret": secret.hex(), "host_epoch": host_epoch.hex(),
        "guest_epoch": guest_epoch.hex(), "steps": log,
        "digests": {s.value: [c.sent_digest.hex(), c.received_digest.hex()]
                    for s, c in sides.items()},
    }


def channel_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` channel pairs, each through 150 relay events and one attack (seeded)."""
    rng = random.Random(seed)
    for _ in range(n):
        yield channel_case(rng, 150)


def _opening(opening: shuffle_proof.Opening) -> dict[str, Any]:
    return {"seed": None if opening.seed is None else opening.seed.hex(),
            "tau": list(opening.tau), "keys": _hex_keys(opening.keys)}


def proof_case(rng: random.Random) -> Case:
    """One hand's shuffle proof (§8.9): the shadows, the openings for a challenge,
    and gin's verdict on the honest openings and on altered ones."""
    first = fairdeal.SeedMaterial.from_seed(rng.randbytes(32))
    second = fairdeal.SeedMaterial.from_seed(rng.randbytes(32))
    m1 = fairdeal.build_message1(first)
    m2 = fairdeal.build_message2(second, m1)
    shadows = shuffle_proof.shadows(second, m1)
    challenge = rng.randrange(1, 2**shuffle_proof.ROUNDS - 1)  # both kinds of opening
    openings = shuffle_proof.open_rounds(second, challenge)
    bits = [challenge >> r & 1 for r in range(shuffle_proof.ROUNDS)]
    one = bits.index(1)
    zero = bits.index(0)
    o1, o0 = openings[one], openings[zero]
    j = rng.randrange(fairdeal.DECK_SIZE)
    swapped = list(o1.tau)
    swapped[j], swapped[(j + 1) % 52] = swapped[(j + 1) % 52], swapped[j]
    zero_key = list(o1.keys)
    zero_key[j] = 0
    altered = [
        (one, o1),
        (zero, o0),
        (one, shuffle_proof.Opening(tau=tuple(swapped), keys=o1.keys)),
        (one, shuffle_proof.Opening(tau=o1.tau[:-1] + (o1.tau[0],), keys=o1.keys)),
        (one, shuffle_proof.Opening(tau=o1.tau, keys=tuple(zero_key))),
        (one, shuffle_proof.Opening(tau=o1.tau, keys=o1.keys[:-1])),
        (one, o0),
        (zero, o1),
        (zero, shuffle_proof.Opening(seed=shuffle_proof.round_seed(second.seed, one))),
    ]
    return {
        "kind": "shuffle_proof",
        "first_seed": first.seed.hex(),
        "second_seed": second.seed.hex(),
        "shadows": [[x.hex() for x in s] for s in shadows],
        "challenge": challenge,
        "openings": [_opening(o) for o in openings],
        "checks": [
            [r, _opening(o), shuffle_proof.check_round(m1, m2, shadows[r], bits[r], o)]
            for r, o in altered
        ],
    }


def proof_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` hands' shuffle proofs from seeded random seeds."""
    rng = random.Random(seed)
    for _ in range(n):
        yield proof_case(rng)


def _tamper(rng: random.Random, kind: str, first: fairdeal.SeedMaterial,
            second: fairdeal.SeedMaterial, messages: list[list[bytes]]) -> None:
    """Alter one hand's messages in place as a cheater (or a broken peer) would; an
    honest side builds its next message from the altered one it received."""
    m1, m2, m3 = messages
    i, j = rng.sample(range(fairdeal.DECK_SIZE), 2)
    if kind == "swap1":
        m1[i], m1[j] = m1[j], m1[i]
    elif kind == "stranger1":
        m1[i] = ecc.mul(ecc.card_points()[first.permutation[i]], second.deck_key)
    elif kind == "duplicate2":
        m2[i] = ecc.mul(m1[second.permutation[j]], second.position_keys[i])
    elif kind == "stranger2":
        m2[i] = ecc.card_points()[rng.randrange(52)]
    elif kind == "rekey3":
        m3[i] = ecc.mul(m2[j], ecc.product(ecc.inverse(first.deck_key), first.position_keys[i]))
    elif kind == "short3":
        del m3[i]
    elif kind == "repeat2":
        m2[i] = m2[j]
    if kind in ("swap1", "stranger1"):
        m2[:] = fairdeal.build_message2(second, m1)
    if kind in ("swap1", "stranger1", "duplicate2", "stranger2"):
        m3[:] = fairdeal.build_message3(first, m2)


# Each tampering with the audit's point of view: a third party (None) or the honest
# player, never the side that tampered (its own messages are taken as honest).
_AUDITS = (("honest", "second"), ("swap1", None), ("stranger1", "second"), ("duplicate2", "first"),
           ("stranger2", None), ("rekey3", "second"), ("short3", None), ("repeat2", "first"),
           ("commitment", "second"), ("keys", None))


def audit_case(rng: random.Random, kind: str, trust: fairdeal.Role | None) -> Case:
    """One hand's hand-end audit (§9) after the tampering ``kind``, as ``trust`` sees it."""
    first_seed, second_seed = rng.randbytes(32), rng.randbytes(32)
    match_id, hand = rng.randbytes(16), rng.randrange(1, 30)
    first = fairdeal.SeedMaterial.from_seed(first_seed)
    second = fairdeal.SeedMaterial.from_seed(second_seed)
    m1 = list(fairdeal.build_message1(first))
    m2 = list(fairdeal.build_message2(second, m1))
    messages = [m1, m2, list(fairdeal.build_message3(first, m2))]
    _tamper(rng, kind, first, second, messages)
    commitments = [fairdeal.commitment(first_seed, match_id, hand, fairdeal.Role.FIRST),
                   fairdeal.commitment(second_seed, match_id, hand, fairdeal.Role.SECOND)]
    if kind == "commitment":
        commitments[1] = fairdeal.commitment(rng.randbytes(32), match_id, hand,
                                             fairdeal.Role.SECOND)
    keys: list[tuple[fairdeal.Role, int, int]] = [
        (fairdeal.Role.SECOND, 0, second.position_keys[0]),
        (fairdeal.Role.FIRST, 1, first.position_keys[1]),
    ]
    if kind == "keys":
        keys += [(fairdeal.Role.FIRST, 7, first.position_keys[8]), (fairdeal.Role.SECOND, 52, 1)]
    report = fairdeal.audit_hand(
        match_id=match_id, hand_number=hand, first_seed=first_seed, second_seed=second_seed,
        first_commitment=commitments[0], second_commitment=commitments[1],
        message1=messages[0], message2=messages[1], message3=messages[2],
        revealed_keys=keys, trust=trust)
    return {
        "kind": "audit", "tampering": kind, "trust": None if trust is None else trust.value,
        "match_id": match_id.hex(), "hand": hand,
        "seeds": [first_seed.hex(), second_seed.hex()],
        "commitments": [c.hex() for c in commitments],
        "messages": [[x.hex() for x in m] for m in messages],
        "keys": [[role.value, position, f"{key:064x}"] for role, position, key in keys],
        "deviations": [[d.role.value, d.field, d.position, d.detail, str(d)]
                       for d in report.deviations],
        "deck": None if report.deck is None else list(report.deck),
    }


def audit_cases(seed: int = 1) -> Iterator[Case]:
    """One audit for each tampering, seen by a third party or by one of the players."""
    rng = random.Random(seed)
    for kind, trust in _AUDITS:
        yield audit_case(rng, kind, None if trust is None else fairdeal.Role(trust))


# -- hand records and their audit (protocol.md §9, §10) ---------------------------------

_GIN_ONLY = STANDARD.with_options(name="gin-only", knock_limit=0, big_gin_bonus=31, target=60)
# (rules, the randomness's tag, the players): between them every way a hand ends,
# big gin and dead hands from the gin-only rules.
_RECORD_MATCHES = ((CLASSIC, "0", ("normal", "normal")), (_GIN_ONLY, "4", ("hard", "hard")),
                   (_GIN_ONLY, "5", ("hard", "hard")))


@dataclass(frozen=True, slots=True)
class _Played:
    """One whole local online match: both sides' records and signing keys."""

    host: tuple[HandRecord, ...]
    guest: tuple[HandRecord, ...]
    signers: tuple[cosign.Signer, cosign.Signer]

    def resign(self, record: HandRecord) -> HandRecord:
        """``record`` signed again by both players, as if both had agreed to it."""
        digest = cosign.hand_digest(record)
        return replace(record, signatures=(self.signers[0].sign(digest),
                                           self.signers[1].sign(digest)))


@cache
def _play(rules: Ruleset, tag: str, levels: tuple[str, str]) -> _Played:
    secret = random.Random(f"gin-conformance:records:{tag}").randbytes(32)
    host = Session("host", secret, rules, random.Random(f"h{tag}").randbytes)
    guest = Session("guest", secret, None, random.Random(f"g{tag}").randbytes)
    play_local(host, guest, [get(level, random.Random(f"{tag}{i}"))
                             for i, level in enumerate(levels)])
    copies = [tuple(e.record for e in s.events() if isinstance(e, HandVerified))
              for s in (host, guest)]
    signers = [s._flow.signer for s in (host, guest)]  # to sign edited records again
    assert host.failure is guest.failure is None and signers[0] and signers[1]
    return _Played(copies[0], copies[1], (signers[0], signers[1]))


def _finding_data(findings: tuple[Finding, ...]) -> list[list[str]]:
    return [[f.who, f.where, f.detail, str(f)] for f in findings]


def record_case(record: HandRecord) -> Case:
    """A record's text, its hand digest and whether each signature verifies."""
    digest = cosign.hand_digest(record)
    return {"kind": "record", "record": record.to_json(), "digest": digest.hex(),
            "transcript": json.dumps(cosign.transcript(record), sort_keys=True,
                                     separators=(",", ":")),
            "signatures": [cosign.verify(record.signing_keys[s], digest, record.signatures[s])
                           for s in (0, 1)]}


def record_audit_case(name: str, record: HandRecord, trust: int | None = None,
                      previous: HandRecord | None = None) -> Case:
    """gin's audit of one record: every finding, word for word, and what is unproven."""
    result = audit_record(record, trust, previous)
    return {"kind": "record_audit", "name": name, "record": record.to_json(), "trust": trust,
            "previous": None if previous is None else previous.to_json(),
            "findings": _finding_data(result.findings), "unproven": list(result.unproven)}


def _edited(record: HandRecord, change: Callable[[dict[str, Any]], object]) -> HandRecord:
    data = record.to_dict()
    change(data)
    return parse_record(json.dumps(data))


def _index(record: HandRecord, found: Callable[[Step], bool]) -> int:
    return next(i for i, s in enumerate(record.steps) if found(s))


def _tamperings(played: _Played, record: HandRecord
                ) -> Iterator[tuple[str, HandRecord, int | None]]:
    """Each deviation gin's audit tests cover, applied to a knock's record and signed
    again by both players (so the checks beyond the signatures must catch it), with
    the audit's point of view: a third party (None) or the seat that did not cheat."""
    dealer, other = record.dealer, 1 - record.dealer
    steps = record.steps

    def signed(change: Callable[[dict[str, Any]], object]) -> HandRecord:
        return played.resign(_edited(record, change))

    def swap(d: dict[str, Any], name: str, i: int, j: int) -> None:
        m = d["messages"][name]
        m[i], m[j] = m[j], m[i]

    yield "wrong seed", signed(lambda d: d["seeds"].update(first="00" * 32)), None
    yield "message1 swapped", signed(lambda d: swap(d, "message1", 3, 9)), None
    yield "message2 swapped", signed(lambda d: swap(d, "message2", 50, 51)), dealer
    yield "message3 repeated", signed(
        lambda d: d["messages"]["message3"].__setitem__(7, d["messages"]["message3"][8])), other
    keyed = _index(record, lambda s: bool(s.keys))
    yield "wrong key", signed(
        lambda d: d["steps"][keyed]["keys"][0].__setitem__(1, "00" * 31 + "07")), None
    discard = _index(record, lambda s: isinstance(s.action, Discard))
    card = steps[discard].action
    assert isinstance(card, Discard)
    stranger = next(str(c) for c in DECK if c != card.card)
    yield "move refused", signed(
        lambda d: d["steps"][discard].update(action=f"discard {stranger}")), dealer
    yield "wrong score", signed(lambda d: d["result"].update(points=999)), other
    yield "steps cut short", signed(lambda d: d["steps"].pop()), dealer
    stock = _index(record, lambda s: isinstance(s.action, DrawStock)) + 1
    show = _index(record, lambda s: isinstance(s.action, Knock | BigGin)) + 1
    with_key = _index(record, lambda s: isinstance(s.action, Discard) and bool(s.keys))
    yield "deal keys removed", signed(lambda d: d["steps"].pop(0)), other
    yield "stock answer removed", signed(lambda d: d["steps"].pop(stock)), dealer
    yield "show removed", signed(lambda d: d["steps"].pop(show)), other
    yield "discard key removed", signed(lambda d: d["steps"][with_key].pop("keys")), dealer
    yield "knock key removed", signed(lambda d: d["steps"][show - 1]["keys"].pop()), other
    last = 1 - steps[-1].seat
    seed = record.seeds[0 if last == dealer else 1]
    true_key = fairdeal.derive_position_key(seed, 51).to_bytes(32, "big").hex()
    yield "true key never sent", signed(
        lambda d: d["steps"].append({"seat": last, "keys": [[51, true_key]]})), dealer
    yield "key answers the wrong step", signed(
        lambda d: d["steps"].insert(stock + 1, d["steps"].pop(stock))), None
    yield "edited, not signed again", _edited(record, lambda d: d.update(scores=[0, 99])), dealer
    forged = _edited(record, lambda d: d.update(scores=[0, 99]))
    host_only = replace(forged, signatures=(played.signers[0].sign(cosign.hand_digest(forged)),
                                            record.signatures[1]))
    yield "signed by the host alone", host_only, other
    intruder = cosign.Signer(bytes(32))
    yield "a stranger's signing key", replace(
        record, signing_keys=(record.signing_keys[0], intruder.public),
        signatures=(record.signatures[0], intruder.sign(cosign.hand_digest(record)))), dealer


def _scores(played: _Played, record: HandRecord, scores: list[int]) -> HandRecord:
    return played.resign(_edited(record, lambda d: d.update(scores=scores)))


def record_audit_cases() -> Iterator[Case]:
    """Honest records audited (by a third party and by each player), every tampering
    of gin's audit tests, the match scores proven or not, and the hand before."""
    classic, gin_only = _play(*_RECORD_MATCHES[0]), _play(*_RECORD_MATCHES[1])
    knock = next(r for r in classic.host if r.score.kind in ("knock", "undercut"))
    yield record_audit_case("honest knock", knock)
    yield record_audit_case("honest, audited by the host", knock, 0)
    yield record_audit_case("honest, audited by the guest", knock, 1)
    for name, record, trust in _tamperings(classic, knock):
        yield record_audit_case(name, record, trust)
    # Big gin: the defender's show, and the show removed.
    big = next(r for r in gin_only.host if r.score.kind == "big_gin")
    yield record_audit_case("honest big gin", big, big.dealer)
    show = next(i for i, s in enumerate(big.steps) if isinstance(s.action, BigGin)) + 1
    yield record_audit_case("big gin's show removed", gin_only.resign(
        _edited(big, lambda d: d["steps"].pop(show))), big.dealer)
    # The match scores: hand 1 alone proves them; a later hand alone cannot.
    first, later = classic.host[0], classic.host[2]
    yield record_audit_case("hand 1 scores edited", _scores(classic, first, [0, 99]), 0)
    yield record_audit_case("later hand alone", later, 0)
    winner = later.score.winner
    assert winner is not None
    too_few, over = list(later.scores), list(later.scores)
    too_few[winner] = later.score.points - 1
    over[1 - winner] = later.rules.target
    yield record_audit_case("later scores below the hand's", _scores(classic, later, too_few), 0)
    yield record_audit_case("later scores after the end", _scores(classic, later, over), 0)
    # The hand before: scores, dealer, rules and the match's end follow from it.
    second = classic.host[1]
    yield record_audit_case("after hand 1", second, 0, first)
    shifted = _scores(classic, second, [second.scores[0] + 1, second.scores[1]])
    yield record_audit_case("scores not following hand 1", shifted, 0, first)
    dead = replace(first, score=replace(first.score, kind="dead", winner=None, knocker=None,
                                        points=0), scores=(0, 0))
    yield record_audit_case("dealer after a dead hand", second, 0, dead)
    other_rules = replace(first, rules=first.rules.with_options(gin_bonus=1))
    yield record_audit_case("rules changed", second, 0, other_rules)
    last, before = classic.host[-1], classic.host[-2]
    ended = replace(before, scores=(before.scores[0], last.rules.target))
    yield record_audit_case("no hand after the end", last, 0, ended)


def record_cases() -> Iterator[Case]:
    """Every record of the matches, both players' copies: parse, write, digest, verify."""
    for m in _RECORD_MATCHES:
        played = _play(*m)
        for record in (*played.host, *played.guest[:2]):
            yield record_case(record)


def record_chain_case(name: str, records: list[HandRecord],
                      names: list[str] | None = None) -> Case:
    """gin's audit of several records together (gin.protocol.audit.audit_records)."""
    results = audit_records(records, names)
    return {"kind": "record_chain", "name": name, "records": [r.to_json() for r in records],
            "names": names, "results": [{"findings": _finding_data(r.findings),
                                         "unproven": list(r.unproven)} for r in results]}


def record_chain_cases() -> Iterator[Case]:
    """A short match's two copies together, a forged copy, a hand edited mid-chain."""
    played = _play(*_RECORD_MATCHES[2])
    host, guest = list(played.host), list(played.guest)
    yield record_chain_case("both copies", [*host, *guest])
    forged = replace(guest[0], scores=(0, 99))
    yield record_chain_case("copies disagree", [host[0], forged], ["host.json", "guest.json"])
    yield record_chain_case("hand 1 edited", [_scores(played, host[0], [0, 99]), host[1]])
    yield record_chain_case("hand 1 missing", [host[1]])


def record_text_case(text: str) -> Case:
    """parse_record's verdict on ``text``: the record as gin writes it again, or the
    refusal (only its start for what Python's json refuses in its own words)."""
    try:
        record = parse_record(text)
    except MalformedInput as exc:
        message = str(exc)
    else:
        return {"kind": "record_text", "text": text, "parsed": record.to_json()}
    if message.startswith("hand record: not JSON ("):
        return {"kind": "record_text", "text": text, "error_prefix": "hand record: not JSON ("}
    return {"kind": "record_text", "text": text, "error": message}


def _set(path: tuple[str | int, ...], value: object) -> Callable[[dict[str, Any]], object]:
    def change(d: dict[str, Any]) -> None:
        target: Any = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _pop(path: tuple[str | int, ...]) -> Callable[[dict[str, Any]], object]:
    def change(d: dict[str, Any]) -> None:
        target: Any = d
        for key in path[:-1]:
            target = target[key]
        target.pop(path[-1])
    return change


# Changes to a good record's data, each refused by parse_record with a message
# naming its path: gin's parsing tests and every other field, type and limit.
_SPOILERS: tuple[Callable[[dict[str, Any]], object], ...] = (
    _pop(("seeds",)), _set(("extra",), 1), _set(("format",), "other"), _pop(("format",)),
    _set(("version",), 1), _set(("version",), "2"), _set(("signatures", "host"), "00"),
    _pop(("signing_keys",)), _set(("dealer",), 2), _set(("hand",), True), _set(("hand",), 1.0),
    _set(("hand",), 0), _set(("hand",), 10**30), _set(("hand",), math.nan),
    _set(("seeds", "first"), "zz" * 32), _set(("seeds", "first"), "é" * 64),
    _set(("commitments", "second"), "00"), _set(("commitments",), ["00" * 32] * 2),
    _pop(("messages", "message2", 0)), _set(("messages", "message4"), []),
    _set(("messages", "message3", 5), 5), _pop(("messages", "message1")),
    _set(("steps", 0, "keys", 0, 0), 52), _set(("steps", 0, "keys", 0, 0), True),
    _set(("steps", 0, "keys", 0, 1), "zz" * 32), _set(("steps", 0, "keys", 0), [1]),
    _set(("steps", 0, "keys"), []), _set(("steps", 0, "keys"), [[0, "00" * 32]] * 53),
    _set(("steps", 0), {"seat": 0}), _set(("steps", 0), {"seat": 0, "action": "fly"}),
    _set(("steps", 0), {"seat": 0, "action": None}), _set(("steps", 0), {"action": "pass"}),
    _set(("steps", 0), {"seat": 0, "action": "pass " + "x" * 252}), _set(("steps", 0), "x"),
    _set(("steps", 0), {"seat": 2, "action": "pass", "why": 1}),
    _set(("steps", 0), {"seat": 0, "action": "knock 7h / 5h6h7"}),
    _set(("steps",), {}), _set(("steps",), [{"seat": 0, "action": "pass"}] * 513),
    _set(("result", "kind"), "win"), _set(("result", "knocker"), 2),
    _set(("result", "winner"), "x"), _set(("result", "points"), 10_001),
    _set(("result", "points"), -1), _set(("result", "extra"), 0), _pop(("result", "points")),
    _set(("rules", "target"), -1), _set(("rules", "target"), 5.0),
    _set(("rules", "gin_bonus"), 10**20), _set(("rules", "zz"), 1), _set(("rules",), []),
    _set(("rules",), 5.5), _set(("rules", "name"), "classic"), _set(("rules", "__proto__"), 1),
    _set(("rules", "knock_limit_from_upcard"), 1), _set(("rules", "shutout"), "all"),
    _set(("rules", "big_gin_bonus"), [1.5, 1e16, {"a": None}]),
    _set(("seats",), ["guest", "host"]), _set(("seats",), ["host"]),
    _set(("match_id",), "abc"), _set(("match_id",), ""), _set(("match_id",), "00" * 65),
    _set(("match_id",), 5), _set(("scores",), [1]), _set(("scores",), [0, -1]),
    _set(("scores",), "x"), _set(("scores",), [1.5, 0]), _set(("link",), "00"),
    _pop(("signatures", "guest")), _set(("signatures", "other"), ""),
)

_NOT_RECORDS = ("", "{", "{}x", "\ufeff{}", "{'a': 1}", "[1,]", "01", "nul", '{"a" 1}',
                '"\\x"', '"a\nb"', "[" * 2000 + "]" * 2000, "[" * 100 + "]" * 100, "{}", "[]",
                '"x"', "null", "1e5", "-Infinity")


# Values a mutation puts anywhere in a record's data.
_ODD_VALUES: tuple[object, ...] = (None, True, False, 0, 1, -1, 52, 2**32, 2**70, 1.0, 1.5, "", "x",
                                   "pass", "00" * 16, "00" * 32, "0" * 63 + "g", [], [0], [0, 0],
                                   {}, {"seat": 0}, "é" * 32)


def _paths(value: object, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


def _mutated(rng: random.Random, good: HandRecord) -> str:
    """A good record's data with a value replaced, removed or added somewhere, or
    its text with a few characters changed."""
    if rng.random() < 0.25:
        text = list(good.to_json())
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text))
            choice = rng.randrange(3)
            char = rng.choice('0aAG "\\,:{}[]-.e1é\n\t')
            if choice == 0:
                text[at] = char
            elif choice == 1:
                text.insert(at, char)
            else:
                del text[at]
        return "".join(text)
    data = good.to_dict()
    path = rng.choice(list(_paths(data))[1:])
    parent: Any = data
    for key in path[:-1]:
        parent = parent[key]
    roll = rng.random()
    if roll < 0.7:
        parent[path[-1]] = rng.choice(_ODD_VALUES)
    elif roll < 0.85 or isinstance(parent, dict):
        parent.pop(path[-1])
    else:
        parent.insert(path[-1], rng.choice(_ODD_VALUES))
    return json.dumps(data)


def record_text_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """Record texts and parse_record's verdict: every field, type and limit spoiled
    by hand, texts that are not JSON, and ``n`` random mutations of a good record."""
    played = _play(*_RECORD_MATCHES[2])
    good = played.host[0]
    for spoil in _SPOILERS:
        data = good.to_dict()
        spoil(data)
        yield record_text_case(json.dumps(data))
    text = good.to_json()
    # A repeated key: the last value counts.
    yield record_text_case(text.replace('\n "rules"', '\n "dealer": 7,\n "rules"', 1))
    yield record_text_case(text.replace('"hand": ', '"hand": 1e0, "x": ', 1))
    yield record_text_case(text.upper().replace("GIN-HAND-RECORD", "gin-hand-record"))
    for bad in _NOT_RECORDS:
        yield record_text_case(bad)
    rng = random.Random(f"gin-conformance:record-text:{seed}")
    for _ in range(n):
        yield record_text_case(_mutated(rng, good))


_ACTION_POOL = ("pass", "stock", "take", "biggin", "layoff", "layoff /", "knock {card}",
                "discard {card}", "knock {card} / 2c3c4c")


def _step_mutated(rng: random.Random, record: HandRecord) -> HandRecord:
    """``record`` with one step, the result or the header changed at random."""
    steps = list(record.steps)
    i = rng.randrange(len(steps))
    step = steps[i]
    roll = rng.randrange(9)
    if roll == 0:
        del steps[i]
    elif roll == 1:
        steps.insert(i, step)
    elif roll == 2 and i + 1 < len(steps):
        steps[i], steps[i + 1] = steps[i + 1], steps[i]
    elif roll == 3:
        steps[i] = replace(step, seat=1 - step.seat)
    elif roll == 4:
        text = rng.choice(_ACTION_POOL).format(card=rng.choice(DECK))
        steps[i] = replace(step, action=parse_action(text))
    elif roll == 5 and (len(step.keys) > 1 or step.action is not None and step.keys):
        keys = list(step.keys)
        del keys[rng.randrange(len(keys))]
        steps[i] = replace(step, keys=tuple(keys))
    elif roll == 6:
        position = rng.randrange(fairdeal.DECK_SIZE)
        seed = record.seeds[0 if step.seat == record.dealer else 1]
        key = fairdeal.derive_position_key(seed, position) if rng.random() < 0.7 else 5
        steps[i] = replace(step, keys=(*step.keys, (position, key)))
    elif roll == 7:
        winner = rng.choice((None, 0, 1))
        return replace(record, score=Score(rng.choice(("knock", "gin", "big_gin", "undercut",
                                                      "dead")), rng.choice((None, 0, 1)), winner,
                                           rng.choice((0, record.score.points, 25))))
    else:
        return replace(record, dealer=1 - record.dealer) if rng.random() < 0.5 else replace(
            record, scores=(record.scores[1], record.scores[0]))
    return replace(record, steps=tuple(steps))


def record_fuzz_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` records with a step, the result or the header changed at random, signed
    again by both players, each with gin's audit from a random point of view."""
    played = _play(*_RECORD_MATCHES[0])
    rng = random.Random(f"gin-conformance:record-fuzz:{seed}")
    for k in range(n):
        record = played.resign(_step_mutated(rng, rng.choice(played.host)))
        yield record_audit_case(f"mutation {k}", record, rng.choice((None, 0, 1)))
