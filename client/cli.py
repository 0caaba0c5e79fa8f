"""The `gin` command line: one sub-command per module, each registering itself.

Every sub-command lives in its own module of :mod:`client.commands` with two functions:
``register(subparsers)`` adds its parser (and sets ``func``), and the function it
sets receives the parsed arguments and returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that each define `register(subparsers)`; order is the order in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "client.commands.play", "client.commands.web", "client.commands.simulate",
    "client.commands.stats", "client.commands.history", "client.commands.relay",
    "client.commands.audit", "client.commands.host", "client.commands.join",
    "client.commands.board_check")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gin",
        description="Two-player Gin Rummy: play the computer, or a friend online "
        "with a deal neither side can rig. With no command, opens the table.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:  # bare `gin` (options only) opens the table, as `gin play`
        args = parser.parse_args(["play", *(argv or [])])
        func = args.func
    try:
        return int(func(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
