"""Relay settings: one dataclass, each field also settable by flag and environment.

Precedence is command-line flag, then environment variable, then default. The
table ``SETTINGS`` drives both the parser and ``--help`` so they cannot drift.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from relay.roomid import default_key_path

DESCRIPTION = (
    "Run a gin relay: it pairs two players in a room and forwards their sealed "
    "messages without reading them. Every option can also be set by the "
    "environment variable named in its help; flags win over the environment."
)


@dataclass(frozen=True)
class RelayConfig:
    """Everything a relay needs; the defaults suit a small public relay."""

    host: str = "127.0.0.1"
    port: int = 8765
    # None means an ephemeral in-memory key: fine for an embedded relay whose
    # rooms die with the process anyway.
    key_file: Path | None = None
    max_frame: int = 64 * 1024
    rate: float = 20.0  # frames per second per connection, sustained
    burst: int = 100  # frames a connection may send at once before the rate applies
    max_conns_per_ip: int = 64  # open connections and handshakes in progress
    new_rooms_per_minute: float = 10.0  # rooms one address may create, sustained
    new_rooms_burst: int = 20  # rooms one address may create at once
    max_rooms: int = 10_000
    grace: float = 120.0  # seconds a dropped seat stays reserved for its owner
    room_idle: float = 3600.0  # seconds without a forwarded frame before a room closes
    buffer_frames: int = 256  # frames held for a seat without a connection
    buffer_bytes: int = 256 * 1024
    max_held_bytes: int = 64 * 1024 * 1024  # frames held for all seats together
    ping_interval: float | None = 30.0
    ping_timeout: float | None = 30.0
    sweep_interval: float = 1.0  # how often grace and idle deadlines are checked
    trust_forwarded: bool = False  # take the client address from X-Forwarded-For
    metrics: bool = True
    # (host, port) to serve /metrics (and /healthz) on instead of the public port.
    metrics_listen: tuple[str, int] | None = None
    log_level: str = "info"
    # The board (a static site's address) that /j/ROOM sends browsers to, instead of
    # serving the board itself: issue 27, docs/running-a-relay.md.
    board: str | None = None
    # This relay's address as players reach it, for the links to that board.
    public_url: str | None = None
    # Injected so tests can move time by hand; used for rate limits and deadlines.
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    # Seat tickets order claims across restarts, so they need time that survives one.
    wall_clock: Callable[[], float] = field(default=time.time, compare=False)


@dataclass(frozen=True)
class Setting:
    name: str  # RelayConfig field
    env: str
    help: str
    kind: Callable[[str], object]
    metavar: str | None = None


# Converters raise ArgumentTypeError, whose text argparse shows as it is.


def _number(text: str, kind: Callable[[str], float], what: str) -> float:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def _optional_seconds(text: str) -> float | None:
    if text.strip().lower() in ("", "none", "off", "0"):
        return None
    return _number(text, float, "seconds or 'off'")


def _flag(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"expected yes or no, got {text!r}")


def _level(text: str) -> str:
    level = text.strip().lower()
    if level not in ("debug", "info", "warning", "error"):
        raise argparse.ArgumentTypeError(f"expected debug, info, warning or error, got {text!r}")
    return level


def _positive_int(text: str) -> int:
    value = int(_number(text, int, "a whole number"))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def port_number(text: str) -> int:
    value = int(_number(text, int, "a port number"))
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0-65535, got {value}")
    return value


def _listen_address(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (an IPv6 host in brackets: ``[::1]:9100``), or 'off'."""
    if text.strip().lower() in ("", "none", "off"):
        return None
    host, sep, port = text.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT, e.g. 127.0.0.1:9100 or [::1]:9100, got {text!r}")
    return host, port_number(port)


def web_address(text: str, page: bool = False) -> str:
    """An http:// or https:// address with a host, no user name, query or fragment:
    a relay's without a trailing "/", a ``page``'s as given (its "/" ends a folder,
    against which the page's files are found)."""
    value = text.strip()
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a web address ({exc}): {value!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"expected an address starting with http:// or https://, got {value!r}")
    if parts.username is not None or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(
            f"an address without a user name, '?' or '#' part, please: {value!r}")
    if page:
        return value if parts.path else value + "/"
    return value.rstrip("/") if parts.path not in ("", "/") else f"{parts.scheme}://{parts.netloc}"


def board_address(text: str) -> str | None:
    """``--board``: a page's address (:func:`web_address`), or 'off'."""
    return None if text.strip().lower() in ("", "off") else web_address(text, page=True)


def _positive_float(text: str) -> float:
    value = _number(text, float, "a number")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value:g}")
    return value


