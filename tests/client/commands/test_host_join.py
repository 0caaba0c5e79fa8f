"""`gin host` and `gin join`: the real commands as subprocesses against a relay
process on 127.0.0.1, the embedded relay, and their one-line errors."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from client.cli import main as gin_main
from client.identity import load_identity
from client.net import lobby, peer, store
from client.net.links import parse_invite
from client.net.peer import outcome_line
from client.net.store import LocalRelay
from client.net.transport import TransportSettings
from client.storage import Storage
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.records.identity import fingerprint

TIMEOUT = 90
BOT = ["--bot", "easy", "--bot-delay", "0"]


def gin(*args: str) -> list[str]:
    return [sys.executable, "-m", "client.cli", *args]


async def start(*argv: str, env: dict[str, str] | None = None,
                stdin: int | None = None) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *argv, env={**os.environ, **(env or {})}, stdin=stdin,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def finish(process: asyncio.subprocess.Process) -> tuple[int, str, str]:
    try:
        async with asyncio.timeout(TIMEOUT):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def relay_process(tmp_path: Path) -> asyncio.subprocess.Process:
    """`python -m relay` on 127.0.0.1; the bots play without pauses, so the
    per-connection frame rate is lifted."""
    return await start(sys.executable, "-m", "relay", env={
        "GIN_RELAY_HOST": "127.0.0.1", "GIN_RELAY_PORT": "0",
        "GIN_RELAY_KEY_FILE": str(tmp_path / "relay.key"),
        "GIN_RELAY_RATE": "10000", "GIN_RELAY_BURST": "100000"})


async def relay_port(process: asyncio.subprocess.Process) -> int:
    assert process.stderr is not None
    async with asyncio.timeout(10):
        while line := await process.stderr.readline():
            entry: dict[str, Any] = json.loads(line)
            if entry["event"] == "relay_started":
                return int(entry["port"])
    raise AssertionError("the relay exited before it started")


async def read_link(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    async with asyncio.timeout(10):
        line = await process.stdout.readline()
    return line.decode().strip()


def records(root: Path) -> list[str]:
    return sorted(str(p) for p in (root / store.RECORDS_DIR).glob("*.json"))


@pytest.mark.slow
async def test_gin_host_and_gin_join_bots_play_a_match_through_python_m_relay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    relay = await relay_process(tmp_path)
    try:
        port = await relay_port(relay)
        host = await start(*gin("host", "--relay", f"http://127.0.0.1:{port}", *BOT,
                                "--data-dir", str(tmp_path / "host")))
        link = await read_link(host)
        assert parse_invite(link).relay.port == port
        # The link goes in on standard input, so it never shows in a process list.
        guest = await start(*gin("join", *BOT, "--data-dir", str(tmp_path / "guest")),
                            stdin=asyncio.subprocess.PIPE)
        assert guest.stdin is not None
        guest.stdin.write(link.encode() + b"\n")
        guest.stdin.close()
        (host_rc, host_out, host_err), (guest_rc, _, guest_err) = await asyncio.gather(
            finish(host), finish(guest))
    finally:
        relay.terminate()
        await relay.wait()
    assert (host_rc, guest_rc) == (0, 0), (host_err, guest_err)
    assert host_out == ""  # the link was the only line, read above
    assert "deck verified" in host_err and "the match is over" in guest_err
    host_records, guest_records = records(tmp_path / "host"), records(tmp_path / "guest")
    assert len(host_records) == len(guest_records) >= 1
    capsys.readouterr()
    assert gin_main(["audit", "-q", *host_records, *guest_records]) == 0
    # Each bot played under its data folder's identity, made on first use; every record
    # names both, and gin audit prints them.
    ids = tuple(load_identity(Storage(tmp_path / side)).public for side in ("host", "guest"))
    assert ids[0] != ids[1]
    line = (f"identities: host {fingerprint(ids[0])} ({ids[0].hex()}), "
            f"guest {fingerprint(ids[1])} ({ids[1].hex()})")
    out = capsys.readouterr().out
    assert out.count(line) == len(host_records) + len(guest_records)
    assert out.count("\nverified\n") == len(host_records) + len(guest_records)


async def test_a_third_person_with_a_used_link_is_told_someone_has_joined(
        tmp_path: Path) -> None:
    relay = await start(sys.executable, "-m", "relay", env={
        "GIN_RELAY_HOST": "127.0.0.1", "GIN_RELAY_PORT": "0",
        "GIN_RELAY_KEY_FILE": str(tmp_path / "relay.key")})
    try:
        port = await relay_port(relay)
        host = await lobby.host(f"http://127.0.0.1:{port}", STANDARD,
                                Storage(tmp_path / "host"))
        guest = await lobby.join(host.invite, Storage(tmp_path / "guest"))
        try:
            third = await start(*gin("join", *BOT, "--data-dir", str(tmp_path / "third")),
                                stdin=asyncio.subprocess.PIPE)
            assert third.stdin is not None
            third.stdin.write(host.invite.url.encode() + b"\n")
            third.stdin.close()
            rc, _, err = await finish(third)
        finally:
            await host.transport.close()
            await guest.transport.close()
    finally:
        relay.terminate()
        await relay.wait()
    assert rc == 1
    assert err.startswith("gin join: someone has already joined with this link"), err
    assert "ask your friend for a new link" in err and "Traceback" not in err


@pytest.mark.slow
async def test_gin_host_with_its_embedded_relay(tmp_path: Path) -> None:
    host = await start(*gin("host", "--bind", "127.0.0.1", *BOT, "--rules", "classic",
                            "--data-dir", str(tmp_path / "host")))
    link = await read_link(host)
    invite = parse_invite(link)
    assert invite.relay.host == "127.0.0.1" and invite.relay.port
    # The guest leaves soon after the match (linger 0.2 s, not 3): the host then
    # leaves at once instead of lingering for it.
    guest = await lobby.join(invite, Storage(tmp_path / "guest"),
                             peer.OnlineSettings(linger=0.2))
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(guest.run(), peer.play_bot(
            guest, players.get("easy", random.Random(1))))
    rc, _, err = await finish(host)
    assert rc == 0, err
    assert guest.failure is None and guest.result is not None
    assert guest.session.rules is not None and guest.session.rules.name == "classic"
    assert len(records(tmp_path / "host")) == len(records(tmp_path / "guest"))


@pytest.mark.slow
async def test_gin_host_comes_back_with_its_embedded_relay_and_the_match_finishes(
        tmp_path: Path) -> None:
    """Hosted without --relay, the host stops mid-match (killed, as a closed terminal
    would be); `gin host` again continues it: the relay is back at the link's address
    and port with the same key, the friend's program reconnects, the match finishes."""
    data = ["--data-dir", str(tmp_path / "host")]
    first = await start(*gin("host", "--bind", "127.0.0.1", *BOT, *data))
    link = await read_link(first)
    invite = parse_invite(link)
    quick = peer.OnlineSettings(transport=TransportSettings(backoff=lambda a: 0.2))
    guest = await lobby.join(invite, Storage(tmp_path / "guest"), quick)
    play = asyncio.gather(guest.run(), peer.play_bot(guest, players.get("easy",
                                                                        random.Random(1))))
    try:
        async with asyncio.timeout(TIMEOUT):
            while guest.verified < 1:
                await asyncio.sleep(0.05)
        first.kill()  # the host and the relay inside it are gone mid-match
        await first.wait()
        async with asyncio.timeout(10):
            while guest.link is not peer.Link.RECONNECTING:
                await asyncio.sleep(0.05)
        again = await start(*gin("host", *BOT, *data))  # no --bind, no --port: as saved
        assert await read_link(again) == link
        async with asyncio.timeout(TIMEOUT):
            await play
        rc, _, err = await finish(again)
    finally:
        play.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await play
    assert "continuing the match you host" in err
    assert rc == 0, err
    assert guest.failure is None and guest.result is not None, outcome_line(guest)


