"""Cost of the fair deal: µs per scalar operation, CPU and bytes per player per hand.

Run: ``python benchmarks/fairdeal.py``. Prints medians over several runs with
fixed seeds; asserts nothing. A simulated hand, per player: the deck messages it
builds and checks, the opening of its 10 dealt cards and the upcard, ~10 stock
draws, ~10 opponent discards from hidden positions, the opponent's ~10 cards
shown at the knock, and the hand-end audit of the opponent's messages; then the
same with protocol version 2's additions: the shuffle proof (§8.9 of protocol.md:
the second shuffler builds 4 shadows and opens them, the first checks them; the
challenges of the runs have two bits set, the expected number) and the hand's
co-signature (each side signs the hand digest and checks the other's).
"""

from __future__ import annotations

import contextlib
import hashlib
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric import ec

from gin.protocol import cosign, ecc, wire
from gin.protocol import fairdeal as fd
from gin.protocol import shuffle_proof as sp
from gin.protocol.fairdeal import Role

RUNS = 7
MATCH = b"benchmark-match"
# Final positions: 0..9 to the first shuffler, 10..19 to the second, 20 the upcard,
# then the stock from 21. Each side draws 10 and discards 10 cards it drew unseen.
FIRST_HAND = range(0, 10)
SECOND_HAND = range(10, 20)
UPCARD = 20
# The shuffle proof's challenge in each run: two of the four bits set, as expected.
CHALLENGES = (0b0011, 0b0101, 0b0110, 0b1001, 0b1010, 0b1100, 0b0011)
FIRST_DRAWS = range(21, 41, 2)
SECOND_DRAWS = range(22, 42, 2)


def seed(label: str, run: int) -> bytes:
    return hashlib.sha256(f"{label}/{run}".encode()).digest()


def per_call_us(fn: Callable[[], object], repeat: int = 400) -> float:
    samples = []
    for _ in range(5):
        start = time.process_time()  # CPU time: other processes do not inflate it
        for _ in range(repeat):
            fn()
        samples.append((time.process_time() - start) / repeat * 1e6)
    return statistics.median(samples)


@dataclass
class Tally:
    scalar_ops: int = 0


@contextlib.contextmanager
def counting(tally: Tally) -> Iterator[None]:
    """Count scalar multiplications by wrapping the two entry points of gin.protocol.ecc."""
    mul, mul_many = ecc.mul, ecc.mul_many

    def counted_mul(x: bytes, k: int) -> bytes:
        tally.scalar_ops += 1
        return mul(x, k)

    def counted_many(xs: Iterable[bytes], k: int) -> tuple[bytes, ...]:
        out = mul_many(xs, k)
        tally.scalar_ops += len(out)
        return out

    ecc.mul, ecc.mul_many = counted_mul, counted_many
    try:
        yield
    finally:
        ecc.mul, ecc.mul_many = mul, mul_many


@contextlib.contextmanager
def without_caches() -> Iterator[None]:
    """Decode every point afresh, to show what the public-key caches save."""
    decode, card_keys = ecc._decode, ecc._card_keys

    def fresh(x: bytes) -> ec.EllipticCurvePublicKey:
        return ec.EllipticCurvePublicKey.from_encoded_point(ecc.CURVE, b"\x02" + x)

    ecc._decode, ecc._card_keys = fresh, dict  # type: ignore[assignment]
    try:
        yield
    finally:
        ecc._decode, ecc._card_keys = decode, card_keys


@dataclass
class Hand:
    first: fd.SeedMaterial
    second: fd.SeedMaterial
    commits: tuple[bytes, bytes]
    m1: fd.Deck
    m2: fd.Deck
    m3: fd.Deck
    shadows: tuple[fd.Deck, ...]
    openings: tuple[sp.Opening, ...]  # the second's answer to this run's challenge


