"""The invite link as a QR code drawn with text, for a phone camera.

Two rows of modules share one line of half blocks. Light modules (and the quiet
zone) are drawn, dark ones left blank, as ``qrencode -t UTF8`` does: on the usual
light-on-dark terminal that gives dark modules on a light square.
"""

from __future__ import annotations

import segno

QUIET_ZONE = 2  # modules of light border; scanners want some, the screen is small

# Index: (top module light, bottom module light).
_HALF_BLOCKS = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}


def qr_lines(text: str) -> list[str]:
    """``text`` as a QR code (low error correction: the smallest code), one string a line."""
    matrix = segno.make(text, error="l", micro=False).matrix
    size = len(matrix) + 2 * QUIET_ZONE

    def light(row: int, col: int) -> bool:
        r, c = row - QUIET_ZONE, col - QUIET_ZONE
        inside = 0 <= r < len(matrix) and 0 <= c < len(matrix)
        return not (inside and matrix[r][c])

    rows = range(0, size + size % 2, 2)
    return ["".join(_HALF_BLOCKS[light(r, c), r + 1 < size and light(r + 1, c)]
                    for c in range(size)) for r in rows]
