"""The commands as a person meets them, run as subprocesses: `gin simulate --help`
and its progress bar, `gin audit` given the wrong kind of file, and `gin join`
with an https link to a relay that serves http or over a damaged save."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from client.cli import main
from client.commands.simulate import Progress
from client.net.links import Invite, RelayAddress, new_secret
from client.net.store import MatchFiles
from client.storage import Storage
from client.table.controller import Game
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.session.session import Session
from relay.server import serve
from tests.support.relay import TEST_CONFIG

TIMEOUT = 60


def gin(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "client.cli", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, check=False, **kwargs)  # type: ignore[call-overload]


def test_simulate_help_prints_a_plain_percent_sign() -> None:
    result = gin("simulate", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "95% Wilson interval" in text and "%%" not in result.stdout


# -- the progress bar --------------------------------------------------------------


def test_simulate_at_a_terminal_shows_progress_on_stderr_only() -> None:
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "client.cli", "simulate", "--players", "easy,simple",
             "--matches", "3", "--json"], stdout=subprocess.PIPE, stderr=slave)
        out, _ = process.communicate(timeout=TIMEOUT)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end is closed: all was read
                break
            if not chunk:
                break
            err += chunk
    finally:
        os.close(master)
    assert process.returncode == 0
    assert json.loads(out)["matches"] == 3  # standard output is the JSON alone
    assert b"3/3 matches" in err and b"[#####" in err


def test_simulate_not_at_a_terminal_writes_nothing_on_stderr() -> None:
    result = gin("simulate", "--players", "easy,simple", "--matches", "2")
    assert result.returncode == 0 and result.stderr == ""
    assert "easy vs simple: 2 matches" in result.stdout


def test_the_bar_estimates_the_time_left_and_is_not_redrawn_too_often() -> None:
    class Stream:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

    now = [100.0]
    stream = Stream()
    bar = Progress(400, stream, clock=lambda: now[0])  # type: ignore[arg-type]
    now[0] += 30.0
    bar.update(100)
    assert "100/400 matches, 0:30, about 1:30 left" in stream.text
    now[0] += 0.1
    bar.update(101)  # too soon after the last drawing
    assert "101/400" not in stream.text
    now[0] += 3570.0
    bar.update(400)  # the last match is always drawn, without an estimate
    assert stream.text.endswith("] 400/400 matches, 1:00:00\x1b[K\n")


# -- gin audit given another of gin's files ------------------------------------------


def test_audit_of_a_hand_played_against_the_computer_says_what_the_file_is(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    game = Game(STANDARD, "easy", random.Random(1), storage)
    player = get("easy", random.Random(2))
    while not list(storage.hands_dir.glob("*.json")):
        if game.match.needs_deal:
            game.next_hand()
        elif legal := game.legal():  # the person's turn
            game.play(player.choose(game.observation(), legal))
        else:
            game.apply_opponent(game.opponent_move())
    hand = storage.hands_dir / "000001.json"
    result = gin("audit", str(hand))
    assert result.returncode == 2
    assert "unexpected field" not in result.stderr
    assert "hand played against the computer" in result.stderr
    assert "records/" in result.stderr and "online" in result.stderr

    result = gin("audit", str(storage.match_path))
    assert result.returncode == 2
    assert "saved match in progress, not a hand record" in result.stderr


# -- gin join over https to a relay without TLS ---------------------------------------


async def test_join_with_an_https_link_to_an_http_relay_names_the_cause(
        tmp_path: Path) -> None:
    relay = await serve(replace(TEST_CONFIG, key_file=tmp_path / "relay.key"))
    try:
        link = Invite(RelayAddress("https", "127.0.0.1", relay.port), "A" * 32,
                      new_secret()).url
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.cli", "join", "--bot", "easy", "--data-dir",
            str(tmp_path / "guest"), link, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(TIMEOUT):
            _, err = await process.communicate()
    finally:
        await relay.close()
    message = err.decode()
    assert process.returncode == 1
    assert "cannot reach relay: " in message and "cannot reach relay: \n" not in message
    assert "https" in message and "use the link with http://" in message


async def test_join_with_nothing_listening_says_connection_refused(tmp_path: Path) -> None:
    link = Invite(RelayAddress("http", "127.0.0.1", 9), "A" * 32, new_secret()).url
    result = await asyncio.to_thread(
        gin, "join", "--bot", "easy", "--data-dir", str(tmp_path), link)
    assert result.returncode == 1
    assert "cannot reach relay: connection refused" in result.stderr


# -- a damaged online save -------------------------------------------------------------


def test_join_over_a_damaged_online_save_refuses_it_and_blames_no_one(tmp_path: Path) -> None:
    invite = Invite(RelayAddress("http", "127.0.0.1", 9), "A" * 32, new_secret())
    files = MatchFiles(Storage(tmp_path), invite)
    files.save(Session("guest", invite.secret, None, os.urandom, b"g" * 32), "token")
    raw = bytearray(files.state_path.read_bytes())
    raw[raw.index(b'"session": "') + 30] ^= 1  # one bit of one byte
    files.state_path.write_bytes(bytes(raw))
    result = gin("join", "--bot", "easy", "--data-dir", str(tmp_path), invite.url)
    assert result.returncode == 1
    assert "The saved online match" in result.stderr and "moved to" in result.stderr
    assert "Traceback" not in result.stderr
    assert not any(w in result.stderr.lower() for w in ("cheat", "fault", "host", "guest"))
    assert list(files.state_path.parent.glob("*.damaged-*"))


def test_play_pause_sets_the_computers_wait_and_refuses_nonsense(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`gin play --pause S`: the computer's wait (the undo's window), 0 to 10 seconds."""
    import client.commands.play as play_command
    import client.table.app as table_app

    seen: list[float] = []

    class App:
        return_code = None

        def run(self) -> None:
            pass

    def make_app(config: object) -> App:
        seen.append(config.delay)
        return App()

    monkeypatch.setattr(play_command, "keyboard_from_terminal", lambda: None)
    monkeypatch.setattr(table_app, "make_app", make_app)
    assert main(["play", "--pause", "2.5", "--data-dir", str(tmp_path)]) == 0
    assert main(["play", "--data-dir", str(tmp_path)]) == 0
    assert seen == [2.5, 0.7]
    for bad in ("11", "-1", "nan", "soon"):
        with pytest.raises(SystemExit) as exit_:
            main(["play", "--pause", bad])
        assert exit_.value.code == 2
        assert f"expected seconds from 0 to 10, got '{bad}'" in capsys.readouterr().err
