"""The strict reading of a JSON value shared by the files ``gin audit`` reads beside hand
records (deal evidence, abandonment records): every failure is a MalformedInput naming
the file's kind and the JSON path of what is wrong. Pure."""

from __future__ import annotations

import re
from typing import NoReturn

from gin.engine.errors import MalformedInput

_HEX = re.compile("[0-9a-fA-F]*")


class StrictJson:
    """Readers of one kind of file: ``what`` heads every error ("deal evidence")."""

    def __init__(self, what: str) -> None:
        self.what = what

    def fail(self, path: str, why: str) -> NoReturn:
        raise MalformedInput(f"{self.what}: {path}: {why}")

    def fields(self, value: object, path: str, names: tuple[str, ...]) -> dict[str, object]:
        """A JSON object with exactly the fields ``names``."""
        if not isinstance(value, dict):
            self.fail(path, "expected an object")
        for key in value:
            if key not in names:
                self.fail(f"{path}.{key}", "unexpected field")
        for key in names:
            if key not in value:
                self.fail(f"{path}.{key}", "missing")
        return value

    def hex(self, value: object, path: str, size: int) -> bytes:
        """``size`` bytes as hex digits (either case)."""
        if not isinstance(value, str) or len(value) != 2 * size or not _HEX.fullmatch(value):
            self.fail(path, f"expected {2 * size} hex digits")
        return bytes.fromhex(value)

    def integer(self, value: object, path: str, high: int) -> int:
        """A whole number 0..``high`` (not a boolean, not a float)."""
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            self.fail(path, f"expected an integer 0..{high}")
        return value
