"""Your identity key and known friends in the data folder (client/identity.py)."""

from __future__ import annotations

import json
import stat
from datetime import datetime
from pathlib import Path

from client.identity import FRIENDS_FILE, IDENTITY_FILE, load_identity, meet
from client.storage import Storage, checksum
from gin.protocol.records.identity import Identity, fingerprint


def storage(root: Path) -> Storage:
    return Storage(root, clock=lambda: datetime(2026, 12, 2, 8, 30, 0))


def test_the_identity_key_is_made_once_kept_private_and_reused(tmp_path: Path) -> None:
    draws: list[int] = []

    def random_bytes(n: int) -> bytes:
        draws.append(n)
        return bytes(range(n))

    first = load_identity(storage(tmp_path), random_bytes)
    assert first.secret == bytes(range(32)) and first.warning is None and draws == [32]
    path = tmp_path / IDENTITY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the secret is readable by you alone
    again = load_identity(storage(tmp_path), random_bytes)
    assert again.secret == first.secret and draws == [32]  # read back, not made again
    assert again.public == Identity(first.secret).public
    assert again.words == fingerprint(again.public)


def test_a_damaged_identity_file_is_set_aside_and_a_new_key_made(tmp_path: Path) -> None:
    first = load_identity(storage(tmp_path), lambda n: b"\x01" * n)
    path = tmp_path / IDENTITY_FILE
    path.write_text(path.read_text().replace("01", "02", 1))  # a flipped digit: the seal breaks
    second = load_identity(storage(tmp_path), lambda n: b"\x03" * n)
    assert second.secret == b"\x03" * 32 != first.secret
    assert second.warning is not None
    assert "your friends will see a new identity" in second.warning
    aside = tmp_path / f"{IDENTITY_FILE}.damaged-20261202-083000"
    assert aside.exists() and str(aside) in second.warning
    assert load_identity(storage(tmp_path), lambda n: b"\x04" * n).secret == second.secret


def test_an_identity_file_that_is_no_key_is_set_aside_too(tmp_path: Path) -> None:
    store = storage(tmp_path)
    store.save_state(tmp_path / IDENTITY_FILE, {"format": "gin-identity", "key": "zz" * 32})
    got = load_identity(store, lambda n: b"\x05" * n)
    assert got.secret == b"\x05" * 32 and got.warning is not None
    assert "Traceback" not in got.warning


def test_friends_are_new_then_known_and_a_changed_identity_on_a_link_is_said(
        tmp_path: Path) -> None:
    store = storage(tmp_path)
    alice, mallory = Identity(b"a" * 32).public, Identity(b"m" * 32).public
    link, other_link = bytes(16), bytes([1] * 16)
    friend, warnings = meet(store, link, alice, b"\x10" * 16)
    assert warnings == [] and friend.matches == 0 and friend.was is None
    assert friend.describe() == (f"your friend: {fingerprint(alice)} (new: you have not "
                                 "played this identity before)")
    again, _ = meet(store, link, alice, b"\x10" * 16)  # the same match, resumed
    assert again.matches == 0
    later, _ = meet(store, other_link, alice, b"\x11" * 16)
    assert later.matches == 1 and later.describe().endswith("(known: 1 match before)")
    changed, _ = meet(store, link, mallory, b"\x12" * 16)
    assert changed.was == fingerprint(alice)
    assert changed.describe() == (
        f"your friend's identity on this link changed: was {fingerprint(alice)}, now "
        f"{fingerprint(mallory)}; someone else may hold this link")


def test_a_damaged_friends_file_is_set_aside_and_begins_again(tmp_path: Path) -> None:
    store = storage(tmp_path)
    meet(store, bytes(16), Identity(b"a" * 32).public, b"\x10" * 16)
    path = tmp_path / FRIENDS_FILE
    data = json.loads(path.read_text())
    data["data"]["links"] = {"x": "not an identity"}
    store.write_json(path, {**data, "sha256": checksum(data["data"])})  # sealed, but no list
    friend, warnings = meet(store, bytes(16), Identity(b"a" * 32).public, b"\x11" * 16)
    assert friend.matches == 0 and len(warnings) == 1
    assert "start again from this match" in warnings[0]
    assert (tmp_path / f"{FRIENDS_FILE}.damaged-20261202-083000").exists()
