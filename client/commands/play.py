"""`gin play`: the table against the computer (also what bare `gin` opens)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from client.storage import DATA_DIR_DEFAULT, Storage, default_data_dir
from client.table.controller import STRENGTHS
from client.table.keyboard import NoTerminalError, keyboard_from_terminal
from gin.engine.rules import PRESETS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play", help="play Gin Rummy against the computer (the default)",
        description="Open the Gin Rummy table against the computer. A match in progress "
        "is saved after every move; starting again offers to continue it.")
    parser.add_argument("--vs", choices=[key for key, _ in STRENGTHS], default=None,
                        help="the computer's strength (default: normal); with a match "
                        "in progress, the table asks which to play")
    parser.add_argument("--rules", choices=sorted(PRESETS), default=None,
                        help="the ruleset (default: standard); with a match in progress, "
                        "the table asks which to play")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed the shuffle, for a repeatable match")
    parser.add_argument("--pause", type=_pause, default=0.7, metavar="SECONDS",
                        help="how long the computer waits before each of its moves, 0 to 10 "
                        "(default: 0.7); until it looks, u takes your throw back")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where hands, your record and the match in progress are saved "
                        "(default: "
                        f"{DATA_DIR_DEFAULT})")
    parser.set_defaults(func=run)


def _pause(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 10:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 10, got {text!r}")
    return seconds


def run(args: argparse.Namespace) -> int:
    # Textual is imported here, not at module level, so `gin --help` stays quick.
    from client.table.app import make_app
    from client.table.config import AppConfig

    try:
        keyboard_from_terminal()  # `gin play < file` would leave the keys unread
    except NoTerminalError as exc:
        print(f"gin play: {exc}", file=sys.stderr)
        return 2
    storage = Storage(args.data_dir or default_data_dir())
    rng = random.Random(args.seed)
    chosen = args.vs is not None or args.rules is not None
    app = make_app(AppConfig(storage=storage, rules=PRESETS[args.rules or "standard"],
                             vs=args.vs or "normal", rng=rng, chosen=chosen,
                             delay=args.pause))
    app.run()
    return 0 if app.return_code is None else app.return_code

