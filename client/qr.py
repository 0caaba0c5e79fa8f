"""The invite link as a QR code drawn with text, for a phone camera: on the table's
invite screen and, for ``gin host --bot``, on standard error.

segno's compact terminal output shares one line of half blocks between two rows
of modules. It draws the light modules (and the quiet zone) and leaves the dark
ones blank, as ``qrencode -t UTF8`` does: on the usual light-on-dark terminal that
gives dark modules on a light square.
"""

from __future__ import annotations

import io

import segno

QUIET_ZONE = 2  # modules of light border; scanners want some, the screen is small


def qr_lines(text: str) -> list[str]:
    """``text`` as a QR code (low error correction: the smallest code), one string a line."""
    out = io.StringIO()
    segno.make(text, error="l", micro=False).terminal(out, border=QUIET_ZONE, compact=True)
    return out.getvalue().splitlines()
