"""What `gin host` and `gin join` share: their common options, and who takes the
seat once the match starts, the table or a computer player (``--bot``).

With ``--bot`` progress goes to standard error and the exit status says how the
match ended (see :func:`run_bot`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from client.net.lobby import HostGoneError, LocalRelayError, OnlineStart
from client.net.peer import (
    LinkChanged,
    Notice,
    OnlineMatch,
    OnlineSettings,
    Update,
    outcome_line,
    play_bot,
)
from client.net.relay_events import TransportError
from client.net.transport import TransportSettings
from client.storage import DATA_DIR_DEFAULT, Storage, StorageError, default_data_dir
from client.table.keyboard import NoTerminalError, keyboard_from_terminal
from client.text import plain
from gin.players import NAMES
from relay.wire import Close

DATA_DIR_HELP = ("where hand records and the match in progress are saved (default: "
                 f"{DATA_DIR_DEFAULT})")
GIVE_UP_AFTER = TransportSettings().give_up_after or 300.0
N = TypeVar("N", int, float)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `gin host` and `gin join` share."""
    parser.add_argument("--bot", choices=NAMES, metavar="LEVEL", default=None,
                        help="let a computer player (easy, normal, hard, simple, random) take "
                        "your seat, without the table; exits 0 when the match ends, 1 on any "
                        "failure")
    parser.add_argument("--matches", type=whole_number(1, 1000, "a number of matches"),
                        default=1, metavar="N",
                        help="with --bot: play N matches in a row on the one link, each "
                        "next one a rematch both sides accept (the loser of a match deals "
                        "first in the next); exits 0 when all N ended normally (default: 1)")
    parser.add_argument("--bot-delay", type=_delay, default=0.3, metavar="SECONDS",
                        help="the computer player's pause before each move (default: 0.3)")
    parser.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    parser.add_argument("--give-up-after", type=_seconds, default=GIVE_UP_AFTER,
                        metavar="SECONDS",
                        help="when the connection to the relay is lost, keep trying to "
                        "reconnect this long, then end the match (exit status 1 with --bot) "
                        f"(default: {GIVE_UP_AFTER:g})")
    parser.add_argument("--grace", type=_seconds, default=None, metavar="SECONDS",
                        help="how long your friend may owe something (a move, a key, a seed) "
                        "before the table asks whether to end the match as abandoned by them "
                        "(--bot: ends it at once); default 180 for what their program sends, "
                        "900 for a move")


def _number(text: str, kind: Callable[[str], N], what: str) -> N:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def _seconds(text: str) -> float:
    value = _number(text, float, "seconds")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _delay(text: str) -> float:
    value = _number(text, float, "seconds")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def whole_number(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (``what``: its name)."""

    def parse(text: str) -> int:
        value = _number(text, int, what)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {value}")
        return value

    return parse


def online_settings(args: argparse.Namespace) -> OnlineSettings:
    """The online timers the command line chose."""
    transport = TransportSettings(give_up_after=args.give_up_after)
    if args.grace is None:
        return OnlineSettings(transport=transport)
    return OnlineSettings(reply_timeout=args.grace, move_timeout=args.grace, transport=transport)


async def run_bot(prog: str, start: Callable[[], Awaitable[OnlineMatch]], level: str,
                  delay: float, matches: int = 1) -> int:
    """Start a match, let computer player ``level`` play it and ``matches`` - 1 rematches
    after it; 0 when all ended normally."""
    from gin import players

    try:
        match = await start()
    except TransportError as exc:
        # A taken seat is not the relay's failing: its words say what happened.
        # (Nor is a host gone with the relay it ran.)
        plainly = exc.code == Close.SEAT_TAKEN or isinstance(exc, HostGoneError)
        said = exc.reason if plainly else f"cannot use the relay: {exc.reason}"
        print(f"{prog}: {said}", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except LocalRelayError as exc:  # a saved match's relay cannot come back: it says why
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the embedded relay could not listen
        print(f"{prog}: cannot start a relay here: {exc}", file=sys.stderr)
        return 1
    match.listen(lambda update: _report(prog, update))
    match.rematches.wanted = matches - 1
    bot = asyncio.create_task(play_bot(match, players.get(level, random.Random()), delay))
    try:
        await match.run()
    finally:
        bot.cancel()
    line = outcome_line(match)
    # After a rematch the line is the last match's: say which (its hands alone counted).
    number = match.rematches.finished + (match.result is None or match.result.totals is None)
    which = f"match {number}: " if number > 1 else ""
    print(f"{prog}: {which}{plain(line)}", file=sys.stderr)  # it may quote the peer
    # A hand verified but not recorded cannot be audited later: not a clean end.
    failed = match.failure is not None or match.result is None or match.unrecorded
    if matches > 1:
        print(f"{prog}: {match.rematches.finished} of {matches} matches played",
              file=sys.stderr)
    return 1 if failed or match.rematches.finished < matches else 0


def _report(prog: str, update: Update) -> None:
    """Progress on standard error: the connection and each verified hand."""
    from gin.protocol.session.events import HandVerified, RulesOffered

    if isinstance(update, LinkChanged):
        detail = f" ({plain(update.detail)})" if update.detail else ""
        print(f"{prog}: {update.link.value}{detail}", file=sys.stderr)
    elif isinstance(update, RulesOffered):
        rules = "\n  ".join(plain(update.rules.describe(), lines=True).splitlines())
        print(f"{prog}: the host proposes custom rules:\n  {rules}", file=sys.stderr)
    elif isinstance(update, HandVerified):
        print(f"{prog}: hand {update.hand_number}: deck verified", file=sys.stderr)
    elif isinstance(update, Notice):
        print(f"{prog}: {plain(update.text)}", file=sys.stderr)


def open_table(args: argparse.Namespace, start: OnlineStart) -> int:
    """The table, connecting as ``start`` says at once."""
    from client.table.app import make_app
    from client.table.config import AppConfig

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
