"""Cost of the fair deal per player per hand, in Python (protocol.md §12).

Run: ``python benchmarks/fairdeal.py [--runs 7]``. Prints medians of CPU time over
runs with fixed seeds, and the group operations one hand costs; asserts only that
every check passes.

A simulated hand, per player, as gin/protocol/session/deal.py and session_flow.py
run it: its deck messages and the checks of the other's — the second shuffler
builds message 2 with its shuffle proof and signs both, the first checks the
signature and verifies the proof on arrival — the opening of its 10 dealt cards
and the upcard, 10 stock draws and 10 discards of unseen cards by each side, the
opponent's 10 cards shown at the knock, the hand-end audit of the opponent's
messages (from the card points, its own being honest) and the hand's co-signature.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group as g
from gin.protocol.deal import shuffle_proof as sp
from gin.protocol.deal.fairdeal import Role
from gin.protocol.records import cosign

MATCH = b"benchmark-match"
# Final positions: 0..9 to the first shuffler, 10..19 to the second, 20 the upcard,
# then the stock from 21. Each side draws 10 and discards 10 cards it drew unseen.
FIRST_HAND = range(0, 10)
SECOND_HAND = range(10, 20)
UPCARD = 20
FIRST_DRAWS = range(21, 41, 2)
SECOND_DRAWS = range(22, 42, 2)
SIGNERS = (cosign.Signer(bytes(32)), cosign.Signer(bytes([1]) * 32))


def seed(label: str, run: int) -> bytes:
    return hashlib.sha256(f"{label}/{run}".encode()).digest()


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)


@contextlib.contextmanager
def counting(tally: Tally) -> Iterator[None]:
    """Count gin.protocol.deal.group's operations by kind while the block runs."""
    names = {"mul": "variable-base", "mul_public": "variable-base", "base_mul": "base",
             "add": "additions", "sub": "additions"}
    saved = {name: getattr(g, name) for name in names}

    def wrap(name: str, fn: Callable[..., bytes]) -> Callable[..., bytes]:
        def counted(*args: object) -> bytes:
            tally.counts[names[name]] = tally.counts.get(names[name], 0) + 1
            return fn(*args)
        return counted

    for name, fn in saved.items():
        setattr(g, name, wrap(name, fn))
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(g, name, fn)


@dataclass
class Hand:
    """One hand's messages as they travel, from fixed seeds."""

    first: fd.SeedMaterial
    second: fd.SeedMaterial
    ctx: bytes
    m1: fd.Deck
    m2: fd.Deck
    proof: bytes
    sig: bytes
    m3: fd.Deck


def prepare(run: int) -> Hand:
    first = fd.SeedMaterial.from_seed(seed("first", run))
    second = fd.SeedMaterial.from_seed(seed("second", run))
    ctx = fd.context(MATCH, run)
    m1 = fd.build_message1(first)
    m2, proof = fd.build_message2(second, m1, ctx)
    sig = SIGNERS[1].sign(cosign.message2_digest(1, ctx, m1, m2, proof))
    return Hand(first, second, ctx, m1, m2, proof, sig, fd.build_message3(first, m2))


def audit(hand: Hand, me: Role, opened: list[int], other: fd.SeedMaterial) -> None:
    """Hand end: the other's seed against its commitment, its messages and every key it
    revealed, as fairdeal.audit_hand trusting our own side computes them."""
    assert fd.verify_commitment(fd.commitment(other.seed, MATCH, 1, me.other), other.seed,
                                MATCH, 1, me.other)
    first, second = (hand.first, other) if me is Role.FIRST else (other, hand.second)
    report = fd.audit_hand(
        match_id=MATCH, hand_number=1, first_seed=first.seed, second_seed=second.seed,
        first_commitment=fd.commitment(first.seed, MATCH, 1, Role.FIRST),
        second_commitment=fd.commitment(second.seed, MATCH, 1, Role.SECOND),
        message1=hand.m1, message2=hand.m2, message3=hand.m3,
        revealed_keys=[(me.other, k, other.position_keys[k]) for k in opened], trust=me)
    assert report.ok


def play(hand: Hand, me: Role) -> None:
    """One player's crypto for the hand (its seed derived afresh, as at a hand's start)."""
    mine = fd.SeedMaterial.from_seed((hand.first if me is Role.FIRST else hand.second).seed)
    if me is Role.FIRST:
        fd.build_message1(mine)
        assert cosign.verify(SIGNERS[1].public, cosign.message2_digest(
            1, hand.ctx, hand.m1, hand.m2, hand.proof), hand.sig)
        assert fd.message2_refusal(hand.ctx, hand.m1, hand.m2, hand.proof) is None
        fd.build_message3(mine, hand.m2)
    else:
        m1 = fd.validate_message(list(hand.m1), "message1")
        m2, proof = fd.build_message2(mine, m1, hand.ctx)
        SIGNERS[1].sign(cosign.message2_digest(1, hand.ctx, m1, m2, proof))
        fd.validate_message(list(hand.m3), "message3")
    other = hand.second if me is Role.FIRST else hand.first
    own = FIRST_HAND if me is Role.FIRST else SECOND_HAND
    theirs = SECOND_HAND if me is Role.FIRST else FIRST_HAND
    draws = (FIRST_DRAWS, SECOND_DRAWS) if me is Role.FIRST else (SECOND_DRAWS, FIRST_DRAWS)
    opened = [*own, UPCARD, *draws[0], *draws[1], *theirs]
    deck = fd.deck_order(hand.first.permutation, hand.second.permutation)
    for k in opened:
        assert fd.open_card(hand.m3, k, mine.position_keys[k], other.position_keys[k],
                            me.other) == deck[k]
    audit(hand, me, opened, other)
    digest = hashlib.sha256(hand.m3[0]).digest()  # the hand digest: both sign, each checks
    signer = SIGNERS[0 if me is Role.FIRST else 1]
    assert cosign.verify(signer.public, digest, signer.sign(digest))


def cpu_ms(fn: Callable[..., object], *args: object) -> float:
    start = time.process_time()  # CPU time: other processes do not inflate it
    fn(*args)
    return (time.process_time() - start) * 1e3


def prove(hand: Hand) -> None:
    second = hand.second
    sp.prove(hand.ctx, hand.m1, hand.m2, second.permutation, second.position_keys,
             second.nonce_key)


def verify(hand: Hand) -> None:
    assert sp.verify(hand.ctx, hand.m1, hand.m2, sp.ShuffleProof.from_bytes(hand.proof)) is None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    hands = [prepare(run) for run in range(runs)]
    times: dict[str, list[float]] = {"first": [], "second": [], "prove": [], "verify": []}
    for hand in hands:
        for role in (Role.FIRST, Role.SECOND):
            times[role.value].append(cpu_ms(play, hand, role))
        times["prove"].append(cpu_ms(prove, hand))
        times["verify"].append(cpu_ms(verify, hand))
    print(f"Python {sys.version.split()[0]}, rbcl (libsodium); CPU ms, median of {runs} runs "
          "(range)")
    for role in (Role.FIRST, Role.SECOND):
        t = times[role.value]
        tally = Tally()
        with counting(tally):
            play(hands[0], role)
        ops = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.counts.items()))
        print(f"  {role.value:>6} shuffler, one hand: {statistics.median(t):5.1f} ms "
              f"({min(t):.1f}–{max(t):.1f}); {ops}")
    print(f"  the proof alone: prove {statistics.median(times['prove']):.1f} ms, verify "
          f"{statistics.median(times['verify']):.1f} ms; {sp.PROOF_BYTES} bytes")


if __name__ == "__main__":
    main()
