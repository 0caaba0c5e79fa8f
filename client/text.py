"""Text from the network, a record or a file, made safe to print on a terminal.

A peer's abort reason, a ruleset's name or a record's contents could carry
terminal escapes (clearing the screen, retitling the window, faking a verdict)
or invisible characters (bidirectional overrides that reorder what is shown).
:func:`plain` removes every control and format character, and the line and paragraph
separators, before such text is printed; nothing else changes.
"""

from __future__ import annotations

import unicodedata

# Cc: C0/C1 controls and DEL (ESC starts every escape sequence); Cf: format
# characters such as the bidirectional overrides; Cs: lone surrogates; Zl, Zp: the
# line and paragraph separators (U+2028, U+2029), which break a line where none shows.
_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def plain(text: str, *, lines: bool = False) -> str:
    """``text`` without control or format characters; ``lines`` keeps newlines."""
    return "".join(c for c in text if unicodedata.category(c) not in _UNSAFE
                   or (lines and c == "\n"))
