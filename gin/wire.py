"""Wire format: msgpack messages with strict limits, sealed end to end in frames.

Two layers, both pure (bytes in, bytes out, no I/O):

* messages: a msgpack map with a type ``"t"`` (str) and protocol version ``"v"``
  (int) plus fields; :func:`unpack` decodes under hard limits and returns a
  :class:`Message` whose accessors check each field and name it in errors;
* frames: :class:`SealedChannel` seals a message with ChaCha20-Poly1305 under a
  key per direction derived from the invite secret and the match id, with a strict
  sequence number, and keeps sent frames until the peer acknowledges them so they
  can be re-sent verbatim after a reconnect.

Frame layout (all integers big-endian)::

    0      1 byte   frame format version (1)
    1      1 byte   direction: 0x01 host→guest, 0x02 guest→host
    2      8 bytes  match tag = HKDF(secret, info="gin/wire/v1/match-tag" 00 match_id)
    10     8 bytes  seq: this frame's number in its direction, from 0
    18     8 bytes  ack: how many frames the sender has received from the other side
    26     ...      ChaCha20-Poly1305 ciphertext of the message, then the 16-byte tag

The nonce is direction ‖ 00 00 00 ‖ seq; the associated data is the 26-byte
header followed by the match id, so every header byte is authenticated.
"""

from __future__ import annotations

import hmac
from collections.abc import Container, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, NoReturn

import msgpack
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from gin.errors import GinError, MalformedInput, PeerFault

PROTOCOL_VERSION = 1
FRAME_VERSION = 1
SECRET_BYTES = 32
MAX_MATCH_ID_BYTES = 64
MATCH_TAG_BYTES = 8
HEADER_BYTES = 2 + MATCH_TAG_BYTES + 8 + 8
TAG_BYTES = 16
MAX_FRAME_BYTES = 65536
MAX_PLAINTEXT_BYTES = MAX_FRAME_BYTES - HEADER_BYTES - TAG_BYTES
MAX_SEQ = 2**64 - 1
STATE_VERSION = 1
_KDF_LABEL = b"gin/wire/v1/"


# --- messages -------------------------------------------------------------------


class MalformedMessage(MalformedInput):
    """A message that fails to decode or fails its schema; ``field`` names the culprit."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Limits:
    """Hard caps applied while decoding, before any object is built."""

    max_message_bytes: int = MAX_PLAINTEXT_BYTES
    max_str_len: int = 4096
    max_bin_len: int = 4096
    max_array_len: int = 256
    max_map_len: int = 64


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
    data: bytes = msgpack.packb(body, use_bin_type=True)
    if len(data) > MAX_PLAINTEXT_BYTES:
        raise MalformedInput(f"message {msg_type!r} is {len(data)} bytes, over the frame limit")
    return data


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"extension type {code} is not allowed")


def _unique_keys(pairs: list[tuple[object, object]]) -> dict[object, object]:
    # A repeated key would let two decoders disagree on the value; refuse it.
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a map repeats a key")
    return out


def unpack(data: bytes, *, limits: Limits = DEFAULT_LIMITS,
           versions: Container[int] = (PROTOCOL_VERSION,)) -> Message:
    """Decode one message under ``limits``. Raises :class:`MalformedMessage`."""
    if len(data) > limits.max_message_bytes:
        raise MalformedMessage(f"message is {len(data)} bytes, limit {limits.max_message_bytes}")
    try:
        body = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_bin_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
            ext_hook=_no_ext,
            object_pairs_hook=_unique_keys,
        )
    except (ValueError, msgpack.UnpackException) as exc:
        # Every msgpack decoding failure (limits, truncation, bad UTF-8, trailing
        # bytes, nesting, repeated keys) is a ValueError or UnpackException.
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
        raise MalformedMessage(f"unsupported protocol version {version}", field="v")
    return Message(msg_type, version, body, "")


class Message:
    """A decoded message and schema-checking accessors that name the field in errors.

    Each accessor raises :class:`MalformedMessage` whose ``field`` is the dotted
    path (``deal.keys[3]``) and whose text says what was expected.
    """

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

    def has(self, name: str) -> bool:
        return name in self.fields

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


# --- sealing --------------------------------------------------------------------


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


class FrameIgnored(GinError):
    """An authentic frame that must not be delivered now; the channel is unaffected."""

    def __init__(self, message: str, *, seq: int, expected: int) -> None:
        super().__init__(message)
        self.seq = seq
        self.expected = expected


class DuplicateFrame(FrameIgnored):
    """A frame already delivered (a re-send after reconnect, or a harmless replay)."""


class EarlyFrame(FrameIgnored):
    """A frame beyond the next expected one: earlier frames were lost and must be re-sent."""


class ChannelFault(PeerFault):
    """The channel was attacked or the peer broke the framing; the channel is now dead."""


class MalformedFrame(ChannelFault):
    """Bytes that are not a frame of this format."""


class ForeignFrame(ChannelFault):
    """A frame sealed for another match (its match tag differs)."""


class ReflectedFrame(ChannelFault):
    """A frame in our own sending direction, sent back to us."""


class TamperedFrame(ChannelFault):
    """A frame whose authentication tag does not verify."""


class AckBeyondSent(ChannelFault):
    """An authentic frame acknowledging frames we never sent."""


class ChannelFailed(ChannelFault):
    """Any use of a channel after a fault; repeats the first fault's text."""


