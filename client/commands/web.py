"""``gin web``: serve the browser board on this machine and print its address.

The board is served by a relay listening on 127.0.0.1 only (the same program as
``gin relay``), so the page and any later online play share one origin. The board
itself runs in the browser: this command only hands out its files.
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from typing import Any

from relay.config import port_number

DEFAULT_PORT = 8766  # fixed, so a match kept in the browser is found again next time


def _run(args: argparse.Namespace) -> int:
    # Imported here: the server pulls in websockets, which `gin` alone never needs.
    import asyncio

    from relay import static
    from relay.cli import run
    from relay.config import RelayConfig
    from relay.logs import configure
    from relay.server import Relay

    if not static.load_board().built:
        print(
            f"gin web: the browser board is not built ({static.BOARD_DIR} has no index.html).\n"
            "It is built when gin is installed on a machine with Node.js and npm; "
            "install them, then run `pip install -e .` again (or `npm ci && npm run build` "
            "in client/web).",
            file=sys.stderr,
        )
        return 1

    def started(relay: Relay) -> None:
        url = f"http://127.0.0.1:{relay.port}/"
        print(f"The board is at {url}  (Ctrl+C to stop)", flush=True)
        if args.open:
            webbrowser.open(url)

    configure("warning")  # the relay's JSON log lines are for operators, not players
    try:
        asyncio.run(run(RelayConfig(host="127.0.0.1", port=args.port), started))
    except OSError as exc:  # typically the port is taken
        print(f"gin web: cannot listen on 127.0.0.1:{args.port}: {exc}\n"
              "Choose another port with --port N (0 picks a free one).", file=sys.stderr)
        return 1
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "web",
        help="play in the browser: serve the board on this machine",
        description="Serve the browser board on 127.0.0.1 and print its address; open it "
        "and play the computer in the page. The match in progress is kept by the "
        "browser, so reloading the page (or coming back to the same address) continues it. "
        "Friend online hosts a match through this same server, which only this computer "
        "can reach: for a friend elsewhere, open the board from a relay they can reach "
        "(`gin relay --host 0.0.0.0` on your network, or a public relay).",
    )
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="N",
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--open", action="store_true",
                        help="also open the board in the default web browser")
    parser.set_defaults(func=_run)
