"""Self-validating room ids and seat tickets, and the relay key they are signed with.

A room id is 16 random bytes followed by the first 8 bytes of an HMAC-SHA256 of
them under the relay's key, in url-safe base64 (32 characters, no padding). The
relay stores nothing to recognise its own ids, so rooms survive a restart: any
id whose MAC verifies is re-created on demand, and anything else is refused.

A seat ticket is the relay's signed statement "this token has held this seat
since time T" (milliseconds of wall-clock time), so after a restart a seat's
holder can prove its claim is older than any claim made since.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import os
import re
import secrets
from hashlib import sha256
from pathlib import Path

import platformdirs

RANDOM_BYTES = 16
MAC_BYTES = 8
KEY_BYTES = 32
ROOM_ID_LENGTH = 32  # base64 of 24 bytes, which needs no padding
ROOM_ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{ROOM_ID_LENGTH}}}")

TICKET_LENGTH = 32  # base64 of 8 bytes of time and 16 of MAC
TICKET_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{TICKET_LENGTH}}}")

# Domain separation, so the key can never be confused with any other MAC use.
_MAC_LABEL = b"gin-relay room id v1\x00"
_TICKET_LABEL = b"gin-relay seat ticket v1\x00"
_TICKET_MAC_BYTES = 16


class KeyFileError(Exception):
    """The relay key file exists but cannot be used; the message says why."""


def default_key_path() -> Path:
    """Where a relay keeps its key unless told otherwise: ``relay.key`` in gin's data
    folder (``$GIN_DATA_DIR``, else the user data folder :mod:`platformdirs` names for
    gin: on Linux ``$XDG_DATA_HOME/gin``, else ``~/.local/share/gin``; on macOS and
    Windows the system's own).

    The relay never imports the client, so this mirrors ``client.storage.default_data_dir``,
    the Linux folder of earlier versions included (kept while the system's is absent).
    """
    if data_dir := os.environ.get("GIN_DATA_DIR"):
        return Path(data_dir).expanduser() / "relay.key"
    folder = platformdirs.user_data_path("gin", appauthor=False)
    earlier = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    earlier = earlier.expanduser() / "gin"
    return (earlier if not folder.exists() and earlier.is_dir() else folder) / "relay.key"


def load_or_create_key(path: Path) -> bytes:
    """Read the hex key at ``path``, creating it (mode 0600) when it is missing."""
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return _create_key(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read relay key file {path}: {exc}") from exc
    try:
        key = bytes.fromhex(text.strip())
    except ValueError as exc:
        raise KeyFileError(f"relay key file {path} does not hold hex text") from exc
    if len(key) < KEY_BYTES:
        raise KeyFileError(
            f"relay key file {path} holds {len(key)} bytes; at least {KEY_BYTES} are needed"
        )
    return key


def _create_key(path: Path) -> bytes:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    # Written whole under another name, then linked into place: relays started
    # together (one per core) never read a key file that is still empty.
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(key.hex() + "\n")
        os.link(draft, path)
    except FileExistsError:
        return load_or_create_key(path)  # another relay won the race: use its key
    except OSError as exc:
        raise KeyFileError(f"cannot create relay key file {path}: {exc}") from exc
    finally:
        draft.unlink(missing_ok=True)
    return key


class RoomIds:
    """Issues room ids and seat tickets, and recognises those issued under the same key."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) < KEY_BYTES:
            raise ValueError(f"relay key must be at least {KEY_BYTES} bytes")
        self._key = key

    def _mac(self, nonce: bytes) -> bytes:
        return hmac.new(self._key, _MAC_LABEL + nonce, sha256).digest()[:MAC_BYTES]

    def issue(self) -> str:
        nonce = secrets.token_bytes(RANDOM_BYTES)
        return base64.urlsafe_b64encode(nonce + self._mac(nonce)).decode("ascii")

    def verify(self, room: str) -> bool:
        """True only for a well-formed id whose MAC matches this key."""
        if not ROOM_ID_PATTERN.fullmatch(room):
            return False
        try:
            raw = base64.urlsafe_b64decode(room)
        except (binascii.Error, ValueError):
            return False
        nonce, mac = raw[:RANDOM_BYTES], raw[RANDOM_BYTES:]
        return hmac.compare_digest(mac, self._mac(nonce))

    def _ticket_mac(self, room: str, seat: int, token: str, since: bytes) -> bytes:
        message = b"%s%s\x00%d\x00%s\x00%s" % (
            _TICKET_LABEL, room.encode(), seat, token.encode(), since)
        return hmac.new(self._key, message, sha256).digest()[:_TICKET_MAC_BYTES]

    def ticket(self, room: str, seat: int, token: str, since_ms: int) -> str:
        """The ticket saying ``token`` has held ``seat`` of ``room`` since ``since_ms``."""
        since = since_ms.to_bytes(8, "big")
        raw = since + self._ticket_mac(room, seat, token, since)
        return base64.urlsafe_b64encode(raw).decode("ascii")

    def ticket_since(self, ticket: str, room: str, seat: int, token: str) -> int | None:
        """The time a valid ticket for exactly this room, seat and token states, else None."""
        if not TICKET_PATTERN.fullmatch(ticket):
            return None
        try:
            raw = base64.urlsafe_b64decode(ticket)
        except (binascii.Error, ValueError):
            return None
        since, mac = raw[:8], raw[8:]
        if not hmac.compare_digest(mac, self._ticket_mac(room, seat, token, since)):
            return None
        return int.from_bytes(since, "big")
