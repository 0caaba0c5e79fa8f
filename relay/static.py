"""The browser board's files, served by the relay from an allow-list.

``npm run build`` in client/web (run by the install, see setup.py) writes the board
to client/web/dist. The relay serves exactly the files named in :data:`FILES`,
read once when it starts, each with its own explicit type, ``nosniff`` and a
strict Content-Security-Policy (no inline script or style; a page whose address names
another relay, ``?relay=URL``, may connect to that relay too: :func:`page_csp`; the
worker alone may compile WebAssembly: :data:`WORKER_CSP`). The
same files make a static site (``gin web --export``). The page asks for its
assets by relative URLs, so a relay behind a path prefix serves it unchanged; an
invite link (``/j/ROOM``) opens the same page, so its assets are served under
``/j/`` too (``/j/board.js`` is ``/board.js``: no room id is that short). The
relay only reads these bytes: it never imports the game.

Each file is also gzipped once, the first time a browser that accepts gzip asks for
it, and kept (Python's own gzip, level 9, no time stamp: the same bytes every time;
no brotli, which would be a new dependency, nor a build step that writes a second
copy of each file; not at start, which would delay the relay's port opening by
the 20 ms it takes). A browser that accepts gzip gets it (``Content-Encoding:
gzip``), anyone else the file itself; both carry ``Vary: Accept-Encoding``.
``/version`` gives the SHA-256 of the files themselves, as built, whichever encoding
they travel in.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Response

__all__ = ["BOARD_DIR", "CSP", "FILES", "WORKER_CSP", "Board", "load_board", "page_csp"]

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

#: The worker's own policy (a dedicated worker follows its script's, not its page's):
#: it may also compile WebAssembly, libsodium's, for the fair deal's multiplications.
#: The page may not.
WORKER_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")


def page_csp(query: str) -> str:
    """The policy of the page at an address with ``query``: :data:`CSP`, and where the
    address names another relay (``?relay=URL``, a board playing there), that relay's
    http and websocket origins too, and nothing else."""
    relay = next((value for name, value in parse_qsl(query) if name == "relay"), None)
    if relay is None:
        return CSP
    try:
        parts = urlsplit(relay)
        port = parts.port
    except ValueError:
        return CSP
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return CSP  # the page refuses such an address itself
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    ws = "wss" if parts.scheme == "https" else "ws"
    return CSP.replace("connect-src 'self'",
                       f"connect-src 'self' {parts.scheme}://{netloc} {ws}://{netloc}")


def compressed(body: bytes) -> bytes:
    """``body`` gzipped as the relay serves it (the same bytes every time)."""
    return gzip.compress(body, compresslevel=9, mtime=0)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether a request's Accept-Encoding allows gzip (RFC 9110 12.5.3): ``gzip`` or
    ``*`` with a weight above 0, and gzip not refused by name."""
    weights: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        coding, _, params = item.partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if coding.strip():
            weights[coding.strip()] = weight
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


@dataclass(frozen=True)
class Board:
    """The built files in memory, by URL path (``/`` is ``index.html``), and each one
    gzipped once it was first asked for that way (None where gzip is no smaller)."""

    files: dict[str, tuple[bytes, str]]
    gzipped: dict[str, bytes | None] = field(default_factory=dict)

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

    def response(self, path: str, accept_encoding: str = "", query: str = "") -> Response | None:
        """The response for a GET of ``path``, or None when it is not a board file.
        ``/j/NAME`` is the file NAME: the invite page's relative URLs land there.
        ``accept_encoding``: the request's header, for a gzipped file; ``query``: the
        address's query, whose ``relay=`` the page's policy lets it reach."""
        if path == "/version":
            # Anyone may read the digests, from a page of any site too.
            return self._ok(self.version(), "application/json",
                            ("Access-Control-Allow-Origin", "*"))
        name = path[3:] if path.startswith("/j/") else path[1:] or "index.html"
        if name not in FILES or "/" + name not in self.files:
            return None
        return self._file("/" + name, accept_encoding,
                          WORKER_CSP if name == "worker.js" else page_csp(query))

    def invite(self, accept_encoding: str = "") -> Response | None:
        """The board for an invite link (``/j/ROOM``): it opens in join mode."""
        return self._file("/", accept_encoding) if self.built else None

    def _file(self, path: str, accept_encoding: str, csp: str = CSP) -> Response:
        body, content_type = self.files[path]
        if accepts_gzip(accept_encoding):
            if path not in self.gzipped:
                packed = compressed(body)
                self.gzipped[path] = packed if len(packed) < len(body) else None
            packed_body = self.gzipped[path]
            if packed_body is not None:
                return self._ok(packed_body, content_type, ("Content-Encoding", "gzip"),
                                ("Vary", "Accept-Encoding"), csp=csp)
        return self._ok(body, content_type, ("Vary", "Accept-Encoding"), csp=csp)

    @staticmethod
    def _ok(body: bytes, content_type: str, *extra: tuple[str, str], csp: str = CSP) -> Response:
        headers = Headers(
            [
                ("Content-Type", content_type),
                ("Content-Length", str(len(body))),
                *extra,
                # Small files: the browser asks again each time rather than run a stale
                # board against a newer relay.
                ("Cache-Control", "no-cache"),
                ("Content-Security-Policy", csp),
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
