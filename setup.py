"""Builds the browser board before the Python packages are collected.

Everything else about the distribution is in pyproject.toml. The board is the
TypeScript in client/web, built by ``npm ci && npm run build`` into client/web/dist
(package data of ``client``):

* ``sdist`` builds it first and ships both the sources and the built files
  (MANIFEST.in), so a wheel made from the sdist needs no Node.js;
* ``build_py`` (``pip install .``, wheels, editable installs alike) builds it in a
  source tree, and uses the shipped files when building from an sdist.

An install that can neither build the board nor find it built stops with a message
that says so: pip shows a backend's warnings only under ``-v``, and a gin without
its board serves invite links that open no game. ``GIN_WITHOUT_BOARD=1`` installs
without it on purpose (``gin web`` and the relay then say that there is no board).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "client" / "web"
DIST = WEB / "dist"
# The files relay/static.py serves; a board missing any of them is not built.
BOARD_FILES = ("index.html", "board.js", "board.css", "worker.js", "manifest.webmanifest",
               "icon.svg", "icon-192.png", "icon-512.png", "sw.js")
OPT_OUT = "GIN_WITHOUT_BOARD"


def _board_built() -> bool:
    return all((DIST / name).is_file() for name in BOARD_FILES)


def _cannot(reason: str) -> None:
    """Stop the build over a board it cannot make, unless the user opted out."""
    if os.environ.get(OPT_OUT, "") not in ("", "0"):
        print(f"gin: warning: {reason}; installing without the browser board "
              f"({OPT_OUT} is set)", file=sys.stderr, flush=True)
        return
    raise SystemExit(
        f"gin: {reason}.\nThe browser board (what an invite link opens) needs Node.js 20 "
        f"and npm to build: install them and run the install again, or set {OPT_OUT}=1 "
        "to install without the board.")


def build_board() -> None:
    """Make client/web/dist: from an sdist use the files it ships, else run npm."""
    if (ROOT / "PKG-INFO").is_file() and _board_built():
        return  # an sdist: the board was built when the sdist was made
    if not (WEB / "package.json").is_file():
        if not _board_built():
            _cannot("this copy of gin has neither the browser board nor its sources")
        return
    npm = shutil.which("npm")
    if npm is None:
        if _board_built():
            print(f"gin: warning: npm was not found; using the board already in {DIST}, "
                  "which may be older than its sources", file=sys.stderr, flush=True)
        else:
            _cannot("npm was not found, so the browser board cannot be built")
        return
    for step in (["ci", "--no-audit", "--no-fund"], ["run", "build"]):
        done = subprocess.run([npm, *step], cwd=WEB, check=False)
        if done.returncode != 0:
            _cannot(f"`npm {' '.join(step)}` in {WEB} failed (exit {done.returncode})")
            return


class BuildWithBoard(build_py):
    """``build_py`` that builds the board first, so its files are package data."""

    def run(self) -> None:
        build_board()
        super().run()


class SdistWithBoard(sdist):
    """``sdist`` that ships the built board beside its sources (see MANIFEST.in)."""

    def run(self) -> None:
        build_board()
        super().run()


# The folder must exist when the packages are found, before build_py fills it:
# otherwise a build from a clean tree leaves the board out of the wheel.
DIST.mkdir(parents=True, exist_ok=True)
setup(cmdclass={"build_py": BuildWithBoard, "sdist": SdistWithBoard})
