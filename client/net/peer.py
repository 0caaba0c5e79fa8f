"""Online play: a :class:`~gin.protocol.session.session.Session` driven over a relay connection.

:class:`OnlineMatch` is the glue between the sans-I/O session and the
:class:`~client.net.transport.RelayTransport`: it feeds the peer's frames to the
session, sends what the session queues (in order, through one sender task),
resends every unacknowledged frame after a reconnect or when the peer (re)joins,
runs the timer on what the peer owes (when its grace runs out the match may end as
*abandoned by* the friend: at once for a program, or when the player says so after
a :class:`GraceOver` update, protocol.md §11.3), and keeps the session saved by the
write-ahead rule (save, then send) and the hand records written
(:mod:`client.net.write_ahead`). It notes the friend's identity in the known friends
(:mod:`client.identity`). Listeners get the session's events and the connection's
state; the table and the ``--bot`` commands are listeners. Matches are started by
:mod:`client.net.lobby`. The twin of client/web/src/online/peer.ts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.identity import Friend, LocalIdentity, greet
from client.net.grace import Grace, GraceOver
from client.net.link_state import (
    SHORT_WORDS,
    Link,
    LinkChanged,
    Notice,
    Update,
    connection_fault,
    ended_words,
)
from client.net.links import Invite
from client.net.outcome import (
    ConnectionFailed,
    FriendLeft,
    StorageFailed,
    friend_left,
    outcome_line,
)
from client.net.relay_events import (
    Closed,
    Connected,
    Event,
    PeerGone,
    PeerJoined,
    PeerLeft,
    Reconnected,
    Reconnecting,
    TransportClosedError,
    WaitingForPeer,
)
from client.net.relay_events import Frame as FrameEvent
from client.net.rematch import Rematches
from client.net.store import MatchFiles
from client.net.transport import RelayTransport, TransportSettings
from client.net.write_ahead import WriteAhead
from gin.engine.actions import Action
from gin.engine.errors import IllegalAction
from gin.players import Player
from gin.protocol.session.events import (
    Abandoned,
    CheatDetected,
    ClaimedAbandoned,
    Failure,
    HandVerified,
    LeftOwing,
    MatchOver,
    MatchStarted,
    SessionEvent,
)
from gin.protocol.session.session import Session


@dataclass
class OnlineSettings:
    """Timers of the online session; the defaults suit people over the internet."""

    # A message the peer's program sends by itself (keys, deck, seed): long enough
    # for its connection to come back (§11.3 of protocol.md).
    reply_timeout: float = 180.0
    move_timeout: float = 900.0  # a person thinking about a move
    #: The wall clock an abandonment record's times come from (UTC seconds).
    utc_clock: Callable[[], float] = time.time
    # After the match: stay this long (while connected) so a frame lost in a drop
    # can still be resent; leave earlier when the friend leaves.
    linger: float = 3.0
    # How often the session is told the time, so it can re-send what the friend
    # has not acknowledged (its own back-off decides when).
    resend_tick: float = 1.0
    resend_after: tuple[float, float] = (2.0, 32.0)  # first wait, longest (§5.4)
    # A failed save pauses sending; it is retried this often, and the match ends
    # when no save has succeeded for save_give_up seconds (below the peer's
    # reply_timeout, so this side is not reported as silent first).
    save_retry: float = 2.0
    save_give_up: float = 120.0
    transport: TransportSettings = field(default_factory=TransportSettings)


class OnlineMatch:
    """One side of an online match: build it with :func:`client.net.lobby.host` or
    :func:`client.net.lobby.join`."""

    def __init__(self, session: Session, transport: RelayTransport, invite: Invite, *,
                 files: MatchFiles | None = None, settings: OnlineSettings | None = None,
                 identity: LocalIdentity | None = None,
                 random_bytes: Callable[[int], bytes] = os.urandom) -> None:
        self.session = session
        self.identity = identity  # ours (its words; a warning when it was made anew)
        self.friend: Friend | None = None  # theirs, once known
        self.transport = transport
        session.set_resend_timing(*(settings or OnlineSettings()).resend_after)
        self.invite = invite
        self.files = files
        self.settings = settings or OnlineSettings()
        self.link = Link.CONNECTING
        self.link_detail = ""  # why the connection was lost, while reconnecting
        self.result: MatchOver | None = None
        self.failure: Failure | None = None
        self.verified = 0  # hands of this match verified, recorded or not
        self.unrecorded: list[int] = []  # hands whose record could not be written
        self.finished = False  # run() has returned
        self.local_relay: Any = None  # an embedded relay, closed when run() ends
        self.changed = asyncio.Event()  # set after every change; waiters clear it
        self._wake = asyncio.Event()
        self._listeners: list[Callable[[Update], None]] = []
        self._outbox: deque[bytes] = deque()
        self._outbox_ready = asyncio.Event()
        self._peer_seen = False
        self._grace = Grace(self.settings.utc_clock, self._grace_ran_out)
        self._saving = WriteAhead(
            files, save=self._save_session, needed=lambda: not self.session.over,
            running=lambda: not self.finished, tell=self._tell, saved_again=self._resend,
            gave_up=self._gave_up, retry=self.settings.save_retry,
            give_up=self.settings.save_give_up)
        self._ended = False  # ended by this side (a save that kept failing)
        self._scores: list[Any] = []  # how each verified hand ended, for your record
        #: Custom rules from the host (a RulesOffered update): True plays them,
        #: False declines them, None leaves the answer to a listener, which calls
        #: :meth:`accept_rules` or :meth:`decline_rules`.
        self.rules_answer: bool | None = False
        #: When the grace for what the friend owes runs out: False ends the match as
        #: abandoned by the friend at once (a program's choice); True asks a listener
        #: (a GraceOver update), which calls :meth:`keep_waiting` or :meth:`abandon`.
        self.ask_before_abandoning = False
        self.rematches = Rematches()  # the next matches on this link (protocol.md §7.1)
        self._random_bytes = random_bytes

    @property
    def seat(self) -> int:
        return self.session.seat

    def status(self, short: bool = False, detail: bool = True) -> str:
        """How the match and the link to the friend stand, in words (see :class:`Link`):
        its end once it has ended, whatever the connection does then. ``short``: the
        few words after "Your friend ·" on the table; ``detail``: why the connection
        was lost, while reconnecting."""
        rematch = self.rematches.words(self.session)
        if rematch is not None and self.failure is None:
            return rematch
        if self.session.over or self.failure is not None:
            return ended_words(self.failure, short)
        link = self.link
        if link is Link.WAITING and self.session.observation() is not None:
            link = Link.FRIEND_AWAY  # after a drop of ours, the friend is not back yet
        if short:
            return SHORT_WORDS[link]
        why = f" ({self.link_detail})" if detail and link is Link.RECONNECTING \
            and self.link_detail else ""
        return link.value + why

    @property
    def records(self) -> list[Path]:
        """The hand records written (files in ``records/``)."""
        return self._saving.records

    @property
    def storage_problem(self) -> str:
        """The last save failure, for the final line."""
        return self._saving.problem

    @property
    def declined(self) -> bool:
        """The guest declined the rematch: the series ended there, normally."""
        return self.session.declined

    def listen(self, listener: Callable[[Update], None]) -> None:
        self._listeners.append(listener)

    # -- the local player -----------------------------------------------------

    def act(self, action: Action) -> None:
        """Play the local player's move; IllegalAction (nothing changes) if refused."""
        self.session.act(action)
        self._flush()

    def accept_rules(self) -> None:
        """Play the host's custom rules (after a RulesOffered update)."""
        self.session.accept_rules()
        self._flush()

    def decline_rules(self, reason: str | None = None) -> None:
        """Decline the host's custom rules or rematch: the match ends unplayed."""
        self.session.decline_rules(reason)
        self._flush()

    @property
    def grace_over(self) -> GraceOver | None:
        """The question put to the player while the friend's grace is over, else None."""
        return self._grace.question

    def keep_waiting(self) -> None:
        """Give the friend another grace period for what it owes (after a GraceOver)."""
        self._grace.question = None
        self._restart_timer()

    def abandon(self) -> None:
        """End the match as abandoned by the friend, which owes what it has owed since
        :attr:`Grace.since` (protocol.md §11.3); IllegalAction when it owes nothing."""
        self._grace.question = None
        since = int(self._grace.since)
        self.session.abandon(since, max(since, int(self.settings.utc_clock())))
        self._flush()

    # -- running -----------------------------------------------------------------

    async def run(self) -> None:
        """Play until the match is over (then linger) or the relay gives up on us."""
        sender = asyncio.create_task(self._send_forever())
        poller = asyncio.create_task(self._poll_forever())
        pending: asyncio.Task[Event] | None = None
        over_since: float | None = None
        try:
            self._meet(self.identity)  # a resumed match's friend is known already
            self._flush()
            self._resend()  # a restored session: frames the peer may never have had
            events = aiter(self.transport)
            while True:
                if self.rematches.due(self.session, self.transport.connected):
                    self._rematch()
                if pending is None:
                    pending = asyncio.create_task(anext(events))
                # Once the match is over, wait only ``linger`` for the next event.
                limit = self.settings.linger if self.session.over else None
                self._wake.clear()
                waker: asyncio.Task[object] = asyncio.create_task(self._wake.wait())
                done, _ = await asyncio.wait((pending, waker), timeout=limit,
                                             return_when=asyncio.FIRST_COMPLETED)
                waker.cancel()
                if pending in done:
                    event, pending = pending.result(), None
                    if self._handle(event):
                        break
                elif not done:
                    # Lingered long enough after the end, unless the friend has not
                    # acknowledged our last messages yet (the re-send timer runs).
                    now = asyncio.get_running_loop().time()
                    over_since = now if over_since is None else over_since
                    if self.rematches.keeps_open(self.session):
                        continue  # a rematch may still come
                    if self.session.failure is not None or not self.session.unacknowledged \
                            or now - over_since > self.settings.reply_timeout:
                        break
                if self._ended:
                    break
            await self._drain()
        finally:
            if pending is not None:
                pending.cancel()
            self._grace.stop()
            poller.cancel()
            self.unrecorded = self._saving.close()
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender
            await self.transport.close()
            if self.local_relay is not None:
                await self.local_relay.close()
            if self.files is not None and _cannot_go_on(self):
                self.files.finish(outcome_line(self))
            self.finished = True
            self.changed.set()

    def _handle(self, event: Event) -> bool:
        """Take one transport event; True when the run is over."""
        if isinstance(event, FrameEvent):
            # After a normal end frames still count: the friend may need our last
            # messages re-sent, which its acks and gap requests ask for.
            if self.session.failure is None:
                self.session.receive(event.data)
                self._flush()
        elif isinstance(event, Connected | Reconnected):
            # Connected to the relay: whether the friend is there is told next (the
            # relay's welcome says it), so nothing is said of the friend yet.
            self._restart_timer()
            if isinstance(event, Reconnected):
                self._resend()
        elif isinstance(event, WaitingForPeer):
            self._set_link(Link.WAITING)
        elif isinstance(event, PeerJoined):
            # After a relay restart a returning peer looks new: resend either way.
            self._peer_seen = True
            self._set_link(Link.CONNECTED)
            self._restart_timer()
            self._resend()
        elif isinstance(event, PeerLeft):
            if not self.session.over:  # after the end, leaving is what the friend does
                self._set_link(Link.FRIEND_AWAY)
        elif isinstance(event, PeerGone):
            if (left := friend_left(self.session) if event.left else None) is not None:
                self._record_failure(left)  # back to a match the friend left: it is over
            elif not self.session.over:
                self._set_link(Link.FRIEND_GONE)
            return left is not None or self.session.over or Rematches.undecided(self.session)
        elif isinstance(event, Reconnecting):
            self._set_link(Link.RECONNECTING, event.reason)
            self._grace.stop()
        elif isinstance(event, Closed):
            self._set_link(Link.CLOSED, event.reason)
            if not self.session.over:
                self._record_failure(ConnectionFailed(
                    connection_fault(event), "connection",
                    f"the relay connection ended: {event.reason}"))
            return True
        return False

    # -- the session's output -------------------------------------------------------

    def _flush(self) -> None:
        """Save (write-ahead), queue the frames, then tell listeners what happened."""
        frames = self.session.data_to_send()
        events = self.session.events()
        frames = self._saving.release(frames, bool(frames or events))
        self._outbox.extend(frames)
        if frames:
            self._outbox_ready.set()
        for event in events:
            self._on_session_event(event)
            self._tell(event)
        self._restart_timer(force=False)
        if self.session.over:
            self._wake.set()  # the run loop starts lingering
        self.changed.set()
        if self.rematches.accept_now(self.session):
            self.accept_rules()
        elif self.session.rules_offered is not None and self.session.rematch is None \
                and self.rules_answer is not None and not self.session.over:
            # Listeners were told the rules first (also after a restore: the offer
            # is in the session's state, not only in an event).
            if self.rules_answer:
                self.accept_rules()
            else:
                self.decline_rules("the host proposes custom rules, played only when "
                                   "accepted: join with --accept-rules to play them")

    def _on_session_event(self, event: SessionEvent) -> None:
        if isinstance(event, HandVerified):
            self.verified += 1
            self._scores.append(event.record.score)
        if isinstance(event, HandVerified | CheatDetected | Abandoned):
            self._saving.record(event)
        if isinstance(event, MatchStarted):
            self._meet()
        if isinstance(event, MatchOver):
            self.result = event
            self.rematches.finished += event.totals is not None
            self._record_match(event)
        elif isinstance(event, Failure):
            self.failure = event
            if isinstance(event, Abandoned | ClaimedAbandoned | LeftOwing):
                self._record_match(None, "you" if isinstance(event, ClaimedAbandoned) else "friend")

    def _meet(self, mine: LocalIdentity | None = None) -> None:  # and say mine's warning
        self.friend, notes = greet(None if self.files is None else self.files.storage,
                                   self.session, self.friend, mine)
        for text in notes:
            self._tell(Notice(text))

    def _record_match(self, over: MatchOver | None, abandoned: str | None = None) -> None:
        """Add the match to the player's record (client/record.py), the friend keyed
        by the invite link's id: won or lost (``over``), or ``abandoned`` by the
        "friend" or by "you". Hands verified before a resume are not in memory."""
        if self.files is not None:
            ids = self.session.identities
            for text in self.files.add_to_record(None if ids is None else ids[1 - self.seat],
                                                 self.seat, over, self._scores, abandoned):
                self._tell(Notice(text))

    def want_rematch(self) -> None:
        """The local player wants another match on this link, once this one is over."""
        self.rematches.wanted += 1
        self._wake.set()
        if self.rematches.accept_now(self.session):  # the friend's offer came first
            self.accept_rules()

    def _rematch(self) -> None:
        """Begin the next match: a new session that continues the one just finished,
        on its rules. The host's ``hello`` offers it; the guest's session waits for that."""
        old, previous = self.session, self.session.as_previous()
        assert previous is not None
        self._tell(Notice(f"match {self.rematches.finished}: {outcome_line(self)}; "
                          "a rematch begins"))
        self.rematches.wanted -= old.role == "host"
        self.result, self._scores, self.verified = None, [], 0  # this match's own
        self.session = Session(old.role, self.invite.secret, old.rules, self._random_bytes,
                               self.identity.secret if self.identity else b"", rematch=previous)
        self.session.set_resend_timing(*self.settings.resend_after)
        self._flush()

    # -- write-ahead: nothing unsaved is sent (client.net.write_ahead) -----------------

    def _save_session(self) -> None:
        assert self.files is not None
        self.files.save(self.session, self.transport.token, self.transport.ticket)

    def _gave_up(self, waited: float) -> None:
        self._record_failure(StorageFailed(
            self.session.role, "storage",
            f"the match could not be saved for {waited:.0f} s ({self.storage_problem}); "
            "nothing unsaved was sent, so it can be continued from the last save"))
        self._ended = True
        self._wake.set()

    def _record_failure(self, failure: Failure) -> None:
        self.failure = failure
        self._tell(failure)

    def _tell(self, update: Update) -> None:
        for listener in self._listeners:
            listener(update)

    def _set_link(self, link: Link, detail: str = "") -> None:
        if (link, detail) == (self.link, self.link_detail):
            return  # (the friend there again after a reroute: nothing new to tell)
        self.link, self.link_detail = link, detail
        self._tell(LinkChanged(link, detail))
        self.changed.set()

    # -- sending ----------------------------------------------------------------------

    def _resend(self) -> None:
        # Everything unacknowledged, oldest first, replaces what was still queued
        # (a superset of it): the peer ignores the frames it already has.
        if self._saving.holding:
            return  # some are not saved yet: all are resent once the save succeeds
        self._outbox.clear()
        self._outbox.extend(self.session.resend())
        if self._outbox:
            self._outbox_ready.set()

    async def _poll_forever(self) -> None:
        """The session's re-send timer (protocol.md §5.4): it is told the time."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.settings.resend_tick)
            if self.session.failure is None and self.transport.connected and (
                    self.session.poll(loop.time())):
                self._flush()

    async def _send_forever(self) -> None:
        while True:
            await self._outbox_ready.wait()
            while self._outbox:
                frame = self._outbox.popleft()
                try:
                    await self.transport.send(frame)  # False while disconnected: resent later
                except TransportClosedError:
                    return
            self._outbox_ready.clear()

    async def _drain(self) -> None:
        """Give the sender a moment to write the last frames (an abort, a seed)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.settings.linger):
                while self._outbox and self.transport.connected:
                    await asyncio.sleep(0.01)

    # -- the grace on what the peer owes (protocol.md §11.3) -------------------------------

    def _restart_timer(self, force: bool = True) -> None:
        owed = None if self.session.over or Rematches.undecided(self.session) \
            else self.session.waiting_for()
        s = self.settings
        # The friend has joined, in this run or before it (a resumed match), or made the
        # link this guest joins: its absence counts against its grace, for it may never
        # come back (to say it ended the match). A host waits for its guest to open the link.
        met = self._peer_seen or self.session.received > 0 or self.session.role == "guest"
        self._grace.restart(owed, self.session.received,
                            s.move_timeout if owed == "move" else s.reply_timeout,
                            met and self.transport.connected, force)

    def _grace_ran_out(self, owed: str, since: float) -> None:
        if self.session.over or self.session.waiting_for() != owed:
            return
        if not self.ask_before_abandoning:
            self.abandon()
            return
        self._tell(self._grace.ask())
        self.changed.set()


def _cannot_go_on(match: OnlineMatch) -> bool:
    """The match is over, or its friend left it for good: its save becomes a note (a
    connection lost keeps it, to be continued)."""
    return match.session.over or isinstance(match.failure, FriendLeft)


async def play_bot(match: OnlineMatch, player: Player, delay: float = 0.0) -> None:
    """Let ``player`` take the local seat until the match ends (with
    rematches wanted, until the run ends)."""
    while not match.finished and not (match.session.over
                                      and not match.rematches.keeps_open(match.session)):
        match.changed.clear()
        legal = match.session.legal_actions()
        if not legal:
            await match.changed.wait()
            continue
        if delay:
            await asyncio.sleep(delay)
        obs = match.session.observation()
        if obs is None or legal != match.session.legal_actions():
            continue  # something arrived meanwhile: look again
        with contextlib.suppress(IllegalAction):
            match.act(player.choose(obs, legal))

