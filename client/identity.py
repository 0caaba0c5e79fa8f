"""Your identity and your known friends, kept in the data folder (protocol.md §4, §7.1).

The identity key (``identity.json``) is made on first use and kept: every online
match vouches for its keys with it, so your friends see the same five words for you
each time. It is a sealed save, written atomically and readable by you alone; a
damaged one is set aside and a new key made, and you are told that your friends
will see a new identity. Known friends (``friends.json``) remember, by invite link,
the identity your friend showed there and, by identity, how many matches you played
with it, so the table can say whether a friend is new, known, or no longer the one
this link showed before. The twin of the board's client/web/src/online/identity.ts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from client.storage import DamagedSave, Storage, StorageError
from gin.protocol.records.identity import IDENTITY_SEED_BYTES, Identity, fingerprint
from gin.protocol.session.session import Session

IDENTITY_FILE = "identity.json"
FRIENDS_FILE = "friends.json"
IDENTITY_FORMAT = "gin-identity"
FRIENDS_FORMAT = "gin-friends"
MAX_MATCHES_KEPT = 1000  # match ids remembered per friend, to count matches once each
_HEX64 = re.compile("[0-9a-f]{64}")


@dataclass(frozen=True)
class LocalIdentity:
    """Your identity key: ``secret`` for the session, ``public`` and its ``words``."""

    secret: bytes
    warning: str | None = None  # a damaged identity file was set aside: say so once

    @property
    def public(self) -> bytes:
        return Identity(self.secret).public

    @property
    def words(self) -> str:
        return fingerprint(self.public)


def load_identity(storage: Storage,
                  random_bytes: Callable[[int], bytes] = os.urandom) -> LocalIdentity:
    """The data folder's identity key, made and saved on first use. A folder that
    cannot be read or written gets a key for this match alone, and a warning."""
    path = storage.root / IDENTITY_FILE
    new = "A new identity key was made: your friends will see a new identity."
    try:
        data = storage.load_state(path, "Your identity key")
        if data is not None:
            return LocalIdentity(_secret(data))
        warning = None
    except DamagedSave as exc:
        warning = f"{exc} {new}"
    except ValueError as exc:
        warning = f"{storage.set_aside(path, 'Your identity key', exc)} {new}"
    except StorageError as exc:
        return LocalIdentity(random_bytes(IDENTITY_SEED_BYTES), f"{exc.problem} {new}")
    secret = random_bytes(IDENTITY_SEED_BYTES)
    try:
        storage.save_state(path, {"format": IDENTITY_FORMAT, "key": secret.hex()})
    except StorageError as exc:
        return LocalIdentity(secret, f"{exc.problem} Your identity key could not be kept: this "
                             "match has one of its own, and your friends will see a new identity.")
    return LocalIdentity(secret, warning)


def _secret(data: object) -> bytes:
    if not isinstance(data, dict) or data.get("format") != IDENTITY_FORMAT:
        raise ValueError("it is not an identity key")
    key = data.get("key")
    if not isinstance(key, str) or len(key) != 2 * IDENTITY_SEED_BYTES:
        raise ValueError(f"its key is not {IDENTITY_SEED_BYTES} bytes")
    return bytes.fromhex(key)


@dataclass(frozen=True)
class Friend:
    """Your friend as this table shows them."""

    words: str  # the fingerprint of their identity
    matches: int  # matches played with this identity before this one
    was: str | None = None  # the fingerprint this link showed before, when it changed

    def describe(self) -> str:
        if self.was is not None:
            return (f"your friend's identity on this link changed: was {self.was}, now "
                    f"{self.words}; someone else may hold this link")
        if self.matches == 0:
            return f"your friend: {self.words} (new: you have not played this identity before)"
        plural = "" if self.matches == 1 else "es"
        return f"your friend: {self.words} (known: {self.matches} match{plural} before)"


def meet(storage: Storage, link_id: bytes, friend: bytes, match_id: bytes
         ) -> tuple[Friend, list[str]]:
    """Note that ``friend`` (an identity) plays match ``match_id`` on the link
    ``link_id``; how the table should show them, and warnings for the player (a damaged
    store set aside, a store that could not be written)."""
    path = storage.root / FRIENDS_FILE
    warnings: list[str] = []
    try:
        links, seen = _friends(storage.load_state(path, "Your known friends"))
    except DamagedSave as exc:
        warnings.append(f"{exc} Your known friends start again from this match.")
        links, seen = {}, {}
    except ValueError as exc:
        warnings.append(f"{storage.set_aside(path, 'Your known friends', exc)} Your known "
                        "friends start again from this match.")
        links, seen = {}, {}
    except StorageError as exc:  # unreadable: this match's friend is new, as far as we know
        warnings.append(f"{exc.problem} Your known friends could not be read.")
        links, seen = {}, {}
    before = links.get(link_id.hex())
    matches = [m for m in seen.get(friend.hex(), []) if m != match_id.hex()]
    was = None if before is None or before == friend.hex() else fingerprint(
        bytes.fromhex(before))
    links[link_id.hex()] = friend.hex()
    seen[friend.hex()] = [*matches, match_id.hex()][-MAX_MATCHES_KEPT:]
    try:
        storage.save_state(path, {"format": FRIENDS_FORMAT, "links": links, "seen": seen})
    except StorageError as exc:
        warnings.append(f"{exc.problem} Your known friends were not updated.")
    return Friend(fingerprint(friend), len(matches), was), warnings


def greet(storage: Storage | None, session: Session, known: Friend | None,
          mine: LocalIdentity | None = None) -> tuple[Friend | None, list[str]]:
    """:func:`meet` the friend of ``session`` once its identities are known, unless
    ``known`` already (or there is no data folder); the friend, and the words for the
    player: ``mine``'s warning, the store's warnings, then how the friend stands."""
    notes = [] if mine is None or mine.warning is None else [mine.warning]
    ids, match_id = session.identities, session.match_id
    if storage is None or known is not None or ids is None or match_id is None:
        return known, notes
    friend, warnings = meet(storage, session.link_id, ids[1 - session.seat], match_id)
    return friend, [*notes, *warnings, friend.describe()]


def _friends(data: object) -> tuple[dict[str, str], dict[str, list[str]]]:
    if data is None:
        return {}, {}
    if not isinstance(data, dict) or data.get("format") != FRIENDS_FORMAT:
        raise ValueError("it is not a list of known friends")
    links, seen = data.get("links"), data.get("seen")
    if not (isinstance(links, dict) and all(
            isinstance(v, str) and _HEX64.fullmatch(v) for v in links.values())):
        raise ValueError("its links are not identities")
    if not (isinstance(seen, dict) and all(
            isinstance(v, list) and all(isinstance(m, str) for m in v)
            for v in seen.values())):
        raise ValueError("its matches are not lists of match ids")
    return links, seen
