"""The strict msgpack codec: msgpack-python under hard limits (the twin of
client/web/src/protocol/wire/msgpack.ts, which accepts and refuses the same byte strings).

Refused while decoding, before anything is built: extension types; a map key
that is not text or bytes; a key repeated in one map (two decoders could
disagree on its value); text that is not UTF-8; truncated input and trailing
bytes; containers nested too deep; text, bytes, arrays and maps over
:class:`Limits`. The encoder is ``packb(use_bin_type=True)``: the smallest form
of each integer, floats as float64.

This module is ``gin.protocol.wire.msgpack``; ``import msgpack`` (absolute) is the
msgpack-python library it wraps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import msgpack

from gin.engine.errors import MalformedInput


class UndecodableData(MalformedInput):
    """Bytes that are not one msgpack value within the limits."""


@dataclass(frozen=True)
class Limits:
    """Hard caps applied while decoding, before any object is built."""

    max_str_len: int = 4096
    max_bin_len: int = 4096
    max_array_len: int = 256
    max_map_len: int = 64


DEFAULT_LIMITS = Limits()


def encode(value: object) -> bytes:
    """``value`` as msgpack, binary and text kept apart."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"extension type {code} is not allowed")


def _unique_keys(pairs: list[tuple[object, object]]) -> dict[object, object]:
    # A repeated key would let two decoders disagree on the value; refuse it.
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a map repeats a key")
    return out


def decode(data: bytes, limits: Limits = DEFAULT_LIMITS) -> object:
    """One msgpack value under ``limits``. Raises :class:`UndecodableData`."""
    try:
        value: object = msgpack.unpackb(
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
        raise UndecodableData(str(exc)) from None
    return value
