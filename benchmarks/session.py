"""Cost of online play: two sessions in one process against the same match offline.

Run: ``python benchmarks/session.py``. For a few seeds, plays a whole match
between two :class:`gin.protocol.session.session.Session` objects joined in memory (computer
players "normal" on both sides), then the same match offline (the same decks,
the same players with the same random sources, a plain :class:`gin.engine.match.Match`).
Prints medians of: CPU of the whole online match over the offline one (the
ratio), the sessions' own CPU per player per hand (the players' thinking left
out), and bytes on the wire per hand. Asserts nothing.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import TypeVar

from gin.engine.cards import Card
from gin.engine.match import Match
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records.records import HandRecord
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session

SEEDS = range(5)
T = TypeVar("T")
SECRET = bytes(range(32))


class Meter:
    """CPU spent inside each session's own methods, and bytes each one sent."""

    def __init__(self) -> None:
        self.cpu = [0.0, 0.0]
        self.sent = [0, 0]

    def run(self, seat: int, call: Callable[[T], None], arg: T) -> None:
        start = time.process_time()
        call(arg)
        self.cpu[seat] += time.process_time() - start


def online(seed: int, meter: Meter) -> list[HandRecord]:
    sessions = [Session("host", SECRET, STANDARD, random.Random(f"{seed}h").randbytes, b"h" * 32),
                Session("guest", SECRET, None, random.Random(f"{seed}g").randbytes, b"g" * 32)]
    players = [get("normal", random.Random(f"{seed}/{i}")) for i in (0, 1)]
    records: list[HandRecord] = []

    def pump() -> None:
        while True:
            moved = False
            for seat in (0, 1):
                for frame in sessions[seat].data_to_send():
                    meter.sent[seat] += len(frame)
                    meter.run(1 - seat, sessions[1 - seat].receive, frame)
                    moved = True
                records.extend(e.record for e in sessions[seat].events()
                               if isinstance(e, HandVerified) and seat == 0)
            if not moved:
                return

    pump()
    while not all(s.over for s in sessions):
        seat = next(s.seat for s in sessions if s.legal_actions())
        obs = sessions[seat].observation()
        assert obs is not None
        action = players[seat].choose(obs, sessions[seat].legal_actions())
        meter.run(seat, sessions[seat].act, action)
        pump()
    return records


def main() -> None:
    ratios, per_hand_cpu, per_hand_bytes, hands = [], [], [], []
    same = True
    for seed in SEEDS:
        meter = Meter()
        start = time.process_time()
        records = online(seed, meter)
        online_cpu = time.process_time() - start
        decks = [deck_of(record) for record in records]
        start = time.process_time()
        scores = offline(seed, records, decks)
        offline_cpu = time.process_time() - start
        same &= scores == list(records[-1].scores)
        ratios.append(online_cpu / offline_cpu)
        per_hand_cpu += [cpu / len(records) * 1e3 for cpu in meter.cpu]
        per_hand_bytes.append(sum(meter.sent) / len(records))
        hands.append(len(records))
    print(f"{len(SEEDS)} matches (normal v normal, standard rules), {sum(hands)} hands:")
    print(f"  offline replay reached the same final scores: {'yes' if same else 'NO'}")
    print(f"  online / offline CPU for the whole match: {statistics.median(ratios):5.1f}x "
          f"(min {min(ratios):.1f}, max {max(ratios):.1f})")
    print(f"  session CPU per player per hand: {statistics.median(per_hand_cpu):5.1f} ms "
          f"(min {min(per_hand_cpu):.1f}, max {max(per_hand_cpu):.1f})")
    print(f"  bytes on the wire per hand, both directions: "
          f"{statistics.median(per_hand_bytes):7.0f} B")


def deck_of(record: HandRecord) -> list[Card]:
    """The hand's deck, as the two revealed seeds define it."""
    first = fd.SeedMaterial.from_seed(record.seeds[0])
    second = fd.SeedMaterial.from_seed(record.seeds[1])
    return [Card.from_index(c) for c in fd.deck_order(first.permutation, second.permutation)]


def offline(seed: int, records: list[HandRecord], decks: list[list[Card]]) -> list[int]:
    """The same match without the session: same decks, same players, same random.
    Returns the scores after each hand (to confirm it is the same match)."""
    players = [get("normal", random.Random(f"{seed}/{i}")) for i in (0, 1)]
    match = Match(STANDARD, first_dealer=records[0].dealer)
    for deck in decks:
        hand = match.deal(deck)
        while hand.result is None:
            seat = match.turn
            match.apply(seat, players[seat].choose(match.observation(seat),
                                                   match.legal_actions()))
    return list(match.scores)


if __name__ == "__main__":
    main()
