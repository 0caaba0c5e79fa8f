"""Conformance cases for the protocol's building blocks: what ``gin.protocol.wire.channel.unpack``
accepts and refuses (kind ``unpack``), the sealed channel over a hostile relay (kind
``channel``), the deck mathematics (kind ``deck``), message 2's check with its
shuffle proof (kind ``shuffle_proof``) and the fair deal's hand-end audit (kind
``audit``), all from fixed seeds. Hand records and their audit are in
:mod:`gin.conformance.records_cases`. ``python -m gin.conformance`` writes them with
the engine's cases; the TypeScript twins in ``client/web/src/protocol`` must reproduce
them byte for byte.

Pure: generators of plain dicts, randomness from seeded ``random.Random``.
"""

from __future__ import annotations

import contextlib
import math
import random
import struct
from collections.abc import Iterator, Sequence
from typing import Any

import msgpack
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from gin.engine.errors import PeerFault
from gin.protocol.deal import fairdeal, group, shuffle_proof
from gin.protocol.wire import channel as wire

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
    """gin.protocol.wire.channel.unpack's verdict on ``data``: the message, or the refusal's field
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


_HEAD = b"\x83\xa1t\xa1x\xa1v\x03\xa1n"  # {"t": "x", "v": 3, "n": <value follows>}


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
        yield b"\xde" + n.to_bytes(2, "big") + b"\xa1t\xa1x\xa1v\x03" + fields
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
    yield b"\x83\xa1t\xa1x\xa1v\x03\xa1t\xa1y"
    yield _HEAD + b"\x82\xa1a\x01\xa1a\x02"
    yield _HEAD + b"\x82\xc4\x01a\x01\xc4\x01a\x02"
    yield _HEAD + b"\x82\xc4\x01a\x01\xa1a\x02"
    yield _HEAD + b"\x92\x81\xa1a\x01\x81\xa1a\x02"
    for key in (b"\x01", b"\xc0", b"\xc3", b"\xca\x00\x00\x00\x00", b"\x90", b"\x80", b"\xff"):
        yield _HEAD + b"\x81" + key + b"\x01"
        yield b"\x84\xa1t\xa1x\xa1v\x03" + key + b"\x01"
    yield b"\x83\xa1t\xa1x\xa1v\x03\xc4\x01n\xc0"  # a bytes field name at the top
    # The type and the version.
    for t in (b"\xa0", b"\x01", b"\xc0", b"\xc4\x01x", _str(64, "é".encode()),
              _str(65, "é".encode()), _str(64, b"z"), _str(65, b"z"), b"\x91\xa1x"):
        yield b"\x82\xa1t" + t + b"\xa1v\x03"
    for v in (b"\x03", b"\xcc\x03", b"\xcd\x00\x03", b"\xce\x00\x00\x00\x03",
              b"\xcf" + (3).to_bytes(8, "big"), b"\xd0\x03", b"\xd3" + (3).to_bytes(8, "big"),
              b"\xc3", b"\xcb" + struct.pack(">d", 3.0), b"\xca" + struct.pack(">f", 3.0),
              b"\x01", b"\x02", b"\x04", b"\xff", b"\xcd\xff\xff", b"\xce\x00\x01\x00\x00",
              b"\xcf" + bytes((255,)) * 8, b"\xa1\x02", b"\xc0"):
        yield b"\x82\xa1t\xa1x\xa1v" + v
    yield b"\x81\xa1v\x03"
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
    """{"t": "x", "v": 3, "n": [16 byte strings]} of exactly ``size`` bytes."""
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
    ``n`` random mutations of them, each with gin.protocol.wire.channel.unpack's verdict."""
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
    return [fairdeal.key_bytes(k).hex() for k in keys]


