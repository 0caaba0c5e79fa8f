"""`gin audit FILE...`: re-verify saved hand records and tell each hand.

Only reading files and printing live here; :func:`gin.protocol.audit.audit_records` does
the work, auditing the files together so each hand's scores follow from the hand
before it. The exit status says what was proven (:data:`EXIT_STATUSES`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from client.text import plain
from gin.engine.errors import MalformedInput
from gin.protocol.audit import audit_records
from gin.protocol.evidence import parse_file
from gin.protocol.history import identities_text
from gin.protocol.records import MAX_RECORD_BYTES

VERIFIED, FAILED, NOT_A_RECORD, UNPROVEN = 0, 1, 2, 3
#: Each exit status and what it means; when the files given differ, the first of
#: 2, 1, 3, 0 that applies to any of them is the status.
EXIT_STATUSES = (
    (VERIFIED, "every record verified and everything shown is proven"),
    (FAILED, "a record failed its audit: a player cheated, the record contradicts "
             "itself (the finding says who is at fault), or the records of one invite link "
             "do not form one history (two first matches, or other players: at most one "
             "is the real match)"),
    (NOT_A_RECORD, "a file is missing, unreadable or not a hand record"),
    (UNPROVEN, "every record verified except what the records given cannot prove "
               "(the scores of a later hand without the hands before it, or the match a "
               "rematch continues)"),
)
_PRECEDENCE = (NOT_A_RECORD, FAILED, UNPROVEN, VERIFIED)


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
        "failed, where, and who is at fault.",
        epilog="Exit status: " + "; ".join(f"{code}: {text}" for code, text in EXIT_STATUSES)
        + ". When the files differ, the first of 2, 1, 3, 0 that applies is the status.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="hand record, or deal evidence (JSON)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the verdict of each file, not the replay")
    parser.set_defaults(func=run)


# The top-level fields of the other JSON files in the data folder (client/storage.py,
# client/table/controller.py, client/net/store.py), to say what a file given by
# mistake is.
_LOCAL_HAND = {"hand", "hand_number", "players", "result", "scores_after"}
# A sealed save, the match against the computer, the online session.
_SAVES = ({"gin-save"}, {"format", "vs", "match"}, {"format", "role", "session"})


def _not_a_record(data: bytes) -> str | None:
    """What ``data`` is, when it is one of gin's other files rather than a hand record."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested too deep for Python
        return None
    if not isinstance(value, dict):
        return None
    if set(value) == _LOCAL_HAND:
        return ("this is a hand played against the computer, saved by `gin play` "
                "(hands/ in the data folder): it has no fair-deal transcript, so there is "
                "nothing to audit. gin audit checks the records of online matches, saved "
                "under records/ in the data folder.")
    if any(keys <= value.keys() for keys in _SAVES):
        return ("this is a saved match in progress, not a hand record. gin audit checks "
                "the records of finished online hands, saved under records/ in the data "
                "folder.")
    return None


def run(args: argparse.Namespace) -> int:
    statuses = {VERIFIED}
    names, records = [], []
    for name in args.files:
        try:
            with open(name, "rb") as file:
                data = file.read(MAX_RECORD_BYTES + 1)
            records.append(parse_file(data))  # a hand record, or a failed proof's evidence
            names.append(name)
        except OSError as exc:
            print(plain(f"gin audit: {name}: cannot read: {exc.strerror or exc}"),
                  file=sys.stderr)
            statuses.add(NOT_A_RECORD)
        except MalformedInput as exc:
            print(plain(f"gin audit: {name}: {_not_a_record(data) or exc}"), file=sys.stderr)
            statuses.add(NOT_A_RECORD)
    # Together, so each hand is checked against the hand before it in its match.
    results = audit_records(records, names)
    for name, record, result in zip(names, records, results, strict=True):
        lines = [f"{name}:", identities_text(record.identities),
                 *(() if args.quiet else result.replay)]
        if not result.ok:
            lines += [f"FAILED {finding}" for finding in result.findings]
            statuses.add(FAILED)
        elif result.unproven:
            lines.append("verified, except what these records cannot prove:")
            lines += [f"  not verified: {line}" for line in result.unproven]
            statuses.add(UNPROVEN)
        else:
            lines.append("verified")
        for line in lines:  # a record is a file from anyone: print it as plain text
            print(plain(line))
    return next(code for code in _PRECEDENCE if code in statuses)
