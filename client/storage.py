"""The player's data folder: finished hands and the match in progress, as JSON.

The folder is ``--data-dir``, else ``$GIN_DATA_DIR``, else the system's folder for
a user's application data (:func:`default_data_dir`). Every write goes to a
temporary file in the same folder and is moved into place with :func:`os.replace`,
so a crash or a full disk never leaves a half-written file where a good one was.
Any failure is raised as :class:`StorageError` with a message a player can act
on; the caller keeps playing and tries again later.

A save that is state to continue from (the match in progress, an online match)
is sealed: it sits in a small envelope with a SHA-256 over its canonical JSON, so
a flipped byte or a cut-off file is found on load instead of being played from
(an accident, not a deliberate edit: whoever edits a save can recompute the sum,
and then the rules engine and the online session still check what it holds).
A damaged save is
never played from and never overwritten: it is moved aside to
``NAME.damaged-YYYYMMDD-HHMMSS`` and the error says where it went. Finished hands
(``hands/``, ``records/``) stay plain JSON: people and ``gin audit`` read them.
Your record (``record.json``, every finished match: :mod:`client.record`) is sealed
too, and set aside the same way when damaged.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import platformdirs

from client.record import parse, stored

MATCH_FILE = "match.json"
RECORD_FILE = "record.json"  # your record: every finished match (client/record.py)
HANDS_DIR = "hands"
SEAL = "gin-save"  # the envelope's marker key; its value is the envelope's version
SEAL_VERSION = 1


class StorageError(Exception):
    """Saving or loading failed; ``str()`` says what happened and where, in plain words.

    ``problem`` is that statement without the advice on what happens next, for a
    caller that gives its own (online play pauses instead of going on).
    """

    def __init__(self, problem: str, advice: str = "") -> None:
        super().__init__(f"{problem} {advice}".rstrip())
        self.problem = problem


class DamagedSave(StorageError):
    """A save could not be used and was moved aside (``moved_to``; None if that failed)."""

    def __init__(self, message: str, moved_to: Path | None) -> None:
        super().__init__(message)
        self.moved_to = moved_to


def checksum(data: Any) -> str:
    """SHA-256 (hex) of ``data``'s canonical JSON: sorted keys, no spaces, UTF-8."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def seal(data: Any) -> dict[str, Any]:
    """``data`` in the checksummed envelope that :meth:`Storage.load_state` opens."""
    # As it will read back (tuples as lists, keys as text), so the sum matches on load.
    data = json.loads(json.dumps(data))
    return {SEAL: SEAL_VERSION, "sha256": checksum(data), "data": data}


def unseal(envelope: Any) -> Any:
    """The data inside a sealed save; ValueError naming the damage if it is not intact."""
    if not isinstance(envelope, dict) or set(envelope) != {SEAL, "sha256", "data"}:
        raise ValueError("it is not a sealed save")
    if envelope[SEAL] != SEAL_VERSION:
        raise ValueError(f"unknown save version {envelope[SEAL]!r}")
    if envelope["sha256"] != checksum(envelope["data"]):
        raise ValueError("its checksum does not match its contents")
    return envelope["data"]


#: The default of ``--data-dir``, in the words of the commands' help.
DATA_DIR_DEFAULT = ("$GIN_DATA_DIR, else the user data folder: $XDG_DATA_HOME/gin or "
                    "~/.local/share/gin on Linux")


def default_data_dir() -> Path:
    """``$GIN_DATA_DIR``, else the user data folder :mod:`platformdirs` names for gin:
    on Linux ``$XDG_DATA_HOME/gin``, else ``~/.local/share/gin``."""
    if os.environ.get("GIN_DATA_DIR"):
        return Path(os.environ["GIN_DATA_DIR"]).expanduser()
    folder = platformdirs.user_data_path("gin", appauthor=False)
    # Earlier versions used the Linux folder on every system. Elsewhere (macOS,
    # Windows) a match saved there is still found, until the system's folder exists.
    earlier = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    earlier = earlier.expanduser() / "gin"
    return earlier if not folder.exists() and earlier.is_dir() else folder


def _explain(exc: OSError, action: str, path: Path) -> StorageError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "the folder is not writable"
    else:
        why = exc.strerror or str(exc)
    return StorageError(f"Could not {action} {path}: {why}.",
                        "The game goes on; it will try again after your next move.")


