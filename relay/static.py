"""The browser board's files, served by the relay from an allow-list.

``npm run build`` in client/web (run by the install, see setup.py) writes the board
to client/web/dist. The relay serves exactly the files named in :data:`FILES`,
read once when it starts, each with its own explicit type, ``nosniff`` and a
strict Content-Security-Policy (no inline script or style). The page asks for its
assets by relative URLs, so a relay behind a path prefix serves it unchanged; an
invite link (``/j/ROOM``) opens the same page, so its assets are served under
``/j/`` too (``/j/board.js`` is ``/board.js``: no room id is that short). The
relay only reads these bytes: it never imports the game.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Response

__all__ = ["BOARD_DIR", "CSP", "FILES", "Board", "load_board"]

#: Where the build puts the board: client/web/dist beside this package (true in a
#: source tree, an editable install and a wheel alike).
BOARD_DIR = Path(__file__).resolve().parent.parent / "client" / "web" / "dist"

#: The served files and their types; nothing else in the folder is ever read.
FILES: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "board.js": "text/javascript; charset=utf-8",
    "board.css": "text/css; charset=utf-8",
    # The online peer's Web Worker: the fair deal's crypto off the page's thread.
    "worker.js": "text/javascript; charset=utf-8",
}

#: ``connect-src 'self'`` covers the relay's own ws:/wss: origin (CSP level 3; checked
#: in Chromium by tests/web/test_online_e2e.py), ``worker-src 'self'`` the worker.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "worker-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Board:
    """The built files in memory, by URL path (``/`` is ``index.html``)."""

    files: dict[str, tuple[bytes, str]]

    @property
    def built(self) -> bool:
        return "/" in self.files

    def digests(self) -> dict[str, str] | None:
        """The SHA-256 of each served file by name (None when nothing is built)."""
        found = {path[1:]: hashlib.sha256(body).hexdigest()
                 for path, (body, _) in self.files.items() if path != "/"}
        return found or None

    def version(self) -> bytes:
        """``/version``: the SHA-256 of each served file, so anyone can check that the
        code a browser runs is the code they expect (null when nothing is built)."""
        return json.dumps({"board": self.digests()}, sort_keys=True).encode() + b"\n"

    def response(self, path: str) -> Response | None:
        """The response for a GET of ``path``, or None when it is not a board file.
        ``/j/NAME`` is the file NAME: the invite page's relative URLs land there."""
        if path == "/version":
            found: tuple[bytes, str] | None = (self.version(), "application/json")
        else:
            name = path[3:] if path.startswith("/j/") else path[1:] or "index.html"
            found = self.files.get("/" + name) if name in FILES else None
        if found is None:
            return None
        return self._ok(*found)

    def invite(self) -> Response | None:
        """The board for an invite link (``/j/ROOM``): it opens in join mode."""
        return self._ok(*self.files["/"]) if self.built else None

    @staticmethod
    def _ok(body: bytes, content_type: str) -> Response:
        headers = Headers(
            [
                ("Content-Type", content_type),
                ("Content-Length", str(len(body))),
                # Small files: the browser asks again each time rather than run a stale
                # board against a newer relay.
                ("Cache-Control", "no-cache"),
                ("Content-Security-Policy", CSP),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                ("Connection", "close"),
            ]
        )
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)


def load_board(directory: Path | None = None) -> Board:
    """Read the allow-listed files from ``directory`` (default :data:`BOARD_DIR`).

    A board that was never built (no ``index.html``) serves nothing, and the relay
    keeps its own home page at ``/``.
    """
    folder = BOARD_DIR if directory is None else directory
    files: dict[str, tuple[bytes, str]] = {}
    for name, content_type in FILES.items():
        try:
            body = (folder / name).read_bytes()
        except OSError:
            continue
        files["/" + name] = (body, content_type)
    if "/index.html" in files:
        files["/"] = files["/index.html"]
    else:
        files.clear()
    return Board(files)