def prepare(run: int) -> Hand:
    first = fd.SeedMaterial.from_seed(seed("first", run))
    second = fd.SeedMaterial.from_seed(seed("second", run))
    m1 = fd.build_message1(first)
    m2 = fd.build_message2(second, m1)
    m3 = fd.build_message3(first, m2)
    commits = (fd.commitment(first.seed, MATCH, run, Role.FIRST),
               fd.commitment(second.seed, MATCH, run, Role.SECOND))
    return Hand(first, second, commits, m1, m2, m3, sp.shadows(second, m1),
                sp.open_rounds(second, CHALLENGES[run % len(CHALLENGES)]))


def play(hand: Hand, run: int, me: Role, v2: bool = True) -> None:
    """Everything one player computes during the hand, given the other's messages.
    ``v2``: with the shuffle proof and the co-signature of protocol version 2."""
    mine = fd.SeedMaterial.from_seed((hand.first if me is Role.FIRST else hand.second).seed)
    fd.commitment(mine.seed, MATCH, run, me)
    challenge = CHALLENGES[run % len(CHALLENGES)]
    if me is Role.FIRST:
        fd.build_message1(mine)
        fd.build_message3(mine, fd.validate_message(list(hand.m2), "message2"))
        if v2:
            for r in range(sp.ROUNDS):
                assert sp.check_round(hand.m1, hand.m2, hand.shadows[r], challenge >> r & 1,
                                      hand.openings[r]) is None
    else:
        fd.validate_message(list(hand.m1), "message1")
        fd.build_message2(mine, hand.m1)
        if v2:
            sp.shadows(mine, hand.m1)
            sp.open_rounds(mine, challenge)
        fd.validate_message(list(hand.m3), "message3")
    if v2:
        digest = hashlib.sha256(hand.m3[0]).digest()
        signer = cosign.Signer(mine.seed)
        assert cosign.verify(signer.public, digest, signer.sign(digest))
    other = hand.second if me is Role.FIRST else hand.first
    own_cards = FIRST_HAND if me is Role.FIRST else SECOND_HAND
    their_cards = SECOND_HAND if me is Role.FIRST else FIRST_HAND
    my_draws = FIRST_DRAWS if me is Role.FIRST else SECOND_DRAWS
    their_draws = SECOND_DRAWS if me is Role.FIRST else FIRST_DRAWS
    # Deal and draws: the other side's key opens each card I receive. Discards of
    # cards the opponent drew unseen, then its 10 cards shown at the knock.
    opened = [*own_cards, UPCARD, *my_draws, *their_draws, *their_cards]
    for k in opened:
        fd.open_card(hand.m3, k, mine.position_keys[k], other.position_keys[k], me.other)
    revealed = [(me.other, k, other.position_keys[k]) for k in opened]
    report = fd.audit_hand(
        match_id=MATCH, hand_number=run,
        first_seed=hand.first.seed, second_seed=hand.second.seed,
        first_commitment=hand.commits[0], second_commitment=hand.commits[1],
        message1=hand.m1, message2=hand.m2, message3=hand.m3,
        revealed_keys=revealed, trust=me,
    )
    assert report.ok


def time_player(hand: Hand, run: int, me: Role, cached: bool = True, v2: bool = True
                ) -> float:
    ecc._decode.cache_clear()  # each player runs in its own process: no shared warm cache
    with contextlib.nullcontext() if cached else without_caches():
        start = time.process_time()
        play(hand, run, me, v2)
        return (time.process_time() - start) * 1e3


