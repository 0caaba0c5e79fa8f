"""`gin join [LINK]`: take the seat an invite link offers.

The link comes from the argument, else ``$GIN_LINK``, else one line of standard
input (asked for when that is a terminal), so its secret need not sit in shell
history. The table then takes its keys from the terminal, not standard input. A
saved match for the same link is continued (after a crash or a closed terminal).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from client.commands.seat import add_common_arguments, online_settings, open_table, run_bot
from client.net.links import LINK_ENV, InvalidLinkError, parse_invite, read_link
from client.net.lobby import OnlineStart, join
from client.storage import Storage, default_data_dir


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "join", help="join a friend's online match with their invite link",
        description="Join the online match of the invite link a friend sent you (made "
        f"by `gin host`). Without LINK the link is read from ${LINK_ENV}, else from "
        "standard input (you are asked to paste it), which keeps its secret out of shell "
        "history; the table then reads the keyboard from the terminal. Running it again "
        "with the same link continues an interrupted match.")
    parser.add_argument("link", nargs="?", default=None, metavar="LINK",
                        help="the invite link, http[s]://RELAY/j/ROOM#SECRET or a board's "
                        "http[s]://BOARD?relay=RELAY&room=ROOM#SECRET (played on RELAY; "
                        "'-': read it from standard input)")
    parser.add_argument("--accept-rules", action="store_true",
                        help="play the host's rules even when they are custom (not a "
                        "preset). Without it the table shows custom rules and asks; with "
                        "--bot they are printed and the match ends unplayed")
    add_common_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        invite = parse_invite(read_link(args.link, prompt=sys.stderr))
    except InvalidLinkError as exc:
        print(f"gin join: bad invite link: {exc}", file=sys.stderr)
        return 2
    if args.bot is None:
        if args.matches != 1:
            print("gin join: --matches N plays with --bot only", file=sys.stderr)
            return 2
        # The table shows custom rules and asks, unless they were accepted up front.
        return open_table(args, OnlineStart("join", invite=invite,
                                            accept_rules=args.accept_rules or None))
    storage = Storage(args.data_dir or default_data_dir())
    settings = online_settings(args)
    return asyncio.run(run_bot(
        "gin join",
        lambda: join(invite, storage, settings, accept_rules=args.accept_rules),
        args.bot, args.bot_delay, args.matches))
