"""The lobby: where an online match starts. Host a room on a relay (or on one run
here, for a friend on the same network), or take the seat an invite link offers.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from client.net.links import Invite, RelayAddress, new_secret, parse_relay
from client.net.peer import OnlineMatch, OnlineSettings
from client.net.store import MatchFiles
from client.net.transport import RelayTransport
from client.storage import Storage
from gin.engine.rules import STANDARD, Ruleset
from gin.protocol.session import Session


@dataclass(frozen=True)
class OnlineStart:
    """How to begin: host on ``relay`` (None: an embedded relay on ``bind``:``port``,
    default the LAN address), or join ``invite``."""

    role: Literal["host", "join"]
    relay: str | None = None
    bind: str | None = None
    port: int = 0
    rules: Ruleset = STANDARD
    invite: Invite | None = None
    #: A guest's answer to custom rules from the host (see :class:`OnlineMatch`).
    accept_rules: bool | None = False


async def begin(start: OnlineStart, storage: Storage | None = None,
                settings: OnlineSettings | None = None) -> OnlineMatch:
    """Connect as ``start`` says. TransportError, StorageError, OSError (the local relay)."""
    if start.role == "join":
        assert start.invite is not None
        return await join(start.invite, storage, settings, accept_rules=start.accept_rules)
    if start.relay is not None:
        return await host(start.relay, start.rules, storage, settings)
    local, url = await start_local_relay(start.bind or lan_address(), start.port)
    try:
        match = await host(url, start.rules, storage, settings)
    except BaseException:
        await local.close()
        raise
    match.local_relay = local
    return match


async def host(relay: str | RelayAddress, rules: Ruleset, storage: Storage | None = None,
               settings: OnlineSettings | None = None,
               random_bytes: Callable[[int], bytes] = os.urandom) -> OnlineMatch:
    """Create a room on ``relay`` and a new match; its ``invite`` is for the friend.

    ``random_bytes`` feeds the seeds and the coin toss (tests make it repeatable).
    TransportError when the relay cannot be reached or refuses.
    """
    settings = settings or OnlineSettings()
    address = relay if isinstance(relay, RelayAddress) else parse_relay(relay)
    secret = new_secret()
    session = Session("host", secret, rules, random_bytes)
    transport = await RelayTransport.host(address, settings=settings.transport)
    invite = Invite(address, transport.room, secret)
    files = None if storage is None else MatchFiles(storage, invite)
    return OnlineMatch(session, transport, invite, files=files, settings=settings)


async def join(invite: Invite, storage: Storage | None = None,
               settings: OnlineSettings | None = None,
               random_bytes: Callable[[int], bytes] = os.urandom, *,
               accept_rules: bool | None = False) -> OnlineMatch:
    """Take a seat in the invite's room; continues this link's saved match if any.
    ``accept_rules`` answers custom rules from the host (see :class:`OnlineMatch`).

    TransportError when the relay cannot be reached or refuses; StorageError when
    a saved match for the link cannot be read.
    """
    settings = settings or OnlineSettings()
    files = None if storage is None else MatchFiles(storage, invite)
    saved = None if files is None else files.load(random_bytes)
    session, token, ticket = saved if saved is not None else (
        Session("guest", invite.secret, None, random_bytes), secrets.token_hex(16), None)
    transport = await RelayTransport.join(invite.relay, invite.room, seat=session.seat,
                                          token=token, ticket=ticket,
                                          settings=settings.transport)
    match = OnlineMatch(session, transport, invite, files=files, settings=settings)
    match.rules_answer = accept_rules
    return match


def lan_address() -> str:
    """This machine's address on its local network (127.0.0.1 when there is none).

    Connecting a UDP socket sends nothing; it only asks the system which local
    address would be used for the route (192.0.2.1 is a documentation address).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


async def start_local_relay(bind: str, port: int = 0) -> tuple[Any, str]:
    """An embedded relay on ``bind``:``port``; returns it and its http address."""
    from relay.server import RelayConfig, serve

    # Only two players use it: the public relay's per-connection limits can go.
    relay = await serve(RelayConfig(host=bind, port=port, rate=500.0, burst=5000,
                                    metrics=False, log_level="warning"))
    shown = lan_address() if bind in ("0.0.0.0", "") else bind
    netloc = f"[{shown}]" if ":" in shown else shown
    return relay, f"http://{netloc}:{relay.port}"