def main() -> None:
    x = ecc.card_points()[0]
    k = fd.derive_deck_key(seed("k", 0))
    private = ec.derive_private_key(k, ecc.CURVE)
    public = ecc.point(x)
    ks = [fd.derive_deck_key(seed("k", i)) for i in range(400)]
    fresh_x = ecc.mul_many(ecc.card_points(), k)
    encoded = b"\x02" + x
    counter = iter(range(10**9))

    def cold_mul() -> bytes:
        ecc._decode.cache_clear()
        i = next(counter)
        return ecc.mul(fresh_x[i % 52], ks[i % 400])

    def warm_mul() -> bytes:
        return ecc.mul(x, ks[next(counter) % 400])

    rows = [
        ("derive_private_key (k·G)", per_call_us(lambda: ec.derive_private_key(k, ecc.CURVE))),
        ("decode point (02 ‖ x)", per_call_us(
            lambda: ec.EllipticCurvePublicKey.from_encoded_point(ecc.CURVE, encoded))),
        ("ECDH exchange (k·P)", per_call_us(lambda: private.exchange(ec.ECDH(), public))),
        ("ecc.mul, new scalar, cold point", per_call_us(cold_mul)),
        ("ecc.mul, new scalar, cached point", per_call_us(warm_mul)),
        ("ecc.mul_many, per point of 52", per_call_us(
            lambda: ecc.mul_many(ecc.card_points(), k), 20) / 52),
        ("scalar inverse mod n", per_call_us(lambda: ecc.inverse(k))),
        ("SeedMaterial.from_seed", per_call_us(
            lambda: fd.SeedMaterial.from_seed(seed("s", 1)), 50)),
    ]
    print("Per operation (µs, median):")
    for label, value in rows:
        print(f"  {label:34} {value:7.1f}")

    for v2 in (False, True):
        per_role: dict[Role, list[float]] = {Role.FIRST: [], Role.SECOND: []}
        uncached: dict[Role, list[float]] = {Role.FIRST: [], Role.SECOND: []}
        ops: dict[Role, int] = {}
        for run in range(RUNS):
            hand = prepare(run)
            for role in Role:
                per_role[role].append(time_player(hand, run, role, v2=v2))
                uncached[role].append(time_player(hand, run, role, cached=False, v2=v2))
                tally = Tally()
                with counting(tally):
                    play(hand, run, role, v2)
                ops[role] = tally.scalar_ops
        what = ("with the shuffle proof and co-signature (protocol v2)" if v2
                else "deck, deal, draws, show and audit only (as in protocol v1)")
        print(f"\nSimulated hand, CPU per player (ms, median of {RUNS}), scalar "
              f"multiplications, {what}:")
        for role in Role:
            print(f"  {role.value:6} shuffler  {statistics.median(per_role[role]):6.1f} ms"
                  f"   (without point caches {statistics.median(uncached[role]):5.1f} ms)"
                  f"   {ops[role]} scalar ops")

    hand = prepare(0)
    deck_frames = [wire.pack("deck", {"n": n, "deck": list(m)})
                   for n, m in ((1, hand.m1), (2, hand.m2), (3, hand.m3))]
    overhead = wire.HEADER_BYTES + wire.TAG_BYTES
    key = hand.first.position_keys[51].to_bytes(32, "big")
    key_msg = wire.pack("key", {"pos": 51, "key": key})
    print("\nBytes on the wire:")
    one = len(deck_frames[0])
    print(f"  one deck message: {one} B msgpack, {one + overhead} B sealed")
    print(f"  three deck messages sealed: {sum(len(f) + overhead for f in deck_frames)} B")
    print(f"  one key message sealed: {len(key_msg) + overhead} B "
          f"(x ~61 keys a hand = {61 * (len(key_msg) + overhead)} B)")
    shuffle = wire.pack("shuffle", {"h": 1, "s": [x for s in hand.shadows for x in s]})
    openings = sp.open_rounds(hand.second, CHALLENGES[0])
    proof = wire.pack("proof", {
        "h": 1, "seeds": [o.seed for o in openings if o.seed is not None],
        "tau": [i for o in openings for i in o.tau],
        "keys": [k.to_bytes(32, "big") for o in openings for k in o.keys]})
    print(f"  shuffle proof sealed: shadows {len(shuffle) + overhead} B, openings "
          f"{len(proof) + overhead} B (two rounds of bit 1)")


if __name__ == "__main__":
    main()
