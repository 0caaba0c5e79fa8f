"""Text from the network or a file is printed without control or format characters."""

import pytest

from client.text import plain


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[2J\x1b]0;owned\x07standard", "[2J]0;ownedstandard"),  # ESC and BEL go
    ("at fault: \x9b31mhost", "at fault: 31mhost"),  # the one-byte CSI of C1
    ("verified\u202e deifirev", "verified deifirev"),  # a right-to-left override
    ("zero\u200bwidth\x7f", "zerowidth"),  # invisible characters and DEL
    ("line\nbreak\r", "linebreak"),
    ("Dame de ♥ — é", "Dame de ♥ — é"),  # everything printable stays
])
def test_plain_removes_control_and_format_characters(text: str, shown: str) -> None:
    assert plain(text) == shown


def test_lines_keeps_newlines_only() -> None:
    assert plain("a\nb\r\n\tc", lines=True) == "a\nb\nc"


# The same characters as client/web/test/online_text.test.ts: the page removes them too.
_UNSAFE = [*range(0x20), 0x7f, *range(0x80, 0xa0), 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
           0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0x200c, 0x200d,
           0x2060, 0xfeff, 0x00ad, 0xfff9, 0xe0001, 0xd800, 0xdfff, 0x2028, 0x2029]


@pytest.mark.parametrize("code", _UNSAFE, ids=hex)
def test_every_bidi_control_mark_invisible_and_control_goes(code: int) -> None:
    assert plain(f"a{chr(code)}b") == "ab"


@pytest.mark.parametrize("kept", ["\u00a0", "\u2007", "\u05d0", "\u0645", "\U0001f600", "\u3000"])
def test_printable_and_separators_stay(kept: str) -> None:
    assert plain(f"a{kept}b") == f"a{kept}b"


def test_line_and_paragraph_separators_go_as_in_the_page() -> None:
    """Issue 26 item 6: U+2028 and U+2029 break a line where none shows."""
    assert plain("you\u2028lost\u2029 (at fault: host)") == "youlost (at fault: host)"
    assert plain("a\u2028b", lines=True) == "ab"
