"""Settings from flags and environment, the key file, room ids, and JSON logs."""

from __future__ import annotations

import json
import logging
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.cli import build_parser as gin_parser
from relay import roomid
from relay.cli import build_parser
from relay.config import SETTINGS, ConfigError, RelayConfig, config_from_args
from relay.logs import JsonFormatter
from relay.roomid import (
    ROOM_ID_PATTERN,
    KeyFileError,
    RoomIds,
    default_key_path,
    load_or_create_key,
)


def test_help_names_every_setting_with_its_default_and_variable() -> None:
    text = " ".join(build_parser().format_help().split())
    for setting in SETTINGS:
        assert "--" + setting.name.replace("_", "-") in text
        assert f"env {setting.env})" in text
    assert "(default: 127.0.0.1; env GIN_RELAY_HOST)" in text
    assert "(default: 8765; env GIN_RELAY_PORT)" in text
    assert "(default: 30.0; env GIN_RELAY_PING_INTERVAL)" in text


def test_gin_relay_is_a_gin_command() -> None:
    args = gin_parser().parse_args(["relay", "--port", "9999"])
    assert args.port == 9999 and callable(args.func)


def test_flags_beat_environment_beats_defaults(tmp_path: Path) -> None:
    env = {
        "GIN_RELAY_PORT": "7000",
        "GIN_RELAY_HOST": "0.0.0.0",
        "GIN_RELAY_GRACE": "5",
        "GIN_RELAY_PING_INTERVAL": "off",
        "GIN_RELAY_TRUST_FORWARDED": "yes",
        "GIN_RELAY_KEY_FILE": str(tmp_path / "k"),
    }
    config = config_from_args(build_parser().parse_args(["--port", "7001"]), env)
    assert config.port == 7001  # flag
    assert config.host == "0.0.0.0" and config.grace == 5.0  # environment
    assert config.ping_interval is None and config.trust_forwarded is True
    assert config.key_file == tmp_path / "k"
    assert config.max_frame == RelayConfig().max_frame  # default


def test_command_line_relay_always_has_a_key_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", "/data")
    config = config_from_args(build_parser().parse_args([]), {})
    assert config.key_file == Path("/data/gin/relay.key") == default_key_path()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GIN_RELAY_PORT", "http"),
        ("GIN_RELAY_PORT", "70000"),
        ("GIN_RELAY_RATE", "-1"),
        ("GIN_RELAY_LOG_LEVEL", "loud"),
        ("GIN_RELAY_METRICS", "maybe"),
        ("GIN_RELAY_PING_INTERVAL", "soon"),
    ],
)
def test_bad_environment_values_are_named(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"{name}="):
        config_from_args(build_parser().parse_args([]), {name: value})


def test_bad_flags_are_refused_by_the_parser() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--burst", "0"])


def test_key_file_is_created_private_and_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "relay.key"
    key = load_or_create_key(path)
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_or_create_key(path) == key
    assert [p.name for p in path.parent.iterdir()] == ["relay.key"]  # no draft left


@pytest.mark.slow  # relay processes: 2-3 s
def test_relays_started_together_all_get_the_one_key(tmp_path: Path) -> None:
    """One relay per core, started at once by systemd: none reads a half-written key."""
    path = tmp_path / "relay.key"
    # Each imports first, then all go at the same moment.
    code = ("import sys, time, pathlib; from relay.roomid import load_or_create_key as k\n"
            "while time.time() < float(sys.argv[2]): pass\n"
            "print(k(pathlib.Path(sys.argv[1])).hex())")
    start = str(time.time() + 2)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), start],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(6)]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in outputs]
    assert {out.strip() for out, _ in outputs} == {path.read_text().strip()}


@pytest.mark.parametrize(
    ("content", "message"),
    [("not hex\n", "does not hold hex"), ("abcd\n", "holds 2 bytes")],
)
def test_unusable_key_files_are_explained(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "relay.key"
    path.write_text(content)
    with pytest.raises(KeyFileError, match=message):
        load_or_create_key(path)


def test_room_ids_are_self_validating() -> None:
    ids = RoomIds(bytes(range(32)))
    room = ids.issue()
    assert ROOM_ID_PATTERN.fullmatch(room) and ids.verify(room)
    assert ids.issue() != room
    assert RoomIds(bytes(range(32))).verify(room)  # same key after a restart
    assert not RoomIds(bytes(range(1, 33))).verify(room)
    flipped = room[:5] + ("A" if room[5] != "A" else "B") + room[6:]
    assert not ids.verify(flipped)
    assert not ids.verify(room + "A") and not ids.verify("")
    with pytest.raises(ValueError):
        RoomIds(b"short")


def test_json_log_lines() -> None:
    record = logging.LogRecord("relay", logging.WARNING, __file__, 1, "refused", None, None)
    record.fields = {"reason": "flood", "code": 1008}
    entry = json.loads(JsonFormatter().format(record))
    assert entry["event"] == "refused" and entry["level"] == "warning"
    assert entry["reason"] == "flood" and entry["code"] == 1008
    assert entry["ts"].endswith("Z")


def test_default_key_file_lives_in_the_gin_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same folder `gin` keeps its records in: GIN_DATA_DIR wins over XDG_DATA_HOME.
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    monkeypatch.setenv("GIN_DATA_DIR", "/srv/gindata")
    config = config_from_args(build_parser().parse_args([]), {})
    assert config.key_file == Path("/srv/gindata/relay.key")
    assert "/srv/gindata/relay.key" in " ".join(build_parser().format_help().split())
    monkeypatch.delenv("GIN_DATA_DIR")
    assert default_key_path() == Path("/xdg/gin/relay.key")


def test_default_key_file_follows_platformdirs_on_every_system(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 26 item 6: as the client's data folder does (it was the Linux folder
    everywhere)."""
    system = tmp_path / "Library" / "Application Support" / "gin"
    monkeypatch.delenv("GIN_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # no earlier folder there
    monkeypatch.setattr(roomid.platformdirs, "user_data_path", lambda *a, **k: system)
    assert default_key_path() == system / "relay.key"
    (tmp_path / "xdg" / "gin").mkdir(parents=True)  # an earlier version's folder is kept
    assert default_key_path() == tmp_path / "xdg" / "gin" / "relay.key"


def test_metrics_listen_takes_host_and_port() -> None:
    def parse(text: str) -> object:
        return config_from_args(build_parser().parse_args([]),
                                {"GIN_RELAY_METRICS_LISTEN": text}).metrics_listen

    assert parse("127.0.0.2:9100") == ("127.0.0.2", 9100)
    assert parse("[::1]:9100") == ("::1", 9100)
    assert parse("off") is None
    assert config_from_args(build_parser().parse_args(["--metrics-listen", "10.0.0.5:0"]),
                            {}).metrics_listen == ("10.0.0.5", 0)
    for bad in ("9100", ":9100", "host:http", "host:70000"):
        with pytest.raises(ConfigError, match="GIN_RELAY_METRICS_LISTEN="):
            parse(bad)
