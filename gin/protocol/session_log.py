"""What a saved session keeps besides its channel (the twin of
client/web/src/protocol/session_log.ts): the input log's entries and the failure,
read back strictly; anything else is a :class:`CorruptState`, a local fault."""

from __future__ import annotations

from collections.abc import Sequence

from gin.engine.errors import MalformedInput
from gin.protocol import wire
from gin.protocol.session_events import FAILURES, Failure


class CorruptState(MalformedInput):
    """A saved session that does not replay to the state it claims: damaged on this
    machine (a local fault, never the peer's)."""


def failure_entry(failure: Failure) -> list[str]:
    """A failure as the saved state keeps it: [kind, who, field, reason]."""
    return [type(failure).__name__, failure.who, failure.field, failure.reason]


def read_failure(value: object) -> Failure | None:
    if value is None:
        return None
    if not (isinstance(value, list | tuple) and len(value) == 4 and value[0] in FAILURES
            and all(isinstance(x, str) for x in value)):
        raise CorruptState("session state: 'failure' must be [kind, who, field, reason]")
    return FAILURES[value[0]](value[1], value[2], value[3])


def read_log(entries: list[object]) -> list[list[object]]:
    kinds: dict[object, tuple[type, ...]] = {
        "rand": (bytes,), "in": (bytes,), "act": (str,), "timeout": (), "accept": (),
        "reject": (str, str, bool), "abandon": (int, int)}
    out: list[list[object]] = []
    for i, entry in enumerate(entries):
        if not (isinstance(entry, list | tuple) and entry and entry[0] in kinds
                and len(entry) == 1 + len(want := kinds[entry[0]])
                and all(isinstance(x, w) for x, w in zip(entry[1:], want, strict=True))):
            raise CorruptState(f"session state: log[{i}] is not a valid entry")
        out.append(list(entry))
    return out


def check_channel(channel: wire.SealedChannel, sent: Sequence[bytes],
                  delivered: tuple[int, bytes]) -> None:
    """The saved ``channel`` is the one the replayed log makes: the messages ``sent``
    (count, hash chain and those kept unacknowledged) and ``delivered`` (count, chain)."""
    sent_digest = bytes(32)
    for message in sent:
        sent_digest = wire.chain(sent_digest, message)
    if (channel.next_send_seq, channel.sent_digest) != (len(sent), sent_digest) or (
            channel.next_receive_seq, channel.received_digest) != delivered or any(
            sent[seq] != message for seq, message in channel.pending_messages()):
        raise CorruptState("the saved channel does not match the saved moves")
