"""JSON text read strictly, for the files ``gin audit`` reads (hand records, deal evidence,
abandonment records): an object that repeats a key is refused, and a refusal is worded
word for word as the board's reader (client/web/src/protocol/records/strict_json.ts) words
it. Their fields are read by :class:`gin.protocol.records.envelope.Reader`. Pure."""

from __future__ import annotations

import json
import re
from typing import NoReturn

from gin.engine.errors import MalformedInput

#: Deeper nesting is refused as strict_json.ts refuses it (the record readers refuse nesting
#: deeper than their own limit before they read).
MAX_DEPTH = 512


class JsonSyntaxError(MalformedInput):
    """Text that is not JSON, or an object that repeats a key; the message says what
    and at which character (counted in code points), word for word as strict_json.ts."""


#: Integer literals longer than this are refused (Python's ``sys.get_int_max_str_digits``).
MAX_INT_DIGITS = 4300
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SPACE = re.compile(r"[ \t\n\r]*")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t"}
_LITERALS = (("null", None), ("true", True), ("false", False), ("NaN", float("nan")),
             ("Infinity", float("inf")), ("-Infinity", float("-inf")))


def _no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key repeats")  # reworded with its place by _why
    return out


def loads(text: str, *, repeats: bool = False) -> object:
    """``text`` as JSON, refusing an object that repeats a key (Python's json keeps the
    last, so a record could say two things); JsonSyntaxError with strict_json.ts's words and
    place. Python's fast reader reads; :func:`_why` words a refusal. ``repeats``: keep
    the last value of a repeated key instead (only to tell which kind of file a text
    is, whose own reader then refuses it)."""
    try:
        return json.loads(text, object_pairs_hook=None if repeats else _no_repeats)
    except (ValueError, RecursionError) as exc:
        raise JsonSyntaxError(_why(text) or str(exc)) from None


def _why(text: str) -> str | None:
    """What strict_json.ts says of ``text`` (the twin of its reader, run only on a refusal),
    or None if it would read it."""
    at = 0

    class _Stop(Exception):
        pass

    def fail(why: str) -> NoReturn:
        raise _Stop(f"{why} (char {at})")

    def space() -> None:
        nonlocal at
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]

    def string() -> str:
        nonlocal at
        at += 1
        out: list[str] = []
        while True:
            if at >= len(text):
                fail("unterminated string")
            ch = text[at]
            if ch == '"':
                at += 1
                return "".join(out)
            if ch < " ":
                fail("invalid control character")
            if ch != "\\":
                out.append(ch)
                at += 1
                continue
            esc = text[at + 1] if at + 1 < len(text) else ""
            if esc == "u":
                digits = text[at + 2:at + 6]
                if not re.fullmatch("[0-9a-fA-F]{4}", digits):
                    fail("invalid \\uXXXX escape")
                out.append(chr(int(digits, 16)))
                at += 6
            elif esc in _ESCAPES:
                out.append(_ESCAPES[esc])
                at += 2
            else:
                fail("invalid escape")

    def value(depth: int) -> object:
        nonlocal at
        if depth > MAX_DEPTH:
            fail(f"nested deeper than {MAX_DEPTH}")
        ch = text[at] if at < len(text) else ""
        if ch == '"':
            return string()
        if ch == "{":
            at += 1
            keys: set[str] = set()
            space()
            if text.startswith("}", at):
                at += 1
                return None
            while True:
                if not text.startswith('"', at):
                    fail("expecting a property name in double quotes")
                start = at
                key = string()
                if key in keys:
                    at = start
                    fail("a key repeats in its object")
                keys.add(key)
                space()
                if not text.startswith(":", at):
                    fail("expecting ':'")
                at += 1
                space()
                value(depth + 1)
                space()
                if text.startswith("}", at):
                    at += 1
                    return None
                if not text.startswith(",", at):
                    fail("expecting ',' or '}'")
                at += 1
                space()
        if ch == "[":
            at += 1
            space()
            if text.startswith("]", at):
                at += 1
                return None
            while True:
                value(depth + 1)
                space()
                if text.startswith("]", at):
                    at += 1
                    return None
                if not text.startswith(",", at):
                    fail("expecting ',' or ']'")
                at += 1
                space()
        for word, _ in _LITERALS:
            if text.startswith(word, at):
                at += len(word)
                return None
        number = _NUMBER.match(text, at)
        if number is None:
            fail("expecting a value")
        at = number.end()
        whole, fraction, exponent = number.group(0), number.group(1), number.group(2)
        if fraction is None and exponent is None and len(whole.lstrip("-")) > MAX_INT_DIGITS:
            fail(f"an integer of more than {MAX_INT_DIGITS} digits")
        return None

    try:
        space()
        value(0)
        space()
        if at != len(text):
            fail("extra data")
    except _Stop as stop:
        return str(stop)
    return None
