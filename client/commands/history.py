"""`gin history`: your record, every finished match against the computer and friends."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from client.record import describe, summarize
from client.storage import DATA_DIR_DEFAULT, DamagedSave, Storage, StorageError, default_data_dir


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history", help="your record: matches and hands won, against each opponent",
        description="Your record from the data folder: for every computer strength and "
        "every friend (known by the five words of its identity, as the table shows them), "
        "the matches and hands won, gins, undercuts and knocks, boxes, the average points "
        "a hand, the longest run of matches won, and the matches abandoned by your friend "
        "or by you (one side fell silent: counted apart, never as won). Each match is added "
        "when it ends.")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help=f"the data folder to read (default: {DATA_DIR_DEFAULT})")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (overall, opponents, matches) only")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    storage = Storage(args.data_dir or default_data_dir())
    matches: list[Any] = []
    try:
        matches = storage.load_record()
    except DamagedSave as exc:  # set aside: say so, and show the (empty) record
        print(f"gin history: {exc}", file=sys.stderr)
    except StorageError as exc:
        print(f"gin history: {exc}", file=sys.stderr)
        return 1
    summary = summarize(matches)
    if args.json:
        print(json.dumps(summary | {"matches": matches}))
    else:
        print("\n".join(describe(summary)))
    return 0