def deck_case(rng: random.Random) -> Case:
    """One hand's deck computations from two seeds: derivations, commitments, the
    three messages with message 2's proof, the dealt deck, and a wrong key refused
    with the sender's blame."""
    first_seed, second_seed = rng.randbytes(32), rng.randbytes(32)
    match_id = rng.randbytes(rng.choice((1, 16, 40)))
    hand = rng.choice((0, 1, 7, 2**32 - 1))
    first = fairdeal.SeedMaterial.from_seed(first_seed)
    second = fairdeal.SeedMaterial.from_seed(second_seed)
    m1 = fairdeal.build_message1(first)
    m2, proof = fairdeal.build_message2(second, m1, fairdeal.context(match_id, hand))
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
        "first_deck_key": fairdeal.key_bytes(first.deck_key).hex(),
        "second_deck_key": fairdeal.key_bytes(second.deck_key).hex(),
        "first_position_keys": _hex_keys(first.position_keys),
        "second_position_keys": _hex_keys(second.position_keys),
        "nonce_keys": [first.nonce_key.hex(), second.nonce_key.hex()],
        "commitments": [
            fairdeal.commitment(first_seed, match_id, hand, fairdeal.Role.FIRST).hex(),
            fairdeal.commitment(second_seed, match_id, hand, fairdeal.Role.SECOND).hex(),
        ],
        "messages": [[x.hex() for x in m] for m in (m1, m2, m3)],
        "proof": proof.hex(),
        "deck": list(fairdeal.deck_order(first.permutation, second.permutation)),
        "wrong_key": {"position": position, "key": fairdeal.key_bytes(wrong).hex(),
                      "blame": blame},
        "card_points": [x.hex() for x in group.card_points()],
        "generator_h": group.generator_h().hex(),
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


def duplicating(first: fairdeal.SeedMaterial, second: fairdeal.SeedMaterial,
                message1: fairdeal.Deck) -> tuple[list[int], fairdeal.Deck]:
    """Issue 19's cheat: the second shuffler's own ten positions (10..19 when the first
    deals) re-key the message-1 entries of the dealer's ten (0..9) under their own
    keys. The entries differ, so only the proof can tell; the cheater's cards would
    open to the dealer's hand. Returns the sources it used and its message 2."""
    source = list(second.permutation)
    source[10:20] = source[0:10]
    return source, tuple(group.mul(message1[source[j]], second.position_keys[j])
                         for j in range(fairdeal.DECK_SIZE))


def _other_point(label: str) -> bytes:
    return group.hash_to_point(label.encode())


def _forgeries(ctx: bytes, first: fairdeal.SeedMaterial, second: fairdeal.SeedMaterial,
               m1: fairdeal.Deck, m2: fairdeal.Deck, proof: bytes
               ) -> Iterator[tuple[str, fairdeal.Deck, bytes]]:
    """Message 2 and proof bytes a cheater (or a broken peer) might send."""
    yield "honest", m2, proof
    perm, keys, nonce_key = second.permutation, second.position_keys, second.nonce_key
    _, dup = duplicating(first, second, m1)
    yield "duplicating, honest permutation claimed", dup, shuffle_proof.prove(
        ctx, m1, dup, perm, keys, nonce_key).to_bytes()
    kappa = 1
    for b in keys:
        kappa = kappa * pow(b, -1, group.L) % group.L
    source, _ = duplicating(first, second, m1)
    yield "duplicating, its own map", dup, shuffle_proof.prove_with(
        ctx, m1, dup, kappa, lambda u: [u[source[j]] * pow(keys[j], -1, group.L) % group.L
                                        for j in range(52)], nonce_key).to_bytes()
    combo = list(m2)
    combo[10] = group.mul(group.add(m1[perm[10]], m1[perm[0]]), keys[10])

    def solve(u: Sequence[int]) -> list[int]:
        v = [u[perm[j]] * pow(keys[j], -1, group.L) % group.L for j in range(52)]
        v[0] = (u[perm[0]] - u[perm[10]]) * pow(keys[0], -1, group.L) % group.L
        return v

    yield "a sum of two entries", tuple(combo), shuffle_proof.prove_with(
        ctx, m1, tuple(combo), kappa, solve, nonce_key).to_bytes()
    repeated = (*m2[:51], m2[0])
    yield "a repeated entry", repeated, proof
    yield "the identity", (*m2[:51], group.IDENTITY), proof
    yield "another hand's proof", m2, fairdeal.build_message2(
        second, m1, ctx + b"x")[1]
    swapped = list(m2)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    yield "entries swapped", tuple(swapped), proof
    words = shuffle_proof.words(proof)
    for name, at, value in (("K replaced", 0, _other_point("x")),
                            ("a chain link replaced", 7, _other_point("y")),
                            ("t_C replaced", 105, _other_point("z")),
                            ("s_0 changed", 107, ((group.scalar_from_bytes(words[107]) + 1)
                                                  % group.L).to_bytes(32, "little")),
                            ("s_D changed", 211, ((group.scalar_from_bytes(words[211]) + 1)
                                                  % group.L).to_bytes(32, "little")),
                            ("a scalar not reduced", 150, (group.L + 5).to_bytes(32, "little")),
                            ("the identity in the proof", 60, group.IDENTITY)):
        changed = list(words)
        changed[at] = value
        yield name, m2, b"".join(changed)
    yield "cut short", m2, proof[:-1]


