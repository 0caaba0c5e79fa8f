"""The data folder: where it is, atomic writes, and clear failures."""

from __future__ import annotations

import errno
import json
import os
import random
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from client.net.links import Invite, RelayAddress, new_secret
from client.net.store import MatchFiles
from client.storage import DamagedSave, Storage, StorageError, checksum, default_data_dir
from client.table.app import make_app
from client.table.config import AppConfig
from client.table.controller import Game
from gin.engine.rules import STANDARD
from gin.protocol.session.session import Session


def test_data_dir_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIN_DATA_DIR", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_data_dir() == Path.home() / ".local" / "share" / "gin"
    monkeypatch.setenv("XDG_DATA_HOME", "/x")
    assert default_data_dir() == Path("/x/gin")
    monkeypatch.setenv("GIN_DATA_DIR", "/g")
    assert default_data_dir() == Path("/g")


def test_data_kept_in_the_linux_folder_stays_in_use_elsewhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As on macOS: the system's folder is not ~/.local/share/gin.
    system = tmp_path / "Library" / "Application Support" / "gin"
    monkeypatch.setattr(platformdirs, "user_data_path", lambda *args, **kwargs: system)
    monkeypatch.delenv("GIN_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert default_data_dir() == system
    (tmp_path / "share" / "gin").mkdir(parents=True)
    assert default_data_dir() == tmp_path / "share" / "gin"
    system.mkdir(parents=True)
    assert default_data_dir() == system


def test_round_trip_and_no_temporary_files_left(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "new" / "folder")
    assert storage.load_match() is None
    storage.save_match({"a": 1})
    storage.save_match({"a": 2})
    assert storage.load_match() == {"a": 2}
    assert [p.name for p in storage.root.iterdir()] == ["match.json"]
    storage.clear_match()
    assert storage.load_match() is None


def test_hands_are_numbered_in_order(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    paths = [storage.save_hand({"n": n}) for n in range(3)]
    assert [p.name for p in paths] == ["000001.json", "000002.json", "000003.json"]
    assert storage.saved_hands() == [{"n": 0}, {"n": 1}, {"n": 2}]


@pytest.mark.parametrize(("code", "words"), [
    (errno.ENOSPC, "the disk is full"),
    (errno.EACCES, "the folder is not writable"),
])
def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: Any, code: int,
                                           words: str) -> None:
    storage = Storage(tmp_path)
    storage.save_match({"good": True})

    def fail(src: Any, dst: Any) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(StorageError, match=words) as info:
        storage.save_match({"good": False})
    assert str(tmp_path) in str(info.value)
    monkeypatch.undo()
    assert storage.load_match() == {"good": True}
    assert [p.name for p in tmp_path.iterdir()] == ["match.json"]


def test_a_folder_that_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="Could not save to"):
        Storage(blocker / "gin").save_match({})


