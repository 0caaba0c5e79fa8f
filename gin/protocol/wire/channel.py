"""Wire format: msgpack messages with strict limits, sealed end to end in frames.

Two layers, both pure (bytes in, bytes out, no I/O, no clock, randomness passed in):

* messages: a msgpack map with a type ``"t"`` (str) and protocol version ``"v"``
  (int) plus fields; :func:`unpack` decodes under hard limits (the strict codec
  of :mod:`gin.protocol.wire.msgpack`) and returns a :class:`Message` whose accessors
  check each field and name it in errors;
* frames: :class:`SealedChannel` carries messages in order, exactly once, sealed
  with ChaCha20-Poly1305 under traffic keys of the current *epoch*: each side draws
  a fresh contribution whenever a channel is built (a new session or one restored
  from a save) and sends it in an *offer* authenticated with a key of the invite
  secret. So no (key, nonce) pair serves two frames, even for a side restored from
  a stale save, and frames of an earlier epoch (a relay's replay) never open.

Frame kinds (protocol.md §5 has the byte layout): offer (the sender's
contribution and the receiver's as the sender knows it), data (one message, its
sequence number) and ack (how many messages were delivered; "gap" asks for a
re-send). Data frames carry no acknowledgement, so a data frame is a function of
(key, seq, message) and a re-send is byte for byte the same frame.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Container, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, NoReturn

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from gin.engine.errors import MalformedInput, PeerFault
from gin.protocol.wire import msgpack

PROTOCOL_VERSION = 4
FRAME_VERSION = 2
SECRET_BYTES = 32
EPOCH_BYTES = 32  # one side's fresh contribution to the traffic keys
LINK_TAG_BYTES = 8
EPOCH_ID_BYTES = 8
MAC_BYTES = 16
TAG_BYTES = 16
PREFIX_BYTES = 3 + LINK_TAG_BYTES  # version, kind, direction, link tag
HEADER_BYTES = PREFIX_BYTES + EPOCH_ID_BYTES + 8  # ... epoch id, seq (data and ack frames)
OFFER_BYTES = PREFIX_BYTES + 2 * EPOCH_BYTES + MAC_BYTES
ACK_BYTES = HEADER_BYTES + 9 + TAG_BYTES
MAX_FRAME_BYTES = 65536
MAX_PLAINTEXT_BYTES = MAX_FRAME_BYTES - HEADER_BYTES - TAG_BYTES
MAX_SEQ = 2**64 - 1
STATE_VERSION = 2
_KDF_LABEL = b"gin/wire/v2/"


# --- messages -------------------------------------------------------------------


class MalformedMessage(MalformedInput):
    """A message that fails to decode or fails its schema; ``field`` names the culprit."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class UnsupportedVersion(MalformedMessage):
    """A message of another protocol ``version`` (and type ``msg_type``): another gin."""
    def __init__(self, version: int, msg_type: str) -> None:
        super().__init__(f"unsupported protocol version {version}", field="v")
        self.version, self.msg_type = version, msg_type


@dataclass(frozen=True)
class Limits(msgpack.Limits):
    """The message size cap, and msgpack's caps."""

    max_message_bytes: int = MAX_PLAINTEXT_BYTES


DEFAULT_LIMITS = Limits()


def pack(msg_type: str, fields: Mapping[str, object] | None = None, *,
         version: int = PROTOCOL_VERSION) -> bytes:
    """Encode a message. Raises MalformedInput for a bad type, reserved keys or oversize."""
    if not 1 <= len(msg_type) <= 64:
        raise MalformedInput("message type must be 1..64 characters")
    body: dict[str, object] = {"t": msg_type, "v": version}
    for key, value in (fields or {}).items():
        if key in body:
            raise MalformedInput(f"field name {key!r} is reserved")
        body[key] = value
    data = msgpack.encode(body)
    if len(data) > MAX_PLAINTEXT_BYTES:
        raise MalformedInput(f"message {msg_type!r} is {len(data)} bytes, over the frame limit")
    return data


