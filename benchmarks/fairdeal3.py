"""Protocol v3's fair deal (prototype, ristretto255) against v2's, per player per hand.

Run: ``python benchmarks/fairdeal3.py [--runs 7]``. Prints medians of CPU time over
runs with fixed seeds, v2 and v3 measured alternately in one process so that a
loaded machine stretches both alike; asserts only that every check passes.

A hand, per player, as benchmarks/fairdeal.py simulates it for v2: its deck
messages and the checks of the other's, 10 cards dealt to each side and the
upcard, 10 stock draws and 10 discards of unseen cards by each side, the
opponent's 10 cards shown at the knock, the hand-end audit of the opponent's
messages, and the co-signature. v2 adds its 4-round cut-and-choose (the second
builds and opens 4 shadows, the first checks them); v3 the non-interactive proof
(the second proves message 2, the first verifies it on arrival). The v3 audit
recomputes the other side's messages from the card points as v2's does.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fairdeal as v2  # noqa: E402  (benchmarks/fairdeal.py)

from gin.protocol import cosign  # noqa: E402
from gin.protocol import deck3 as d  # noqa: E402
from gin.protocol import fairdeal as fd  # noqa: E402
from gin.protocol import group3 as g  # noqa: E402
from gin.protocol import shuffle_proof3 as sp  # noqa: E402
from gin.protocol.fairdeal import Role  # noqa: E402

MATCH = v2.MATCH


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)


@contextlib.contextmanager
def counting(tally: Tally) -> Iterator[None]:
    """Count group3's operations by kind while the block runs."""
    names = {"mul": "var", "mul_public": "var", "base_mul": "base", "add": "add", "sub": "add"}
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
class Hand3:
    first: d.SeedMaterial
    second: d.SeedMaterial
    ctx: bytes
    m1: d.Deck
    m2: d.Deck
    proof: bytes
    m3: d.Deck


def prepare(run: int) -> Hand3:
    first = d.SeedMaterial.from_seed(v2.seed("first", run))
    second = d.SeedMaterial.from_seed(v2.seed("second", run))
    ctx = d.context(MATCH, run)
    m1 = d.build_message1(first)
    m2, proof = d.build_message2(second, m1, ctx)
    return Hand3(first, second, ctx, m1, m2, proof.to_bytes(), d.build_message3(first, m2))


def audit3(hand: Hand3, me: Role, opened: list[int], other: d.SeedMaterial) -> None:
    """Hand end: check the other's seed against its messages (from the card points, our
    own messages being honest) and every key it revealed."""
    fd.commitment(other.seed, MATCH, 0, me.other)  # the commitment check: one hash
    theirs = d.SeedMaterial.from_seed(other.seed)
    deck = d.deck_order(hand.first, hand.second)
    points = g.card_points()
    a = hand.first.deck_key
    if me is Role.FIRST:  # m2[j] = (a·b_j)·M_deck[j]
        assert all(g.mul_public(points[deck[j]], a * theirs.position_keys[j] % g.L) == hand.m2[j]
                   for j in range(52))
    else:  # m1[i] = a·M_πA[i] and m3[k] = (a_k·b_k)·M_deck[k]
        assert all(g.mul_public(points[theirs.permutation[i]], theirs.deck_key) == hand.m1[i]
                   for i in range(52))
        assert all(g.mul_public(points[deck[k]], theirs.position_keys[k]
                                * hand.second.position_keys[k] % g.L) == hand.m3[k]
                   for k in range(52))
    assert all(theirs.position_keys[k] == other.position_keys[k] for k in opened)


