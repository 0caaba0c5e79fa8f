"""The table's keyboard: the terminal, even when standard input was a file or pipe.

Textual reads keys from file descriptor 0. After ``gin join < link.txt`` that is
the link file at its end, which the driver polls in a busy loop while the keys
go unread. So before the table opens, fd 0 is pointed at the controlling
terminal (``/dev/tty``), as ``exec 0</dev/tty`` does in a shell.
"""

from __future__ import annotations

import os
import sys


class NoTerminalError(Exception):
    """There is no terminal to read keys from; ``str()`` says so in plain words."""


def keyboard_from_terminal() -> None:
    """Make fd 0 the controlling terminal if it is not one; NoTerminalError if none."""
    if sys.__stdin__ is not None and sys.__stdin__.isatty():
        return
    try:
        fd = os.open("/dev/tty", os.O_RDWR)
    except OSError as exc:
        raise NoTerminalError(
            "the table needs a terminal for the keyboard, and there is none (standard "
            f"input is not a terminal and /dev/tty cannot be opened: {exc.strerror or exc}). "
            "Run it in a terminal, or let a computer player take the seat with --bot LEVEL."
        ) from None
    os.dup2(fd, 0)
    os.close(fd)
