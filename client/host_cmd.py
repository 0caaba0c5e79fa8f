"""`gin host`: open a room, print the invite link, and play the friend who joins.

With no ``--relay`` an embedded relay runs on this machine for the friend on the
same network. ``--bot LEVEL`` seats a computer player instead of the table; then
the link is the only line on standard output, progress goes to standard error,
and the exit status says how the match ended (see :func:`run_bot`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from client import online
from client.keyboard import NoTerminalError, keyboard_from_terminal
from client.qr import qr_lines
from client.storage import Storage, StorageError, default_data_dir
from client.text import plain
from client.transport import TransportError, TransportSettings
from gin.engine.rules import PRESETS
from gin.players import NAMES

DATA_DIR_HELP = ("where hand records and the match in progress are saved (default: "
                 "$GIN_DATA_DIR, else $XDG_DATA_HOME/gin, else ~/.local/share/gin)")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `gin host` and `gin join` share."""
    parser.add_argument("--bot", choices=NAMES, metavar="LEVEL", default=None,
                        help="let a computer player (easy, normal, hard, simple, random) take "
                        "your seat, without the table; exits 0 when the match ends, 1 on any "
                        "failure")
    parser.add_argument("--bot-delay", type=float, default=0.3, metavar="SECONDS",
                        help="the computer player's pause before each move (default: 0.3)")
    parser.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    parser.add_argument("--give-up-after", type=_seconds, default=GIVE_UP_AFTER,
                        metavar="SECONDS",
                        help="when the connection to the relay is lost, keep trying to "
                        "reconnect this long, then end the match (exit status 1 with --bot) "
                        f"(default: {GIVE_UP_AFTER:g})")


GIVE_UP_AFTER = TransportSettings().give_up_after or 300.0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def online_settings(args: argparse.Namespace) -> online.OnlineSettings:
    """The online timers the command line chose."""
    return online.OnlineSettings(transport=TransportSettings(give_up_after=args.give_up_after))


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "host", help="invite a friend to play online: prints a link to send them",
        description="Open a room for an online match and print the invite link to send "
        "your friend, who opens it in a browser (nothing to install) or runs "
        "`gin join LINK`. The part of the link after '#' is the match's secret: it never "
        "reaches the relay, and whoever has the link can take the seat, so send it "
        "privately. With no --relay, a relay runs inside this command on this machine's "
        "local-network address (see --bind), so the link works for a friend on the same "
        "network; for a friend elsewhere give a public relay with --relay (see "
        "docs/running-a-relay.md).")
    parser.add_argument("--relay", default=None, metavar="URL",
                        help="the relay to use, e.g. https://relay.example.org (default: "
                        "run one here)")
    parser.add_argument("--bind", default=None, metavar="ADDR",
                        help="without --relay: the address the embedded relay listens on "
                        "and puts in the link (default: this machine's local-network "
                        "address; 0.0.0.0 listens everywhere and links the network address)")
    parser.add_argument("--port", type=int, default=0,
                        help="without --relay: the embedded relay's port (default: a free one)")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="standard",
                        help="the ruleset your friend agrees to (default: standard)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    spec = online.OnlineStart("host", relay=args.relay, bind=args.bind, port=args.port,
                              rules=PRESETS[args.rules])
    if args.bot is None:
        return open_table(args, spec)
    return asyncio.run(_host_with_bot(args, spec))


async def _host_with_bot(args: argparse.Namespace, spec: online.OnlineStart) -> int:
    storage = Storage(args.data_dir or default_data_dir())

    async def start() -> online.OnlineMatch:
        match = await online.begin(spec, storage, online_settings(args))
        print(match.invite.url, flush=True)
        if sys.stderr.isatty():
            print("\n".join(qr_lines(match.invite.url)), file=sys.stderr)
        return match

    return await run_bot("gin host", start, args.bot, args.bot_delay)


async def run_bot(prog: str, start: Callable[[], Awaitable[online.OnlineMatch]], level: str,
                  delay: float) -> int:
    """Start a match, let computer player ``level`` play it; 0 when it ended normally."""
    from gin import players

    try:
        match = await start()
    except TransportError as exc:
        print(f"{prog}: cannot use the relay: {exc.reason}", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the embedded relay could not listen
        print(f"{prog}: cannot start a relay here: {exc}", file=sys.stderr)
        return 1
    match.listen(lambda update: _report(prog, update))
    bot = asyncio.create_task(online.play_bot(match, players.get(level, random.Random()),
                                              delay))
    try:
        await match.run()
    finally:
        bot.cancel()
    line = online.outcome_line(match)
    print(f"{prog}: {plain(line)}", file=sys.stderr)  # it may quote the peer
    # A hand verified but not recorded cannot be audited later: not a clean end.
    failed = match.failure is not None or match.result is None or match.unrecorded
    return 1 if failed else 0


def _report(prog: str, update: online.Update) -> None:
    """Progress on standard error: the connection and each verified hand."""
    from gin.protocol.session_events import HandVerified, RulesOffered

    if isinstance(update, online.LinkChanged):
        detail = f" ({plain(update.detail)})" if update.detail else ""
        print(f"{prog}: {update.link.value}{detail}", file=sys.stderr)
    elif isinstance(update, RulesOffered):
        rules = "\n  ".join(plain(update.rules.describe(), lines=True).splitlines())
        print(f"{prog}: the host proposes custom rules:\n  {rules}", file=sys.stderr)
    elif isinstance(update, HandVerified):
        print(f"{prog}: hand {update.hand_number}: deck verified", file=sys.stderr)
    elif isinstance(update, online.Notice):
        print(f"{prog}: {plain(update.text)}", file=sys.stderr)


def open_table(args: argparse.Namespace, start: online.OnlineStart) -> int:
    """The table, connecting as ``start`` says at once."""
    from client.app import AppConfig, make_app

    try:
        keyboard_from_terminal()
    except NoTerminalError as exc:
        print(f"gin {args.command}: {exc}", file=sys.stderr)
        return 2
    storage = Storage(args.data_dir or default_data_dir())
    app = make_app(AppConfig(storage=storage, online=start, offer_resume=False,
                             online_settings=online_settings(args)))
    app.run()
    return 0 if app.return_code is None else app.return_code
