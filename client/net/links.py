"""Invite links: ``http[s]://RELAY[:PORT][/PREFIX]/j/ROOM#SECRET``, which opens the
board the relay serves, or ``http[s]://BOARD?relay=RELAY&room=ROOM#SECRET``, which
opens the board at BOARD (a static site, a player's own ``gin web``: any origin) on the
relay RELAY (issue 27; the twin of client/web/src/online/links.ts).

The fragment (after ``#``) is a 256-bit secret in url-safe base64 without
padding. Browsers never send a fragment to a server, and neither does this
client: the WebSocket URL is built from the rest only. http maps to ws and https
to wss, so a relay behind a TLS proxy needs no special link. A relay address typed
without a scheme is read as http for an IP address, localhost or HOST:PORT, and as
https for a bare name (:func:`bare_scheme`).
"""

from __future__ import annotations

import base64
import ipaddress
import os
import re
import secrets
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import parse_qs, quote, urlsplit

from relay.roomid import ROOM_ID_LENGTH, ROOM_ID_PATTERN

SECRET_BYTES = 32
SECRET_LENGTH = 43  # base64 of 32 bytes without its one "=" of padding
LINK_ENV = "GIN_LINK"
#: The board a host's links open, as ``--board`` sets it.
BOARD_ENV = "GIN_BOARD"

_WS_SCHEME = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
_HTTP_SCHEME = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
_SECRET_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{SECRET_LENGTH}}}")


class InvalidLinkError(ValueError):
    """A link or relay address that cannot be used; the message says what is wrong."""


def new_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def encode_secret(secret: bytes) -> str:
    if len(secret) != SECRET_BYTES:
        raise ValueError(f"secret must be {SECRET_BYTES} bytes, got {len(secret)}")
    return base64.urlsafe_b64encode(secret).rstrip(b"=").decode("ascii")


def decode_secret(text: str) -> bytes:
    if not _SECRET_PATTERN.fullmatch(text):
        raise InvalidLinkError(
            f"the secret after '#' must be {SECRET_LENGTH} url-safe base64 characters, "
            f"got {len(text)} characters; was the link cut short?"
        )
    # 43 characters from the url-safe alphabet always decode to 32 bytes.
    secret = base64.urlsafe_b64decode(text + "=")
    # Reject non-canonical spellings (stray low bits in the last character), so
    # one secret has exactly one link.
    if encode_secret(secret) != text:
        raise InvalidLinkError("the secret after '#' is not canonical base64; was it altered?")
    return secret


@dataclass(frozen=True)
class RelayAddress:
    """Where a relay is: scheme (http or https), host, optional port and path prefix."""

    scheme: str
    host: str
    port: int | None = None
    prefix: str = ""  # e.g. "/gin" for a relay proxied under https://example.org/gin/

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"

    @property
    def http_url(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.prefix}"

    @property
    def ws_url(self) -> str:
        return f"{_WS_SCHEME[self.scheme]}://{self.netloc}{self.prefix}"


def reach(relay: RelayAddress) -> str | None:
    """Who can open a link to ``relay``: "computer" for a loopback address (only this
    computer), "network" for a private or link-local one or a local name (only this
    local network), None for anyone who can reach the address."""
    host = relay.host.lower()
    if host == "localhost" or host.endswith(".localhost"):
        return "computer"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        local = "." not in host or host.endswith((".local", ".lan", ".home.arpa"))
        return "network" if local else None
    if ip.is_loopback:
        return "computer"
    return "network" if ip.is_private or ip.is_link_local else None


@dataclass(frozen=True)
class Invite:
    relay: RelayAddress
    room: str
    secret: bytes
    # The board the link opens (a page's address), or None for the relay's own page.
    board: str | None = None

    @property
    def url(self) -> str:
        """The link to give a friend."""
        secret = encode_secret(self.secret)
        if self.board is not None:
            relay = quote(self.relay.http_url, safe=":/")
            return f"{self.board}?relay={relay}&room={self.room}#{secret}"
        return f"{self.relay.http_url}/j/{self.room}#{secret}"

    @property
    def websocket_url(self) -> str:
        """The room's WebSocket URL: never carries the secret."""
        return f"{self.relay.ws_url}/j/{self.room}"