def play3(hand: Hand3, run: int, me: Role) -> None:
    mine = d.SeedMaterial.from_seed((hand.first if me is Role.FIRST else hand.second).seed)
    fd.commitment(mine.seed, MATCH, run, me)
    if me is Role.FIRST:
        d.build_message1(mine)
        m2 = d.validate_message(list(hand.m2), "message2")
        assert sp.verify(hand.ctx, hand.m1, m2, sp.ShuffleProof.from_bytes(hand.proof)) is None
        d.build_message3(mine, m2)
    else:
        m1 = d.validate_message(list(hand.m1), "message1")
        d.build_message2(mine, m1, hand.ctx)
        d.validate_message(list(hand.m3), "message3")
    digest = hashlib.sha256(hand.m3[0]).digest()
    signer = cosign.Signer(mine.seed)
    assert cosign.verify(signer.public, digest, signer.sign(digest))
    other = hand.second if me is Role.FIRST else hand.first
    own_cards = v2.FIRST_HAND if me is Role.FIRST else v2.SECOND_HAND
    their_cards = v2.SECOND_HAND if me is Role.FIRST else v2.FIRST_HAND
    my_draws = v2.FIRST_DRAWS if me is Role.FIRST else v2.SECOND_DRAWS
    their_draws = v2.SECOND_DRAWS if me is Role.FIRST else v2.FIRST_DRAWS
    opened = [*own_cards, v2.UPCARD, *my_draws, *their_draws, *their_cards]
    deck = d.deck_order(hand.first, hand.second)
    for k in opened:
        assert d.open_card(hand.m3, k, mine.position_keys[k], other.position_keys[k]) == deck[k]
    audit3(hand, me, opened, other)


def cpu_ms(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1e3


def measure_run(run: int, hand2: v2.Hand, h: Hand3, times: dict[tuple[str, Role], list[float]],
                parts: dict[str, list[float]]) -> None:
    """One run: each role's whole hand in v2 then v3, and the proof's parts."""
    for role in (Role.FIRST, Role.SECOND):
        times.setdefault(("v2", role), []).append(v2.time_player(hand2, run, role))
        times.setdefault(("v3", role), []).append(cpu_ms(lambda: play3(h, run, role)))  # noqa: B023
    second = d.SeedMaterial.from_seed(h.second.seed)
    parts["m2"].append(cpu_ms(lambda: d.build_message2(second, h.m1, h.ctx)))
    parts["prove"].append(cpu_ms(lambda: sp.prove(h.ctx, h.m1, h.m2, second.permutation,
                                                  second.position_keys, second.nonce_key)))
    proof = sp.ShuffleProof.from_bytes(h.proof)
    parts["verify"].append(cpu_ms(lambda: sp.verify(h.ctx, h.m1, h.m2, proof)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    hands2 = [v2.prepare(run) for run in range(runs)]
    hands3 = [prepare(run) for run in range(runs)]
    times: dict[tuple[str, Role], list[float]] = {}
    parts: dict[str, list[float]] = {"prove": [], "verify": [], "m2": []}
    for run in range(runs):
        measure_run(run, hands2[run], hands3[run], times, parts)
    counts = {}
    for role in (Role.FIRST, Role.SECOND):
        tally = Tally()
        with counting(tally):
            play3(hands3[0], 0, role)
        counts[role] = tally.counts
    print(f"Python {sys.version.split()[0]}; CPU ms per player per hand, median of {runs} runs "
          "(range); v2 and v3 measured alternately")
    for role in (Role.FIRST, Role.SECOND):
        for version in ("v2", "v3"):
            t = times[(version, role)]
            print(f"  {version} {role.value:>6} shuffler: {statistics.median(t):6.1f} ms "
                  f"({min(t):.1f}–{max(t):.1f})")
    for role, c in counts.items():
        print(f"  v3 {role.value} shuffler's group operations: {c.get('var', 0)} variable-base, "
              f"{c.get('base', 0)} base, {c.get('add', 0)} additions")
    print("  v3 proof alone: prove {:.1f} ms, verify {:.1f} ms; message 2 with its proof "
          "{:.1f} ms; proof {} bytes".format(
              statistics.median(parts["prove"]), statistics.median(parts["verify"]),
              statistics.median(parts["m2"]), len(hands3[0].proof)))
    m = 52 * 32
    print(f"  v3 deck bytes (unsealed payload): m1 {m}, m2 {m} + proof {len(hands3[0].proof)}, "
          f"m3 {m}: {3 * m + len(hands3[0].proof)} in all (v2: 3 × {52 * 32} + shadows "
          f"{4 * 52 * 32} + openings)")


if __name__ == "__main__":
    main()
