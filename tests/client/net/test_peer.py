"""The online driver against a real relay on 127.0.0.1: whole matches between two
computer players, connections cut at several points of a hand, a relay restart,
a client restarted from its saved state, and a peer that stops answering."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed

from client.cli import main as gin_main
from client.commands.seat import run_bot
from client.net import lobby, peer, store
from client.net.links import Invite, RelayAddress, new_secret
from client.net.relay_events import Closed
from client.net.transport import TransportSettings
from client.record import friend_key
from client.storage import Storage, StorageError
from gin import players
from gin.engine.rules import STANDARD
from gin.protocol.cosign import link_id_for
from gin.protocol.evidence import parse_file
from gin.protocol.identity import fingerprint
from gin.protocol.session import Session
from gin.protocol.session_events import (
    Abandoned,
    ClaimedAbandoned,
    HandDealt,
    HandScored,
    HandVerified,
    LeftOwing,
    MatchOver,
    Moved,
)
from relay.server import Relay, serve
from relay.testing import TEST_CONFIG, TcpProxy, new_room

FAST = peer.OnlineSettings(
    reply_timeout=20, move_timeout=20, linger=0.3,
    transport=TransportSettings(backoff=lambda attempt: 0.05, ping_interval=None,
                                open_timeout=2, send_rate=None))
MATCH_TIMEOUT = 60
SINCE = 1_796_198_400.0  # 2026-12-02 08:00:00 UTC: the clock abandonment records read


@pytest.fixture
async def relay(tmp_path: Path) -> AsyncIterator[Relay]:
    relay = await serve(replace(TEST_CONFIG, key_file=tmp_path / "relay.key", rate=10_000.0,
                                burst=100_000))
    yield relay
    await relay.close()


def url(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def via(invite: Invite, port: int) -> Invite:
    """The same invite, reached through another port (a cuttable proxy)."""
    return replace(invite, relay=RelayAddress("http", "127.0.0.1", port))


async def play(*matches: peer.OnlineMatch, seed: int = 1) -> None:
    """Run the matches with a computer player in each seat until all have ended."""
    rng = random.Random(seed)
    tasks = [peer.play_bot(m, players.get("normal", random.Random(rng.random())))
             for m in matches]
    async with asyncio.timeout(MATCH_TIMEOUT):
        await asyncio.gather(*(m.run() for m in matches), *tasks)


def record_files(root: Path) -> list[Path]:
    return sorted((root / store.RECORDS_DIR).glob("*.json"))


def comparable(path: Path) -> dict[str, Any]:
    """A record with its steps in a canonical order: the two peers' records of a hand
    differ only in the interleaving of steps sent at the same time (protocol.md §10)."""
    data = json.loads(path.read_text())
    data["steps"] = sorted(data["steps"], key=lambda s: json.dumps(s, sort_keys=True))
    return dict(data)


def assert_clean_and_identical(host_dir: Path, guest_dir: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    host_files, guest_files = record_files(host_dir), record_files(guest_dir)
    assert host_files and [p.name for p in host_files] == [p.name for p in guest_files]
    for h, g in zip(host_files, guest_files, strict=True):
        assert comparable(h) == comparable(g)
    assert gin_main(["audit", "-q", *map(str, host_files + guest_files)]) == 0
    out = capsys.readouterr().out
    assert out.count("verified") == 2 * len(host_files)


def assert_finished(host: peer.OnlineMatch, guest: peer.OnlineMatch) -> None:
    assert host.failure is None and guest.failure is None, (host.failure, guest.failure)
    assert host.result is not None and guest.result is not None
    assert host.result.totals is not None
    assert host.result == guest.result
    assert max(host.result.totals.points) >= STANDARD.target
    # Nothing secret of the match in progress is left behind: the records, and a
    # note per side that the link's match is over.
    for match in (host, guest):
        if match.files is not None:
            (note,) = (match.files.storage.root / store.ONLINE_DIR).glob("*.json")
            data = match.files.storage.load_state(note, "note")
            assert set(data) == {"format", "finished"} and "the match is over" in data["finished"]


def randomness(seed: int) -> Callable[[int], bytes]:
    """Repeatable seeds and coin tosses, so each test plays the same decks every run."""
    return random.Random(seed).randbytes


async def start_pair(relay_port: int, tmp_path: Path, guest_port: int | None = None,
                     seed: int = 0) -> tuple[peer.OnlineMatch, peer.OnlineMatch]:
    host = await lobby.host(url(relay_port), STANDARD, Storage(tmp_path / "host"), FAST,
                            randomness(seed))
    invite = host.invite if guest_port is None else via(host.invite, guest_port)
    guest = await lobby.join(invite, Storage(tmp_path / "guest"), FAST,
                             randomness(seed + 1))
    return host, guest


async def test_two_bots_play_a_whole_match_and_both_records_audit_clean(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host, guest = await start_pair(relay.port, tmp_path)
    assert host.invite.url.startswith(f"http://127.0.0.1:{relay.port}/j/")
    seen: list[Any] = []
    guest.listen(seen.append)
    await play(host, guest)
    assert_finished(host, guest)
    verified = [u for u in seen if isinstance(u, HandVerified)]
    assert [u.hand_number for u in verified] == list(range(1, len(verified) + 1))
    assert isinstance(seen[-2 if isinstance(seen[-1], peer.LinkChanged) else -1],
                      MatchOver | peer.LinkChanged)
    # After a normal end the friend leaving is no news, and the words say the end.
    over = next(i for i, u in enumerate(seen) if isinstance(u, MatchOver))
    assert not [u for u in seen[over:] if isinstance(u, peer.LinkChanged)
                and u.link in (peer.Link.FRIEND_AWAY, peer.Link.FRIEND_GONE)]
    assert host.status() == guest.status() == "the match is over"
    assert host.status(short=True) == "the match is over"
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)
    # Each side's record has the match, the friend known by its identity's words.
    assert host.result is not None and host.result.totals is not None
    for side, folder in ((host, "host"), (guest, "guest")):
        (entry,) = Storage(tmp_path / folder).load_record()
        ids = side.session.identities
        assert ids is not None
        assert entry["opponent"] == f"friend:{fingerprint(ids[1 - side.seat])}"
        assert entry["opponent"] == friend_key(ids[1 - side.seat],
                                               link_id_for(host.invite.secret))
        assert entry["won"] == (host.result.winner == side.seat)
        assert len(entry["hands"]) == side.verified
        assert entry["totals"] == [host.result.totals.totals[side.seat],
                                   host.result.totals.totals[1 - side.seat]]


class Cutter:
    """Cuts a proxy's connections when a client's update matches the next trigger."""

    def __init__(self, proxy: TcpProxy, triggers: list[Callable[[Any], bool]]) -> None:
        self.proxy, self.triggers, self.cuts = proxy, triggers, 0

    def __call__(self, update: Any) -> None:
        if self.triggers and self.triggers[0](update):
            self.triggers.pop(0)
            self.cuts += 1
            self.proxy.cut()


def moves(n: int) -> Callable[[Any], bool]:
    """Fires at the n-th move seen after the previous trigger."""
    count = 0

    def trigger(update: Any) -> bool:
        nonlocal count
        count += isinstance(update, Moved)
        return count >= n

    return trigger


@pytest.mark.parametrize("side", ["guest", "host"])
async def test_cut_connections_at_several_points_the_match_still_completes(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str) -> None:
    proxy = TcpProxy(relay.port)
    await proxy.start()
    try:
        if side == "guest":
            host, guest = await start_pair(relay.port, tmp_path, guest_port=proxy.port)
            watched = guest
        else:
            host, guest = await start_pair(proxy.port, tmp_path)
            guest_direct = via(host.invite, relay.port)
            await guest.transport.close()
            guest = await lobby.join(guest_direct, Storage(tmp_path / "guest"), FAST,
                                     randomness(7))
            watched = host
        cutter = Cutter(proxy, [
            lambda u: isinstance(u, HandDealt),  # right after the deal
            moves(1),  # the first move (an upcard decision)
            moves(3),  # mid-hand: draws and discards in flight
            lambda u: isinstance(u, HandScored),  # between the two seeds
            lambda u: isinstance(u, HandDealt) and u.hand_number == 2,
            moves(7),
        ])
        watched.listen(cutter)
        await play(host, guest, seed=2)
    finally:
        await proxy.stop()
    assert cutter.cuts >= 4
    assert_finished(host, guest)
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)


class LossyProxy:
    """A websocket proxy in front of the relay that drops, duplicates and reorders the
    players' frames (the relay's own text messages pass untouched): a hostile or
    broken relay, as the players see it. Fixed seed."""

    def __init__(self, relay_port: int, seed: int, drop: float = 0.04, dup: float = 0.05,
                 swap: float = 0.05) -> None:
        self.relay_port = relay_port
        self.rng = random.Random(seed)
        self.drop, self.dup, self.swap = drop, dup, swap
        self.dropped = self.duplicated = self.swapped = 0
        self.server: Server | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(next(iter(self.server.sockets)).getsockname()[1])

    async def start(self) -> None:
        self.server = await ws_serve(self._serve, "127.0.0.1", 0, compression=None,
                                     max_size=2**22)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _serve(self, client: ServerConnection) -> None:
        assert client.request is not None
        async with connect(f"ws://127.0.0.1:{self.relay_port}{client.request.path}",
                           compression=None, max_size=2**22) as upstream:
            await asyncio.gather(self._pipe(client, upstream), self._pipe(upstream, client),
                                 return_exceptions=True)

    async def _pipe(self, source: ServerConnection | ClientConnection,
                    sink: ServerConnection | ClientConnection) -> None:
        held: list[bytes] = []
        try:
            async for message in source:
                if isinstance(message, str):
                    await sink.send(message)
                    continue
                roll = self.rng.random()
                if roll < self.drop:
                    self.dropped += 1
                    continue
                if roll < self.drop + self.swap and not held:
                    self.swapped += 1
                    held.append(message)  # goes out after the next frame
                    continue
                copies = 2 if roll < self.drop + self.swap + self.dup else 1
                self.duplicated += copies - 1
                for _ in range(copies):
                    await sink.send(message)
                for frame in held:
                    await sink.send(frame)
                held.clear()
        except ConnectionClosed:
            pass
        finally:
            await sink.close()


async def test_a_relay_dropping_duplicating_and_reordering_frames_only_slows_the_match(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proxy = LossyProxy(relay.port, seed=4)
    await proxy.start()
    quick = replace(FAST, resend_tick=0.05, resend_after=(0.2, 0.8))
    try:
        host = await lobby.host(url(relay.port), STANDARD, Storage(tmp_path / "host"), quick,
                                randomness(8))
        guest = await lobby.join(via(host.invite, proxy.port), Storage(tmp_path / "guest"),
                                 quick, randomness(9))
        await play(host, guest, seed=3)
    finally:
        await proxy.stop()
    assert proxy.dropped >= 5 and proxy.duplicated >= 5 and proxy.swapped >= 5
    assert_finished(host, guest)
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)


async def test_relay_restart_mid_match_play_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = replace(TEST_CONFIG, key_file=tmp_path / "relay.key", rate=10_000.0,
                     burst=100_000)
    relays = [await serve(config)]
    config = replace(config, port=relays[0].port)
    restarts: list[asyncio.Task[None]] = []

    async def restart() -> None:
        await relays[-1].close()
        await asyncio.sleep(0.2)
        relays.append(await serve(config))

    def on_update(update: Any) -> None:
        if isinstance(update, Moved) and not restarts and update.seat == 0:
            restarts.append(asyncio.create_task(restart()))

    try:
        host, guest = await start_pair(config.port, tmp_path)
        guest.listen(on_update)
        await play(host, guest, seed=3)
    finally:
        for r in relays:
            await r.close()
    assert len(relays) == 2
    assert_finished(host, guest)
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)


async def test_a_client_restarted_from_its_saved_state_finishes_the_match(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host, guest = await start_pair(relay.port, tmp_path)
    stopped = asyncio.Event()

    def crash_at_hand_two(update: Any) -> None:
        if isinstance(update, HandDealt) and update.hand_number == 2:
            stopped.set()

    guest.listen(crash_at_hand_two)
    rng = random.Random(4)
    host_run = asyncio.gather(host.run(), peer.play_bot(host, players.get("normal", rng)))
    guest_run = asyncio.gather(guest.run(), peer.play_bot(guest, players.get("easy", rng)))
    async with asyncio.timeout(MATCH_TIMEOUT):
        await stopped.wait()
        guest_run.cancel()  # as if the process died: no goodbye to the relay
        with pytest.raises(asyncio.CancelledError):
            await guest_run
        saved = list((tmp_path / "guest" / store.ONLINE_DIR).glob("*.json"))
        assert len(saved) == 1
        resumed = await lobby.join(host.invite, Storage(tmp_path / "guest"), FAST,
                                   randomness(8))
        assert resumed.session.role == "guest" and resumed.session.observation() is not None
        await asyncio.gather(host_run, resumed.run(),
                             peer.play_bot(resumed, players.get("easy", rng)))
    assert_finished(host, resumed)
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)


async def test_a_finished_link_says_the_match_is_over(relay: Relay, tmp_path: Path) -> None:
    host, guest = await start_pair(relay.port, tmp_path, seed=3)
    await play(host, guest)
    assert_finished(host, guest)
    with pytest.raises(store.MatchOverError, match="The match of this invite link is over"):
        await lobby.join(host.invite, Storage(tmp_path / "guest"), FAST)


async def test_a_friend_who_stops_answering_ends_as_abandoned_by_them(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Silence has a name (issue 19 item 4): the grace runs out, and a program claims at once.
    quick = replace(FAST, move_timeout=0.5, reply_timeout=5, utc_clock=lambda: SINCE)
    host = await lobby.host(url(relay.port), STANDARD, Storage(tmp_path / "host"), quick,
                            randomness(5))
    guest = await lobby.join(host.invite, Storage(tmp_path / "guest"), quick, randomness(6))
    async with asyncio.timeout(MATCH_TIMEOUT):
        # Only the host has a player: the guest's person never moves.
        await asyncio.gather(host.run(), guest.run(),
                             peer.play_bot(host, players.get("easy", random.Random(5))))
    # Never a cheat, nobody forfeits: the host's signed word, kept beside the hand records.
    failure = host.failure
    assert isinstance(failure, Abandoned) and failure.who == "guest" and not failure.proven
    assert host.result is None and failure.record is not None
    assert isinstance(guest.failure, ClaimedAbandoned)  # the guest is told, not left waiting
    assert "the host ended the match (abandoned)" in guest.failure.reason
    line = peer.outcome_line(host)
    assert line.startswith("Abandoned by your friend (the guest): it owed its ")
    assert "since 2026-12-02 08:00:00 UTC" in line and "at fault" not in line
    assert line.endswith("Saved as a signed record you can audit.")
    saved = [p for p in record_files(tmp_path / "host") if p.name.endswith("-abandoned.json")]
    assert len(saved) == 1 and parse_file(saved[0].read_bytes()) == failure.record
    assert gin_main(["audit", "-q", str(saved[0])]) == 3
    assert "This is the host's signed word: not a cheat" in capsys.readouterr().out
    # The history counts it apart: abandoned by the friend for one, by you for the other.
    assert [m.get("abandoned") for m in Storage(tmp_path / "host").load_record()] == ["friend"]
    assert [m.get("abandoned") for m in Storage(tmp_path / "guest").load_record()] == ["you"]


async def test_a_friend_who_claims_you_left_while_it_owed_its_move_left(
        relay: Relay, tmp_path: Path) -> None:
    """Issue 26 item 4, through a real relay: the guest owes its move and sends ``abort``
    with ``why: abandoned``. The host owed nothing: its match ends with the guest
    leaving, counted as abandoned by the friend, never "abandoned by you"."""
    host = await lobby.host(url(relay.port), STANDARD, Storage(tmp_path / "host"), FAST,
                            randomness(5))
    guest = await lobby.join(host.invite, Storage(tmp_path / "guest"), FAST, randomness(6))

    async def lie_when_owing() -> None:
        while guest.session.legal_actions() == [] or guest.session.waiting_for() is not None:
            await asyncio.sleep(0.01)  # until it is the guest's move
        Session._send(guest.session, "abort",
                      {"why": "abandoned", "field": "move", "reason": "you were gone"})
        guest._flush()

    liar = asyncio.create_task(guest.run())
    async with asyncio.timeout(MATCH_TIMEOUT):
        await asyncio.gather(host.run(), lie_when_owing(),
                             peer.play_bot(host, players.get("easy", random.Random(5))))
    liar.cancel()
    failure = host.failure
    assert isinstance(failure, LeftOwing) and not isinstance(failure, ClaimedAbandoned)
    assert failure.who == "guest" and failure.field == "move" and not failure.proven
    assert "your friend left the match" in peer.outcome_line(host)
    assert [m.get("abandoned") for m in Storage(tmp_path / "host").load_record()] == ["friend"]


# -- the data folder failing (issue 11.9) and a relay gone for good (11.11) ----------


class FailingStorage(Storage):
    """A data folder whose writes fail while ``failing(path)`` says so, as a full
    disk would; ``on_saved`` runs after each successful save of the match."""

    def __init__(self, root: Path, failing: Callable[[Path], bool]) -> None:
        super().__init__(root)
        self.failing = failing
        self.failures = 0
        self.on_saved: Callable[[], None] = lambda: None

    def write_json(self, path: Path, data: Any) -> None:
        if self.failing(path):
            self.failures += 1
            raise StorageError(f"Could not save {path}: the disk is full.",
                               "The game goes on; it will try again after your next move.")
        super().write_json(path, data)
        if path.parent.name == store.ONLINE_DIR:
            self.on_saved()


SAVING = replace(FAST, save_retry=0.05, save_give_up=0.5)


async def test_a_failing_save_pauses_sending_until_a_save_succeeds(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saves = 0

    def full_for_a_while(path: Path) -> bool:
        nonlocal saves
        if path.parent.name != store.ONLINE_DIR:
            return False
        saves += 1
        return 10 <= saves < 20  # ten failed saves in the first hand, then space again

    storage = FailingStorage(tmp_path / "host", full_for_a_while)
    host = await lobby.host(url(relay.port), STANDARD, storage,
                            replace(SAVING, save_give_up=30), randomness(11))
    guest = await lobby.join(host.invite, Storage(tmp_path / "guest"), FAST, randomness(12))
    # Write-ahead: every frame the host sends was produced before a successful save
    # or is a re-send of those (or the match was over, when nothing is saved any more).
    produced: list[bytes] = []
    data_to_send = host.session.data_to_send

    def recorded_data_to_send() -> list[bytes]:
        frames = data_to_send()
        produced.extend(frames)
        return frames

    host.session.data_to_send = recorded_data_to_send  # type: ignore[method-assign]
    covered: set[bytes] = set()

    def on_saved() -> None:
        covered.update(produced)
        covered.update(host.session.resend())

    storage.on_saved = on_saved
    unsaved_sends: list[bytes] = []
    send = host.transport.send

    async def checked_send(data: bytes) -> bool:
        if data not in covered and not host.session.over:
            unsaved_sends.append(data)
        return await send(data)

    host.transport.send = checked_send  # type: ignore[method-assign]
    notices: list[str] = []
    host.listen(lambda u: notices.append(u.text) if isinstance(u, peer.Notice) else None)
    await play(host, guest, seed=5)
    assert storage.failures == 10 and unsaved_sends == []
    # (The friend's identity is told too, and the known friends may not be saved.)
    notices = [n for n in notices if not n.startswith(("your friend:", "Could not save "
                                                      f"{tmp_path / 'host' / 'friends.json'}"))]
    assert notices[0].startswith("Could not save") and "Nothing more is sent" in notices[0]
    assert notices[1] == "The match is saved again; play goes on."
    assert_finished(host, guest)
    assert_clean_and_identical(tmp_path / "host", tmp_path / "guest", capsys)
    assert peer.outcome_line(host).endswith(f"{host.verified} hands verified and recorded")


async def test_a_save_that_keeps_failing_ends_the_match_having_sent_nothing(
        relay: Relay, tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    # A data folder that cannot be created, even by root: a file is in the way.
    host = await lobby.host(url(relay.port), STANDARD, Storage(blocker / "gin"), SAVING,
                            randomness(13))
    async with asyncio.timeout(MATCH_TIMEOUT):
        await host.run()
    assert isinstance(host.failure, peer.StorageFailed) and host.failure.who == "host"
    assert relay.stats.frames_in == 0  # not even the hello left unsaved
    line = peer.outcome_line(host)
    assert line.startswith("could not save: the match could not be saved for")
    assert "nothing unsaved was sent" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
async def test_a_read_only_data_folder_ends_the_match_having_sent_nothing(
        relay: Relay, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    (folder / store.ONLINE_DIR).mkdir(parents=True)
    for path in (folder / store.ONLINE_DIR, folder):
        path.chmod(0o500)
    host = await lobby.host(url(relay.port), STANDARD, Storage(folder), SAVING,
                            randomness(13))
    async with asyncio.timeout(MATCH_TIMEOUT):
        await host.run()
    assert isinstance(host.failure, peer.StorageFailed)
    assert "not writable" in peer.outcome_line(host)
    assert relay.stats.frames_in == 0


async def test_hands_that_could_not_be_recorded_are_counted_and_fail_the_bot(
        relay: Relay, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    storage = FailingStorage(tmp_path / "host", lambda p: p.parent.name == store.RECORDS_DIR)
    host = await lobby.host(url(relay.port), STANDARD, storage, SAVING, randomness(14))
    guest = await lobby.join(host.invite, Storage(tmp_path / "guest"), FAST, randomness(15))

    async def start() -> peer.OnlineMatch:
        return host

    rng = random.Random(6)
    async with asyncio.timeout(MATCH_TIMEOUT):
        rc, _, _ = await asyncio.gather(
            run_bot("gin host", start, "normal", 0.0), guest.run(),
            peer.play_bot(guest, players.get("normal", rng)))
    assert host.result is not None and host.failure is None and host.verified >= 1
    assert host.records == [] and len(host.unrecorded) == host.verified
    assert rc == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("gin host: the match is over: ")
    assert (f"{host.verified} hands verified, only 0 recorded: {host.verified} could not "
            f"be saved (Could not save {storage.root / store.RECORDS_DIR}/") in last
    assert last.endswith(f"-{host.unrecorded[0]:03d}.json: the disk is full.)")


def test_a_connection_ended_names_the_relay_only_when_it_closed_it() -> None:
    assert peer.connection_fault(Closed(4404, "unknown room")) == "relay"
    assert peer.connection_fault(Closed(4000, "opened elsewhere")) == "nobody"  # same save
    assert peer.connection_fault(Closed(None, "gave up after trying for 1 s")) == (
        "relay or this computer's network")


async def test_a_bot_gives_up_on_a_relay_gone_for_good(tmp_path: Path) -> None:
    relay = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "relay", stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "GIN_RELAY_PORT": "0",
             "GIN_RELAY_KEY_FILE": str(tmp_path / "relay.key")})
    assert relay.stderr is not None
    guest: asyncio.subprocess.Process | None = None
    try:
        async with asyncio.timeout(10):
            port = json.loads(await relay.stderr.readline())["port"]
        host = await new_room(SimpleNamespace(port=port))
        link = Invite(RelayAddress("http", "127.0.0.1", port), host.room, new_secret()).url
        guest = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.cli", "join", "--bot", "easy", "--give-up-after",
            "1", "--data-dir", str(tmp_path / "guest"), link,
            stderr=asyncio.subprocess.PIPE)
        assert guest.stderr is not None
        async with asyncio.timeout(10):
            line = b"start"
            while line and b"connected" not in line:
                line = await guest.stderr.readline()
        assert line, "gin join ended before it connected"
        relay.kill()  # gone for good
        async with asyncio.timeout(30):
            err = (await guest.stderr.read()).decode()
            assert await guest.wait() == 1
    finally:
        for process in (relay, guest):
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
    last = err.strip().splitlines()[-1]
    assert last.startswith("gin join: connection failed: ")
    assert "gave up after trying for 1 s: cannot reach relay" in last
