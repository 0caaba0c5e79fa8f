"""Wire format: strict message decoding, schema checks, and the sealed channel."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import pytest

from gin import wire
from gin.errors import MalformedInput, PeerFault
from gin.wire import Side

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
SECRET = bytes(range(32))
MATCH = b"vector-match"


def pair(secret: bytes = SECRET, match: bytes = MATCH) -> tuple[wire.SealedChannel, ...]:
    return (wire.SealedChannel(secret, match, Side.HOST),
            wire.SealedChannel(secret, match, Side.GUEST))


# --- messages -------------------------------------------------------------------


def test_pack_unpack_round_trip() -> None:
    data = wire.pack("deal", {"keys": [b"\x01" * 32, b"\x02" * 32], "hand": 3, "ok": True,
                              "who": "host", "meta": {"n": -5}})
    msg = wire.unpack(data)
    assert (msg.type, msg.version) == ("deal", wire.PROTOCOL_VERSION)
    assert msg.blobs("keys", max_len=52, size=32) == (b"\x01" * 32, b"\x02" * 32)
    assert msg.integer("hand", low=0, high=10) == 3
    assert msg.flag("ok") is True
    assert msg.text("who", max_len=8, choices=("host", "guest")) == "host"
    assert msg.submap("meta").integer("n", low=-10, high=0) == -5
    msg.only("keys", "hand", "ok", "who", "meta")
    assert msg.has("keys") and not msg.has("nope")


def test_pack_rejects_reserved_fields() -> None:
    with pytest.raises(MalformedInput):
        wire.pack("x", {"t": "y"})
    with pytest.raises(MalformedInput):
        wire.pack("")
    with pytest.raises(MalformedInput):
        wire.pack("x", {"blob": b"\x00" * wire.MAX_PLAINTEXT_BYTES})


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (msgpack.packb([1, 2]), "not a map"),
        (msgpack.packb({"t": "x", "v": 1, "a": list(range(300))}), "exceeds max_array_len"),
        (msgpack.packb({"t": "x", "v": 1, "s": "z" * 5000}), "exceeds max_str_len"),
        (msgpack.packb({"t": "x", "v": 1, "b": b"z" * 5000}), "exceeds max_bin_len"),
        (msgpack.packb({"t": "x", "v": 1, "e": msgpack.ExtType(1, b"ab")}), "max_ext_len"),
        (b"\x83\xa1t\xa1x\xa1v\x01\xa1e\xc7\x00\x05", "extension type 5"),
        (msgpack.packb({1: 2}), "not allowed for map key"),
        (msgpack.packb({b"t": "x", "v": 1}), "names must be text"),
        (msgpack.packb({"t": "x", "v": 1}) + b"\x00", "extra data"),
        (msgpack.packb({"t": "x", "v": 1})[:-1], "incomplete"),
        (b"\x81\xa1t\xa2\xff\xfe", "undecodable"),
        (b"\x91" * 5000, "undecodable"),
        (msgpack.packb({"v": 1}), "field 't': missing"),
        (msgpack.packb({"t": 5, "v": 1}), "field 't': expected text"),
        (msgpack.packb({"t": "x", "v": 2}), "unsupported protocol version 2"),
        (msgpack.packb({"t": "", "v": 1}), "empty message type"),
        (b"\x83\xa1t\xa1a\xa1v\x01\xa1t\xa1b", "repeats a key"),
        (msgpack.packb({"t": "x", "v": 1, "m": {"a": 1}})[:-4] + b"\x82\xa1a\x01\xa1a\x02",
         "repeats a key"),
        (msgpack.packb({"t": "x", "v": True}), "field 'v': expected an integer"),
    ],
)
def test_unpack_rejects(data: bytes, text: str) -> None:
    with pytest.raises(wire.MalformedMessage) as info:
        wire.unpack(data)
    assert text in str(info.value)


def test_unpack_limits_are_configurable() -> None:
    data = wire.pack("x", {"a": [1, 2, 3]})
    with pytest.raises(wire.MalformedMessage):
        wire.unpack(data, limits=wire.Limits(max_array_len=2))
    with pytest.raises(wire.MalformedMessage, match="limit"):
        wire.unpack(data, limits=wire.Limits(max_message_bytes=4))
    assert wire.unpack(data, versions=(1, 2)).type == "x"


def test_schema_errors_name_the_field() -> None:
    msg = wire.unpack(wire.pack("deal", {
        "keys": [b"\x01" * 32, b"\x02" * 31], "hand": 99, "ok": 1, "n": [1, "a"],
        "meta": {"seat": "north"}, "who": "nobody",
    }))
    cases = [
        (lambda: msg.blobs("keys", max_len=52, size=32), "keys[1]", "expected 32 bytes"),
        (lambda: msg.blobs("keys", max_len=1, size=32), "keys", "expected 0..1"),
        (lambda: msg.integer("hand", low=0, high=10), "hand", "99 is outside 0..10"),
        (lambda: msg.flag("ok"), "ok", "expected true or false"),
        (lambda: msg.integers("n", max_len=4, low=0, high=9), "n[1]", "expected an integer"),
        (lambda: msg.submap("meta").integer("seat", low=0, high=1), "meta.seat", "integer"),
        (lambda: msg.text("who", max_len=8, choices=("host", "guest")), "who", "allowed"),
        (lambda: msg.text("who", max_len=3), "who", "longer than 3"),
        (lambda: msg.blob("missing"), "missing", "missing"),
        (lambda: msg.submap("hand"), "hand", "expected a map"),
        (lambda: msg.array("hand", max_len=3), "hand", "expected a list"),
        (lambda: msg.only("keys"), "hand", "unexpected field"),
    ]
    for call, field, text in cases:
        with pytest.raises(wire.MalformedMessage) as info:
            call()
        assert info.value.field == field
        assert f"message 'deal': field {field!r}" in str(info.value)
        assert text in str(info.value)


# --- sealed channel: normal operation ------------------------------------------


def test_seal_and_open_both_ways() -> None:
    host, guest = pair()
    for i in range(3):
        assert guest.open(host.seal(b"h%d" % i)) == b"h%d" % i
        assert host.open(guest.seal(b"g%d" % i)) == b"g%d" % i
    assert (host.next_send_seq, host.next_receive_seq) == (3, 3)


def test_frame_layout_and_vector() -> None:
    host, guest = pair()
    guest.open(host.seal(b"x"))
    frame = guest.seal(b"hello")
    assert len(frame) == wire.HEADER_BYTES + 5 + wire.TAG_BYTES == 47
    assert frame[0] == wire.FRAME_VERSION
    assert frame[1] == 0x02  # guest → host
    assert frame[10:18] == (0).to_bytes(8, "big")  # seq
    assert frame[18:26] == (1).to_bytes(8, "big")  # ack: one host frame received
    assert b"hello" not in frame
    # The documented vector: the host's first frame under the vector secret.
    vectors = re.search(r"```vectors\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert vectors is not None
    expected = dict(line.split(" = ", 1) for line in vectors.group(1).splitlines() if line)
    fresh_host, _ = pair()
    assert fresh_host.seal(wire.pack("hello", {"n": 1})).hex() == expected["frame_host_0"]


def test_keys_differ_by_secret_match_and_direction() -> None:
    host, guest = pair()
    other_secret, _ = pair(secret=bytes(32))
    other_match, _ = pair(match=b"another-match")
    frames = {host.seal(b"same"), other_secret.seal(b"same"), other_match.seal(b"same"),
              guest.seal(b"same")}
    assert len({f[26:] for f in frames}) == 4


# --- sealed channel: attacks and the transport ------------------------------------


def test_tampered_frames_fail_and_the_failure_sticks() -> None:
    for index in (12, 20, 30, -1):  # seq, ack, ciphertext, tag
        host, guest = pair()
        frame = bytearray(host.seal(b"payload"))
        frame[index] ^= 1
        with pytest.raises(wire.TamperedFrame, match="fails authentication"):
            guest.open(bytes(frame))
        good = host.seal(b"next")
        with pytest.raises(wire.ChannelFailed, match="fails authentication") as info:
            guest.open(good)
        assert info.value.who == "relay"
        with pytest.raises(wire.ChannelFailed):
            guest.seal(b"reply")
        assert guest.failed is not None


def test_reflected_frame_is_a_fault() -> None:
    host, guest = pair()
    frame = host.seal(b"mine")
    with pytest.raises(wire.ReflectedFrame, match="reflected"):
        host.open(frame)
    with pytest.raises(wire.ChannelFailed):
        host.open(guest.seal(b"fine"))


def test_direction_byte_flipped_is_caught() -> None:
    host, guest = pair()
    frame = bytearray(host.seal(b"x"))
    frame[1] = 0x02
    with pytest.raises(wire.TamperedFrame):
        host.open(bytes(frame))  # claims guest → host, but sealed with the host's key
    frame[1] = 0x07
    with pytest.raises(wire.MalformedFrame, match="unknown direction"):
        guest.open(bytes(frame))


def test_foreign_match_frame_is_a_fault() -> None:
    _, guest = pair()
    stranger, _ = pair(match=b"another-match")
    with pytest.raises(wire.ForeignFrame, match="another match"):
        guest.open(stranger.seal(b"hi"))
    guest_b = pair()[1]
    outsider, _ = pair(secret=b"\x09" * 32)
    with pytest.raises(wire.ForeignFrame):
        guest_b.open(outsider.seal(b"hi"))


@pytest.mark.parametrize(
    ("frame", "text"),
    [(b"", "impossible length"), (b"\x01" * 41, "impossible length"),
     (b"\x01" * (wire.MAX_FRAME_BYTES + 1), "impossible length"),
     (b"\x09" + b"\x01" * 60, "unknown frame version")],
)
def test_malformed_frames(frame: bytes, text: str) -> None:
    _, guest = pair()
    with pytest.raises(wire.MalformedFrame, match=text):
        guest.open(frame)


def test_fault_kinds_and_messages_are_distinct() -> None:
    host, _ = pair()
    good = host.seal(b"a")
    faults = []
    for make in (
        lambda g: good[:2] + bytes(b ^ 1 for b in good[2:10]) + good[10:],  # other match
        lambda g: good[:30] + bytes([good[30] ^ 1]) + good[31:],  # altered ciphertext
        lambda g: g.seal(b"b"),  # the guest's own frame, reflected
        lambda g: b"\x02" + good[1:],  # unknown frame version
    ):
        guest = pair()[1]
        with pytest.raises(wire.ChannelFault) as info:
            guest.open(make(guest))
        faults.append(info.value)
    assert [type(f) for f in faults] == [
        wire.ForeignFrame, wire.TamperedFrame, wire.ReflectedFrame, wire.MalformedFrame,
    ]
    assert len({str(f) for f in faults}) == 4


def test_replayed_frame_is_an_ignorable_duplicate() -> None:
    host, guest = pair()
    frame = host.seal(b"once")
    assert guest.open(frame) == b"once"
    with pytest.raises(wire.DuplicateFrame, match="already delivered") as info:
        guest.open(frame)
    assert (info.value.seq, info.value.expected) == (0, 1)
    assert not isinstance(info.value, PeerFault)
    assert guest.failed is None
    assert guest.open(host.seal(b"twice")) == b"twice"


def test_reordered_frame_is_refused_until_resent_in_order() -> None:
    host, guest = pair()
    f0, f1, f2 = (host.seal(b"%d" % i) for i in range(3))
    assert guest.open(f0) == b"0"
    with pytest.raises(wire.EarlyFrame, match="arrived before frame 1") as info:
        guest.open(f2)
    assert (info.value.seq, info.value.expected) == (2, 1)
    assert guest.failed is None and guest.next_receive_seq == 1
    assert [guest.open(f) for f in (f1, f2)] == [b"1", b"2"]


def test_resume_after_reconnect_resends_unacked_frames() -> None:
    host, guest = pair()
    sent = [host.seal(b"m%d" % i) for i in range(4)]
    assert guest.open(sent[0]) == b"m0" and guest.open(sent[1]) == b"m1"
    # m2 was lost with the connection. The guest's reply acknowledges m0 and m1.
    assert host.open(guest.seal(b"reply")) == b"reply"
    assert host.unacked() == tuple(sent[2:])
    # Reconnect: the host re-sends everything unacknowledged, verbatim, in order;
    # the relay also flushes a stale buffered copy of m1 first.
    delivered, ignored = [], 0
    for frame in (sent[1], *host.unacked()):
        try:
            delivered.append(guest.open(frame))
        except wire.FrameIgnored:
            ignored += 1
    assert delivered == [b"m2", b"m3"] and ignored == 1
    host.open(guest.seal(b"ack"))
    assert host.unacked() == ()


def test_explicit_ack() -> None:
    host, _ = pair()
    frames = [host.seal(b"%d" % i) for i in range(5)]
    host.ack(2)
    assert host.unacked() == tuple(frames[3:])
    host.ack(1)  # stale: no effect
    assert host.unacked() == tuple(frames[3:])
    with pytest.raises(MalformedInput):
        host.ack(5)


def test_ack_beyond_sent_is_the_peers_fault() -> None:
    host, guest = pair()
    guest.open(host.seal(b"a"))
    guest.open(host.seal(b"b"))
    liar = guest.seal(b"I have 2 of yours")
    newcomer, _ = pair()
    newcomer.seal(b"only one")
    with pytest.raises(wire.AckBeyondSent) as info:
        newcomer.open(liar)
    assert (info.value.who, info.value.field) == ("guest", "ack")


def test_oversized_plaintext_is_refused() -> None:
    host, _ = pair()
    with pytest.raises(MalformedInput):
        host.seal(b"\x00" * (wire.MAX_PLAINTEXT_BYTES + 1))
    assert len(host.seal(b"\x00" * wire.MAX_PLAINTEXT_BYTES)) == wire.MAX_FRAME_BYTES


# --- persistence ------------------------------------------------------------------


def test_state_round_trips_through_msgpack() -> None:
    host, guest = pair()
    for i in range(3):
        guest.open(host.seal(b"%d" % i))
    host.open(guest.seal(b"ack 3"))
    pending = host.seal(b"pending")
    state = msgpack.unpackb(msgpack.packb(host.to_state(), use_bin_type=True), raw=False)
    assert set(state) == {"v", "side", "match_id", "send_seq", "recv_seq", "unacked", "failed"}
    assert SECRET not in repr(state).encode()
    restored = wire.SealedChannel.from_state(SECRET, state)
    assert restored.to_state() == host.to_state()
    assert restored.unacked() == (pending,)
    assert guest.open(restored.unacked()[0]) == b"pending"
    assert restored.open(guest.seal(b"more")) == b"more"
    assert guest.open(restored.seal(b"on")) == b"on"


def test_failed_state_stays_failed_after_restore() -> None:
    host, guest = pair()
    with pytest.raises(wire.ReflectedFrame):
        guest.open(guest.seal(b"x"))
    restored = wire.SealedChannel.from_state(SECRET, guest.to_state())
    with pytest.raises(wire.ChannelFailed, match="reflected") as info:
        restored.open(host.seal(b"y"))
    assert info.value.who == "relay"


@pytest.mark.parametrize(
    ("change", "field"),
    [({"side": "dealer"}, "side"), ({"send_seq": -1}, "send_seq"),
     ({"unacked": [[5, b"x"]]}, "unacked[0]"), ({"failed": 3}, "failed"),
     ({"extra": 1}, "extra"), ({"v": 9}, "v")],
)
def test_bad_state_is_rejected(change: dict[str, object], field: str) -> None:
    host, _ = pair()
    host.seal(b"a")
    state = {**host.to_state(), **change}
    with pytest.raises(wire.MalformedMessage) as info:
        wire.SealedChannel.from_state(SECRET, state)
    assert info.value.field == field


def test_bad_construction() -> None:
    with pytest.raises(MalformedInput):
        wire.SealedChannel(b"short", MATCH, Side.HOST)
    with pytest.raises(MalformedInput):
        wire.SealedChannel(SECRET, b"", Side.HOST)
