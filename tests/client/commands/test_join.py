"""`gin join` (and `gin play`) at a terminal, as a subprocess on a pseudo-terminal:
the link read from a file or asked for, then the keyboard taken from the terminal,
or a clear refusal when there is no terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.net.links import Invite, RelayAddress, new_secret

TIMEOUT = 30
CTRL_Q = b"\x11"  # Textual's own quit key


def unreachable_link() -> str:
    # Port 9 (discard) on the loopback: nothing listens, so the table shows its error.
    return Invite(RelayAddress("http", "127.0.0.1", 9), "A" * 32, new_secret()).url


class Terminal:
    """A pseudo-terminal that is the child's controlling terminal; stdin may be a file."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.output = bytearray()
        self._lock = threading.Lock()

    def start(self, args: list[str], tmp_path: Path, stdin: int | None = None
              ) -> subprocess.Popen[bytes]:
        slave = self.slave

        def controlling_terminal() -> None:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

        env = {k: v for k, v in os.environ.items() if k != "GIN_LINK"}
        env |= {"TERM": "xterm-256color", "GIN_DATA_DIR": str(tmp_path / "data")}
        process = subprocess.Popen(
            [sys.executable, "-m", "client.cli", *args],
            stdin=self.slave if stdin is None else stdin, stdout=self.slave,
            stderr=self.slave, env=env, pass_fds=(self.slave,),
            preexec_fn=controlling_terminal)
        threading.Thread(target=self._read, daemon=True).start()
        return process

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self.output += chunk

    def wait_for(self, text: bytes) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with self._lock:
                if text in self.output:
                    return
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never appeared; got {bytes(self.output[-500:])!r}")

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> None:
        os.close(self.slave)
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    yield term
    term.close()


def wait(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError("gin join did not exit") from None


def quit_table(terminal: Terminal, process: subprocess.Popen[bytes]) -> int:
    """Press ctrl+q until the table exits (a key typed before the table reads the
    keyboard may be lost), failing when it never reacts."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        terminal.type(CTRL_Q)
        try:
            return process.wait(1)
        except subprocess.TimeoutExpired:
            pass
    process.kill()
    process.wait()
    raise AssertionError("the table never read the keyboard")


ALT_SCREEN = b"\x1b[?1049h"  # the table has opened


def test_a_link_from_a_file_then_the_keyboard_from_the_terminal(
        terminal: Terminal, tmp_path: Path) -> None:
    link_file = tmp_path / "link.txt"
    link_file.write_text(unreachable_link() + "\n")
    with open(link_file, "rb") as stdin:
        process = terminal.start(["join"], tmp_path, stdin=stdin.fileno())
    terminal.wait_for(ALT_SCREEN)
    assert quit_table(terminal, process) == 0


def test_without_a_link_it_asks_for_one(terminal: Terminal, tmp_path: Path) -> None:
    process = terminal.start(["join"], tmp_path)
    terminal.wait_for(b"Paste the invite link")
    terminal.type(unreachable_link().encode() + b"\r")
    terminal.wait_for(ALT_SCREEN)
    assert quit_table(terminal, process) == 0


def test_an_empty_answer_is_a_clear_error(terminal: Terminal, tmp_path: Path) -> None:
    process = terminal.start(["join"], tmp_path)
    terminal.wait_for(b"Paste the invite link")
    terminal.type(b"\r")
    assert wait(process) == 2
    terminal.wait_for(b"no invite link")


def test_no_terminal_for_the_keyboard_is_refused(tmp_path: Path) -> None:
    # A new session has no controlling terminal: /dev/tty cannot be opened.
    result = subprocess.run(
        [sys.executable, "-m", "client.cli", "join"], input=unreachable_link() + "\n",
        capture_output=True, text=True, timeout=TIMEOUT, start_new_session=True,
        env={**os.environ, "GIN_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2
    assert "needs a terminal" in result.stderr and "--bot" in result.stderr
    assert "Traceback" not in result.stderr


def test_gin_play_with_a_file_on_standard_input_reads_the_keyboard(
        terminal: Terminal, tmp_path: Path) -> None:
    # `gin play < file` (or a pipe) used to leave the keys unread: fd 0 was the file.
    with open(os.devnull, "rb") as stdin:
        process = terminal.start(["play", "--vs", "easy", "--seed", "7"], tmp_path,
                                 stdin=stdin.fileno())
    terminal.wait_for(ALT_SCREEN)
    assert quit_table(terminal, process) == 0


def test_gin_play_without_a_terminal_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "client.cli", "play"], stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT, start_new_session=True,
        env={**os.environ, "GIN_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2
    assert result.stderr.startswith("gin play:") and "needs a terminal" in result.stderr
    assert "Traceback" not in result.stderr