def _hkdf(secret: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=SHA256(), length=length, salt=None, info=info).derive(secret)


def _nonce(direction: int, seq: int) -> bytes:
    return bytes((direction, 0, 0, 0)) + seq.to_bytes(8, "big")


class SealedChannel:
    """One end of an end-to-end sealed, strictly sequenced channel. Pure state machine.

    ``seal`` numbers and stores each frame; ``open`` delivers the peer's frames in
    order exactly once. Authentic frames that arrive at the wrong time are not
    faults: a duplicate raises :class:`DuplicateFrame`, a frame after a gap raises
    :class:`EarlyFrame` (the transport lost something across a reconnect; ask for a
    re-send). Anything else wrong raises a :class:`ChannelFault` and the channel
    stays failed. Every frame's header acknowledges what we received, so the peer
    drops what it no longer needs to re-send.
    """

    def __init__(self, secret: bytes, match_id: bytes, side: Side) -> None:
        if not isinstance(secret, bytes) or len(secret) != SECRET_BYTES:
            raise MalformedInput(f"invite secret must be {SECRET_BYTES} bytes")
        if not isinstance(match_id, bytes) or not 1 <= len(match_id) <= MAX_MATCH_ID_BYTES:
            raise MalformedInput(f"match id must be 1..{MAX_MATCH_ID_BYTES} bytes")
        self.side = side
        self.match_id = match_id
        self._tag = _hkdf(secret, _KDF_LABEL + b"match-tag\x00" + match_id, MATCH_TAG_BYTES)
        self._send_aead = ChaCha20Poly1305(
            _hkdf(secret, _KDF_LABEL + b"key\x00" + bytes((side.direction,)) + match_id, 32)
        )
        self._recv_aead = ChaCha20Poly1305(
            _hkdf(secret, _KDF_LABEL + b"key\x00" + bytes((side.other.direction,)) + match_id, 32)
        )
        self._send_seq = 0
        self._recv_seq = 0
        self._unacked: dict[int, bytes] = {}
        # (text, who, field) of the first fault; kept so the channel stays dead.
        self._fault: tuple[str, str, str] | None = None

    # -- queries

    @property
    def next_send_seq(self) -> int:
        return self._send_seq

    @property
    def next_receive_seq(self) -> int:
        """The seq of the next frame ``open`` will deliver (= frames received so far)."""
        return self._recv_seq

    @property
    def failed(self) -> str | None:
        """The first fault's text, or None while the channel is healthy."""
        return None if self._fault is None else self._fault[0]

    def unacked(self) -> tuple[bytes, ...]:
        """Sealed frames the peer has not acknowledged, oldest first, to re-send verbatim."""
        return tuple(self._unacked[seq] for seq in sorted(self._unacked))

    # -- operations

    def seal(self, plaintext: bytes) -> bytes:
        """Seal the next message into a frame and keep it until acknowledged."""
        self._check_alive()
        if len(plaintext) > MAX_PLAINTEXT_BYTES:
            raise MalformedInput(f"message of {len(plaintext)} bytes exceeds the frame limit")
        if self._send_seq > MAX_SEQ:
            raise MalformedInput("sequence numbers exhausted")  # pragma: no cover
        header = (
            bytes((FRAME_VERSION, self.side.direction)) + self._tag
            + self._send_seq.to_bytes(8, "big") + self._recv_seq.to_bytes(8, "big")
        )
        frame = header + self._send_aead.encrypt(
            _nonce(self.side.direction, self._send_seq), plaintext, header + self.match_id
        )
        # Never re-seal under the same seq: a re-send must reuse these exact bytes,
        # since one nonce with two different headers would break Poly1305.
        self._unacked[self._send_seq] = frame
        self._send_seq += 1
        return frame

    def ack(self, upto_seq: int) -> None:
        """Forget sent frames with seq ≤ ``upto_seq``: the peer has them."""
        if upto_seq >= self._send_seq:
            raise MalformedInput(f"cannot acknowledge seq {upto_seq}: only {self._send_seq} sent")
        for seq in [s for s in self._unacked if s <= upto_seq]:
            del self._unacked[seq]

    def open(self, frame: bytes) -> bytes:
        """Authenticate the peer's next frame and return its message.

        Raises DuplicateFrame / EarlyFrame (ignore; nothing changed) or a
        ChannelFault (the channel is dead from now on).
        """
        self._check_alive()
        try:
            return self._open(frame)
        except ChannelFault as fault:
            self._fault = (str(fault), fault.who, fault.field)
            raise

    def _check_alive(self) -> None:
        if self._fault is not None:
            text, who, field = self._fault
            raise ChannelFailed(f"channel failed earlier: {text}", who=who, field=field)

    def _open(self, frame: bytes) -> bytes:
        peer = self.side.other
        if not isinstance(frame, bytes) or not HEADER_BYTES + TAG_BYTES <= len(frame) <= (
            MAX_FRAME_BYTES
        ):
            raise MalformedFrame("frame of impossible length", who="relay", field="frame")
        if frame[0] != FRAME_VERSION:
            raise MalformedFrame(f"unknown frame version {frame[0]}", who="relay", field="version")
        if not hmac.compare_digest(frame[2:2 + MATCH_TAG_BYTES], self._tag):
            raise ForeignFrame("frame belongs to another match", who="relay", field="match")
        direction = frame[1]
        if direction == self.side.direction:
            raise ReflectedFrame(
                "frame in our own direction was reflected back", who="relay", field="direction"
            )
        if direction != peer.direction:
            raise MalformedFrame(f"unknown direction {direction}", who="relay", field="direction")
        seq = int.from_bytes(frame[10:18], "big")
        ack = int.from_bytes(frame[18:26], "big")
        header = frame[:HEADER_BYTES]
        try:
            plaintext = self._recv_aead.decrypt(
                _nonce(direction, seq), frame[HEADER_BYTES:], header + self.match_id
            )
        except InvalidTag:
            raise TamperedFrame(
                f"frame {seq} fails authentication (altered or forged)", who="relay", field="tag"
            ) from None
        if seq < self._recv_seq:
            raise DuplicateFrame(
                f"frame {seq} was already delivered (next is {self._recv_seq})",
                seq=seq, expected=self._recv_seq,
            )
        if seq > self._recv_seq:
            raise EarlyFrame(
                f"frame {seq} arrived before frame {self._recv_seq}; re-send needed",
                seq=seq, expected=self._recv_seq,
            )
        if ack > self._send_seq:
            raise AckBeyondSent(
                f"peer acknowledges {ack} frames, only {self._send_seq} were sent",
                who=peer.value, field="ack",
            )
        self._recv_seq += 1
        if ack:
            self.ack(ack - 1)
        return plaintext

    # -- persistence

    def to_state(self) -> dict[str, object]:
        """Plain data (ints, bytes, text, lists) to restore the channel; no key material.

        Persist it after every ``seal`` and before the frame leaves: a channel
        restored from an older state would seal a different frame under a used
        seq, which reuses a nonce.
        """
        return {
            "v": STATE_VERSION,
            "side": self.side.value,
            "match_id": self.match_id,
            "send_seq": self._send_seq,
            "recv_seq": self._recv_seq,
            "unacked": [[seq, self._unacked[seq]] for seq in sorted(self._unacked)],
            "failed": None if self._fault is None else list(self._fault),
        }

    @classmethod
    def from_state(cls, secret: bytes, state: Mapping[str, object]) -> SealedChannel:
        """Rebuild a channel from :meth:`to_state` output and the invite secret.

        Raises MalformedMessage naming the bad field.
        """
        reader = Message("channel-state", STATE_VERSION, state, "")
        reader.only("v", "side", "match_id", "send_seq", "recv_seq", "unacked", "failed")
        reader.integer("v", low=STATE_VERSION, high=STATE_VERSION)
        side = Side(reader.text("side", max_len=8, choices=("host", "guest")))
        channel = cls(secret, reader.blob("match_id", max_size=MAX_MATCH_ID_BYTES), side)
        channel._send_seq = reader.integer("send_seq", low=0, high=MAX_SEQ + 1)
        channel._recv_seq = reader.integer("recv_seq", low=0, high=MAX_SEQ + 1)
        entries = reader.array("unacked", max_len=channel._send_seq)
        for index, entry in enumerate(entries):
            if not (
                isinstance(entry, list | tuple) and len(entry) == 2
                and isinstance(entry[0], int) and not isinstance(entry[0], bool)
                and 0 <= entry[0] < channel._send_seq
                and isinstance(entry[1], bytes) and entry[0] not in channel._unacked
            ):
                raise MalformedMessage(
                    f"channel state: field 'unacked[{index}]' is not a [seq, frame] pair",
                    field=f"unacked[{index}]",
                )
            channel._unacked[entry[0]] = entry[1]
        failed = state.get("failed")
        if failed is not None:
            if not (
                isinstance(failed, list | tuple) and len(failed) == 3
                and all(isinstance(part, str) for part in failed)
            ):
                raise MalformedMessage(
                    "channel state: field 'failed' must be [text, who, field] or nil",
                    field="failed",
                )
            channel._fault = (failed[0], failed[1], failed[2])
        return channel
