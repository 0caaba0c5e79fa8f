"""An online match kept in the data folder: the session in progress
(``online/LINKID.json``) and each verified hand's record (``records/``).

The twin of client/web/src/online/store.ts, which keeps the same in the browser.
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from client.net.links import Invite
from client.record import friend_key, match_entry
from client.storage import Storage, StorageError
from gin.engine.errors import MalformedInput
from gin.protocol.records.cosign import link_id_for
from gin.protocol.session.events import Abandoned, CheatDetected, HandVerified, MatchOver
from gin.protocol.session.session import Session

RECORDS_DIR = "records"
ONLINE_DIR = "online"
SAVE_FORMAT = 1


#: The key of the relays run inside gin (``gin host`` without --relay), so that one
#: that comes back for a saved match knows its rooms and tickets again.
LOCAL_RELAY_KEY = "relay.key"


class MatchOverError(StorageError):
    """The invite link's match has already ended on this machine."""


@dataclass(frozen=True)
class LocalRelay:
    """Where the relay run inside gin for a match listens: its host comes back there
    (the invite link names it), with the key in ``online/relay.key``."""

    bind: str
    port: int

    @staticmethod
    def key_file(storage: Storage) -> Path:
        return storage.root / ONLINE_DIR / LOCAL_RELAY_KEY

    @staticmethod
    def from_data(data: object) -> LocalRelay | None:
        if isinstance(data, dict) and isinstance(data.get("bind"), str) \
                and isinstance(data.get("port"), int) and 0 < data["port"] < 65536:
            return LocalRelay(data["bind"], data["port"])
        return None


@dataclass(frozen=True)
class SavedMatch:
    """An online match saved in progress: its invite link, this side's role, and
    the relay run inside gin for it (None: the link's relay is elsewhere)."""

    link: str
    role: str
    local: LocalRelay | None


class MatchFiles:
    """The match in progress (``online/LINKID.json``) and its records (``records/``).

    The saved session holds this hand's secret seed; the files are created 0600.
    When the match ends the save is replaced by a note of how it ended, so the same
    link says the match is over instead of waiting for a friend who has gone.
    """

    def __init__(self, storage: Storage, invite: Invite,
                 local: LocalRelay | None = None) -> None:
        self.storage = storage
        self.link_id = link_id_for(invite.secret)
        self.invite = invite
        self.state_path = storage.root / ONLINE_DIR / f"{self.link_id.hex()}.json"
        #: The relay run inside gin for this match, saved with it (set by :meth:`load`).
        self.local = local

    @staticmethod
    def saved(storage: Storage) -> list[SavedMatch]:
        """The online matches saved in progress, newest first (saves that are damaged,
        finished or without their link are left out)."""
        folder = storage.root / ONLINE_DIR
        paths = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True) \
            if folder.is_dir() else []
        found = []
        for path in paths:
            with contextlib.suppress(StorageError, OSError):
                data = storage.load_state(path, "The saved online match")
                if isinstance(data, dict) and isinstance(data.get("link"), str) \
                        and "finished" not in data:
                    found.append(SavedMatch(data["link"], str(data.get("role")),
                                            LocalRelay.from_data(data.get("local_relay"))))
        return found

    @staticmethod
    def saved_links(storage: Storage) -> list[str]:
        """The invite links of the online matches saved in progress, newest first."""
        return [saved.link for saved in MatchFiles.saved(storage)]

    def record_path(self, match_id: bytes, hand: int, suffix: str = "") -> Path:
        return self.storage.root / RECORDS_DIR / f"{match_id.hex()}-{hand:03d}{suffix}.json"

    def save(self, session: Session, token: str, ticket: str | None = None) -> None:
        packed = msgpack.packb(session.to_state(), use_bin_type=True)
        self.storage.save_state(self.state_path, {
            "format": SAVE_FORMAT, "role": session.role, "token": token, "ticket": ticket,
            "session": base64.b64encode(packed).decode("ascii"),
            "link": self.invite.url,  # so `gin` can offer to continue it
            # so that the relay run inside gin comes back where the link points
            "local_relay": None if self.local is None else
            {"bind": self.local.bind, "port": self.local.port}})

    def load(self, identity: bytes, random_bytes: Callable[[int], bytes] = os.urandom
             ) -> tuple[Session, str, str | None] | None:
        """The saved session (played under ``identity``, the data folder's identity
        key), its seat token and the relay's seat ticket, or None; StorageError if
        unusable."""
        data = self.storage.load_state(self.state_path, "The saved online match")
        if data is None:
            return None
        if isinstance(data, dict) and "finished" in data:
            raise MatchOverError(f"The match of this invite link is over ({data['finished']}). "
                                 "Ask your friend for a new link to play again.")
        try:
            state = msgpack.unpackb(base64.b64decode(data["session"]), raw=False)
            session = Session.from_state(self.invite.secret, state, random_bytes, identity)
            ticket = data.get("ticket")
            self.local = LocalRelay.from_data(data.get("local_relay"))
            return session, str(data["token"]), ticket if isinstance(ticket, str) else None
        except (MalformedInput, KeyError, TypeError, ValueError) as exc:
            raise self.storage.set_aside(self.state_path, "The saved online match", exc) \
                from None

    def finish(self, outcome: str) -> None:
        """Replace the save (and its secrets) by a note that the match is over."""
        try:
            self.storage.save_state(self.state_path, {"format": SAVE_FORMAT,
                                                      "finished": outcome})
        except StorageError:
            with contextlib.suppress(OSError):
                self.state_path.unlink(missing_ok=True)

    def save_record(self, event: HandVerified | CheatDetected | Abandoned) -> Path | None:
        """Write the event's record: a hand's, a failed hand's evidence (``-failed``)
        or an abandonment record (``-abandoned``); None when it has none."""
        record = event.record
        if record is None:
            return None
        suffix = ("-failed" if isinstance(event, CheatDetected) else
                  "-abandoned" if isinstance(event, Abandoned) else "")
        path = self.record_path(record.match_id, record.hand_number, suffix)
        self.storage.write_json(path, record.to_dict())
        return path

    def add_to_record(self, friend: bytes | None, seat: int, over: MatchOver | None,
                      hands: Iterable[Any], abandoned: str | None) -> list[str]:
        """Add the match to the player's record (client/record.py), the friend keyed by its
        identity (else the link's id): won or lost (``over``), or ``abandoned`` by the
        "friend" or by "you". What to tell the player: warnings, or why it is not kept."""
        entry = match_entry(friend_key(friend, self.link_id), seat,
                            None if over is None else over.winner, hands,
                            None if over is None else over.totals, abandoned)
        try:
            return list(self.storage.add_to_record(entry))
        except StorageError as exc:
            return [f"{exc.problem} This match is not in your record."]
