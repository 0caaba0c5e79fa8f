"""A wheel built from a clean copy of the project carries the built board, so whoever
installs it needs no Node.js. (The editable install runs the same hook: in CI every
browser test uses the board that `pip install -e '.[dev]'` built.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a fresh checkout does not have: builds, environments, caches.
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv", ".ci-venv", "node_modules", "dist", "build", "*.egg-info", "__pycache__",
    ".*_cache", ".hypothesis", "artifacts")


def test_a_wheel_built_from_a_clean_tree_carries_the_board(npm: str, tmp_path: Path) -> None:
    tree = tmp_path / "gin"
    shutil.copytree(ROOT, tree, ignore=LEFT_OUT)
    assert not (tree / "client" / "web" / "dist").exists()
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path),
         str(tree)],
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("index.html", "board.js", "board.css"):
        assert f"client/web/dist/{name}" in names
    assert not any("node_modules" in n or n.startswith("client/web/src") for n in names)
