"""An asyncio connection to a gin relay, independent of the game.

A ``RelayTransport`` holds one seat in one room. It sends opaque frames to the
other seat and yields, in order, the peer's frames and status events (see
:mod:`client.net.relay_events`). When its connection drops it reconnects by itself, with exponential
backoff and jitter, reclaiming the same seat with its token.

It never queues, repeats or reorders a frame: ``send`` while disconnected
returns False and sends nothing. Across a reconnect the relay may lose or
repeat frames that were in flight, so the layer above resends every
unacknowledged frame after ``Reconnected`` and after ``PeerJoined`` (whose
``returning`` is true when the peer reconnected), and ignores frames whose
sequence number it does not expect. docs/running-a-relay.md states the rules.

An outage ends in ``Closed`` when it lasts longer than ``give_up_after`` seconds
(a relay gone for good), or at once when the relay refuses the seat for good. A
taken seat (4409) is retried until then too: after a relay restart the seat's
holder proves its claim with the relay's seat ticket, kept in ``ticket``.

The host gets its room from a plain ``GET /new`` and takes seat 0 at ``/j/ROOM`` like
any seat; while the other seat stays away, the transport reconnects now and then
(``reroute_after``) in case a balancer now routes the room elsewhere (:mod:`client.net.routing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeGuard

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from client.net.links import RelayAddress, parse_relay
from client.net.relay_events import (
    UNREACHABLE,
    Closed,
    Connected,
    Event,
    Frame,
    PeerGone,
    PeerJoined,
    PeerLeft,
    Reconnected,
    Reconnecting,
    TransportClosedError,
    TransportError,
    WaitingForPeer,
)
from client.net.routing import PeerWatch, create_room, unreachable
from relay.roomid import TICKET_PATTERN
from relay.wire import FINAL_CLOSE_CODES, WELCOMES, Close, Control

#: Why the relay closed with Close.SUPERSEDED (4000): a newer connection took this seat
#: with this side's token, which only a copy of this side's saved match holds.
SUPERSEDED_REASON = "this match was opened elsewhere (another gin with the same save)"


def is_final(code: int | None) -> bool:
    return code in FINAL_CLOSE_CODES


# ----------------------------------------------------------------- settings


class ExponentialBackoff:
    """Delay before attempt n: min(maximum, initial * factor**(n-1)), half of it jittered."""

    def __init__(
        self,
        initial: float = 0.5,
        factor: float = 2.0,
        maximum: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        self.initial = initial
        self.factor = factor
        self.maximum = maximum
        self._rng = rng or random.Random()

    def __call__(self, attempt: int) -> float:
        base = min(self.maximum, self.initial * self.factor ** (attempt - 1))
        # "Equal jitter": spreads reconnect storms after a relay restart, yet
        # never retries sooner than half the nominal delay.
        return base / 2 + self._rng.random() * base / 2


@dataclass
class TransportSettings:
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    open_timeout: float = 10.0
    close_timeout: float = 5.0
    max_attempts: int | None = None  # per outage; None: no limit on the count
    # Seconds an outage may last before the transport gives up (None: never). Long
    # enough for a relay restart and a grace period, short enough that a relay gone
    # for good ends the match instead of retrying forever.
    give_up_after: float | None = 300.0
    clock: Callable[[], float] = time.monotonic  # measures give_up_after
    backoff: Callable[[int], float] = field(default_factory=ExponentialBackoff)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    inbox_limit: int = 256  # peer frames buffered before reading pauses
    # Pace sends below the relay's flood limit, so a burst (a fast bot, a resend after
    # reconnecting) is never cut off as a flood: the share below of the limit the
    # relay's welcome states, or these (under a default relay's 20 frames/s, bursts
    # of 100) when it states none. None: no pacing.
    send_rate: float | None = 15.0
    send_burst: float = 50.0
    # Seconds the other seat may be away before this side reconnects, to be routed
    # afresh by a balancer (then twice as long each time, up to 8x); None: never.
    reroute_after: float | None = 10.0


#: The share of a relay's stated rate and burst a client uses (room for timing jitter).
RATE_SHARE = 0.75
BURST_SHARE = 0.5


def pace_for(hello: Mapping[str, Any], settings: TransportSettings) -> tuple[float | None, float]:
    """The send rate and burst for a relay whose welcome is ``hello``: a share of the
    limits it states, else the settings' (no pacing stays no pacing)."""
    rate, burst = hello.get("rate"), hello.get("burst")
    if settings.send_rate is None or not _positive(rate) or not _positive(burst):
        return settings.send_rate, settings.send_burst
    return RATE_SHARE * float(rate), max(1.0, BURST_SHARE * float(burst))


