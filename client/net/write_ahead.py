"""Write-ahead for an online match (protocol.md §11.2): the session is saved before the
frames it produced are sent, and each verified hand's record (and an abandonment
record) is written to ``records/`` (both through :mod:`client.net.store`). While the
session cannot be saved, nothing is sent: the save is retried, and the match ends
(this side at fault) when it keeps failing; records that could not be written are
retried, and counted at the end. Used by :class:`client.net.peer.OnlineMatch`; the
browser's twin is the write-ahead in client/web/src/online/peer.ts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from client.net.link_state import Notice, Update
from client.net.store import MatchFiles
from client.storage import StorageError
from gin.protocol.session.events import Abandoned, CheatDetected, HandVerified

Record = HandVerified | CheatDetected | Abandoned


class WriteAhead:
    """One match's saving. ``save()`` saves the session as it is now (raises
    :class:`StorageError`); ``needed()`` says whether there is a session to resume from
    (not once it is over: the saved match is removed at the end). A failed save or
    record is retried every ``retry`` seconds while ``running()``; a save that
    succeeds again calls ``saved_again()`` (the held frames are to be re-sent), one
    that has failed for ``give_up`` seconds calls ``gave_up(seconds)``."""

    def __init__(self, files: MatchFiles | None, *, save: Callable[[], None],
                 needed: Callable[[], bool], running: Callable[[], bool],
                 tell: Callable[[Update], None], saved_again: Callable[[], None],
                 gave_up: Callable[[float], None], retry: float, give_up: float) -> None:
        self.files = files
        self.records: list[Path] = []  # the records written
        self.problem = ""  # the last save failure, for the final line
        self._save_session, self._needed, self._running = save, needed, running
        self._tell, self._saved_again, self._gave_up = tell, saved_again, gave_up
        self._retry_every, self._give_up = retry, give_up
        # Frames wait here while their session state is not saved.
        self._unsaved: list[bytes] = []
        self._failing_since: float | None = None
        self._pending: list[Record] = []
        self._retry: asyncio.TimerHandle | None = None

    @property
    def holding(self) -> bool:
        """Frames wait for a save (a resend waits too: all are resent once it works)."""
        return bool(self._unsaved)

    def release(self, frames: list[bytes], changed: bool) -> list[bytes]:
        """The frames that may be sent now: all the held ones once the session is saved
        (when ``changed``, or while frames are held), else none."""
        if self._unsaved or (changed and self.files is not None):
            self._unsaved.extend(frames)
            frames = []
            if self._save():
                frames, self._unsaved = self._unsaved, []
        return frames

    def record(self, event: Record) -> None:
        """Write the record this event carries (kept and retried while that fails)."""
        if self.files is not None:
            self._pending.append(event)
            self._write_records()

    def close(self) -> list[int]:
        """Stop retrying, try the records once more; the hands still not recorded."""
        if self._retry is not None:
            self._retry.cancel()
        if self.files is not None:
            self._write_records()  # a last try for records that failed before
        return [_hand_number(e) for e in self._pending]

    def _save(self) -> bool:
        """Save the session; False (and a retry scheduled) when that failed."""
        if self.files is None or not self._needed():
            return True
        try:
            self._save_session()
        except StorageError as exc:
            self.problem = exc.problem
            if self._failing_since is None:
                self._failing_since = asyncio.get_running_loop().time()
                self._tell(Notice(f"{exc.problem} Nothing more is sent to your friend until "
                                  f"the match is saved: trying again every "
                                  f"{self._retry_every:g} s, for up to {self._give_up:g} s."))
            self._schedule_retry()
            return False
        if self._failing_since is not None:
            self._failing_since = None
            self._tell(Notice("The match is saved again; play goes on."))
        return True

    def _write_records(self) -> None:
        assert self.files is not None
        while self._pending:
            try:
                path = self.files.save_record(self._pending[0])
            except StorageError as exc:
                self.problem = exc.problem
                self._tell(Notice(f"{exc.problem} The hand's record is kept in memory and "
                                  "saved as soon as that works."))
                self._schedule_retry()
                return
            self._pending.pop(0)
            if path is not None:
                self.records.append(path)

    def _schedule_retry(self) -> None:
        if self._retry is None and self._running():
            self._retry = asyncio.get_running_loop().call_later(self._retry_every, self._retry_now)

    def _retry_now(self) -> None:
        self._retry = None
        self._write_records()
        if self._failing_since is None:
            return
        if self._save():
            self._unsaved.clear()
            self._saved_again()  # everything unacknowledged: a superset of what waited
            return
        waited = asyncio.get_running_loop().time() - self._failing_since
        if waited >= self._give_up:
            self._gave_up(waited)


def _hand_number(event: Record) -> int:
    if isinstance(event, HandVerified):
        return event.hand_number
    return 0 if event.record is None else event.record.hand_number
