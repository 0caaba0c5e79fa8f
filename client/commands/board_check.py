"""``gin board-check URL``: compare the board a site serves with this installation's.

URL is a relay, a static site holding an export, or an invite link (whose page is the
board a friend's browser would run: a relay's ``/j/ROOM``, followed through a
``--board`` redirect, or a board's link). Each file of the board is fetched from the
folder of the page URL ends at, and its SHA-256 compared with this installation's
build (client/web/dist, as ``gin web --export`` writes it). Exit 0 only when every
file matches; 1 when any differs or is missing; 2 when URL cannot be used or reached.
The secret after '#' is never sent: only the address before it is fetched.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urljoin, urlsplit

from client.commands.web import not_built

TIMEOUT = 20.0  # seconds for each file
LIMIT = 8 * 1024 * 1024  # bytes read of each file: the board is far smaller


def fetch(url: str) -> tuple[str, bytes]:
    """The final address (after redirects) and the body of a GET of ``url``."""
    request = urllib.request.Request(url, headers={"User-Agent": "gin board-check"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310 (http(s) only)
        return answer.geturl(), answer.read(LIMIT)


def page_of(url: str) -> str:
    """The page ``url`` opens, without its fragment (the secret stays here)."""
    return url.partition("#")[0]


def run(args: argparse.Namespace) -> int:
    from relay import static

    board = static.load_board()
    if not board.built:
        print(not_built("gin board-check"), file=sys.stderr)
        return 2
    page = page_of(args.url.strip())
    if urlsplit(page).scheme not in ("http", "https") or not urlsplit(page).hostname:
        print(f"gin board-check: {page!r} is not an http:// or https:// address",
              file=sys.stderr)
        return 2
    try:
        final, first = fetch(page)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"gin board-check: cannot fetch {page}: {reason}", file=sys.stderr)
        return 2
    base = urljoin(final, ".")  # the folder of the page: the board's files are beside it
    here = board.digests() or {}
    print(f"Comparing the board at {base} with this installation's ({static.BOARD_DIR},\n"
          f"build {board.build()}):")
    differ = 0
    for name in static.FILES:
        try:
            body = first if final == base and name == "index.html" else fetch(base + name)[1]
            theirs = hashlib.sha256(body).hexdigest()
        except (urllib.error.URLError, OSError, ValueError) as exc:
            theirs = f"(not served: {getattr(exc, 'reason', exc)})"
        same = theirs == here[name]
        differ += not same
        print(f"  {'same' if same else 'DIFFERENT':9} {name:11} here {here[name]}")
        print(f"  {'':9} {'':11} served {theirs}")
    if differ:
        print(f"{differ} of {len(static.FILES)} files differ from this installation's board: "
              "the page there is not the code you have (another version, or changed).")
        return 1
    print("Every file is the same as this installation's board.")
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "board-check", help="compare a served board with this installation's, file by file",
        description="Fetch the browser board's files from URL (a relay, a static site "
        "with an exported board, or an invite link: the page it opens) and compare each "
        "file's SHA-256 with this installation's build. Exit status 0 only when all match, "
        "1 when any differs or is missing, 2 when URL cannot be fetched. The part of a "
        "link after '#' is never sent.")
    parser.add_argument("url", metavar="URL", help="a relay, a board's site, or an invite link")
    parser.set_defaults(func=run)
