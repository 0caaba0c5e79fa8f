"""A release carries the board: `python -m build` from a clean copy of the project makes
an sdist with the board's sources and its built files, and a wheel made from that
sdist on a machine with no Node.js still carries (and serves) the board. (The
editable install runs the same hook: in CI every browser test uses the board that
`pip install -e '.[dev]'` built.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path

import pytest

# Every test here takes seconds: whole matches through Pilot, a relay, a browser or
# a subprocess.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# What a fresh checkout does not have: builds, environments, caches.
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv", ".ci-venv", "node_modules", "dist", "build", "*.egg-info", "__pycache__",
    ".*_cache", ".hypothesis", "artifacts")
BOARD = ("index.html", "board.js", "board.css", "worker.js", "manifest.webmanifest", "icon.svg",
         "icon-192.png", "icon-512.png", "sw.js")


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False,
                          **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


def _no_node_env(tmp_path: Path) -> dict[str, str]:
    """This environment with only Python on PATH: no node, no npm."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = str(bin_dir)
    return env


def test_a_release_carries_the_board_even_where_node_is_missing(
        npm: str, tmp_path: Path) -> None:
    tree = tmp_path / "gin"
    shutil.copytree(ROOT, tree, ignore=LEFT_OUT)
    assert not (tree / "client" / "web" / "dist").exists()

    _run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path / "sdist"),
          str(tree)])
    (sdist,) = (tmp_path / "sdist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in BOARD:
        assert f"client/web/dist/{name}" in names
    assert {"client/web/package.json", "client/web/package-lock.json",
            "client/web/src/board/main.ts"} <= names
    assert not any("node_modules" in n for n in names)

    no_node = _no_node_env(tmp_path)
    assert shutil.which("npm", path=no_node["PATH"]) is None
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
          str(tmp_path / "wheel"), str(sdist)], env=no_node)
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    for name in BOARD:
        assert f"client/web/dist/{name}" in in_wheel
    assert not any("node_modules" in n or n.startswith("client/web/src") for n in in_wheel)
    # The relay's test helpers live in tests/support (issue 29 item 6): none ship.
    assert not any(n.startswith(("tests/", "relay/testing", "relay/cluster")) for n in in_wheel)
    assert {n.split("/")[0] for n in in_wheel if "/" in n and ".dist-info" not in n} == {
        "gin", "relay", "client"}

    # Installed from the wheel, the relay serves that board.
    site = tmp_path / "site"
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
          str(site), str(wheel)])
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = _run([sys.executable, "-c", "from relay import static; print(static.BOARD_DIR)"],
                 env=env, cwd=tmp_path).stdout.strip()
    assert Path(where) == site / "client" / "web" / "dist"
    proc = subprocess.Popen(
        [sys.executable, "-m", "relay", "--host", "127.0.0.1", "--port", "0",
         "--key-file", str(tmp_path / "key")],
        env=env, cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        port = next(entry["port"] for entry in map(json.loads, proc.stderr)
                    if entry.get("event") == "relay_started")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/board.js", timeout=10) as reply:
            assert reply.read() == (site / "client" / "web" / "dist" / "board.js").read_bytes()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_an_install_that_cannot_build_the_board_says_so(tmp_path: Path) -> None:
    """No npm and no built board: the build stops and says why, in words pip shows
    without -v (a warning alone would scroll by unseen); GIN_WITHOUT_BOARD=1 opts out."""
    tree = tmp_path / "gin"
    shutil.copytree(ROOT, tree, ignore=LEFT_OUT)
    no_node = _no_node_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "w"),
         str(tree)], env=no_node, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode != 0
    assert "npm was not found, so the browser board cannot be built" in done.stdout + done.stderr
    assert "GIN_WITHOUT_BOARD=1" in done.stdout + done.stderr

    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
          str(tmp_path / "w"), str(tree)], env={**no_node, "GIN_WITHOUT_BOARD": "1"})
    (wheel,) = (tmp_path / "w").glob("*.whl")
    assert not any(n.startswith("client/web/dist/") and n.endswith(".js")
                   for n in zipfile.ZipFile(wheel).namelist())


def test_two_clean_builds_of_the_board_are_byte_identical(npm: str, tmp_path: Path) -> None:
    """The board's build is reproducible (issue 27): built twice from the same sources, in
    two folders at different paths, every file is the same byte for byte, so `gin
    board-check` can compare a served board with a build of the release's sources."""
    web = ROOT / "client" / "web"
    if not (web / "node_modules").exists():
        pytest.skip("client/web has no node_modules (run npm ci there)")
    built: list[dict[str, bytes]] = []
    for name in ("first", "second/deeper"):
        copy = tmp_path / name / "web"
        shutil.copytree(web, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
        (copy / "node_modules").symlink_to(web / "node_modules")
        _run([npm, "run", "build"], cwd=copy)
        built.append({path.name: path.read_bytes() for path in (copy / "dist").iterdir()})
    assert sorted(built[0]) == sorted(BOARD)
    assert built[0] == built[1]
