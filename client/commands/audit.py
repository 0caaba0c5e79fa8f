"""`gin audit FILE...`: re-verify saved hand records and tell each hand (and what
deal evidence and abandonment records show).

Only reading files and printing live here; :func:`gin.protocol.records.audit_report.audit_report`
makes the text (the browser board's twin makes the same), auditing the files together
so each hand's scores follow from the hand before it. The exit status says what was
proven (:data:`gin.protocol.records.audit_text.EXIT_STATUSES`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from client.text import plain
from gin.protocol.records.audit_report import Given, audit_report
from gin.protocol.records.audit_text import EXIT_STATUSES
from gin.protocol.records.envelope import MAX_RECORD_BYTES


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="re-verify saved online hands (the fair deal and every move)",
        description="Re-verify hand records of online matches independently: both "
        "players' signatures of the hand, the commitments, both players' deck messages "
        "recomputed from the seeds, every key revealed and that each was sent where the "
        "protocol sends it, every move replayed through the rules engine, and the score. The "
        "match scores after a hand are proven only from the records of the hands "
        "before it, from hand 1: give a match's records together. Each record names "
        "both players' long-term identities (printed as five words and in hex), each "
        "vouching for its seat's keys; records of one invite link given together must "
        "form one history (the same two players, one first match), else they are "
        "reported as a conflict and none is verified. Prints each hand as "
        "a replay and 'verified' (saying what the records given cannot prove), or what "
        "failed, where, and who is at fault. An abandonment record (a player ended the "
        "match because its friend fell silent) is checked for its signature and that it "
        "follows the hands given, and told as that player's word: never as verified.",
        epilog="Exit status: " + "; ".join(f"{code}: {text}" for code, text in EXIT_STATUSES)
        + ". When the files differ, the first of 2, 1, 3, 0 that applies is the status.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="hand record, deal evidence or abandonment record (JSON)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the verdict of each file, not the replay")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    given = []
    for name in args.files:
        try:
            with open(name, "rb") as file:
                given.append(Given(name, file.read(MAX_RECORD_BYTES + 1)))
        except OSError as exc:
            given.append(Given(name, None, str(exc.strerror or exc)))
    report = audit_report(given)
    for line in report.errors:
        print(plain(line), file=sys.stderr)
    for line in report.lines(args.quiet):  # a record is a file from anyone: plain text
        print(plain(line))
    return report.status