def proof_case(rng: random.Random) -> Case:
    """One hand's shuffle proof (§8.8): the honest proof's bytes, and gin's verdict
    (where, why) on it and on forged messages 2 and proofs, issue 19's duplicating
    second shuffler among them."""
    first = fairdeal.SeedMaterial.from_seed(rng.randbytes(32))
    second = fairdeal.SeedMaterial.from_seed(rng.randbytes(32))
    ctx = fairdeal.context(rng.randbytes(16), rng.randrange(1, 40))
    m1 = fairdeal.build_message1(first)
    m2, proof = fairdeal.build_message2(second, m1, ctx)
    checks = []
    for name, message2, data in _forgeries(ctx, first, second, m1, m2, proof):
        refusal = fairdeal.message2_refusal(ctx, m1, message2, data)
        checks.append([name, None if message2 == m2 else [x.hex() for x in message2],
                       data.hex(), None if refusal is None else list(refusal)])
    return {
        "kind": "shuffle_proof",
        "first_seed": first.seed.hex(),
        "second_seed": second.seed.hex(),
        "context": ctx.hex(),
        "proof": proof.hex(),
        "checks": checks,
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
        m1[i] = group.mul(group.card_points()[first.permutation[i]], second.deck_key)
    elif kind == "duplicate2":
        m2[i] = group.mul(m1[second.permutation[j]], second.position_keys[i])
    elif kind == "stranger2":
        m2[i] = group.card_points()[rng.randrange(52)]
    elif kind == "rekey3":
        m3[i] = group.mul(m2[j], group.smul(group.sinv(first.deck_key), first.position_keys[i]))
    elif kind == "short3":
        del m3[i]
    elif kind == "repeat2":
        m2[i] = m2[j]
    if kind in ("swap1", "stranger1"):
        m2[:] = fairdeal.reencrypt(second, m1)
    if kind in ("swap1", "stranger1", "duplicate2", "stranger2"):
        m3[:] = fairdeal.build_message3(first, m2)


# Each tampering with the audit's point of view: a third party (None) or the honest
# player, never the side that tampered (its own messages are taken as honest).
_AUDITS = (("honest", "second"), ("honest", None), ("swap1", None), ("stranger1", "second"),
           ("duplicate2", "first"), ("stranger2", None), ("rekey3", "second"), ("short3", None),
           ("repeat2", "first"), ("commitment", "second"), ("keys", None), ("proof", None))


def audit_case(rng: random.Random, kind: str, trust: fairdeal.Role | None) -> Case:
    """One hand's hand-end audit (§9) after the tampering ``kind``, as ``trust`` sees it."""
    first_seed, second_seed = rng.randbytes(32), rng.randbytes(32)
    match_id, hand = rng.randbytes(16), rng.randrange(1, 30)
    first = fairdeal.SeedMaterial.from_seed(first_seed)
    second = fairdeal.SeedMaterial.from_seed(second_seed)
    m1 = list(fairdeal.build_message1(first))
    m2, proof = fairdeal.build_message2(second, m1, fairdeal.context(match_id, hand))
    messages = [m1, list(m2), list(fairdeal.build_message3(first, m2))]
    _tamper(rng, kind, first, second, messages)
    # Only a third party rebuilds the proof; "proof": a digest the seed does not make.
    digest = None if trust is not None else fairdeal.proof_digest(
        proof + b"x" if kind == "proof" else proof)
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
        revealed_keys=keys, proof=digest, trust=trust)
    return {
        "kind": "audit", "tampering": kind, "trust": None if trust is None else trust.value,
        "match_id": match_id.hex(), "hand": hand,
        "seeds": [first_seed.hex(), second_seed.hex()],
        "commitments": [c.hex() for c in commitments],
        "messages": [[x.hex() for x in m] for m in messages],
        "proof": None if digest is None else digest.hex(),
        "keys": [[role.value, position, fairdeal.key_bytes(key).hex()]
                 for role, position, key in keys],
        "deviations": [[d.role.value, d.field, d.position, d.detail, str(d)]
                       for d in report.deviations],
        "deck": None if report.deck is None else list(report.deck),
    }


def audit_cases(seed: int = 1) -> Iterator[Case]:
    """One audit for each tampering, seen by a third party or by one of the players."""
    rng = random.Random(seed)
    for kind, trust in _AUDITS:
        yield audit_case(rng, kind, None if trust is None else fairdeal.Role(trust))