def unpack(data: bytes, *, limits: Limits = DEFAULT_LIMITS,
           versions: Container[int] = (PROTOCOL_VERSION,)) -> Message:
    """Decode one message under ``limits``. Raises :class:`MalformedMessage`."""
    if len(data) > limits.max_message_bytes:
        raise MalformedMessage(f"message is {len(data)} bytes, limit {limits.max_message_bytes}")
    try:
        body = msgpack.decode(data, limits)
    except msgpack.UndecodableData as exc:
        raise MalformedMessage(f"undecodable message: {exc}") from None
    if not isinstance(body, dict):
        raise MalformedMessage("message is not a map")
    for key in body:
        if not isinstance(key, str):
            raise MalformedMessage("message field names must be text")
    top = Message("", 0, body, "")
    msg_type = top.text("t", max_len=64)
    if not msg_type:
        raise MalformedMessage("field 't': empty message type", field="t")
    version = top.integer("v", low=0, high=0xFFFF)
    if version not in versions:
        raise UnsupportedVersion(version, msg_type)
    return Message(msg_type, version, body, "")


class Message:
    """A decoded message and schema-checking accessors: each raises :class:`MalformedMessage`
    whose ``field`` is the dotted path (``deal.keys[3]``) and whose text says what was
    expected."""

    __slots__ = ("type", "version", "fields", "_path")

    def __init__(self, msg_type: str, version: int, fields: Mapping[Any, object],
                 path: str) -> None:
        self.type = msg_type
        self.version = version
        self.fields: Mapping[Any, object] = MappingProxyType(dict(fields))
        self._path = path

    def __repr__(self) -> str:
        return f"Message(type={self.type!r}, version={self.version}, fields={dict(self.fields)!r})"

    def _where(self, name: str) -> str:
        return f"{self._path}.{name}" if self._path else name

    def _fail(self, name: str, why: str) -> NoReturn:
        self._fail_at(self._where(name), why)

    def _fail_at(self, where: str, why: str) -> NoReturn:
        context = f"message {self.type!r}: " if self.type else ""
        raise MalformedMessage(f"{context}field {where!r}: {why}", field=where)

    def _get(self, name: str) -> object:
        if name not in self.fields:
            self._fail(name, "missing")
        return self.fields[name]

    def only(self, *names: str) -> None:
        """Reject any field other than ``t``, ``v`` (at top level) and ``names``."""
        allowed = set(names) | ({"t", "v"} if not self._path else set())
        for key in self.fields:
            if key not in allowed:
                self._fail(str(key), "unexpected field")

    def integer(self, name: str, *, low: int, high: int) -> int:
        return self._int(self._get(name), self._where(name), low, high)

    def _int(self, value: object, where: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self._fail_at(where, f"expected an integer, got {type(value).__name__}")
        if not low <= value <= high:
            self._fail_at(where, f"{value} is outside {low}..{high}")
        return value

    def flag(self, name: str) -> bool:
        value = self._get(name)
        if not isinstance(value, bool):
            self._fail(name, f"expected true or false, got {type(value).__name__}")
        return value

    def text(self, name: str, *, max_len: int, choices: Container[str] | None = None) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            self._fail(name, f"expected text, got {type(value).__name__}")
        if len(value) > max_len:
            self._fail(name, f"text longer than {max_len} characters")
        if choices is not None and value not in choices:
            self._fail(name, f"{value!r} is not one of the allowed values")
        return value

    def blob(self, name: str, *, size: int | None = None, max_size: int | None = None) -> bytes:
        return self._blob(self._get(name), self._where(name), size, max_size)

    def _blob(self, value: object, where: str, size: int | None, max_size: int | None) -> bytes:
        if not isinstance(value, bytes):
            self._fail_at(where, f"expected bytes, got {type(value).__name__}")
        if size is not None and len(value) != size:
            self._fail_at(where, f"expected {size} bytes, got {len(value)}")
        if max_size is not None and len(value) > max_size:
            self._fail_at(where, f"more than {max_size} bytes")
        return value

    def array(self, name: str, *, min_len: int = 0, max_len: int) -> list[object]:
        value = self._get(name)
        if not isinstance(value, list):
            self._fail(name, f"expected a list, got {type(value).__name__}")
        if not min_len <= len(value) <= max_len:
            self._fail(name, f"list of {len(value)} entries, expected {min_len}..{max_len}")
        return value

    def blobs(self, name: str, *, min_len: int = 0, max_len: int, size: int | None = None,
              max_size: int | None = None) -> tuple[bytes, ...]:
        """A list of byte strings, each checked like :meth:`blob`."""
        items = self.array(name, min_len=min_len, max_len=max_len)
        where = self._where(name)
        return tuple(
            self._blob(v, f"{where}[{i}]", size, max_size) for i, v in enumerate(items)
        )

    def integers(self, name: str, *, min_len: int = 0, max_len: int, low: int,
                 high: int) -> tuple[int, ...]:
        """A list of integers, each in ``low..high``."""
        items = self.array(name, min_len=min_len, max_len=max_len)
        where = self._where(name)
        return tuple(self._int(v, f"{where}[{i}]", low, high) for i, v in enumerate(items))

    def submap(self, name: str) -> Message:
        """A nested map, read with the same accessors; its keys must be text."""
        value = self._get(name)
        if not isinstance(value, dict):
            self._fail(name, f"expected a map, got {type(value).__name__}")
        for key in value:
            if not isinstance(key, str):
                self._fail(name, "map keys must be text")
        return Message(self.type, self.version, value, self._where(name))


# --- sealing -------------------------------------------------------------------

class Side(Enum):
    """Which end of the channel: the player who sent the invite, or who joined."""

    HOST = "host"
    GUEST = "guest"

    @property
    def direction(self) -> int:
        """The direction byte of frames this side sends."""
        return 0x01 if self is Side.HOST else 0x02

    @property
    def other(self) -> Side:
        return Side.GUEST if self is Side.HOST else Side.HOST


class Kind(Enum):
    """Byte 1 of a frame."""

    OFFER = 1
    DATA = 2
    ACK = 3


class ChannelFault(PeerFault):
    """The channel was attacked or the peer broke the framing; the channel is now dead.
    ``proven`` only when an authentic frame (only the peer makes one) is at fault."""

    proven = False


class MalformedFrame(ChannelFault):
    """Bytes that are not a frame of this format."""


class ForeignFrame(ChannelFault):
    """A frame of another invite link (its link tag differs)."""


class ReflectedFrame(ChannelFault):
    """A frame in our own sending direction, sent back to us."""


class TamperedFrame(ChannelFault):
    """A frame whose authentication tag does not verify."""


class AckBeyondSent(ChannelFault):
    """An authentic ack of messages we never sent: the peer broke the protocol."""

    proven = True


class ChannelFailed(ChannelFault):
    """Any use of a channel after a fault; repeats the first fault's text."""


@dataclass(frozen=True)
class Received:
    """What one incoming frame did: the message it delivered (None: nothing to
    deliver) and frames to send back (an ack, our offer, re-sends)."""

    message: bytes | None
    replies: tuple[bytes, ...] = ()


def _hkdf(secret: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=SHA256(), length=length, salt=None, info=info).derive(secret)


def _nonce(kind: Kind, direction: int, counter: int) -> bytes:
    return bytes((kind.value, direction, 0, 0)) + counter.to_bytes(8, "big")


def chain(digest: bytes, message: bytes) -> bytes:
    """The next link of a hash chain over messages: SHA-256(digest ‖ message)."""
    return hashlib.sha256(digest + message).digest()


def epoch_keys(secret: bytes, direction: int, sender: bytes, receiver: bytes
               ) -> tuple[bytes, bytes]:
    """(traffic key, epoch id) of one direction, from both sides' contributions."""
    okm = _hkdf(secret, _KDF_LABEL + b"epoch\x00" + bytes((direction,)) + sender + receiver,
                32 + EPOCH_ID_BYTES)
    return okm[:32], okm[32:]


class _Epoch:
    """The two traffic keys for one pair of contributions (ours, the peer's)."""

    def __init__(self, secret: bytes, side: Side, mine: bytes, theirs: bytes) -> None:
        key, self.send_id = epoch_keys(secret, side.direction, mine, theirs)
        self.send = ChaCha20Poly1305(key)
        key, self.recv_id = epoch_keys(secret, side.other.direction, theirs, mine)
        self.recv = ChaCha20Poly1305(key)


class SealedChannel:
    """One end of an end-to-end sealed, ordered, exactly-once channel. Pure state machine.

    ``epoch`` is this side's fresh 32-byte contribution: it MUST come from a
    secure random source and never be reused (a restored channel gets a new one).
    :meth:`send` numbers and keeps each message until the peer acknowledges it;
    :meth:`receive` takes any frame and returns what it delivered and what to send
    back. Frames that arrive at the wrong time (duplicates, frames after a gap,
    frames of another epoch) are not faults: they are answered so that the sender
    re-sends. Anything else wrong raises a :class:`ChannelFault` and the channel
    refuses every later frame (it can still send, to tell the peer why).
    """

    def __init__(self, secret: bytes, side: Side, epoch: bytes) -> None:
        if not isinstance(secret, bytes) or len(secret) != SECRET_BYTES:
            raise MalformedInput(f"invite secret must be {SECRET_BYTES} bytes")
        if not isinstance(epoch, bytes) or len(epoch) != EPOCH_BYTES or not any(epoch):
            raise MalformedInput(f"epoch contribution must be {EPOCH_BYTES} random bytes")
        self.side = side
        self._secret = secret
        self._link_tag = _hkdf(secret, _KDF_LABEL + b"link-tag", LINK_TAG_BYTES)
        self._offer_key = _hkdf(secret, _KDF_LABEL + b"offer", 32)
        self._mine = epoch
        self._theirs: bytes | None = None
        self._epoch: _Epoch | None = None
        self._send_seq = 0
        self._recv_seq = 0
        self._pending: dict[int, bytes] = {}  # seq -> message, until acknowledged
        self._acks_sent = 0  # ack frames sealed under our contribution (their nonces)
        self._gap_asked: int | None = None  # the seq a gap ack last asked for
        # Hash chains over every message sent and delivered: a restored session
        # proves it replays to exactly what this channel carried (§11.2).
        self.sent_digest = bytes(32)
        self.received_digest = bytes(32)
        # (text, who, field) of the first fault; kept so the channel stays dead.
        self._fault: tuple[str, str, str] | None = None

    # -- queries

    @property
    def next_send_seq(self) -> int:
        return self._send_seq

    @property
    def next_receive_seq(self) -> int:
        """The seq of the next message :meth:`receive` will deliver (= messages so far)."""
        return self._recv_seq

    @property
    def keyed(self) -> bool:
        """Whether the peer's contribution is known, so that frames can be sealed."""
        return self._epoch is not None

    @property
    def pending(self) -> int:
        """Messages sent but not yet acknowledged."""
        return len(self._pending)

    def pending_messages(self) -> tuple[tuple[int, bytes], ...]:
        """(seq, message) of every unacknowledged message, oldest first."""
        return tuple((seq, self._pending[seq]) for seq in sorted(self._pending))

    @property
    def failed(self) -> str | None:
        """The first fault's text, or None while the channel is healthy."""
        return None if self._fault is None else self._fault[0]

    # -- sending

    def _prefix(self, kind: Kind) -> bytes:
        return bytes((FRAME_VERSION, kind.value, self.side.direction)) + self._link_tag

    def offer(self) -> bytes:
        """Our offer frame: our contribution and the peer's as we know it, MAC'd."""
        body = self._prefix(Kind.OFFER) + self._mine + (self._theirs or bytes(EPOCH_BYTES))
        return body + hmac.digest(self._offer_key, body, "sha256")[:MAC_BYTES]

    def _seal(self, kind: Kind, counter: int, plaintext: bytes) -> bytes:
        assert self._epoch is not None
        header = self._prefix(kind) + self._epoch.send_id + counter.to_bytes(8, "big")
        return header + self._epoch.send.encrypt(
            _nonce(kind, self.side.direction, counter), plaintext, header)

    def send(self, plaintext: bytes) -> tuple[bytes, ...]:
        """Number a message and keep it until acknowledged; its frame, or () until keyed.

        Sending still works after a fault, so that the peer can be told why.
        """
        if len(plaintext) > MAX_PLAINTEXT_BYTES:
            raise MalformedInput(f"message of {len(plaintext)} bytes exceeds the frame limit")
        if self._send_seq > MAX_SEQ:
            raise MalformedInput("sequence numbers exhausted")  # pragma: no cover
        seq, self._send_seq = self._send_seq, self._send_seq + 1
        self._pending[seq] = plaintext
        self.sent_digest = chain(self.sent_digest, plaintext)
        return (self._seal(Kind.DATA, seq, plaintext),) if self._epoch is not None else ()

    def resend(self) -> tuple[bytes, ...]:
        """Our offer, then every unacknowledged message sealed under the current keys.

        A data frame depends only on (key, seq, message), so a frame re-sent under
        the same keys is byte for byte the one sent before.
        """
        if self._epoch is None:
            return (self.offer(),)
        return (self.offer(), *(self._seal(Kind.DATA, seq, self._pending[seq])
                                for seq in sorted(self._pending)))

    def _ack(self, gap: bool) -> bytes:
        # Each ack frame has its own counter: a nonce is never used twice.
        counter, self._acks_sent = self._acks_sent, self._acks_sent + 1
        return self._seal(Kind.ACK, counter, self._recv_seq.to_bytes(8, "big") + bytes((gap,)))

    # -- receiving

    def receive(self, frame: bytes) -> Received:
        """Take one frame from the relay. Raises a ChannelFault (the channel is then dead)."""
        self._check_alive()
        try:
            return self._receive(frame)
        except ChannelFault as fault:
            self._fault = (str(fault), fault.who, fault.field)
            raise

    def _check_alive(self) -> None:
        if self._fault is not None:
            text, who, field = self._fault
            raise ChannelFailed(f"channel failed earlier: {text}", who=who, field=field)

    def _receive(self, frame: bytes) -> Received:
        if not isinstance(frame, bytes) or not PREFIX_BYTES <= len(frame) <= MAX_FRAME_BYTES:
            raise MalformedFrame("frame of impossible length", who="relay", field="frame")
        if frame[0] != FRAME_VERSION:
            raise MalformedFrame(f"unknown frame version {frame[0]}", who="relay", field="version")
        kinds = {k.value: k for k in Kind}
        if frame[1] not in kinds:
            raise MalformedFrame(f"unknown frame kind {frame[1]}", who="relay", field="kind")
        kind = kinds[frame[1]]
        if not hmac.compare_digest(frame[3:PREFIX_BYTES], self._link_tag):
            raise ForeignFrame("frame belongs to another invite link", who="relay",
                               field="link")
        if frame[2] == self.side.direction:
            raise ReflectedFrame("frame in our own direction was reflected back", who="relay",
                                 field="direction")
        if frame[2] != self.side.other.direction:
            raise MalformedFrame(f"unknown direction {frame[2]}", who="relay", field="direction")
        if kind is Kind.OFFER:
            return self._on_offer(frame)
        if len(frame) < HEADER_BYTES + TAG_BYTES or (kind is Kind.ACK and len(frame) != ACK_BYTES):
            raise MalformedFrame(f"{kind.name.lower()} frame of impossible length",
                                 who="relay", field="frame")
        epoch = self._epoch
        if epoch is None or not hmac.compare_digest(frame[PREFIX_BYTES:PREFIX_BYTES + 8],
                                                    epoch.recv_id):
            # Sealed for another epoch: the peer does not know our contribution yet
            # (tell it), or a replay of an earlier session (which cannot open).
            return Received(None, (self.offer(),))
        counter = int.from_bytes(frame[PREFIX_BYTES + 8:HEADER_BYTES], "big")
        try:
            plaintext = epoch.recv.decrypt(_nonce(kind, frame[2], counter),
                                           frame[HEADER_BYTES:], frame[:HEADER_BYTES])
        except InvalidTag:
            raise TamperedFrame(f"{kind.name.lower()} frame {counter} fails authentication "
                                "(altered or forged)", who="relay", field="tag") from None
        if kind is Kind.ACK:
            return self._on_ack(plaintext)
        return self._on_data(counter, plaintext)

    def _on_offer(self, frame: bytes) -> Received:
        if len(frame) != OFFER_BYTES:
            raise MalformedFrame("offer frame of impossible length", who="relay", field="frame")
        body, mac = frame[:-MAC_BYTES], frame[-MAC_BYTES:]
        if not hmac.compare_digest(mac, hmac.digest(self._offer_key, body, "sha256")[:MAC_BYTES]):
            raise TamperedFrame("offer frame fails authentication (altered or forged)",
                                who="relay", field="offer")
        theirs = body[PREFIX_BYTES:PREFIX_BYTES + EPOCH_BYTES]
        known = body[PREFIX_BYTES + EPOCH_BYTES:]
        replies: tuple[bytes, ...] = ()
        if theirs != self._theirs:
            self._theirs = theirs
            self._epoch = _Epoch(self._secret, self.side, self._mine, theirs)
            replies = self.resend()  # everything unacknowledged, under the new keys
            if known == self._mine:
                replies = replies[1:]  # the peer has our offer already
        elif known != self._mine:
            replies = (self.offer(),)
        return Received(None, replies)

    def _on_ack(self, plaintext: bytes) -> Received:
        acked, gap = int.from_bytes(plaintext[:8], "big"), plaintext[8]
        if acked > self._send_seq or gap > 1:
            raise AckBeyondSent(f"peer acknowledges {acked} messages, only {self._send_seq} "
                                "were sent", who=self.side.other.value, field="ack")
        for seq in [s for s in self._pending if s < acked]:
            del self._pending[seq]
        if gap and self._pending:
            return Received(None, self.resend()[1:])
        return Received(None)

    def _on_data(self, seq: int, plaintext: bytes) -> Received:
        if seq < self._recv_seq:
            return Received(None, (self._ack(gap=False),))  # a re-send we have: say so
        if seq > self._recv_seq:
            if self._gap_asked == self._recv_seq:
                return Received(None)  # asked already; the sender's timer covers the rest
            self._gap_asked = self._recv_seq
            return Received(None, (self._ack(gap=True),))
        self._recv_seq += 1
        self.received_digest = chain(self.received_digest, plaintext)
        return Received(plaintext, (self._ack(gap=False),))

    # -- persistence

    def to_state(self) -> dict[str, object]:
        """Plain data (ints, bytes, text, lists) to restore the channel; no key material
        and no contribution: a restored channel starts a new epoch."""
        return {
            "v": STATE_VERSION,
            "side": self.side.value,
            "send_seq": self._send_seq,
            "recv_seq": self._recv_seq,
            "pending": [[seq, self._pending[seq]] for seq in sorted(self._pending)],
            "sent_digest": self.sent_digest,
            "received_digest": self.received_digest,
            "failed": None if self._fault is None else list(self._fault),
        }

    @classmethod
    def from_state(cls, secret: bytes, state: Mapping[str, object], epoch: bytes) -> SealedChannel:
        """Rebuild a channel from :meth:`to_state` output, the invite secret and a fresh
        contribution. Raises MalformedMessage naming the bad field."""
        reader = Message("channel-state", STATE_VERSION, state, "")
        reader.only("v", "side", "send_seq", "recv_seq", "pending", "sent_digest",
                    "received_digest", "failed")
        reader.integer("v", low=STATE_VERSION, high=STATE_VERSION)
        side = Side(reader.text("side", max_len=8, choices=("host", "guest")))
        channel = cls(secret, side, epoch)
        channel._send_seq = reader.integer("send_seq", low=0, high=MAX_SEQ + 1)
        channel._recv_seq = reader.integer("recv_seq", low=0, high=MAX_SEQ + 1)
        channel.sent_digest = reader.blob("sent_digest", size=32)
        channel.received_digest = reader.blob("received_digest", size=32)
        entries = reader.array("pending", max_len=channel._send_seq)
        for index, entry in enumerate(entries):
            if not (isinstance(entry, list | tuple) and len(entry) == 2
                    and isinstance(entry[0], int) and not isinstance(entry[0], bool)
                    and 0 <= entry[0] < channel._send_seq
                    and isinstance(entry[1], bytes) and len(entry[1]) <= MAX_PLAINTEXT_BYTES
                    and entry[0] not in channel._pending):
                raise MalformedMessage(f"channel state: field 'pending[{index}]' is not a "
                                       "[seq, message] pair", field=f"pending[{index}]")
            channel._pending[entry[0]] = entry[1]
        failed = state.get("failed")
        if failed is not None:
            if not (isinstance(failed, list | tuple) and len(failed) == 3
                    and all(isinstance(part, str) for part in failed)):
                raise MalformedMessage("channel state: field 'failed' must be [text, who, "
                                       "field] or nil", field="failed")
            channel._fault = (failed[0], failed[1], failed[2])
        return channel
