"""The data folder: where it is, atomic writes, and clear failures."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from client.storage import Storage, StorageError, default_data_dir


def test_data_dir_precedence(tmp_path: Path) -> None:
    home = Path.home()
    assert default_data_dir({}) == home / ".local" / "share" / "gin"
    assert default_data_dir({"XDG_DATA_HOME": "/x"}) == Path("/x/gin")
    assert default_data_dir({"XDG_DATA_HOME": "/x", "GIN_DATA_DIR": "/g"}) == Path("/g")


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
    storage.match_path.write_text("{not json")
    with pytest.raises(StorageError, match="not valid JSON"):
        storage.load_match()
    assert storage.match_path.read_text() == "{not json"
