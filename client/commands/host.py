"""`gin host`: open a room, print the invite link, and play the friend who joins.

With no ``--relay`` an embedded relay runs on this machine for the friend on the
same network. ``--bot LEVEL`` seats a computer player instead of the table; then
the link is the only line on standard output, progress goes to standard error,
and the exit status says how the match ended (see
:func:`client.commands.seat.run_bot`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from client.commands.seat import (
    add_common_arguments,
    online_settings,
    open_table,
    run_bot,
    whole_number,
)
from client.net.links import (
    BARE_RELAY_HELP,
    BOARD_ENV,
    InvalidLinkError,
    Invite,
    page_words,
    parse_board,
    parse_invite,
    parse_relay,
)
from client.net.lobby import OnlineStart, begin, hosted_here
from client.net.peer import OnlineMatch
from client.qr import qr_lines
from client.storage import Storage, default_data_dir
from gin.engine.errors import MalformedInput
from gin.engine.rules import PRESETS


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
        "docs/running-a-relay.md). Run without --relay again after an interruption "
        "and it continues the match it hosts (the table asks first): its relay comes "
        "back at the same address and port with the same key, so your friend's link "
        "works again.")
    parser.add_argument("--relay", default=None, metavar="URL",
                        help="the relay to use, e.g. https://relay.example.org (default: "
                        f"run one here); {BARE_RELAY_HELP}")
    parser.add_argument("--bind", default=None, metavar="ADDR",
                        help="without --relay: the address the embedded relay listens on "
                        "and puts in the link (default: this machine's local-network "
                        "address; 0.0.0.0 listens everywhere and links the network address)")
    parser.add_argument("--port", type=whole_number(0, 65535, "a port number"), default=None,
                        help="without --relay: the embedded relay's port, 0 to 65535 "
                        "(default: a free one)")
    parser.add_argument("--board", default=None, metavar="URL",
                        help="make links that open the board at URL (a published board, "
                        "`gin web --export`, or a friend's own `gin web`) on the relay, so "
                        "that your friend's page comes from neither you nor the relay "
                        f"(default: env {BOARD_ENV}, else the relay's own page)")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="standard",
                        help="the ruleset your friend agrees to (default: standard)")
    parser.add_argument("--target", type=int, default=None, metavar="POINTS",
                        help="play to POINTS (1 to 500) instead of the ruleset's target: "
                        "custom rules, which your friend is shown and accepts first")
    parser.add_argument("--new", action="store_true",
                        help="without --relay: start a new match even when one you host "
                        "here is saved in progress (it stays saved; gin offers it)")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    relay = None
    for flag, value in (("--port", args.port), ("--bind", args.bind)):
        if args.relay is not None and value is not None:
            print(f"gin host: {flag} sets the relay run inside gin host: leave it out with "
                  "--relay", file=sys.stderr)
            return 2
    if args.relay is not None:
        try:
            relay = parse_relay(args.relay).http_url
        except InvalidLinkError as exc:
            print(f"gin host: bad relay address: {exc}", file=sys.stderr)
            return 2
    board_text = args.board if args.board is not None else os.environ.get(BOARD_ENV) or None
    try:
        board = None if board_text is None else parse_board(board_text)
    except InvalidLinkError as exc:
        where = "--board" if args.board is not None else BOARD_ENV
        print(f"gin host: {where}: {exc}", file=sys.stderr)
        return 2
    rules = PRESETS[args.rules]
    if args.target is not None:
        try:
            rules = rules.with_options(name="custom", target=args.target)
        except MalformedInput as exc:
            print(f"gin host: --target: {exc}", file=sys.stderr)
            return 2
    if args.bot is None and args.matches != 1:
        print("gin host: --matches N plays with --bot only", file=sys.stderr)
        return 2
    storage = Storage(args.data_dir or default_data_dir())
    saved = None if relay is not None or args.new else _saved_here(storage)
    spec = OnlineStart("host", relay=relay, bind=args.bind, port=args.port or 0,
                       rules=rules, saved=saved, board=board)
    if args.bot is None:
        return open_table(args, spec)  # the table asks whether to continue the saved one
    if saved is not None:
        print(f"gin host: continuing the match you host, saved in {storage.root} (its "
              "relay is back where your friend's link points; --new starts another)",
              file=sys.stderr)
        spec = OnlineStart("join", invite=saved)
    return asyncio.run(_host_with_bot(args, spec, storage))


def _saved_here(storage: Storage) -> Invite | None:
    """The match in progress hosted here on a relay run inside gin, if any."""
    saved = hosted_here(storage)
    try:
        return None if saved is None else parse_invite(saved.link)
    except InvalidLinkError:
        return None


async def _host_with_bot(args: argparse.Namespace, spec: OnlineStart,
                         storage: Storage) -> int:

    async def start() -> OnlineMatch:
        match = await begin(spec, storage, online_settings(args))
        print(match.invite.url, flush=True)
        print(page_words(match.invite, match.local_relay is not None), file=sys.stderr)
        if sys.stderr.isatty():
            print("\n".join(qr_lines(match.invite.url)), file=sys.stderr)
        return match

    return await run_bot("gin host", start, args.bot, args.bot_delay, args.matches)