SETTINGS: tuple[Setting, ...] = (
    Setting("host", "GIN_RELAY_HOST", "address to listen on", str, "ADDR"),
    Setting("port", "GIN_RELAY_PORT", "TCP port to listen on (0 picks a free one)", port_number,
            "PORT"),
    Setting(
        "key_file",
        "GIN_RELAY_KEY_FILE",
        "file holding the key that signs room ids; created (mode 0600) if missing. "
        "Keep it across restarts so rooms in progress survive",
        Path,
        "PATH",
    ),
    Setting(
        "max_frame", "GIN_RELAY_MAX_FRAME", "largest frame accepted, bytes", _positive_int, "BYTES"
    ),
    Setting("rate", "GIN_RELAY_RATE", "frames per second per connection", _positive_float, "FPS"),
    Setting("burst", "GIN_RELAY_BURST", "frames allowed in a burst", _positive_int, "N"),
    Setting(
        "max_conns_per_ip",
        "GIN_RELAY_MAX_CONNS_PER_IP",
        "open connections per client address (an IPv6 /64 counts as one), "
        "handshakes in progress included",
        _positive_int,
        "N",
    ),
    Setting(
        "new_rooms_per_minute",
        "GIN_RELAY_NEW_ROOMS_PER_MINUTE",
        "rooms one client address may create per minute, sustained",
        _positive_float,
        "N",
    ),
    Setting(
        "new_rooms_burst",
        "GIN_RELAY_NEW_ROOMS_BURST",
        "rooms one client address may create at once before the rate applies",
        _positive_int,
        "N",
    ),
    Setting("max_rooms", "GIN_RELAY_MAX_ROOMS", "rooms held at once", _positive_int, "N"),
    Setting(
        "grace",
        "GIN_RELAY_GRACE",
        "seconds a dropped player's seat and buffered frames are kept",
        _positive_float,
        "SECONDS",
    ),
    Setting(
        "room_idle",
        "GIN_RELAY_ROOM_IDLE",
        "seconds without a forwarded frame before a room is closed",
        _positive_float,
        "SECONDS",
    ),
    Setting(
        "buffer_frames",
        "GIN_RELAY_BUFFER_FRAMES",
        "frames held for an absent player",
        _positive_int,
        "N",
    ),
    Setting(
        "buffer_bytes",
        "GIN_RELAY_BUFFER_BYTES",
        "bytes held for an absent player",
        _positive_int,
        "BYTES",
    ),
    Setting(
        "max_held_bytes",
        "GIN_RELAY_MAX_HELD_BYTES",
        "bytes held for all players together; past it, frames for a player who "
        "is not keeping up are dropped as if its own buffer overflowed",
        _positive_int,
        "BYTES",
    ),
    Setting(
        "ping_interval",
        "GIN_RELAY_PING_INTERVAL",
        "seconds between keepalive pings ('off' disables)",
        _optional_seconds,
        "SECONDS",
    ),
    Setting(
        "ping_timeout",
        "GIN_RELAY_PING_TIMEOUT",
        "seconds to wait for a pong before dropping a connection ('off' disables)",
        _optional_seconds,
        "SECONDS",
    ),
    Setting(
        "trust_forwarded",
        "GIN_RELAY_TRUST_FORWARDED",
        "count connections per address from the last X-Forwarded-For entry "
        "(only behind a reverse proxy that sets it)",
        _flag,
        "yes|no",
    ),
    Setting("metrics", "GIN_RELAY_METRICS", "serve Prometheus /metrics", _flag, "yes|no"),
    Setting(
        "metrics_listen",
        "GIN_RELAY_METRICS_LISTEN",
        "serve /metrics (and /healthz) on this address instead of the relay's port, "
        "so a public relay need not expose it ('off': on the relay's port)",
        _listen_address,
        "HOST:PORT",
    ),
    Setting(
        "board",
        "GIN_RELAY_BOARD",
        "send browsers opening an invite link (/j/ROOM) to the board at this address (a "
        "static export, `gin web --export`), its secret after '#' kept, instead of "
        "serving the board's code from here ('off': serve it here)",
        board_address,
        "URL",
    ),
    Setting(
        "public_url",
        "GIN_RELAY_PUBLIC_URL",
        "this relay's address as players reach it (https://relay.example.org/gin), named "
        "in the links --board makes; by default http:// and the request's Host",
        web_address,
        "URL",
    ),
    Setting(
        "log_level",
        "GIN_RELAY_LOG_LEVEL",
        "debug, info, warning or error",
        _level,
        "LEVEL",
    ),
)

_FIELD_DEFAULTS = {f.name: f.default for f in fields(RelayConfig)}


def _shown_default(setting: Setting) -> str:
    if setting.name == "key_file":
        return str(default_key_path())
    value = _FIELD_DEFAULTS[setting.name]
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one flag per setting; unset flags stay None so the env can fill them."""
    for setting in SETTINGS:
        parser.add_argument(
            "--" + setting.name.replace("_", "-"),
            dest=setting.name,
            metavar=setting.metavar or setting.name.upper(),
            type=setting.kind,
            default=None,
            help=f"{setting.help} (default: {_shown_default(setting)}; env {setting.env})",
        )


class ConfigError(ValueError):
    """A setting from the environment could not be parsed."""


def config_from_args(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> RelayConfig:
    """Combine parsed flags with environment variables and defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for setting in SETTINGS:
        flag_value = getattr(args, setting.name, None)
        if flag_value is not None:
            values[setting.name] = flag_value
        elif setting.env in env:
            try:
                values[setting.name] = setting.kind(env[setting.env])
            except argparse.ArgumentTypeError as exc:
                raise ConfigError(f"{setting.env}={env[setting.env]!r}: {exc}") from exc
    # The command-line relay always persists its key, so restarts keep rooms.
    values.setdefault("key_file", default_key_path())
    return replace(RelayConfig(), **values)  # type: ignore[arg-type]
