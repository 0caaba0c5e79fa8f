"""`gin stats`: statistics of dealt hands (the figures the rules page quotes)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from gin.simulate import deal_stats


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stats",
        help="statistics of freshly dealt hands",
        description="Deal many ten-card hands and report the mean card points, mean "
        "deadwood, the share holding a meld, how many could knock as dealt, and gins.",
    )
    parser.add_argument("--deals", type=int, default=100_000, help="hands to deal (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffles (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.deals < 1:
        print(f"gin stats: --deals must be at least 1, got {args.deals}", file=sys.stderr)
        return 2
    stats = deal_stats(args.deals, random.Random(args.seed))
    data = stats.to_dict() | {"seed": args.seed}
    if args.json:
        print(json.dumps(data))
        return 0
    one_in = f"about one in {data['knockable_one_in']:,.0f}" if stats.knockable else "none"
    print("\n".join([
        f"{stats.deals:,} dealt hands (seed {args.seed})",
        f"mean card points: {stats.mean_points:.1f}",
        f"mean deadwood: {stats.mean_deadwood:.1f}",
        f"holding at least one meld: {stats.with_meld:.1%}",
        f"knockable as dealt (deadwood ≤ 10): {stats.knockable} ({one_in})",
        f"gin as dealt: {stats.gins}",
    ]))
    return 0
