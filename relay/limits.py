"""Per-address limits (connections and new rooms) and the accept-failure log throttle.

An IPv6 client is counted by its /64: one host commonly holds a whole /64, so
counting single addresses would let it open connections and rooms without end.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from websockets.datastructures import Headers

from relay.logs import event

# The errors asyncio reports as "socket.accept() out of system resource".
ACCEPT_RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def address_key(ip: str) -> str:
    """The unit the per-address limits count: an IPv4 address or an IPv6 /64."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip  # not an address (a malformed X-Forwarded-For): counted as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def client_address(
    peer: tuple[Any, ...] | None, headers: Headers | None, trust_forwarded: bool
) -> str:
    """The address key a request counts under: its TCP peer's, or behind a trusted
    proxy the last ``X-Forwarded-For`` entry (the one the proxy added; earlier ones
    are whatever the client sent). Several header lines count as one list, as HTTP
    says: HAProxy adds a line of its own, nginx appends to the client's."""
    if trust_forwarded and headers is not None:
        entries = ",".join(headers.get_all("X-Forwarded-For")).rsplit(",", 1)[-1].strip()
        if entries:
            return address_key(entries)
    return address_key(str(peer[0])) if peer else "?"


class AddressLimits:
    """Open connections (handshakes in progress included) and a room-creation token
    bucket, per address key."""

    def __init__(
        self,
        max_connections: int,
        rooms_per_minute: float,
        rooms_burst: int,
        clock: Callable[[], float],
    ) -> None:
        self.max_connections = max_connections
        self._room_rate = rooms_per_minute / 60.0
        self._room_burst = float(rooms_burst)
        self._clock = clock
        self._open: dict[str, int] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def acquire(self, key: str) -> bool:
        """Count one more connection for ``key``; False (nothing counted) at the cap."""
        count = self._open.get(key, 0)
        if count >= self.max_connections:
            return False
        self._open[key] = count + 1
        return True

    def release(self, key: str) -> None:
        left = self._open[key] - 1
        if left:
            self._open[key] = left
        else:
            del self._open[key]

    def new_room_wait(self, key: str) -> float:
        """0 and a room is counted, or the seconds until ``key`` may create one."""
        now = self._clock()
        tokens, when = self._buckets.get(key, (self._room_burst, now))
        tokens = min(self._room_burst, tokens + (now - when) * self._room_rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self._room_rate
        self._buckets[key] = (tokens - 1.0, now)
        return 0.0

    def prune(self) -> None:
        """Forget buckets that have filled up again: they hold nothing to remember."""
        now, rate, burst = self._clock(), self._room_rate, self._room_burst
        full = [k for k, (t, w) in self._buckets.items() if t + (now - w) * rate >= burst]
        for key in full:
            del self._buckets[key]

    @property
    def addresses(self) -> int:
        """Address keys with a connection open or a room bucket not yet full."""
        return len(self._open.keys() | self._buckets.keys())


class AcceptErrorLog:
    """A loop exception handler that reports accept() running out of file descriptors
    once per ``interval`` seconds, with a count, instead of a traceback per attempt.

    asyncio retries accept() up to its backlog at each wake-up, so an exhausted
    process would otherwise log thousands of identical tracebacks a second.
    """

    def __init__(
        self,
        interval: float,
        clock: Callable[[], float],
        count: Callable[[], None],
        fallback: Callable[[dict[str, Any]], None],
    ) -> None:
        self._interval = interval
        self._clock = clock
        self._count = count
        self._fallback = fallback
        self._last: float | None = None
        self._suppressed = 0

    def __call__(self, _loop: Any, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if not (isinstance(exc, OSError) and exc.errno in ACCEPT_RESOURCE_ERRNOS
                and "accept" in str(context.get("message", ""))):
            self._fallback(context)
            return
        self._count()
        now = self._clock()
        if self._last is not None and now - self._last < self._interval:
            self._suppressed += 1
            return
        event(
            "accept_failed",
            logging.ERROR,
            error=errno.errorcode.get(exc.errno or 0, str(exc.errno)),
            detail=exc.strerror,
            suppressed=self._suppressed,
            hint="raise the file descriptor limit (ulimit -n, LimitNOFILE)",
        )
        self._last, self._suppressed = now, 0
