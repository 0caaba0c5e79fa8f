"""One closed vocabulary of message types (gin/protocol/wire/messages.py and its twin
client/web/src/protocol/wire/messages.ts): every table keyed by message type names each
type it should and none that is gone."""

from __future__ import annotations

import re
from pathlib import Path

from client.table import words
from gin.protocol.records import abandonment
from gin.protocol.wire.messages import HANDSHAKE, OWED_TYPES

TS = Path(__file__).resolve().parents[3] / "client/web/src/protocol/wire/messages.ts"


def test_the_typescript_vocabulary_is_the_same_in_the_same_order() -> None:
    text = TS.read_text(encoding="utf-8")
    listed = re.search(r"export const OWED_TYPES = \[(.*?)\] as const;", text, re.S)
    assert listed is not None
    assert tuple(re.findall(r'"([a-z]+)"', listed.group(1))) == OWED_TYPES
    assert 'export const MESSAGE_TYPES = [...OWED_TYPES, "abort"] as const;' in text
    assert set(HANDSHAKE) <= set(OWED_TYPES)


def test_the_abandonment_record_words_every_owed_type() -> None:
    assert set(abandonment.OWED) == set(OWED_TYPES)


def test_the_terminal_table_words_what_the_friends_device_can_owe() -> None:
    # its move is said apart ("Your friend's move"), not as what its device owes
    assert set(words.OWED) == set(OWED_TYPES) - {"move"}
