"""Issue 28, `gin host` and `gin join` as a person runs them: flags checked with a
one-line error (items 12 and 26), the connection told as it is (item 5: "connected to
your friend" only once a friend is there, and once), and the words of the last lines
(item 25), through a relay process on 127.0.0.1."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
from pathlib import Path

import pytest

from tests.client.commands.test_host_join import (
    BOT,
    finish,
    gin,
    read_link,
    relay_port,
    relay_process,
    start,
    two_bot_matches,
)

CONNECTED = "connected to your friend"


def run_gin(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(gin(*args, "--data-dir", str(tmp_path)), capture_output=True,
                          text=True, timeout=60, check=False)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    return lines[-1]


@pytest.mark.parametrize(("args", "said"), [
    (("host", "--port", "99999", "--bot", "easy"), "--port: must be from 0 to 65535"),
    (("host", "--port", "-5", "--bot", "easy"), "--port: must be from 0 to 65535"),
    (("host", "--bot", "easy", "--bot-delay", "-1"),
     "--bot-delay: must be 0 or more seconds"),
    (("join", "--bot", "easy", "--bot-delay", "nan", "http://127.0.0.1:1/j/x#y"),
     "--bot-delay: must be 0 or more seconds"),
])
def test_bad_numbers_are_refused_in_one_line(args: tuple[str, ...], said: str,
                                             tmp_path: Path) -> None:
    # Item 12: --port 99999 printed a 48-line OverflowError; item 26: --bot-delay -1 ran.
    result = run_gin(*args, tmp_path=tmp_path)
    assert result.returncode == 2
    assert said in one_line(result)


def test_port_or_bind_with_a_relay_is_refused(tmp_path: Path) -> None:
    # Item 26: --port was silently ignored with --relay.
    for flag, value in (("--port", "8765"), ("--bind", "127.0.0.1")):
        result = run_gin("host", "--relay", "http://127.0.0.1:1", flag, value, *BOT,
                         tmp_path=tmp_path)
        assert result.returncode == 2
        assert one_line(result) == (f"gin host: {flag} sets the relay run inside gin host: "
                                    "leave it out with --relay")


def test_a_relay_name_that_does_not_resolve_says_which_address_was_tried(
        tmp_path: Path) -> None:
    # Item 26: a raw "[Errno -2] Name or service not known", not saying https:// was tried.
    result = run_gin("host", "--relay", "relay.invalid", *BOT, tmp_path=tmp_path)
    assert result.returncode == 1
    line = one_line(result)
    assert "https://relay.invalid" in line and "[Errno" not in line, line
    assert "could not be looked up" in line


@pytest.mark.slow
async def test_connected_is_said_once_and_only_once_the_friend_is_there(
        tmp_path: Path) -> None:
    """Item 5: "Connected to your friend" before any friend (gin host), twice (gin
    join); item 25: the last lines' words, each match counted on its own."""
    before: list[str] = []  # the host's words before anyone joined

    async def alone(host: asyncio.subprocess.Process) -> None:
        assert host.stderr is not None
        async with asyncio.timeout(20):
            while not before or "waiting for your friend" not in before[-1]:
                before.append((await host.stderr.readline()).decode())

    host_err, guest_err = await two_bot_matches(tmp_path, target=1, before_join=alone)
    assert not any(CONNECTED in line for line in before), before
    assert host_err.count(CONNECTED) == 1, host_err
    assert guest_err.count(CONNECTED) == 1, guest_err
    for prog, err in (("gin host", host_err), ("gin join", guest_err)):
        second = err.partition("a rematch begins")[2]
        verified = len(re.findall(r"hand \d+: deck verified", second))
        final = next(line for line in err.splitlines()
                     if line.startswith(f"{prog}: match 2: the match is over"))
        hands = "hand" if verified == 1 else "hands"
        assert final.endswith(f"; {verified} {hands} verified and recorded"), final


def test_a_friend_back_to_a_gin_host_that_stopped_hears_the_likely_cause(
        tmp_path: Path) -> None:
    """Item 10: back to a link whose relay ran inside the host's gin (it stopped with
    it, after ending the match), `gin join` said only "connection refused"."""
    with socket.socket() as probe:  # a port on this computer where nothing listens now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    link = f"http://127.0.0.1:{port}/j/" + "A" * 32 + "#" + "B" * 42 + "A"
    result = run_gin("join", *BOT, link, tmp_path=tmp_path)
    assert result.returncode == 1
    line = one_line(result)
    # Said plainly first (issue 28: not "cannot use the relay: … connection refused").
    assert line.startswith("gin join: the link's host has gone: its relay, at a local address, "
                           "ran inside your friend's gin host"), line
    assert "ask them for a new link (cannot reach relay: connection refused" in line
    assert "#" not in line


@pytest.mark.slow
async def test_joining_a_link_whose_host_has_gone_ends_instead_of_waiting_forever(
        tmp_path: Path) -> None:
    """Item 5: a link whose host has gone (its match over, its gin closed), joined with
    a fresh data folder: `gin join` said "connected to your friend", then waited forever."""
    relay = await relay_process(tmp_path)
    try:
        port = await relay_port(relay)
        host = await start(*gin("host", "--relay", f"http://127.0.0.1:{port}", *BOT,
                                "--data-dir", str(tmp_path / "host")))
        link = await read_link(host)
        host.terminate()  # the host's gin is gone before anyone joins
        await finish(host)
        guest = await start(*gin("join", *BOT, "--grace", "1", "--data-dir",
                                 str(tmp_path / "guest"), link))
        rc, _, err = await finish(guest)
    finally:
        relay.terminate()
        await relay.wait()
    assert rc == 1, err
    assert CONNECTED not in err  # (the relay says the host is away, then gone)
    last = err.strip().splitlines()[-1]
    assert last.startswith("gin join: Abandoned by your friend (the host): it did not answer "
                           "the start of the match"), last
    assert last.endswith("Nothing is signed: the match had not started.")