class Storage:
    """Reads and writes the files of one data folder."""

    def __init__(self, root: Path, clock: Callable[[], datetime] = datetime.now) -> None:
        self.root = root
        self.clock = clock  # names a damaged save's new place

    @property
    def match_path(self) -> Path:
        return self.root / MATCH_FILE

    @property
    def hands_dir(self) -> Path:
        return self.root / HANDS_DIR

    def write_json(self, path: Path, data: Any) -> None:
        """Write ``data`` to ``path`` atomically (temp file, fsync, os.replace)."""
        text = json.dumps(data, indent=1, sort_keys=True)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        except OSError as exc:
            raise _explain(exc, "save to", path.parent) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise _explain(exc, "save", path) from None

    def read_json(self, path: Path) -> Any:
        """The JSON in ``path``, or None when there is no such file."""
        raw = self._read_bytes(path)
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise StorageError(f"{path} is not valid JSON ({exc}); it was left as it is.") \
                from None

    def _read_bytes(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _explain(exc, "read", path) from None

    def save_state(self, path: Path, data: Any) -> None:
        """Write ``data`` sealed with its checksum (see :func:`seal`), atomically."""
        self.write_json(path, seal(data))

    def load_state(self, path: Path, what: str, *, unsealed_ok: bool = False) -> Any:
        """The data of the sealed save ``path``, or None when there is none.

        A damaged save is moved aside and raised as :class:`DamagedSave` (``what``
        names it for the player, e.g. "The saved match"). ``unsealed_ok`` accepts a
        plain JSON object with a ``format`` field, as saved before saves were sealed.
        """
        raw = self._read_bytes(path)
        if raw is None:
            return None
        try:
            envelope = json.loads(raw)  # bytes that are not UTF-8 raise ValueError too
        except ValueError:
            raise self.set_aside(path, what, "it is not valid JSON") from None
        if unsealed_ok and isinstance(envelope, dict) and SEAL not in envelope \
                and "format" in envelope:
            return envelope
        try:
            return unseal(envelope)
        except ValueError as exc:
            raise self.set_aside(path, what, str(exc)) from None

    def set_aside(self, path: Path, what: str, why: object) -> DamagedSave:
        """Move the unusable save ``path`` to ``NAME.damaged-YYYYMMDD-HHMMSS``; the error."""
        stamp = self.clock().strftime("%Y%m%d-%H%M%S")
        target = path.with_name(f"{path.name}.damaged-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        head = (f"{what} in {path} cannot be continued: {why}. The file on this computer "
                "was damaged or edited")
        try:
            os.replace(path, target)
        except OSError as exc:
            return DamagedSave(f"{head}; it could not be moved aside "
                               f"({exc.strerror or exc}), so move or delete it yourself.", None)
        return DamagedSave(f"{head}. It was moved to {target}, where nothing will "
                           "overwrite it.", target)

    def save_match(self, data: Any) -> None:
        self.save_state(self.match_path, data)

    def load_match(self) -> Any:
        """The saved match in progress (a save from before sealing too), or None."""
        return self.load_state(self.match_path, "The saved match", unsealed_ok=True)

    def clear_match(self) -> None:
        try:
            self.match_path.unlink(missing_ok=True)
        except OSError as exc:
            raise _explain(exc, "remove", self.match_path) from None

    @property
    def record_path(self) -> Path:
        return self.root / RECORD_FILE

    def load_record(self) -> list[Any]:
        """Your record's entries, oldest first (empty when there is none yet).

        A damaged record is moved aside and raised as :class:`DamagedSave`, as a
        damaged save is.
        """
        data = self.load_state(self.record_path, "Your record")
        if data is None:
            return []
        try:
            return parse(data)
        except ValueError as exc:
            raise self.set_aside(self.record_path, "Your record", exc) from None

    def add_to_record(self, entry: Any) -> list[str]:
        """Add one finished match (dated now) to your record; the player's warnings.

        A damaged record is set aside (the first warning says where) and a new one
        begins with this match. StorageError if the record cannot be written.
        """
        warnings: list[str] = []
        try:
            matches = self.load_record()
        except DamagedSave as exc:
            warnings.append(f"{exc} A new record begins with this match.")
            matches = []
        entry = {**entry, "at": self.clock().astimezone().isoformat(timespec="seconds")}
        self.save_state(self.record_path, stored([*matches, entry]))
        return warnings

    def save_hand(self, record: Any) -> Path:
        """Save a finished hand as ``hands/NNNNNN.json`` (the next free number)."""
        numbers = [int(p.stem) for p in self._hand_files()]
        path = self.hands_dir / f"{max(numbers, default=0) + 1:06d}.json"
        self.write_json(path, record)
        return path

    def saved_hands(self) -> list[Any]:
        """Every saved hand record, oldest first."""
        return [self.read_json(p) for p in sorted(self._hand_files())]

    def _hand_files(self) -> list[Path]:
        if not self.hands_dir.is_dir():
            return []
        return [p for p in self.hands_dir.glob("*.json") if p.stem.isdigit()]
