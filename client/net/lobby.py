"""The lobby: where an online match starts. Host a room on a relay (or on one run
here, for a friend on the same network), or take the seat an invite link offers.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from client.identity import LocalIdentity, load_identity
from client.net.links import Invite, RelayAddress, new_secret, parse_relay, reach
from client.net.peer import OnlineMatch, OnlineSettings
from client.net.relay_events import UNREACHABLE, TransportError
from client.net.store import LocalRelay, MatchFiles, SavedMatch
from client.net.transport import RelayTransport
from client.storage import Storage
from gin.engine.rules import STANDARD, Ruleset
from gin.protocol.records.identity import IDENTITY_SEED_BYTES
from gin.protocol.session.session import Session


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
    #: A host's match saved in progress on a relay run inside gin, which the table
    #: offers to continue instead (``gin host`` again after an interruption).
    saved: Invite | None = None
    #: The board the friend's link opens (``--board``), None for the relay's own page.
    board: str | None = None


async def begin(start: OnlineStart, storage: Storage | None = None,
                settings: OnlineSettings | None = None) -> OnlineMatch:
    """Connect as ``start`` says. TransportError, StorageError, OSError (the local relay)."""
    if start.role == "join":
        assert start.invite is not None
        return await join(start.invite, storage, settings, accept_rules=start.accept_rules)
    if start.relay is not None:
        return await host(start.relay, start.rules, storage, settings, board=start.board)
    bind = start.bind or lan_address()
    key_file = None if storage is None else LocalRelay.key_file(storage)
    local, url = await start_local_relay(bind, start.port, key_file)
    try:
        match = await host(url, start.rules, storage, settings,
                           local=LocalRelay(bind, local.port), board=start.board)
    except BaseException:
        await local.close()
        raise
    match.local_relay = local
    return match


async def host(relay: str | RelayAddress, rules: Ruleset, storage: Storage | None = None,
               settings: OnlineSettings | None = None,
               random_bytes: Callable[[int], bytes] = os.urandom, *,
               local: LocalRelay | None = None, board: str | None = None) -> OnlineMatch:
    """Create a room on ``relay`` and a new match; its ``invite`` is for the friend,
    opening ``board`` (None: the relay's own page).
    ``local``: the relay is one run inside gin there, saved with the match. The
    match is played under the data folder's identity (:func:`identity_of`).

    ``random_bytes`` feeds the seeds and the coin toss (tests make it repeatable).
    TransportError when the relay cannot be reached or refuses.
    """
    settings = settings or OnlineSettings()
    address = relay if isinstance(relay, RelayAddress) else parse_relay(relay)
    secret = new_secret()
    me = identity_of(storage, random_bytes)
    session = Session("host", secret, rules, random_bytes, me.secret)
    transport = await RelayTransport.host(address, settings=settings.transport)
    invite = Invite(address, transport.room, secret, board)
    files = None if storage is None else MatchFiles(storage, invite, local)
    return OnlineMatch(session, transport, invite, files=files, settings=settings, identity=me,
                       random_bytes=random_bytes)


def identity_of(storage: Storage | None, random_bytes: Callable[[int], bytes]
                ) -> LocalIdentity:
    """The data folder's identity (made on first use), or without a data folder one
    for this match alone."""
    if storage is None:
        return LocalIdentity(random_bytes(IDENTITY_SEED_BYTES))
    return load_identity(storage, random_bytes)


async def join(invite: Invite, storage: Storage | None = None,
               settings: OnlineSettings | None = None,
               random_bytes: Callable[[int], bytes] = os.urandom, *,
               accept_rules: bool | None = False) -> OnlineMatch:
    """Take a seat in the invite's room; continues this link's saved match if any
    (a host's match whose relay ran inside gin starts that relay again first, where
    the link points, with its key). ``accept_rules`` answers custom rules from the
    host (see :class:`OnlineMatch`).

    TransportError when the relay cannot be reached or refuses; StorageError when
    a saved match for the link cannot be read; LocalRelayError when its relay cannot
    listen where it did.
    """
    settings = settings or OnlineSettings()
    files = None if storage is None else MatchFiles(storage, invite)
    me = identity_of(storage, random_bytes)
    saved = None if files is None else files.load(me.secret, random_bytes)
    session, token, ticket = saved if saved is not None else (
        Session("guest", invite.secret, None, random_bytes, me.secret), secrets.token_hex(16),
        None)
    local = None
    if storage is not None and files is not None and files.local is not None:
        local = await restart_local_relay(files.local, LocalRelay.key_file(storage))
    try:
        transport = await RelayTransport.join(invite.relay, invite.room, seat=session.seat,
                                              token=token, ticket=ticket,
                                              settings=settings.transport)
    except TransportError as exc:
        if local is not None:
            await local.close()
        if not exc.reason.startswith(UNREACHABLE) or session.role != "guest" \
                or reach(invite.relay) is None:
            raise
        # Nothing answers at a local address: most likely the relay inside gin host.
        raise HostGoneError(f"the link's host has gone: its relay, at a local address, ran "
                            "inside your friend's gin host and stops with it, so your friend "
                            "has closed gin or ended the match; ask them for a new link "
                            f"({exc.reason})", exc.code, exc.permanent) from None
    except BaseException:
        if local is not None:
            await local.close()
        raise
    match = OnlineMatch(session, transport, invite, files=files, settings=settings, identity=me,
                        random_bytes=random_bytes)
    match.local_relay = local
    match.rules_answer = accept_rules
    return match


class HostGoneError(TransportError):
    """Nothing answers at the local address of the link's relay: the gin host it ran in
    has gone (its words say so plainly, not as a relay's failure)."""


def hosted_here(storage: Storage) -> SavedMatch | None:
    """The newest match saved in progress that this side hosts on a relay run inside
    gin: what ``gin host`` (without --relay) continues."""
    return next((saved for saved in MatchFiles.saved(storage)
                 if saved.role == "host" and saved.local is not None), None)


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


class LocalRelayError(OSError):
    """The relay run inside gin for a saved match cannot listen where it did (where
    the invite link points); the message says why and what to do."""


async def start_local_relay(bind: str, port: int = 0,
                            key_file: Path | None = None) -> tuple[Any, str]:
    """An embedded relay on ``bind``:``port``; returns it and its http address.
    ``key_file`` keeps its key (None: a key for this run only)."""
    from relay.roomid import KeyFileError
    from relay.server import RelayConfig, serve

    # Only two players use it: the public relay's per-connection limits can go.
    try:
        relay = await serve(RelayConfig(host=bind, port=port, key_file=key_file, rate=500.0,
                                        burst=5000, metrics=False, log_level="warning"))
    except KeyFileError as exc:
        raise LocalRelayError(f"the relay inside gin cannot use its key: {exc}") from None
    shown = lan_address() if bind in ("0.0.0.0", "") else bind
    netloc = f"[{shown}]" if ":" in shown else shown
    return relay, f"http://{netloc}:{relay.port}"


async def restart_local_relay(local: LocalRelay, key_file: Path) -> Any:
    """The relay of a saved match, back where it listened with its key; LocalRelayError
    (naming what holds it up, never the relay) when it cannot be."""
    netloc = f"[{local.bind}]:{local.port}" if ":" in local.bind else \
        f"{local.bind}:{local.port}"
    try:
        relay, _ = await start_local_relay(local.bind, local.port, key_file)
    except LocalRelayError:
        raise
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = (f"another program is using port {local.port} now; close it (or wait for "
                   "it to end) and continue again")
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = (f"this computer no longer has the address {local.bind} (its network "
                   "changed), so this match cannot be continued from here: ask your friend "
                   "to play a new one")
        else:
            why = exc.strerror or str(exc)
        raise LocalRelayError(f"the relay inside gin cannot listen at {netloc} again, "
                              f"where your friend's link points: {why}") from None
    return relay