def test_invalid_json_is_reported_and_left_alone(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(StorageError, match="not valid JSON"):
        storage.read_json(tmp_path / "x.json")
    assert (tmp_path / "x.json").read_text() == "{not json"


# -- saves that are state: sealed, checked, and moved aside when damaged -------

CLOCK = datetime(2026, 12, 1, 0, 25, 46)
ASIDE = "match.json.damaged-20261201-002546"


@pytest.fixture
def sealed(tmp_path: Path) -> Storage:
    return Storage(tmp_path, clock=lambda: CLOCK)


def test_a_state_save_carries_the_checksum_of_its_contents(sealed: Storage) -> None:
    sealed.save_match({"format": 1, "b": [1, "é"]})
    on_disk = json.loads(sealed.match_path.read_text())
    assert on_disk == {"gin-save": 1, "data": {"format": 1, "b": [1, "é"]},
                       "sha256": checksum({"b": [1, "é"], "format": 1})}
    assert sealed.load_match() == {"format": 1, "b": [1, "é"]}


def test_data_that_json_reshapes_still_matches_its_checksum(sealed: Storage) -> None:
    sealed.save_match({"format": 1, "rng": (3, (1, 2), None), "by_hand": {2: "b", 10: "a"}})
    assert sealed.load_match() == {"format": 1, "rng": [3, [1, 2], None],
                                   "by_hand": {"2": "b", "10": "a"}}


@pytest.mark.parametrize(("damage", "why"), [
    (lambda raw: raw.replace(b'"a": 1', b'"a": 2'), "checksum does not match"),
    (lambda raw: raw[:-5], "not valid JSON"),
    (lambda raw: b"\xff\xfe" + raw, "not valid JSON"),
    (lambda raw: raw.replace(b'"gin-save": 1', b'"gin-save": 7'), "unknown save version"),
    (lambda raw: b"[1, 2]", "not a sealed save"),
])
def test_a_damaged_save_is_moved_aside_not_overwritten(
        sealed: Storage, damage: Callable[[bytes], bytes], why: str) -> None:
    sealed.save_match({"format": 1, "a": 1})
    broken = damage(sealed.match_path.read_bytes())
    sealed.match_path.write_bytes(broken)
    with pytest.raises(DamagedSave, match=why) as info:
        sealed.load_match()
    aside = sealed.root / ASIDE
    assert info.value.moved_to == aside and aside.read_bytes() == broken
    assert f"It was moved to {aside}" in str(info.value)
    assert not sealed.match_path.exists()
    # The next save starts afresh and the damaged one stays as it was.
    sealed.save_match({"format": 1, "a": 3})
    assert sealed.load_match() == {"format": 1, "a": 3} and aside.read_bytes() == broken


def test_a_second_damaged_save_in_the_same_second_gets_its_own_name(sealed: Storage) -> None:
    for n in (1, 2):
        sealed.match_path.write_text(f"broken {n}")
        with pytest.raises(DamagedSave):
            sealed.load_match()
    assert (sealed.root / ASIDE).read_text() == "broken 1"
    assert (sealed.root / f"{ASIDE}-2").read_text() == "broken 2"


def test_a_save_that_cannot_be_moved_aside_says_so(sealed: Storage, monkeypatch: Any) -> None:
    sealed.match_path.write_text("broken")

    def fail(src: Any, dst: Any) -> None:
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(DamagedSave, match="could not be moved aside") as info:
        sealed.load_match()
    assert info.value.moved_to is None


def test_a_save_from_before_sealing_still_loads(sealed: Storage) -> None:
    old = {"format": 1, "vs": "easy"}
    sealed.match_path.write_text(json.dumps(old))
    assert sealed.load_match() == old


# -- the match against the computer ------------------------------------------------


def test_an_unknown_strength_in_the_save_is_damage_not_a_crash(sealed: Storage) -> None:
    game = Game(STANDARD, "normal", random.Random(3), sealed)
    saved = sealed.load_match()
    sealed.save_match({**saved, "vs": "nobody"})
    with pytest.raises(DamagedSave, match="unknown strength 'nobody'"):
        Game.resume(sealed)
    assert json.loads((sealed.root / ASIDE).read_text())["data"]["vs"] == "nobody"
    assert game.vs == "normal"


def test_an_unsealed_save_of_a_real_match_resumes(sealed: Storage) -> None:
    game = Game(STANDARD, "easy", random.Random(3), sealed)
    sealed.match_path.write_text(json.dumps(sealed.load_match()))
    resumed = Game.resume(sealed)
    assert resumed is not None and resumed.observation() == game.observation()


@pytest.mark.slow
async def test_the_table_starts_a_new_match_over_a_damaged_save(sealed: Storage) -> None:
    Game(STANDARD, "hard", random.Random(3), sealed)
    sealed.save_match({**sealed.load_match(), "vs": "nobody"})
    app = make_app(AppConfig(storage=sealed, rng=random.Random(1), delay=0))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        messages = [str(n.message) for n in app._notifications]
        assert any(f"moved to {sealed.root / ASIDE}" in m for m in messages), messages
        assert app.game is not None and app.game.vs == "normal"
    assert json.loads((sealed.root / ASIDE).read_text())["data"]["vs"] == "nobody"
    assert sealed.load_match() is not None  # the new match's own save


# -- the online match --------------------------------------------------------------


def test_a_flipped_byte_in_an_online_save_is_refused_and_blames_nobody(
        sealed: Storage) -> None:
    invite = Invite(RelayAddress("http", "127.0.0.1", 9), "room", new_secret())
    files = MatchFiles(sealed, invite)
    files.save(Session("host", invite.secret, STANDARD, os.urandom, b"h" * 32), "token")
    raw = bytearray(files.state_path.read_bytes())
    at = raw.index(b'"session": "') + 40
    raw[at] = ord("A") if raw[at] != ord("A") else ord("B")
    files.state_path.write_bytes(bytes(raw))
    with pytest.raises(DamagedSave, match="checksum does not match") as info:
        files.load(b"h" * 32)
    message = str(info.value)
    assert "The saved online match" in message and "moved to" in message
    assert not any(word in message.lower() for word in ("host", "guest", "cheat", "fault"))
    assert files.load(b"h" * 32) is None  # moved aside: the link starts afresh