def _positive(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e9


# -------------------------------------------------------------------- inbox


class _Inbox:
    """Events for the consumer. Frames wait for room; status events never block."""

    def __init__(self, limit: int) -> None:
        self._items: deque[Event] = deque()
        self._limit = limit
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()

    def force(self, item: Event) -> None:
        self._items.append(item)
        self._readable.set()
        if len(self._items) >= self._limit:
            self._writable.clear()

    async def put(self, item: Event) -> None:
        await self._writable.wait()
        self.force(item)

    async def get(self) -> Event:
        while not self._items:
            self._readable.clear()
            await self._readable.wait()
        item = self._items.popleft()
        if len(self._items) < self._limit:
            self._writable.set()
        return item


# ---------------------------------------------------------------- transport


class RelayTransport:
    """One seat in one relay room. Use ``host()`` or ``join()`` to get a started one."""

    def __init__(
        self,
        relay: str | RelayAddress,
        *,
        room: str | None = None,
        seat: int = 0,
        token: str | None = None,
        ticket: str | None = None,
        settings: TransportSettings | None = None,
    ) -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat}")
        if room is None and seat != 0:
            raise ValueError("only the host (seat 0) creates a room; give the room to join")
        address = relay if isinstance(relay, RelayAddress) else parse_relay(relay)
        self._address = address
        self._base = address.ws_url
        self._room = room
        self.seat = seat
        # The seat token proves, on reconnect, that this is the seat's owner.
        self.token = token or secrets.token_hex(16)
        # The relay's signed record of when this token took the seat: after a relay
        # restart it wins the seat back from anyone who claimed it since.
        self.ticket = ticket
        self.settings = settings or TransportSettings()
        self.max_frame: int | None = None  # the relay's limit, from its welcome
        self.peer = "unknown"  # "connected", "away", "absent" as last reported
        self._ws: ClientConnection | None = None
        self._inbox = _Inbox(self.settings.inbox_limit)
        self._task: asyncio.Task[None] | None = None
        self._closed: Closed | None = None
        self._yielded_closed = False
        self._send_rate, self._send_burst = self.settings.send_rate, self.settings.send_burst
        self._tokens = self._send_burst
        self._tokens_at: float | None = None
        self._watch = PeerWatch(self.settings.reroute_after)
        self._rerouting = False

    @classmethod
    async def host(
        cls, relay: str | RelayAddress, *, settings: TransportSettings | None = None
    ) -> RelayTransport:
        """Create a room and take seat 0; ``.room`` is set when this returns."""
        transport = cls(relay, seat=0, settings=settings)
        await transport.start()
        return transport

    @classmethod
    async def join(
        cls,
        relay: str | RelayAddress,
        room: str,
        *,
        seat: int = 1,
        token: str | None = None,
        ticket: str | None = None,
        settings: TransportSettings | None = None,
    ) -> RelayTransport:
        """Take ``seat`` (the guest's by default) in an existing room."""
        transport = cls(relay, room=room, seat=seat, token=token, ticket=ticket,
                        settings=settings)
        await transport.start()
        return transport

    @property
    def room(self) -> str:
        if self._room is None:
            raise RuntimeError("the room is not known until the transport has started")
        return self._room

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def closed(self) -> Closed | None:
        return self._closed

    # ---------------------------------------------------------- public calls

    async def start(self) -> None:
        """Make the first connection; raises TransportError if it fails."""
        if self._task is not None or self._closed is not None:
            raise RuntimeError("transport already started")
        if self._room is None:
            made = await create_room(self._address, self.token, self.settings.open_timeout)
            # None: a relay older than GET /new, which makes the room on a WebSocket /new.
            if made is not None:
                self._room, self.ticket = made
        ws, hello = await self._open()
        self._adopt(ws, hello, Connected(str(hello["room"]), self.seat))
        self._task = asyncio.create_task(self._run())
        self._task.add_done_callback(self._on_run_done)

    def _on_run_done(self, task: asyncio.Task[None]) -> None:
        # A bug below must end the event stream, not leave the consumer waiting.
        if not task.cancelled() and (exc := task.exception()) is not None:
            self._finish(None, f"transport failed: {exc!r}")

    async def send(self, data: bytes) -> bool:
        """Send one frame to the other seat.

        Returns False, sending nothing, while this side is disconnected; the
        layer above resends after ``Reconnected``. A frame may still be lost if
        the connection dies right after it was written.
        """
        if self._closed is not None:
            raise TransportClosedError(f"transport closed: {self._closed.reason}")
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"frames are bytes, not {type(data).__name__}")
        if self.max_frame is not None and len(data) > self.max_frame:
            raise ValueError(
                f"frame of {len(data)} bytes is over the relay's limit of {self.max_frame}"
            )
        if self._ws is None:
            return False
        await self._pace()
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(bytes(data))
        except ConnectionClosed:
            return False
        return True

    async def _pace(self) -> None:
        """Token bucket: wait until a send fits under the send rate (:func:`pace_for`)."""
        rate = self._send_rate
        if rate is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._tokens_at is not None:
            self._tokens = min(self._send_burst,
                               self._tokens + (now - self._tokens_at) * rate)
        self._tokens_at = now
        if self._tokens < 1:
            await self.settings.sleep((1 - self._tokens) / rate)
            self._tokens, self._tokens_at = 1.0, loop.time()
        self._tokens -= 1

    async def close(self) -> None:
        """Leave the room for good; the last event is then ``Closed(1000, ...)``."""
        if self._closed is not None:
            return
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close(Close.LEFT, "player left")
        self._finish(Close.LEFT, "closed by this side")

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        if self._yielded_closed:
            raise StopAsyncIteration
        item = await self._inbox.get()
        if isinstance(item, Closed):
            self._yielded_closed = True
        return item

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -------------------------------------------------------------- internals

    def _url(self) -> str:
        if self._room is None:
            return f"{self._base}/new?token={self.token}"
        url = f"{self._base}/j/{self._room}?seat={self.seat}&token={self.token}"
        return url if self.ticket is None else f"{url}&ticket={self.ticket}"

    async def _open(self) -> tuple[ClientConnection, dict[str, Any]]:
        """Connect and read the relay's welcome; raises TransportError."""
        s = self.settings
        try:
            ws = await connect(
                self._url(),
                compression=None,
                open_timeout=s.open_timeout,
                ping_interval=s.ping_interval,
                ping_timeout=s.ping_timeout,
                close_timeout=s.close_timeout,
                max_size=2**22,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            body = bytes(exc.response.body).decode("utf-8", "replace").strip()[:200]
            # 5xx and 429 come from an overloaded or restarting relay or proxy.
            retry = status >= 500 or status in (408, 429)
            raise TransportError(
                f"relay answered HTTP {status}{': ' + body if body else ''}",
                permanent=not retry,
            ) from None
        except InvalidURI as exc:
            raise TransportError(f"bad relay address: {exc}", permanent=True) from None
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            raise TransportError(
                f"{UNREACHABLE}: {unreachable(exc, self._base.startswith('wss:'))}"
            ) from None
        try:
            async with asyncio.timeout(s.open_timeout):
                hello = _decode_control(await ws.recv())
                if hello.get("type") == Control.ERROR:
                    await ws.wait_closed()
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else 1006
            reason = exc.rcvd.reason if exc.rcvd is not None else "connection lost"
            raise TransportError(
                refusal_words(code, reason, self.seat, "relay closed the connection"),
                code=code,
                permanent=is_final(code),
            ) from None
        except TimeoutError:
            await ws.close()
            raise TransportError("the relay did not answer in time") from None
        except TransportError:
            await ws.close(Close.PROTOCOL_ERROR, "not a gin relay")
            raise
        except BaseException:  # cancelled by close(): do not leak the new socket
            ws.transport.abort()
            raise
        if hello.get("type") == Control.ERROR:
            code = int(ws.close_code or hello.get("code") or 1006)
            reason = str(ws.close_reason or hello.get("reason") or "refused")
            raise TransportError(
                refusal_words(code, reason, self.seat), code=code, permanent=is_final(code)
            )
        if hello.get("type") not in WELCOMES or hello.get("seat") != self.seat:
            await ws.close(Close.PROTOCOL_ERROR, "unexpected welcome")
            raise TransportError(f"unexpected welcome from relay: {hello}", permanent=True)
        return ws, hello

    def _adopt(self, ws: ClientConnection, hello: dict[str, Any], first: Event | None) -> None:
        self._ws = ws
        self._room = str(hello["room"])
        ticket = hello.get("ticket")
        if isinstance(ticket, str) and TICKET_PATTERN.fullmatch(ticket):
            self.ticket = ticket
        max_frame = hello.get("max_frame")
        self.max_frame = max_frame if isinstance(max_frame, int) else None
        self._send_rate, self._send_burst = pace_for(hello, self.settings)
        self._tokens = min(self._tokens, self._send_burst)
        if first is not None:
            self._inbox.force(first)
        peer = hello.get("peer")
        if peer == "connected":
            self._status(PeerJoined(returning=False))
        elif peer == "away":
            self._status(PeerLeft(float(hello.get("grace", 0))))
        elif peer == "left":
            self._status(PeerGone(left=True))
        else:
            self._status(WaitingForPeer())

    def _status(self, status: Event) -> None:
        if isinstance(status, PeerJoined):
            self.peer = "connected"
        elif isinstance(status, PeerLeft):
            self.peer = "away"
        elif isinstance(status, PeerGone | WaitingForPeer):
            self.peer = "absent"
        self._watch.told(self.peer == "connected")
        self._inbox.force(status)

    def _finish(self, code: int | None, reason: str) -> None:
        if code == Close.SUPERSEDED:  # not the relay's doing, whatever words it closed with
            reason = SUPERSEDED_REASON
        if self._closed is None:
            self._closed = Closed(code, reason)
            self._ws = None
            self._inbox.force(self._closed)

    async def _run(self) -> None:
        while True:
            ws = self._ws
            assert ws is not None
            code, reason = await self._pump(ws)
            self._ws = None
            if is_final(code):
                self._finish(code, reason)
                return
            if self._rerouting:  # at once, and quietly; a failure is an outage as any
                self._rerouting = False
                with contextlib.suppress(TransportError):
                    ws, hello = await self._open()
                    # No Reconnected: the peer was away, and its timers keep running;
                    # the welcome tells whether it is there now (PeerJoined: resend).
                    self._adopt(ws, hello, None)
                    continue
            outcome = await self._reconnect(refusal_words(code, reason, self.seat, ""))
            if outcome is None:
                return
            ws, hello, attempts = outcome
            self._adopt(ws, hello, Reconnected(attempts))

    async def _pump(self, ws: ClientConnection) -> tuple[int | None, str]:
        """Deliver everything the connection brings; returns how it closed."""
        watch = asyncio.create_task(self._reroute_when_alone(ws))
        try:
            async for message in ws:
                if isinstance(message, bytes):
                    await self._inbox.put(Frame(message))
                else:
                    self._control(message)
        except ConnectionClosed:
            pass
        except TransportError as exc:
            await ws.close(Close.PROTOCOL_ERROR, "bad control message")
            return Close.PROTOCOL_ERROR, exc.reason
        finally:
            watch.cancel()
        return ws.close_code, ws.close_reason or "connection lost"

    async def _reroute_when_alone(self, ws: ClientConnection) -> None:
        """Reconnect when the other seat stays away: it may wait on another relay."""
        await self._watch.alone(lambda: self.peer == "connected")
        self._rerouting = True
        await ws.close(Close.RECONNECTING, "the other seat is away: reconnecting")

    def _control(self, text: str) -> None:
        message = _decode_control(text)
        kind = message.get("type")
        if kind == Control.PEER_JOINED:
            self._status(PeerJoined(returning=False))
        elif kind == Control.PEER_RECONNECTED:
            self._status(PeerJoined(returning=True))
        elif kind == Control.PEER_LEFT:
            self._status(PeerLeft(float(message.get("grace", 0))))
        elif kind == Control.PEER_GONE:
            self._status(PeerGone())
        # "error" precedes a close whose code and reason tell the same; types
        # this version does not know are ignored so relays can add new ones.

    async def _reconnect(self, reason: str) -> tuple[ClientConnection, dict[str, Any], int] | None:
        s = self.settings
        attempt = 0
        deadline = None if s.give_up_after is None else s.clock() + s.give_up_after
        while True:
            attempt += 1
            if s.max_attempts is not None and attempt > s.max_attempts:
                self._finish(None, f"gave up after {s.max_attempts} attempts: {reason}")
                return None
            delay = s.backoff(attempt)
            if deadline is not None:
                left = deadline - s.clock()
                if left <= 0:
                    self._finish(None, f"gave up after trying for {s.give_up_after:g} s: "
                                       f"{reason}")
                    return None
                delay = min(delay, left)  # one last attempt right at the deadline
            self._inbox.force(Reconnecting(attempt, delay, reason))
            await s.sleep(delay)
            try:
                ws, hello = await self._open()
            except TransportError as exc:
                if exc.permanent:
                    self._finish(exc.code, exc.reason)
                    return None
                reason = exc.reason
                continue
            return ws, hello, attempt


#: What a taken seat (4409) means, by seat: the same words as the browser's (relay.ts).
SEAT_TAKEN_WORDS = (
    "someone else holds the host's seat of this match (is it open in another program "
    "or browser tab?)",
    "someone has already joined with this link (maybe you, in a browser or on another "
    "computer): only two can play, so ask your friend for a new link",
)


def refusal_words(code: int | None, reason: str, seat: int, head: str = "relay refused") -> str:
    """A relay's refusal or close in words: ``head: reason (code N)``, and for a taken
    seat what it means first (the relay's own words after)."""
    if code == Close.SEAT_TAKEN:
        return f"{SEAT_TAKEN_WORDS[seat]} (the relay says: {reason}, code {code})"
    return f"{head + ': ' if head else ''}{reason} (code {code})"


def _decode_control(message: str | bytes) -> dict[str, Any]:
    if not isinstance(message, str):
        raise TransportError("relay sent a binary frame before its welcome", permanent=True)
    try:
        decoded = json.loads(message)
    except ValueError:
        decoded = None
    if not isinstance(decoded, dict):
        raise TransportError(
            f"relay sent an unreadable control message: {message[:80]!r}", permanent=True
        )
    return decoded
