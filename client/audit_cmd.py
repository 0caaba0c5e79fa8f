"""`gin audit FILE...`: re-verify saved hand records and tell each hand.

Only reading files and printing live here; :func:`gin.audit.audit_record` does
the work. Exit status: 0 when every record verifies, 1 when one fails its
audit, 2 when a file is missing, unreadable or not a valid record.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gin.audit import audit_record
from gin.errors import MalformedInput
from gin.records import MAX_RECORD_BYTES, parse_record


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="re-verify saved online hands (the fair deal and every move)",
        description="Re-verify hand records of online matches independently: the "
        "commitments, both players' deck messages recomputed from the seeds, every key "
        "revealed, every move replayed through the rules engine, and the score. Prints "
        "each hand as a replay and 'verified', or what failed, where, and who is at "
        "fault. Exit status 0 only when every record verifies.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="hand record (JSON)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the verdict of each file, not the replay")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            with open(name, "rb") as file:
                data = file.read(MAX_RECORD_BYTES + 1)
            record = parse_record(data)
        except OSError as exc:
            print(f"gin audit: {name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            status = 2
            continue
        except MalformedInput as exc:
            print(f"gin audit: {name}: {exc}", file=sys.stderr)
            status = 2
            continue
        result = audit_record(record)
        print(f"{name}:")
        if not args.quiet:
            for line in result.replay:
                print(line)
        if result.ok:
            print("verified")
        else:
            for finding in result.findings:
                print(f"FAILED {finding}")
            status = max(status, 1)
    return status