async def test_a_saved_matchs_relay_that_cannot_listen_again_says_why(
        tmp_path: Path) -> None:
    with socket.socket() as holder:  # another program holds the port now
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(lobby.LocalRelayError) as caught:
            await lobby.restart_local_relay(LocalRelay("127.0.0.1", port),
                                            tmp_path / "relay.key")
    said = str(caught.value)
    assert said.startswith(f"the relay inside gin cannot listen at 127.0.0.1:{port} again, "
                           "where your friend's link points: another program is using "
                           f"port {port} now")
    with pytest.raises(lobby.LocalRelayError, match="no longer has the address 192.0.2.77"):
        await lobby.restart_local_relay(LocalRelay("192.0.2.77", 30300),
                                        tmp_path / "relay.key")


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


LINK = "http://127.0.0.1:1/j/" + "A" * 32 + "#" + "B" * 42 + "A"


def test_join_with_a_bad_link_says_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    assert gin_main(["join", "--bot", "easy", "http://127.0.0.1:1/j/short#x"]) == 2
    err = one_line_error(capsys)
    assert err.startswith("gin join: bad invite link:") and "room id" in err


def test_join_reads_gin_link_and_reports_an_unreachable_relay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GIN_LINK", LINK)
    assert gin_main(["join", *BOT, "--data-dir", str(tmp_path)]) == 1
    err = one_line_error(capsys)
    # Nothing answers at a local address: the host's gin (and the relay in it) has gone.
    assert err.startswith("gin join: the link's host has gone")
    assert "(cannot reach relay: connection refused" in err
    assert "#" not in err  # the secret is never echoed


