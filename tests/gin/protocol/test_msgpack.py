"""The strict msgpack codec: what it writes, what it refuses, under which limits."""

from __future__ import annotations

import pytest

from gin.protocol.wire import msgpack


def test_a_value_round_trips_with_bytes_and_text_apart() -> None:
    value = {"t": "x", "b": b"\x00", "n": [0, -1, 2**64 - 1], "m": {"k": None}}
    assert msgpack.decode(msgpack.encode(value)) == value
    assert msgpack.encode(5) == b"\x05"  # the smallest form of an integer


@pytest.mark.parametrize("data", [
    b"\xc1",  # never used
    b"\xd4\x01\x00",  # an extension type
    b"\x81\x01\x02",  # a map key that is not text or bytes
    b"\x82\xa1a\x01\xa1a\x02",  # a repeated key
    b"\xa2\xff\xfe",  # text that is not UTF-8
    b"\x92\x01",  # truncated
    b"\x01\x02",  # trailing bytes
])
def test_undecodable_data_is_refused(data: bytes) -> None:
    with pytest.raises(msgpack.UndecodableData):
        msgpack.decode(data)


def test_limits_apply_before_anything_is_built() -> None:
    data = msgpack.encode([1, 2, 3])
    assert msgpack.decode(data, msgpack.Limits(max_array_len=3)) == [1, 2, 3]
    with pytest.raises(msgpack.UndecodableData):
        msgpack.decode(data, msgpack.Limits(max_array_len=2))
