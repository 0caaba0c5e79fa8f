"""Builds the browser board before the Python packages are collected.

Everything else about the distribution is in pyproject.toml. ``build_py`` runs for
``pip install .``, for wheels and for editable installs (PEP 660) alike, so the
README's ``pip install -e '.[dev]'`` also builds the board: ``npm ci`` then
``npm run build`` in client/web, which writes client/web/dist (package data of
``client``). Without npm the board is skipped with a warning and the rest
installs; ``gin web`` then says how to build it. In CI (``CI=true``) a board that
cannot be built fails the install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

WEB = Path(__file__).resolve().parent / "client" / "web"


def _warn(text: str) -> None:
    print(f"gin: warning: {text}", file=sys.stderr, flush=True)


def build_board() -> None:
    """Run ``npm ci && npm run build`` in client/web (a warning if that cannot be done)."""
    if not (WEB / "package.json").is_file():
        return  # an sdist without the TypeScript sources: nothing to build
    npm = shutil.which("npm")
    required = os.environ.get("CI", "").lower() == "true"
    if npm is None:
        message = ("npm was not found, so the browser board (gin web) is not built; "
                   "install Node.js and npm, then install gin again")
        if required:
            raise SystemExit(f"gin: {message}")
        _warn(message)
        return
    for step in (["ci", "--no-audit", "--no-fund"], ["run", "build"]):
        done = subprocess.run([npm, *step], cwd=WEB, check=False)
        if done.returncode != 0:
            message = (f"`npm {' '.join(step)}` in {WEB} failed (exit {done.returncode}), "
                       "so the browser board (gin web) is not built")
            if required:
                raise SystemExit(f"gin: {message}")
            _warn(message)
            return


class BuildWithBoard(build_py):
    """``build_py`` that builds the board first, so its files are package data."""

    def run(self) -> None:
        build_board()
        super().run()


if (WEB / "package.json").is_file():
    # The folder must exist when the packages are found, before build_py fills it:
    # otherwise a build from a clean tree leaves the board out of the wheel.
    (WEB / "dist").mkdir(exist_ok=True)
setup(cmdclass={"build_py": BuildWithBoard})
