"""``gin web``: serve the browser board on this machine and print its address, or
(``--export DIR``) write it as a static site for any static host.

The board is served by a relay listening on 127.0.0.1 only (the same program as
``gin relay``). The board itself runs in the browser: this command only hands out
its files. An export is the same files, byte for byte, and ``SHA256SUMS`` (the
format ``sha256sum -c`` checks) naming each one's digest.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import webbrowser
from pathlib import Path
from typing import Any

from relay.config import port_number

DEFAULT_PORT = 8766  # fixed, so a match kept in the browser is found again next time


#: The export's manifest: one line per file, its SHA-256 and its name (sha256sum's format).
MANIFEST = "SHA256SUMS"


def not_built(command: str) -> str:
    """What to say when the board was never built here."""
    from relay import static

    return (f"{command}: the browser board is not built ({static.BOARD_DIR} has no "
            "index.html).\nIt is built when gin is installed on a machine with Node.js and "
            "npm; install them, then run `pip install -e .` again (or `npm ci && npm run "
            "build` in client/web).")


def export(folder: Path) -> int:
    """Write the board's files and their manifest into ``folder``. A folder that holds
    anything else than an earlier export is refused, so nothing is overwritten that
    this command did not write; each file is written whole (a temporary, then renamed)."""
    from relay import static

    board = static.load_board()
    if not board.built:
        print(not_built("gin web"), file=sys.stderr)
        return 1
    ours = {*static.FILES, MANIFEST}
    written: list[str] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        others = sorted(p.name for p in folder.iterdir() if p.name not in ours)
        if others:
            print(f"gin web: {folder} holds other files ({', '.join(others[:5])}): export "
                  "into an empty folder, or one an earlier export wrote. Nothing was written.",
                  file=sys.stderr)
            return 1
        digests = board.digests() or {}
        manifest = "".join(f"{digests[name]}  {name}\n" for name in static.FILES)
        for name, body in [*((n, board.files["/" + n][0]) for n in static.FILES),
                           (MANIFEST, manifest.encode())]:
            part = folder / f".{name}.part"
            try:
                part.write_bytes(body)
            except OSError:
                with contextlib.suppress(OSError):  # a full disk: leave no half file
                    part.unlink(missing_ok=True)
                raise
            part.replace(folder / name)
            written.append(name)
    except OSError as exc:
        done = (f"Of the board's {len(static.FILES) + 1} files, {len(written)} "
                f"({', '.join(written)}) were written whole; run the export again."
                if written else "Nothing was written.")
        print(f"gin web: cannot write the board into {folder}: {exc.strerror or exc} "
              f"({exc.filename or folder}). {done}", file=sys.stderr)
        return 1
    print(f"The board is in {folder}: {', '.join(static.FILES)} and {MANIFEST}.\n"
          "Publish the folder on any static host (docs/running-a-relay.md, A board of "
          "your own), then make links to it with gin host --board URL.")
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.export is not None:
        return export(args.export)
    # Imported here: the server pulls in websockets, which `gin` alone never needs.
    import asyncio

    from relay import static
    from relay.cli import run
    from relay.config import RelayConfig
    from relay.logs import configure
    from relay.server import Relay

    if not static.load_board().built:
        print(not_built("gin web"), file=sys.stderr)
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
        "Friend online hosts a match on any relay (give its address in the host window), "
        "and Join with a link plays any invite link here: the code that holds your cards "
        "then comes from this computer, whatever the relay.",
    )
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="N",
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--open", action="store_true",
                        help="also open the board in the default web browser")
    parser.add_argument("--export", type=Path, default=None, metavar="DIR",
                        help=f"instead of serving it, write the board into DIR as a static "
                        f"site (its files and {MANIFEST}, their SHA-256) to publish on any "
                        "static host; links open it with gin host --board URL")
    parser.set_defaults(func=_run)
