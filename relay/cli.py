"""Command line for a stand-alone relay: ``gin relay`` and ``python -m relay``."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Callable, Sequence

from relay.config import (
    DESCRIPTION,
    ConfigError,
    RelayConfig,
    add_arguments,
    config_from_args,
)
from relay.logs import configure, event
from relay.roomid import KeyFileError
from relay.server import Relay, serve


async def run(config: RelayConfig, started: Callable[[Relay], None] | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then close every connection with 1001.

    ``started`` is called once the relay listens (``gin web`` prints its address).
    """
    relay = await serve(config)
    if started is not None:
        started(relay)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
        event("signal_received")
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await relay.close()


def run_from_args(args: argparse.Namespace) -> int:
    """Entry point shared by both command lines; returns the exit status."""
    try:
        config = config_from_args(args)
        configure(config.log_level)
        asyncio.run(run(config))
    except (ConfigError, KeyFileError) as exc:
        print(f"gin relay: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # typically the port is taken or not ours to bind
        print(f"gin relay: cannot listen: {exc}", file=sys.stderr)
        return 1
    return 0


def build_parser(prog: str = "python -m relay") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_from_args(build_parser().parse_args(argv))
