"""The player's data folder: finished hands and the match in progress, as JSON.

The folder is ``--data-dir``, else ``$GIN_DATA_DIR``, else ``$XDG_DATA_HOME/gin``,
else ``~/.local/share/gin``. Every write goes to a temporary file in the same
folder and is moved into place with :func:`os.replace`, so a crash or a full disk
never leaves a half-written file where a good one was. Any failure is raised as
:class:`StorageError` with a message a player can act on; the caller keeps
playing and tries again later.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MATCH_FILE = "match.json"
HANDS_DIR = "hands"


class StorageError(Exception):
    """Saving or loading failed; ``str()`` says what happened and where, in plain words."""


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$GIN_DATA_DIR``, else ``$XDG_DATA_HOME/gin``, else ``~/.local/share/gin``."""
    env = os.environ if environ is None else environ
    if env.get("GIN_DATA_DIR"):
        return Path(env["GIN_DATA_DIR"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]).expanduser() / "gin"
    return Path.home() / ".local" / "share" / "gin"


def _explain(exc: OSError, action: str, path: Path) -> StorageError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "the folder is not writable"
    else:
        why = exc.strerror or str(exc)
    return StorageError(f"Could not {action} {path}: {why}. The game goes on; "
                        "it will try again after your next move.")


class Storage:
    """Reads and writes the files of one data folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

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
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _explain(exc, "read", path) from None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise StorageError(f"{path} is not valid JSON ({exc}); it was left as it is.") \
                from None

    def save_match(self, data: Any) -> None:
        self.write_json(self.match_path, data)

    def load_match(self) -> Any:
        """The saved match in progress, or None."""
        return self.read_json(self.match_path)

    def clear_match(self) -> None:
        try:
            self.match_path.unlink(missing_ok=True)
        except OSError as exc:
            raise _explain(exc, "remove", self.match_path) from None

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
