"""The envelope of the files ``gin audit`` reads (protocol.md §10): hand records, deal
evidence and abandonment records all carry a format and its version, the seats, the
match id, the invite link, each seat's signing key, identity and vouch, and the match
before. They are written and read here once, with the one strict reader each format
reads the rest of itself with (the twin of client/web/src/protocol/records/envelope.ts).

Every refusal is a MalformedInput that names the file's kind and the JSON path of what
is wrong. Hand records, the first format, say what they found besides what they
expected ("got str", "5 is outside 0..1"); deal evidence and abandonment records say
only what they expected. Both wordings are in the corpus, so both stay. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NoReturn, Protocol, TypedDict

from gin.engine.errors import MalformedInput
from gin.protocol.records import strict_json

SEATS = ("host", "guest")
LINK_ID_BYTES = 16
MATCH_ID_BYTES = 16
KEY_BYTES = 32
SIGNATURE_BYTES = 64
MAX_RECORD_BYTES = 1 << 20
#: Arrays and objects open at once (a record needs 4); deeper text is not a record.
MAX_NESTING = 64
#: The envelope's objects of one value a seat (signing keys, identities, vouches).
PAIRS = ("signing_keys", "identities", "vouches")
_HEX = re.compile("[0-9a-fA-F]*")
# A string (to its closing quote, or the end of the text) or a bracket.
_NESTING_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class Bound(Protocol):
    """What a file names its match by: the envelope's fields but the format's own."""

    @property
    def match_id(self) -> bytes: ...
    @property
    def link_id(self) -> bytes: ...
    @property
    def signing_keys(self) -> tuple[bytes, bytes]: ...
    @property
    def identities(self) -> tuple[bytes, bytes]: ...
    @property
    def vouches(self) -> tuple[bytes, bytes]: ...
    @property
    def previous(self) -> bytes | None: ...


class Binding(TypedDict):
    """The envelope's fields after the match id, as a file's constructor takes them."""

    link_id: bytes
    signing_keys: tuple[bytes, bytes]
    identities: tuple[bytes, bytes]
    vouches: tuple[bytes, bytes]
    previous: bytes | None


# --- writing ----------------------------------------------------------------------


def seat_pair(values: tuple[bytes, bytes]) -> dict[str, str]:
    """One value a seat, as JSON: ``{"host": hex, "guest": hex}``."""
    return dict(zip(SEATS, (x.hex() for x in values), strict=True))


def write(bound: Bound, format: str, version: int, fields: Sequence[str],
          own: dict[str, Any]) -> dict[str, Any]:
    """A file as JSON: the envelope of ``bound`` and the format's ``own`` fields, in the
    format's order ``fields`` (the order its reader names a missing field in)."""
    every = {
        "format": format,
        "version": version,
        "match_id": bound.match_id.hex(),
        "seats": list(SEATS),
        "link": bound.link_id.hex(),
        **{name: seat_pair(getattr(bound, name)) for name in PAIRS},
        "previous": None if bound.previous is None else bound.previous.hex(),
        **own,
    }
    return {name: every[name] for name in fields}


# --- reading ----------------------------------------------------------------------


def too_deep(text: str) -> str | None:
    """Why ``text`` nests too deep to read, before reading it: the first bracket that
    opens more than MAX_NESTING arrays and objects at once, outside strings, whether
    or not the text is otherwise JSON (the browser's parser words it the same)."""
    depth = 0
    for token in _NESTING_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return f"more than {MAX_NESTING} arrays and objects nested at char {token.start()}"
        elif bracket in "]}":
            depth = max(depth - 1, 0)
    return None


