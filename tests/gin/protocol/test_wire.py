"""Wire format: strict message decoding, schema checks, and the sealed channel."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import msgpack
import pytest

from gin.engine.errors import MalformedInput
from gin.protocol.wire import channel as wire
from gin.protocol.wire.channel import Side

DOC = Path(__file__).resolve().parents[3] / "protocol.md"
SECRET = bytes(range(32))
EPOCHS = (bytes(range(32, 64)), bytes(range(64, 96)))
Channel = wire.SealedChannel


def deliver(frames: Sequence[bytes], to: Channel) -> tuple[list[bytes], list[bytes]]:
    """Feed frames to a channel: (messages delivered, frames it sends back)."""
    messages, replies = [], []
    for frame in frames:
        got = to.receive(frame)
        if got.message is not None:
            messages.append(got.message)
        replies += got.replies
    return messages, replies


def exchange(host: Channel, guest: Channel, first: Sequence[bytes] = ()) -> list[bytes]:
    """Run frames both ways until quiet; the messages delivered, in order."""
    out: list[bytes] = []
    to_guest, to_host = list(first), []
    while to_guest or to_host:
        got, to_host_next = deliver(to_guest, guest)
        out += got
        got, to_guest = deliver(to_host + to_host_next, host)
        out += got
        to_host = []
    return out


def pair(secret: bytes = SECRET, epochs: tuple[bytes, bytes] = EPOCHS) -> tuple[Channel, Channel]:
    host, guest = Channel(secret, Side.HOST, epochs[0]), Channel(secret, Side.GUEST, epochs[1])
    exchange(host, guest, [host.offer()])
    assert host.keyed and guest.keyed
    return host, guest


def one(frames: Sequence[bytes]) -> bytes:
    (frame,) = frames
    return frame


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
        (msgpack.packb({"t": "x", "v": 1}), "unsupported protocol version 1"),
        (msgpack.packb({"t": "hello", "v": 2}), "unsupported protocol version 2"),
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
    assert wire.unpack(data, versions=(3, 4)).type == "x"
    with pytest.raises(wire.UnsupportedVersion) as info:
        wire.unpack(data, versions=(2, 3))
    assert (info.value.version, info.value.msg_type, info.value.field) == (4, "x", "v")


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


def test_offers_key_both_sides_then_messages_flow_both_ways() -> None:
    host = Channel(SECRET, Side.HOST, EPOCHS[0])
    guest = Channel(SECRET, Side.GUEST, EPOCHS[1])
    assert host.send(b"early") == ()  # kept until the guest's contribution is known
    delivered = exchange(host, guest, [host.offer()])
    assert delivered == [b"early"]
    for i in range(3):
        assert deliver(host.send(b"h%d" % i), guest)[0] == [b"h%d" % i]
        assert deliver(guest.send(b"g%d" % i), host)[0] == [b"g%d" % i]
    assert (host.next_send_seq, host.next_receive_seq) == (4, 3)


def test_frame_layout_and_vectors() -> None:
    host = Channel(SECRET, Side.HOST, EPOCHS[0])
    offer = host.offer()
    assert len(offer) == wire.OFFER_BYTES == 91
    assert offer[:3] == bytes((wire.FRAME_VERSION, wire.Kind.OFFER.value, 0x01))
    assert offer[11:43] == EPOCHS[0] and offer[43:75] == bytes(32)
    guest = Channel(SECRET, Side.GUEST, EPOCHS[1])
    deliver([guest.offer()], host)
    deliver([host.offer()], guest)
    frame = one(host.send(wire.pack("hello", {"n": 1})))
    assert len(frame) == wire.HEADER_BYTES + len(wire.pack("hello", {"n": 1})) + 16
    assert frame[:3] == bytes((wire.FRAME_VERSION, wire.Kind.DATA.value, 0x01))
    assert frame[19:27] == bytes(8)  # seq 0
    messages, replies = deliver([frame], guest)
    ack = replies[-1]
    assert len(ack) == wire.ACK_BYTES and ack[1] == wire.Kind.ACK.value
    vectors = re.search(r"```vectors\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert vectors is not None
    expected = dict(line.split(" = ", 1) for line in vectors.group(1).splitlines() if line)
    assert offer.hex() == expected["frame_offer_host"]
    assert frame.hex() == expected["frame_data_host_0"]
    assert ack.hex() == expected["frame_ack_guest_0"]


def test_keys_differ_by_secret_epoch_and_direction() -> None:
    frames = set()
    for host, guest in (pair(), pair(secret=bytes(32)),
                        pair(epochs=(EPOCHS[0], bytes(range(1, 33))))):
        frames |= {one(host.send(b"same"))[wire.HEADER_BYTES:],
                   one(guest.send(b"same"))[wire.HEADER_BYTES:]}
    assert len(frames) == 6


# --- sealed channel: attacks and the transport ------------------------------------


@pytest.mark.parametrize("index", [20, 30, -1], ids=["seq", "ciphertext", "tag"])
def test_tampered_frames_fail_and_the_failure_sticks(index: int) -> None:
    host, guest = pair()
    frame = bytearray(one(host.send(b"payload")))
    frame[index] ^= 1
    with pytest.raises(wire.TamperedFrame, match="fails authentication") as first:
        guest.receive(bytes(frame))
    assert not first.value.proven and first.value.who == "relay"
    with pytest.raises(wire.ChannelFailed, match="fails authentication"):
        guest.receive(one(host.send(b"next")))
    assert guest.failed is not None
    assert guest.send(b"abort: tampered")  # it can still tell the peer why


def test_a_tampered_offer_is_refused() -> None:
    host = Channel(SECRET, Side.HOST, EPOCHS[0])
    offer = bytearray(host.offer())
    offer[20] ^= 1  # another contribution, without the MAC for it
    guest = Channel(SECRET, Side.GUEST, EPOCHS[1])
    with pytest.raises(wire.TamperedFrame, match="offer"):
        guest.receive(bytes(offer))


def test_a_frame_with_another_epoch_id_is_stale_and_answered_with_our_offer() -> None:
    host, guest = pair()
    frame = bytearray(one(host.send(b"x")))
    frame[12] ^= 1
    got = guest.receive(bytes(frame))
    assert got.message is None and got.replies == (guest.offer(),)
    assert guest.failed is None


def test_reflected_frame_is_a_fault() -> None:
    host, guest = pair()
    with pytest.raises(wire.ReflectedFrame, match="reflected"):
        host.receive(one(host.send(b"mine")))
    with pytest.raises(wire.ChannelFailed):
        host.receive(one(guest.send(b"fine")))


def test_direction_byte_flipped_is_caught() -> None:
    host, guest = pair()
    frame = bytearray(one(host.send(b"x")))
    frame[2] = 0x07
    with pytest.raises(wire.MalformedFrame, match="unknown direction"):
        guest.receive(bytes(frame))


def test_foreign_link_frame_is_a_fault() -> None:
    _, guest = pair()
    outsider, _ = pair(secret=b"\x09" * 32)
    with pytest.raises(wire.ForeignFrame, match="another invite link"):
        guest.receive(one(outsider.send(b"hi")))


@pytest.mark.parametrize(
    ("frame", "text"),
    [(b"", "impossible length"), (b"\x02\x02\x01" + b"\x01" * 30, "another invite link"),
     (b"\x02" * (wire.MAX_FRAME_BYTES + 1), "impossible length"),
     (b"\x09" + b"\x01" * 60, "unknown frame version"), (b"\x02\x07" + b"\x01" * 60, "kind")],
)
def test_malformed_frames(frame: bytes, text: str) -> None:
    _, guest = pair()
    with pytest.raises(wire.ChannelFault, match=text):
        guest.receive(frame)


def test_duplicates_are_acknowledged_and_delivered_once() -> None:
    host, guest = pair()
    frame = one(host.send(b"once"))
    assert guest.receive(frame).message == b"once"
    again = guest.receive(frame)
    assert again.message is None and len(again.replies) == 1  # an ack, so it stops resending
    deliver(again.replies, host)
    assert host.pending == 0
    assert guest.failed is None


def test_a_gap_asks_for_a_resend_once_and_the_resend_fills_it() -> None:
    host, guest = pair()
    f0, f1, f2 = (one(host.send(b"%d" % i)) for i in range(3))
    assert guest.receive(f0).message == b"0"
    gap = guest.receive(f2)
    assert gap.message is None and len(gap.replies) == 1
    assert guest.receive(f2).replies == ()  # asked once already: the timer covers the rest
    _, resent = deliver(gap.replies, host)
    assert resent == [f1, f2]  # byte for byte what was sent
    assert deliver(resent, guest)[0] == [b"1", b"2"]


def test_ack_beyond_sent_is_the_peers_proven_fault() -> None:
    host, guest = pair()
    _, replies = deliver([*host.send(b"a"), *host.send(b"b")], guest)
    twin = Channel(SECRET, Side.HOST, EPOCHS[0])  # the same contribution, nothing sent
    deliver([guest.offer()], twin)
    with pytest.raises(wire.AckBeyondSent) as info:
        deliver(replies[-1:], twin)
    assert info.value.proven and (info.value.who, info.value.field) == ("guest", "ack")


def test_a_restored_side_starts_a_new_epoch_and_old_frames_never_open() -> None:
    host, guest = pair()
    old = [one(host.send(b"m%d" % i)) for i in range(3)]
    deliver(old[:1], guest)
    state = msgpack.unpackb(msgpack.packb(host.to_state()), raw=False)
    restored = Channel.from_state(SECRET, state, bytes(range(100, 132)))
    # Before the guest learns the new contribution, the old frames still open for it:
    # they are the same bytes as before. After it, a replay of them is stale.
    delivered = exchange(restored, guest, list(restored.resend()))
    assert delivered == [b"m1", b"m2"]
    assert guest.receive(old[1]).message is None and guest.failed is None
    again = one(restored.send(b"m3"))
    assert again[wire.PREFIX_BYTES:wire.PREFIX_BYTES + 8] != old[0][
        wire.PREFIX_BYTES:wire.PREFIX_BYTES + 8]  # another key, so another epoch id
    assert deliver([again], guest)[0] == [b"m3"]


def test_a_replayed_old_offer_only_delays() -> None:
    host = Channel(SECRET, Side.HOST, EPOCHS[0])
    old_offer = host.offer()
    host, guest = pair(epochs=(bytes(range(7, 39)), EPOCHS[1]))
    _, replies = deliver([old_offer], guest)  # the guest now keys for a dead host epoch
    frames = list(guest.send(b"lost?"))
    assert deliver(frames, host) == ([], [host.offer()])  # stale: the host re-offers
    _, resent = deliver([host.offer()], guest)
    assert deliver(resent, host)[0] == [b"lost?"]


def test_no_nonce_is_ever_used_twice() -> None:
    """Random sends, resends, restores and offers: one frame per (key, nonce)."""
    import random

    rng = random.Random(5)
    host, guest = pair()
    seen: dict[tuple[bytes, int, bytes], bytes] = {}
    for step in range(300):
        roll = rng.random()
        if roll < 0.1:
            state = msgpack.unpackb(msgpack.packb(host.to_state()), raw=False)
            host = Channel.from_state(SECRET, state, rng.randbytes(32))
            frames = list(host.resend())
        elif roll < 0.2:
            frames = list(host.resend())
        else:
            frames = list(host.send(b"m%d" % step))
        for frame in frames:
            if frame[1] != wire.Kind.OFFER.value:
                key = (frame[wire.PREFIX_BYTES:wire.PREFIX_BYTES + 8], frame[1],
                       frame[wire.PREFIX_BYTES + 8:wire.HEADER_BYTES])
                assert seen.setdefault(key, frame) == frame
        if rng.random() < 0.7:
            exchange(host, guest, frames)


def test_oversized_plaintext_is_refused() -> None:
    host, _ = pair()
    with pytest.raises(MalformedInput):
        host.send(b"\x00" * (wire.MAX_PLAINTEXT_BYTES + 1))
    assert len(one(host.send(b"\x00" * wire.MAX_PLAINTEXT_BYTES))) == wire.MAX_FRAME_BYTES


# --- persistence ------------------------------------------------------------------


def test_state_round_trips_through_msgpack_without_keys() -> None:
    host, guest = pair()
    for i in range(3):
        exchange(host, guest, host.send(b"%d" % i))
    host.send(b"pending")
    state = msgpack.unpackb(msgpack.packb(host.to_state(), use_bin_type=True), raw=False)
    assert set(state) == {"v", "side", "send_seq", "recv_seq", "pending", "sent_digest",
                          "received_digest", "failed"}
    assert SECRET not in repr(state).encode() and EPOCHS[0] not in repr(state).encode()
    restored = Channel.from_state(SECRET, state, bytes(range(1, 33)))
    assert restored.to_state() == host.to_state()
    assert restored.pending_messages() == ((3, b"pending"),)
    assert exchange(restored, guest, list(restored.resend())) == [b"pending"]


def test_failed_state_stays_failed_after_restore() -> None:
    host, guest = pair()
    with pytest.raises(wire.ReflectedFrame):
        guest.receive(one(guest.send(b"x")))
    restored = Channel.from_state(SECRET, guest.to_state(), bytes(range(1, 33)))
    with pytest.raises(wire.ChannelFailed, match="reflected") as info:
        restored.receive(host.offer())
    assert info.value.who == "relay"


@pytest.mark.parametrize(
    ("change", "field"),
    [({"side": "dealer"}, "side"), ({"send_seq": -1}, "send_seq"),
     ({"pending": [[5, b"x"]]}, "pending[0]"), ({"failed": 3}, "failed"),
     ({"extra": 1}, "extra"), ({"v": 9}, "v"), ({"sent_digest": b"x"}, "sent_digest")],
)
def test_bad_state_is_rejected(change: dict[str, object], field: str) -> None:
    host, _ = pair()
    host.send(b"a")
    state = {**host.to_state(), **change}
    with pytest.raises(wire.MalformedMessage) as info:
        Channel.from_state(SECRET, state, EPOCHS[0])
    assert info.value.field == field


def test_bad_construction() -> None:
    with pytest.raises(MalformedInput):
        Channel(b"short", Side.HOST, EPOCHS[0])
    with pytest.raises(MalformedInput):
        Channel(SECRET, Side.HOST, bytes(32))  # not a random contribution