def _redacted(text: str) -> str:
    # Error messages end up on screens and in bug reports: never echo the secret.
    head, sep, _ = text.partition("#")
    return repr(head + ("#…" if sep else ""))


def joined_lines(text: str) -> str:
    """``text`` with its line breaks taken out, and the spaces around them: a link
    copied from a window too narrow for it comes in several lines."""
    return _LINE_BREAKS.sub("", text.strip())


_LINE_BREAKS = re.compile(r"[ \t]*[\r\n]+\s*")


def _split(text: str, what: str, query: bool = False) -> tuple[str, str, int | None, str, str, str]:
    text = joined_lines(text).strip("<>").strip()
    if not text:
        raise InvalidLinkError(f"the {what} is empty")
    shown = _redacted(text)
    if any(ch.isspace() for ch in text):
        raise InvalidLinkError(f"the {what} contains spaces or line breaks: {shown}")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidLinkError(f"the {what} is not a valid URL ({exc}): {shown}") from None
    scheme = parts.scheme.lower()
    if scheme not in _HTTP_SCHEME:
        raise InvalidLinkError(f"the {what} must start with http:// or https://, got {shown}")
    if not parts.hostname:
        raise InvalidLinkError(f"the {what} names no relay host: {shown}")
    if parts.username is not None or parts.password is not None:
        raise InvalidLinkError(f"the {what} must not contain a user name or password")
    if parts.query and not query:
        raise InvalidLinkError(f"the {what} must not contain a query ('?{parts.query}')")
    return scheme, parts.hostname, port, parts.path, parts.fragment, shown


def parse_relay(text: str) -> RelayAddress:
    """Parse a relay address such as ``https://relay.example.org`` or ``ws://host:8765``.

    An address without a scheme is taken as a person means it (see :func:`bare_scheme`):
    ``127.0.0.1:8765`` as ``http://127.0.0.1:8765``, ``relay.example.org`` as
    ``https://relay.example.org``.
    """
    text = text.strip().strip("<>").strip()
    if text and "://" not in text:
        text = f"{bare_scheme(text)}://{text}"
    scheme, host, port, path, fragment, _ = _split(text, "relay address")
    if fragment:
        raise InvalidLinkError("a relay address has no '#' part; did you paste an invite link?")
    return RelayAddress(_HTTP_SCHEME[scheme], host, port, path.rstrip("/"))


def parse_board(text: str) -> str:
    """A board's address for links (``--board``): http or https, no user name, query or
    fragment. A bare host gets its "/", against which the page finds its files."""
    scheme, host, port, path, fragment, shown = _split(text, "board address")
    if scheme not in ("http", "https"):
        raise InvalidLinkError(f"a board's address starts with http:// or https://, got {shown}")
    if fragment:
        raise InvalidLinkError(f"a board's address has no '#' part: {shown}")
    netloc = RelayAddress(scheme, host, port).netloc
    return f"{scheme}://{netloc}{path or '/'}"


def page_words(invite: Invite, here: bool) -> str:
    """Where the friend's page comes from, told beside the link (``here``: the relay
    runs inside this gin): whoever serves it could read the friend's hand."""
    if invite.board is not None:
        host = urlsplit(invite.board).netloc
        return (f"Your friend's page comes from {host}, the board the link names; the relay "
                "only passes sealed messages.")
    where = ("this computer (gin's own relay)" if here
             else f"the relay at {invite.relay.netloc} (or a board its operator sends links to)")
    return (f"Your friend's page comes from {where}, which could read their hand: "
            f"--board URL (or {BOARD_ENV}) sends them to a board neither of you runs.")


#: How a relay address without http:// or https:// is read, in the commands' help.
BARE_RELAY_HELP = ("an address without http:// or https:// is taken as http:// when it is "
                   "an IP address, localhost or has a port (127.0.0.1:8765), else as "
                   "https:// (relay.example.org)")


