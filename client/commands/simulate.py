"""`gin simulate`: computer players against each other, with statistics.

The per-match work is the pure :func:`gin.simulate.play_match`; this module adds
what is I/O: the process pool, the clock, the progress bar and the printing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from gin.engine.errors import MalformedInput
from gin.engine.rules import PRESETS, ruleset
from gin.players import NAMES
from gin.simulate import MatchRecord, Summary, play_match, play_match_task, summarize


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play computer players against each other and report statistics",
        description="Play matches between two computer players (seats and first deal "
        "alternate) and report the match win rate with a 95% Wilson interval, points "
        "per hand, how hands end, hands per match, moves per hand and hands per second. "
        "While it runs, a progress bar with the time left goes to standard error when "
        "that is a terminal.",
    )
    parser.add_argument("--players", default="hard,normal",
                        help=f"two of {', '.join(NAMES)}, comma separated (default hard,normal)")
    parser.add_argument("--matches", type=int, default=1000, help="matches to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the run (default 1)")
    parser.add_argument("--rules", default="standard",
                        help=f"ruleset: {', '.join(PRESETS)} (default standard)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    parser.set_defaults(func=run)


def parse_players(text: str) -> tuple[str, str]:
    """Two known player names from ``a,b``; MalformedInput otherwise."""
    names = [n.strip().lower() for n in text.split(",")]
    if len(names) != 2:
        raise MalformedInput(f"--players needs two names such as hard,normal, got {text!r}")
    for name in names:
        if name not in NAMES:
            raise MalformedInput(f"unknown player {name!r}; choose from {', '.join(NAMES)}")
    return names[0], names[1]


def run(args: argparse.Namespace) -> int:
    try:
        names = parse_players(args.players)
        rules = ruleset(args.rules)
        if args.matches < 1:
            raise MalformedInput(f"--matches must be at least 1, got {args.matches}")
        if not 1 <= args.jobs <= 256:
            raise MalformedInput(f"--jobs must be between 1 and 256, got {args.jobs}")
    except MalformedInput as exc:
        print(f"gin simulate: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    records: list[MatchRecord] = []
    # Standard error only, and only at a terminal: --json output and logs stay clean.
    progress = Progress(args.matches, sys.stderr) if sys.stderr.isatty() else None
    stream = match_records(names, args.seed, args.matches, rules, args.jobs)
    for done, record in enumerate(stream, 1):
        records.append(record)
        if progress is not None:
            progress.update(done)
    elapsed = max(time.perf_counter() - started, 1e-9)
    summary = summarize(names, records)
    data = summary.to_dict() | {
        "seed": args.seed,
        "rules": rules.name,
        "jobs": args.jobs,
        "seconds": elapsed,
        "hands_per_second": summary.hands / elapsed,
    }
    print(json.dumps(data) if args.json else report(summary, data))
    return 0


def match_records(
    names: tuple[str, str], seed: int, matches: int, rules: Any, jobs: int
) -> Iterator[MatchRecord]:
    """Match records in index order, from this process or a pool."""
    if jobs == 1:
        for index in range(matches):
            yield play_match(names, seed, index, rules)
        return
    tasks = [(names, seed, index, rules) for index in range(matches)]
    with multiprocessing.Pool(jobs) as pool:
        chunk = max(1, min(16, matches // jobs // 8))
        yield from pool.imap(play_match_task, tasks, chunksize=chunk)


CLEAR_TO_END = "\x1b[K"  # of a longer previous line (the bar is only drawn at a terminal)


class Progress:
    """A one-line bar: matches done, time taken and an estimate of the time left,
    redrawn at most every ``interval`` seconds (and on the last match)."""

    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic,
                 interval: float = 0.2) -> None:
        self.total, self.stream, self.clock, self.interval = total, stream, clock, interval
        self.started = clock()
        self.drawn: float | None = None

    def update(self, done: int) -> None:
        now = self.clock()
        if done < self.total and self.drawn is not None and now - self.drawn < self.interval:
            return
        self.drawn = now
        self.stream.write("\r" + self.line(done, now - self.started) + CLEAR_TO_END)
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()

    def line(self, done: int, elapsed: float) -> str:
        width = 30
        filled = width * done // self.total
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} matches, "
                f"{_duration(elapsed)}")
        if done < self.total:
            text += f", about {_duration(elapsed / done * (self.total - done))} left"
        return text


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def report(summary: Summary, data: dict[str, Any]) -> str:
    """The human-readable report."""
    a, b = summary.names
    low, high = summary.interval
    hands = max(summary.hands, 1)
    lines = [
        f"{a} vs {b}: {summary.matches} matches, seed {data['seed']}, {data['rules']} rules",
        f"{a} won {summary.wins[0]} ({summary.win_rate:.1%}), 95% CI {low:.1%}–{high:.1%}; "
        f"{b} won {summary.wins[1]}",
        f"points per hand: {a} {summary.points[0] / hands:.2f}, "
        f"{b} {summary.points[1] / hands:.2f}",
        "hands ended by:",
    ]
    for kind, by in summary.ends.items():
        lines.append(f"  {kind:<9}{sum(by) / hands:6.1%}  ({a} {by[0]}, {b} {by[1]})")
    lines.append(f"  {'dead':<9}{summary.dead / hands:6.1%}  ({summary.dead})")
    lines += [
        f"hands per match: {summary.hands / summary.matches:.2f}",
        f"moves per hand: {summary.moves / hands:.1f}",
        f"speed: {data['hands_per_second']:.0f} hands/s ({data['jobs']} job(s), "
        f"{data['seconds']:.1f} s)",
    ]
    return "\n".join(lines)