def load(data: str | bytes, head: str) -> object:
    """A file's JSON value under the limits (size, nesting, strict JSON); MalformedInput
    headed ``head`` ("hand record") otherwise."""
    if len(data) > MAX_RECORD_BYTES:
        raise MalformedInput(f"{head}: {len(data)} bytes, more than {MAX_RECORD_BYTES}")
    try:
        # Bytes decoded as json.loads decodes them, to look at the nesting first:
        # Python's json recurses once per level and fails at its stack's limit.
        text = data if isinstance(data, str) else data.decode(json.detect_encoding(data),
                                                              "surrogatepass")
        deep = too_deep(text)
        if deep is not None:
            raise MalformedInput(f"{head}: not JSON ({deep})")
        return strict_json.loads(text)
    except strict_json.JsonSyntaxError as exc:
        raise MalformedInput(f"{head}: not JSON ({exc})") from None
    except MalformedInput:
        raise
    except (ValueError, RecursionError) as exc:
        raise MalformedInput(f"{head}: not JSON ({exc})") from None


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class Reader:
    """Typed access to one JSON object of a ``what`` file ("hand record") at ``path``
    that names the path of whatever is wrong; ``found``: a refusal also says what it
    found (hand records' words)."""

    def __init__(self, value: object, path: str, what: str, found: bool = False) -> None:
        self.path, self.what, self.found = path, what, found
        if not isinstance(value, dict):
            self.fail(path, "expected an object" + (f", got {_kind(value)}" if found else ""))
        self.value: dict[str, object] = value

    def fail(self, path: str, why: str) -> NoReturn:
        raise MalformedInput(f"{self.what}: {path}: {why}")

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def only(self, required: Sequence[str], optional: Sequence[str] = ()) -> Reader:
        """This object, if it has every field ``required`` and no other but ``optional``."""
        for key in self.value:
            if key not in required and key not in optional:
                self.fail(self.at(key), "unexpected field")
        for key in required:
            if key not in self.value:
                self.fail(self.at(key), "missing")
        return self

    def get(self, name: str) -> object:
        return self.value.get(name)

    def object_at(self, value: object, path: str) -> Reader:
        return Reader(value, path, self.what, self.found)

    def child(self, name: str) -> Reader:
        return self.object_at(self.value.get(name), self.at(name))

    def integer_at(self, value: object, path: str, low: int, high: int) -> int:
        """A whole number ``low``..``high`` (not a boolean, not a float)."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected an integer, got {_kind(value)}" if self.found
                      else f"expected an integer {low}..{high}")
        if not low <= value <= high:
            self.fail(path, f"{value} is outside {low}..{high}" if self.found
                      else f"expected an integer {low}..{high}")
        return value

    def integer(self, name: str, low: int, high: int) -> int:
        return self.integer_at(self.value.get(name), self.at(name), low, high)

    def seat_or_none(self, name: str) -> int | None:
        value = self.value.get(name)
        return None if value is None else self.integer_at(value, self.at(name), 0, 1)

    def hex_at(self, value: object, path: str, size: int) -> bytes:
        """``size`` bytes as hex digits (either case)."""
        if not isinstance(value, str) or len(value) != 2 * size:
            self.fail(path, f"expected {2 * size} hex digits")
        # Not bytes.fromhex alone: it skips spaces, and would make a shorter value.
        if not _HEX.fullmatch(value):
            self.fail(path, "not hexadecimal" if self.found else f"expected {2 * size} hex digits")
        return bytes.fromhex(value)

    def hex(self, name: str, size: int) -> bytes:
        return self.hex_at(self.value.get(name), self.at(name), size)

    def hex_or_none(self, name: str, size: int) -> bytes | None:
        return None if self.value.get(name) is None else self.hex(name, size)

    def pair(self, size: int, names: tuple[str, str] = SEATS) -> tuple[bytes, bytes]:
        """This object's two values of ``size`` bytes, one a seat (or ``names``)."""
        return self.hex(names[0], size), self.hex(names[1], size)

    def array_at(self, value: object, path: str, low: int, high: int) -> list[object]:
        # The later formats read only lists of one length (``low``), and word them so.
        if not isinstance(value, list):
            self.fail(path, f"expected a list, got {_kind(value)}" if self.found
                      else f"expected a list of {low} entries")
        if not low <= len(value) <= high:
            self.fail(path, f"{len(value)} entries, expected {low}..{high}" if self.found
                      else f"expected a list of {low} entries")
        return value

    def array(self, name: str, low: int, high: int) -> list[object]:
        return self.array_at(self.value.get(name), self.at(name), low, high)

    def hex_list(self, name: str, count: int, size: int) -> tuple[bytes, ...]:
        """A list of ``count`` values of ``size`` bytes (a deck message)."""
        return tuple(self.hex_at(x, f"{self.at(name)}[{i}]", size)
                     for i, x in enumerate(self.array(name, count, count)))


def read_head(r: Reader, format: str, version: int, *, older: bool = False) -> None:
    """The format and its version. ``older``: name a version before ``version`` as one
    gin no longer reads (hand records, which had three); otherwise expect ``version``."""
    if r.get("format") != format:
        r.fail(r.at("format"), f"expected {format!r}")
    if older:
        given = r.integer("version", 1, version)
        if given < version:
            r.fail(r.at("version"), f"{given} is an older format that gin no longer reads "
                   f"(this gin reads version {version})")
    elif r.integer("version", 0, 1 << 16) != version:
        r.fail(r.at("version"), f"expected {version}")


def read_seats(r: Reader) -> None:
    if r.get("seats") != list(SEATS):
        r.fail(r.at("seats"), f"expected {list(SEATS)}")


Pairs = tuple[Reader, Reader, Reader]


def open_envelope(r: Reader, format: str, version: int, fields: Sequence[str]) -> Pairs:
    """Reads the top object ``r`` of deal evidence or an abandonment record: exactly
    ``fields``, ``format`` at ``version``, the seats; then opens the signing keys,
    identities and vouches, each an object of host and guest, whose values
    :func:`read_binding` reads after the format's own objects."""
    r.only(fields)
    read_head(r, format, version)
    read_seats(r)
    keys, ids, vouches = (r.child(name).only(SEATS) for name in PAIRS)
    return keys, ids, vouches


def read_binding(r: Reader, pairs: Pairs) -> Binding:
    """The link, signing keys, identities, vouches and previous match, read in that
    order (``pairs``: :func:`open_envelope`)."""
    keys, ids, vouches = pairs
    return Binding(link_id=r.hex("link", LINK_ID_BYTES), signing_keys=keys.pair(KEY_BYTES),
                   identities=ids.pair(KEY_BYTES), vouches=vouches.pair(SIGNATURE_BYTES),
                   previous=r.hex_or_none("previous", MATCH_ID_BYTES))
