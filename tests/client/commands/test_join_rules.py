"""`gin join --bot` and a host's custom rules: shown, then played only when accepted.

The host runs in this process (no command offers custom rules); the guest is the
real command in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from pathlib import Path

import pytest

from client.net import lobby, peer
from client.storage import Storage
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.session.events import PeerAborted

HOUSE = STANDARD.with_options(name="house", gin_bonus=30, target=20)
TIMEOUT = 90


async def relay_port(process: asyncio.subprocess.Process) -> int:
    assert process.stderr is not None
    async with asyncio.timeout(10):
        while line := await process.stderr.readline():
            entry = json.loads(line)
            if entry["event"] == "relay_started":
                return int(entry["port"])
    raise AssertionError("the relay exited before it started")


async def guest_against_house_rules(tmp_path: Path, *flags: str) -> tuple[int, str,
                                                                          peer.OnlineMatch]:
    # A relay of its own, up until the guest has left (it lingers after the end).
    relay = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "relay", stderr=asyncio.subprocess.PIPE, env={
            **os.environ, "GIN_RELAY_HOST": "127.0.0.1", "GIN_RELAY_PORT": "0",
            "GIN_RELAY_KEY_FILE": str(tmp_path / "relay.key"),
            "GIN_RELAY_RATE": "10000", "GIN_RELAY_BURST": "100000"})
    guest = None
    try:
        port = await relay_port(relay)
        start = lobby.OnlineStart("host", relay=f"http://127.0.0.1:{port}", rules=HOUSE)
        host = await lobby.begin(start, Storage(tmp_path / "host"),
                                 peer.OnlineSettings(linger=0.5))
        guest = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.cli", "join", "--bot", "easy", "--bot-delay", "0",
            "--data-dir", str(tmp_path / "guest"), *flags, host.invite.url,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(TIMEOUT):
            _, (_, err) = await asyncio.gather(
                asyncio.gather(host.run(), peer.play_bot(
                    host, players.get("easy", random.Random(1)))),
                guest.communicate())
    finally:
        for process in (guest, relay):
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
    assert guest.returncode is not None
    return guest.returncode, err.decode(), host


@pytest.mark.slow
@pytest.mark.parametrize("accept", [False, True], ids=["declined", "accepted"])
async def test_custom_rules_are_shown_and_need_accept_rules(tmp_path: Path,
                                                            accept: bool) -> None:
    flags = ("--accept-rules",) if accept else ()
    rc, err, host = await guest_against_house_rules(tmp_path, *flags)
    assert ("gin join: the host proposes custom rules:\n  custom rules named house: the "
            "standard rules with 2 changes\n") in err
    assert "  gin bonus: 30 + deadwood — changed from 25 + deadwood\n  " in err
    assert "  match to: 20 — changed from 100\n" in err
    if accept:
        assert rc == 0 and "the match is over" in err, err
        assert host.failure is None and host.result is not None
    else:
        assert rc == 1 and "rules declined: " in err and "--accept-rules" in err, err
        assert isinstance(host.failure, PeerAborted) and host.result is None
        assert "declined the host's custom rules" in host.failure.reason
