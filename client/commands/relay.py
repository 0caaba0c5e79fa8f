"""``gin relay``: run a stand-alone relay (the same program as ``python -m relay``)."""

from __future__ import annotations

import argparse
from typing import Any

from relay.config import DESCRIPTION, add_arguments


def _run(args: argparse.Namespace) -> int:
    # Imported here: the server pulls in websockets, which `gin` alone never needs.
    from relay.cli import run_from_args

    return run_from_args(args)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "relay", help="run a relay for online games", description=DESCRIPTION
    )
    add_arguments(parser)
    parser.set_defaults(func=_run)
