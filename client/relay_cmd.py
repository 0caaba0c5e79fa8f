"""``gin relay``: run a stand-alone relay (the same program as ``python -m relay``)."""

from __future__ import annotations

import argparse
from typing import Any

from relay.cli import DESCRIPTION, run_from_args
from relay.config import add_arguments


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "relay", help="run a relay for online games", description=DESCRIPTION
    )
    add_arguments(parser)
    parser.set_defaults(func=run_from_args)
