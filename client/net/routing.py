"""How a seat reaches the relay its room is on, behind a balancer of relays that
share a key (docs/running-a-relay.md, "Several relays").

A plain ``GET /new?token=T`` answers a room id and the host's seat ticket, made from
the relay's key alone; the host then takes seat 0 at ``/j/ROOM`` like any seat, so it
meets its guest on whichever relay the room is routed to. When that route changes
under a connected seat (a relay added, or back after a failure), the two could wait
on different relays: a :class:`PeerWatch` says when to reconnect and be routed
afresh. Also: why a relay could not be reached, in words."""

from __future__ import annotations

import asyncio
import http.client
import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable

from client.net.links import RelayAddress
from client.net.relay_events import TransportError
from relay.roomid import ROOM_ID_PATTERN, TICKET_PATTERN
from relay.wire import FINAL_CLOSE_CODES, NEW_ROOM_FIELDS, Control

__all__ = ["PeerWatch", "create_room", "unreachable"]

MAX_ANSWER = 4096  # bytes of an answer read: a room is ~100


async def create_room(address: RelayAddress, token: str, timeout: float) -> tuple[str, str] | None:
    """The room id and seat-0 ticket the relay at ``address`` issues for ``token``.

    None from a relay older than the plain ``GET /new`` (it answers 404, or 426 where
    ``/new`` is a WebSocket-only route): such a relay makes a room on a WebSocket to
    ``/new`` instead. Raises TransportError,
    ``permanent`` when asking again cannot help.
    """
    url = f"{address.http_url}/new?token={token}"
    try:
        status, body = await asyncio.to_thread(_get, url, timeout)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        why = unreachable(cause if isinstance(cause, BaseException) else exc,
                          address.scheme == "https")
        raise TransportError(f"cannot reach relay: {why}") from None
    if status in (404, 426):
        return None
    text = body.decode("utf-8", "replace").strip()
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if status == 200:
        if (isinstance(answer, dict) and all(name in answer for name in NEW_ROOM_FIELDS)
                and isinstance(answer["room"], str) and ROOM_ID_PATTERN.fullmatch(answer["room"])
                and answer["seat"] == 0 and isinstance(answer["ticket"], str)
                and TICKET_PATTERN.fullmatch(answer["ticket"])):
            return answer["room"], answer["ticket"]
        raise TransportError(
            f"the relay's answer to a new room is not a gin relay's: {text[:80]!r}",
            permanent=True)
    if (isinstance(answer, dict) and answer.get("type") == Control.ERROR
            and isinstance(code := answer.get("code"), int)):
        reason = str(answer.get("reason") or "refused")
        raise TransportError(f"relay refused a new room: {reason} (code {code})", code=code,
                             permanent=code in FINAL_CLOSE_CODES)
    # 5xx and 429 come from an overloaded or restarting relay or proxy.
    retry = status >= 500 or status in (408, 429)
    raise TransportError(f"relay answered HTTP {status}{': ' + text[:200] if text else ''}",
                         permanent=not retry)


class PeerWatch:
    """While the other seat is away (or not yet come), when to go and look for it:
    after ``after`` seconds, then twice as long each time (up to 8 times) until it is
    back. ``after`` None: never."""

    def __init__(self, after: float | None) -> None:
        self.after = after
        self.rounds = 0  # looks in a row
        self._news = asyncio.Event()

    def told(self, there: bool) -> None:
        """The relay told of the other seat (a welcome, or a peer_* message)."""
        if there:
            self.rounds = 0
        self._news.set()

    async def alone(self, there: Callable[[], bool]) -> None:
        """Return once the other seat has stayed away for this round's wait."""
        if self.after is None:
            await asyncio.Future()  # never
        assert self.after is not None
        while True:
            self._news.clear()
            if there():
                await self._news.wait()
                continue
            try:
                async with asyncio.timeout(self.after * 2 ** min(self.rounds, 3)):
                    await self._news.wait()
            except TimeoutError:
                self.rounds += 1
                return


def _get(url: str, timeout: float) -> tuple[int, bytes]:
    """The status and (start of the) body of a GET; raises OSError when unreachable."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), bytes(response.read(MAX_ANSWER))
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, bytes(exc.read(MAX_ANSWER))


def unreachable(exc: BaseException, tls: bool) -> str:
    """Why a connection failed, in words (some OSErrors have an empty ``str``)."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (nothing listens at that address and port)"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    dropped = isinstance(exc, ConnectionResetError | ConnectionAbortedError | EOFError)
    why = "the relay closed the connection" if dropped else (
        str(exc) or getattr(exc, "strerror", None) or type(exc).__name__)
    if tls and (dropped or (isinstance(exc, ssl.SSLError)
                            and not isinstance(exc, ssl.SSLCertVerificationError))):
        # What a relay without TLS does to an https client's handshake.
        why += (" while starting an encrypted (https) connection; if the relay does not "
                "serve https, use the link with http:// instead")
    return why
