"""The closed vocabulary of the session's messages (protocol.md §6.2): every type a peer
may send, and those it can owe; the twin of client/web/src/protocol/wire/messages.ts.

Every table keyed by message type is keyed by these: the session's stage table, the
abandonment record's words, the terminal table's and the board's phrases
(tests/gin/protocol/test_vocabulary.py fails when one misses a type or names one that
is gone)."""

from __future__ import annotations

from typing import Literal, get_args

#: What a peer can owe (:meth:`gin.protocol.session.session.Session.waiting_for`).
Owed = Literal["hello", "welcome", "start", "commit", "deck", "deal", "move", "key", "show",
               "seed"]
#: Every message type of the session: what a peer can owe, and ``abort``.
MessageType = Owed | Literal["abort"]

OWED_TYPES: tuple[Owed, ...] = get_args(Owed)
MESSAGE_TYPES: tuple[MessageType, ...] = (*OWED_TYPES, "abort")
#: What a peer owes before the match starts: no hand is in play (a record says 0).
HANDSHAKE: tuple[Owed, ...] = ("hello", "welcome", "start")