def test_host_reports_an_unreachable_relay(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert gin_main(["host", *BOT, "--relay", "http://127.0.0.1:1",
                     "--data-dir", str(tmp_path)]) == 1
    assert one_line_error(capsys).startswith("gin host: cannot use the relay:")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("relay", ["127.0.0.1:1", "localhost:1"])
def test_host_takes_a_relay_address_without_http(
        relay: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bare HOST:PORT is read as http://HOST:PORT: the relay is tried (and is not
    there), with no traceback."""
    assert gin_main(["host", *BOT, "--relay", relay, "--data-dir", str(tmp_path)]) == 1
    err = one_line_error(capsys)
    assert err.startswith("gin host: cannot use the relay: cannot reach relay"), err


def test_host_with_a_relay_address_it_cannot_read_says_so_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gin_main(["host", *BOT, "--relay", "ftp://relay.example.org",
                     "--data-dir", str(tmp_path)]) == 2
    err = one_line_error(capsys)
    assert err.startswith("gin host: bad relay address: the relay address must start "
                          "with http:// or https://"), err


def test_host_and_join_help_explain_the_link(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("host", "join"):
        with pytest.raises(SystemExit):
            gin_main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "never reaches the relay" in out and "local-network" in out
    assert "GIN_LINK" in out and "standard input" in out
    assert "without http:// or https:// is taken as http:// when it is an IP address" in out


async def two_bot_matches(
        tmp_path: Path, target: int,
        before_join: Callable[[asyncio.subprocess.Process], Awaitable[None]] | None = None,
) -> tuple[str, str]:
    """`gin host` and `gin join` bots playing `--matches 2` on one link through a relay
    process, both ending well: what each wrote to stderr. ``before_join`` reads the
    host before the guest starts."""
    relay = await relay_process(tmp_path)
    try:
        port = await relay_port(relay)
        host = await start(*gin("host", "--relay", f"http://127.0.0.1:{port}", *BOT,
                                "--target", str(target), "--matches", "2",
                                "--data-dir", str(tmp_path / "host")))
        link = await read_link(host)
        if before_join is not None:
            await before_join(host)
        guest = await start(*gin("join", *BOT, "--accept-rules", "--matches", "2",
                                 "--data-dir", str(tmp_path / "guest"), link))
        (host_rc, _, host_err), (guest_rc, _, guest_err) = await asyncio.gather(
            finish(host), finish(guest))
    finally:
        relay.terminate()
        await relay.wait()
    assert (host_rc, guest_rc) == (0, 0), (host_err, guest_err)
    return host_err, guest_err


@pytest.mark.slow
async def test_two_matches_in_a_row_on_one_link_form_one_history(tmp_path: Path) -> None:
    """`--matches 2` on both sides: a rematch on the same link, its records chained to
    the first match's, so `gin audit` of all of them verifies with no conflict."""
    host_err, guest_err = await two_bot_matches(tmp_path, target=10)
    for err in (host_err, guest_err):
        assert "match 1: the match is over" in err and "a rematch begins" in err
        assert "2 of 2 matches played" in err
    host_records, guest_records = records(tmp_path / "host"), records(tmp_path / "guest")
    matches = {Path(p).name.split("-")[0] for p in host_records}
    assert len(matches) == 2 and len(host_records) == len(guest_records)
    previous = {json.loads(Path(p).read_text())["previous"] for p in host_records}
    assert None in previous and len(previous) == 2 and previous - {None} <= matches
    assert gin_main(["audit", "-q", *host_records, *guest_records]) == 0


def test_matches_without_a_bot_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert gin_main(["host", "--matches", "2", "--relay", "http://127.0.0.1:1"]) == 2
    assert "--matches N plays with --bot only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gin_main(["host", "--bot", "easy", "--matches", "0"])
    assert "must be from 1 to 1000" in capsys.readouterr().err
