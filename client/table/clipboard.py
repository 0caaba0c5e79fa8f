"""Copying text to the clipboard, and knowing whether it worked.

A terminal app can ask the terminal to copy (OSC 52), but nothing tells it whether
the terminal did. A clipboard program on this machine (pbcopy, wl-copy, xclip,
xsel, clip.exe) reports success, so only its success is called "copied".
"""

from __future__ import annotations

import shutil
import subprocess

#: Clipboard programs, tried in order: the command line that reads the text on stdin.
PROGRAMS: tuple[tuple[str, ...], ...] = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
    ("clip.exe",),
)


def copy_with_program(text: str) -> bool:
    """Copy ``text`` with the first clipboard program that succeeds; False if none
    is installed or none could reach a clipboard (no display, for example)."""
    for command in PROGRAMS:
        path = shutil.which(command[0])
        if path is None:
            continue
        try:
            done = subprocess.run([path, *command[1:]], input=text.encode(), timeout=3,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return True
    return False