def bare_scheme(text: str) -> str:
    """The scheme a relay address written without one means: http for an IP address,
    localhost or an address with a port (a relay run by hand, without TLS, on a LAN),
    https for a bare name (a public relay behind TLS on the usual port)."""
    try:
        parts = urlsplit(f"//{text}")
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return "http"  # the full parse says what is wrong with it
    if port == 443:
        return "https"
    if port is not None or host == "localhost" or host.endswith(".localhost"):
        return "http"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return "https"
    return "http"


def parse_invite(text: str) -> Invite:
    """Parse an invite link of either form; raises InvalidLinkError naming what is wrong.
    A board's link keeps its board (``Invite.board``); its other parameters (``?bot=``,
    which only a page reads) are passed over."""
    scheme, host, port, path, fragment, shown = _split(text, "invite link", query=True)
    if scheme not in ("http", "https"):
        raise InvalidLinkError(f"an invite link starts with http:// or https://, got {shown}")
    query = parse_qs(urlsplit(joined_lines(text).strip("<>").strip()).query)
    board = None
    if "relay" in query:
        if "://" not in query["relay"][0]:
            raise InvalidLinkError("the relay after relay= must start with http:// or https://")
        relay = parse_relay(query["relay"][0])
        room = query.get("room", [""])[0]
        netloc = f"[{host}]" if ":" in host else host
        board = f"{scheme}://{netloc if port is None else f'{netloc}:{port}'}{path or '/'}"
        where = "room="
    else:
        if query or "?" in text.partition("#")[0]:
            raise InvalidLinkError(f"the invite link must not contain a query after /j/ROOM "
                                   f"(only a board's link names ?relay=…&room=…): {shown}")
        prefix, sep, room = path.rpartition("/j/")
        if not sep:
            raise InvalidLinkError(
                f"an invite link's path ends in /j/ROOM, or it names ?relay=…&room=…; "
                f"got {path or '/'!r}")
        relay = RelayAddress(scheme, host, port, prefix)
        where = "/j/"
    if not ROOM_ID_PATTERN.fullmatch(room):
        raise InvalidLinkError(
            f"the room id after {where} must be {ROOM_ID_LENGTH} url-safe base64 characters, "
            f"got {room!r}"
        )
    if not fragment:
        raise InvalidLinkError(
            "the invite link has no secret after '#'; copy the whole link, including "
            "the part after '#'"
        )
    return Invite(relay, room, decode_secret(fragment), board)


def _whole(text: str) -> bool:
    """Whether ``text`` runs to the end of a secret (it may still be wrong)."""
    return len(text.partition("#")[2]) >= SECRET_LENGTH


def read_link(
    argument: str | None,
    environ: Mapping[str, str] | None = None,
    stdin: TextIO | None = None,
    prompt: TextIO | None = None,
) -> str:
    """The link from the argument, else ``GIN_LINK``, else one line of standard input.

    ``-`` as the argument means standard input explicitly. The last two ways keep
    the secret out of shell history and process listings. When standard input is
    a terminal, a person is asked for the link on ``prompt`` (e.g. standard error).
    """
    if argument is not None and argument != "-":
        return argument
    env = os.environ if environ is None else environ
    if argument is None and env.get(LINK_ENV, "").strip():
        return env[LINK_ENV]
    stream = sys.stdin if stdin is None else stdin
    if stream is not None and prompt is not None and stream.isatty():
        prompt.write("Paste the invite link your friend sent you, then press Enter:\n> ")
        prompt.flush()
    # sys.stdin is None when the process was started without one.
    line = stream.readline().strip() if stream is not None else ""
    while stream is not None and stream.isatty() and line and not _whole(line):
        # A link copied from a narrow window comes in several lines: read on until it
        # is whole, or an empty line.
        more = stream.readline().strip()
        if not more:
            break
        line += more
    if not line:
        raise InvalidLinkError(
            f"no invite link: give it as an argument, set {LINK_ENV}, or paste it on standard input"
        )
    return line
