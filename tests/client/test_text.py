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
