"""What a saved session keeps (the twin of client/web/src/protocol/session/log.ts):
its role, rules, rematch, channel, the input log's entries and the failure, read back
strictly; anything else is a :class:`CorruptState`, a local fault. Replaying the log
rebuilds the rest (:meth:`gin.protocol.session.session.Session.from_state`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gin.engine.errors import MalformedInput
from gin.engine.rules import Ruleset
from gin.protocol.records.records import SEATS
from gin.protocol.session.events import FAILURES, Failure
from gin.protocol.session.flow import SessionRole
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.wire import channel as wire

STATE_VERSION = 3


class CorruptState(MalformedInput):
    """A saved session that does not replay to the state it claims: damaged on this
    machine (a local fault, never the peer's)."""


@dataclass(frozen=True)
class SavedSession:
    """A saved session's parts that its replay starts from (the failure is read after
    the replay: :func:`read_failure`)."""

    role: SessionRole
    rules: Ruleset | None
    rematch: PreviousMatch | None
    log: list[list[object]]
    channel: Mapping[str, object]


def read_state(state: object) -> SavedSession:
    """The parts of :meth:`gin.protocol.session.session.Session.to_state`'s map, checked."""
    if not isinstance(state, Mapping):
        raise CorruptState("the saved session is not a map")
    reader = wire.Message("session-state", STATE_VERSION, state, "")
    reader.only("v", "role", "rules", "rematch", "channel", "log", "failure")
    reader.integer("v", low=STATE_VERSION, high=STATE_VERSION)
    role: SessionRole = "host" if reader.text(
        "role", max_len=5, choices=SEATS) == "host" else "guest"
    rules = None if state.get("rules") is None else Ruleset.from_dict(state["rules"])
    rematch = state.get("rematch")
    previous = None if rematch is None else PreviousMatch.from_state(rematch)
    log = read_log(reader.array("log", max_len=1 << 20))
    channel = state["channel"]
    if not isinstance(channel, Mapping):
        raise CorruptState("session state: 'channel' must be a map")
    return SavedSession(role, rules, previous, log, channel)


class LoggedRandom:
    """The log's random draws, handed out again in order to the replay."""

    def __init__(self, log: list[list[object]]) -> None:
        self._drawn = iter([entry[1] for entry in log if entry[0] == "rand"])

    def __call__(self, n: int) -> bytes:
        value = next(self._drawn, None)
        if not isinstance(value, bytes) or len(value) != n:
            raise CorruptState("the log's random draws do not replay")
        return value

    def check_all_used(self) -> None:
        if next(self._drawn, None) is not None:
            raise CorruptState("the log holds random draws the replay did not use")


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
        "rand": (bytes,), "in": (bytes,), "act": (str,), "timeout": (), "accept": (), "decline": (),
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
