"""Figures of the computer players: prints them, asserts nothing.

* The strength table: every pair of easy/normal/hard/simple, match win rate of
  the first with its 95% Wilson interval (seats and first deal alternate).
* Self-play speed on one core: normal vs normal and hard vs hard, hands/s.
* Decision times of every player on one core: median, 90th, 95th and 99th
  percentiles and the maximum over real positions (Hard through :func:`hint`, as
  the table asks it, with its reason worded).
* The figures the rules page quotes: dealt-hand statistics, and how self-play
  hands end (normal vs normal and hard vs hard).

    python benchmarks/players.py [--matches 2000] [--jobs 2] [--seed 1] [--deals 100000]
                                 [--speed-runs 5] [--timed-hands 300] [--pairs hard-simple,...]
                                 [--no-strength | --only-strength | --only-times]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from client.commands.simulate import match_records
from gin.engine.hand import shuffled_deck
from gin.engine.match import Match
from gin.engine.observation import Phase
from gin.engine.rules import STANDARD
from gin.players import get, hint
from gin.simulate import Summary, deal_stats, summarize

PLAYERS = ("hard", "normal", "simple", "easy")


def run(names: tuple[str, str], matches: int, seed: int, jobs: int) -> tuple[Summary, float]:
    started = time.perf_counter()
    summary = summarize(names, match_records(names, seed, matches, STANDARD, jobs))
    return summary, time.perf_counter() - started


def strength(matches: int, seed: int, jobs: int, pairs: list[tuple[str, str]]) -> None:
    print("| pair | matches | first player's win rate | 95% CI | seconds |")
    print("|---|---|---|---|---|")
    for a, b in pairs:
        summary, seconds = run((a, b), matches, seed, jobs)
        low, high = summary.interval
        print(f"| {a} vs {b} | {summary.matches} | {summary.win_rate:.1%} | "
              f"{low:.1%}–{high:.1%} | {seconds:.0f} |", flush=True)


def self_play(matches: int, seed: int, runs: int) -> None:
    """Hands/s on one core: the median of ``runs`` runs for Normal (this machine's
    speed wanders by tens of percent), one run for the slow Hard."""
    for name in ("normal", "hard"):
        speeds = []
        for _ in range(runs if name == "normal" else 1):
            summary, seconds = run((name, name), matches, seed, 1)
            speeds.append(summary.hands / seconds)
        data = summary.to_dict()
        shares = ", ".join(f"{k} {v:.1%}" for k, v in data["ends_share"].items())
        spread = f" (runs {min(speeds):.0f}–{max(speeds):.0f})" if len(speeds) > 1 else ""
        print(f"{name} vs {name}, one core: {statistics.median(speeds):.0f} hands/s{spread}; "
              f"{data['hands_per_match']:.2f} hands per match; ends: {shares}", flush=True)


def _percentile(times: list[float], share: float) -> float:
    return times[min(len(times) - 1, int(share * (len(times) - 1)))]


def decision_times(hands: int, seed: int) -> None:
    """Time each player's decisions (Hard's through :func:`hint`, as a UI calls it)
    in play against Normal, the same deals for every player. The time is the
    process's CPU time for the decision (what it costs on one core of its own;
    the wall clock also counts the time other work on a shared machine takes)."""
    for name in PLAYERS:
        rng = random.Random(seed)
        player, opponent = get(name), get("normal")
        times: list[float] = []
        for number in range(hands):
            match = Match(first_dealer=number % 2)
            hand = match.deal(shuffled_deck(rng))
            while hand.phase is not Phase.OVER:
                seat = match.turn
                obs, legal = match.observation(seat), match.legal_actions()
                if seat == 0:
                    started = time.process_time()
                    action = hint(obs, legal).action if name == "hard" \
                        else player.choose(obs, legal)
                    times.append(time.process_time() - started)
                else:
                    action = opponent.choose(obs, legal)
                match.apply(seat, action)
        times.sort()
        print(f"{name} decision CPU time over {len(times)} decisions: median "
              f"{statistics.median(times) * 1e3:.3f} ms, p90 {_percentile(times, 0.90) * 1e3:.3f}"
              f" ms, p95 {_percentile(times, 0.95) * 1e3:.3f} ms, p99 "
              f"{_percentile(times, 0.99) * 1e3:.3f} ms, max {times[-1] * 1e3:.3f} ms",
              flush=True)


def dealt(deals: int, seed: int) -> None:
    stats = deal_stats(deals, random.Random(seed))
    one_in = f"one in {deals / stats.knockable:,.0f}" if stats.knockable else "none"
    print(f"{deals:,} dealt hands: mean points {stats.mean_points:.1f}, mean deadwood "
          f"{stats.mean_deadwood:.1f}, with a meld {stats.with_meld:.1%}, knockable "
          f"{stats.knockable} ({one_in}), gins {stats.gins}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--speed-matches", type=int, default=100)
    parser.add_argument("--speed-runs", type=int, default=5)
    parser.add_argument("--timed-hands", type=int, default=300)
    parser.add_argument("--no-strength", action="store_true",
                        help="skip the strength table (minutes of work)")
    parser.add_argument("--only-strength", action="store_true",
                        help="print the strength table alone")
    parser.add_argument("--only-times", action="store_true",
                        help="print the decision times alone")
    parser.add_argument("--pairs", default="",
                        help="the pairs of the table, e.g. hard-simple,normal-easy "
                             "(default: every pair of " + ", ".join(PLAYERS) + ")")
    args = parser.parse_args()
    pairs = list(itertools.combinations(PLAYERS, 2))
    if args.pairs:
        pairs = [_pair(text) for text in args.pairs.split(",")]
    if args.only_times:
        decision_times(args.timed_hands, args.seed)
        return
    if not args.only_strength:
        dealt(args.deals, args.seed)
        decision_times(args.timed_hands, args.seed)
        self_play(args.speed_matches, args.seed, args.speed_runs)
    if not args.no_strength:
        strength(args.matches, args.seed, args.jobs, pairs)


def _pair(text: str) -> tuple[str, str]:
    names = text.strip().split("-")
    if len(names) != 2 or not set(names) <= set(PLAYERS):
        raise SystemExit(f"players.py: --pairs takes pairs such as hard-simple of "
                         f"{', '.join(PLAYERS)}, got {text!r}")
    return names[0], names[1]


if __name__ == "__main__":
    main()
