"""Rematches on one invite link (protocol.md §7.1): when an online match that ended
normally is followed by the next, and what is owed meanwhile. :class:`OnlineMatch`
(client/net/peer.py) holds one :class:`Rematches` and builds the next session when
:meth:`Rematches.due` says so; the twin of the rematch part of
client/web/src/online/peer.ts."""

from __future__ import annotations

from dataclasses import dataclass

from client.net.link_state import MATCH_OVER, REMATCH_OFFERED, REMATCH_WAITING
from gin.protocol.session.session import Session


@dataclass
class Rematches:
    """``wanted``: rematches this side asks for (host) or accepts (guest) at once — the
    ``--matches`` of a bot, or the player's Rematch. ``stay``: a table's match keeps its
    connection after a normal end, so that a guest hears the friend's offer and a host
    can still make one. ``finished``: matches of this run that ended normally."""

    wanted: int = 0
    stay: bool = False
    finished: int = 0

    def due(self, session: Session, connected: bool) -> bool:
        """The next session is to be built now: the match ended normally, the friend has
        all of it (nothing unacknowledged, so its frames stop here: a late one reaches
        the new session, which answers an old epoch's frame with an offer), and this
        side wants a rematch — or, a guest, may be offered one."""
        wants = self.wanted > 0 or (self.stay and session.role == "guest")
        return (wants and connected and session.over and not session.unacknowledged
                and session.as_previous() is not None)

    def accept_now(self, session: Session) -> bool:
        """The friend's rematch offer is in and this side asked for one first: accept."""
        if session.rematch is None or session.rules_offered is None or session.over \
                or self.wanted <= 0:
            return False
        self.wanted -= 1
        return True

    def keeps_open(self, session: Session) -> bool:
        """After a normal end, the connection stays for a rematch still to come."""
        return (self.stay or self.wanted > 0) and session.as_previous() is not None

    def words(self, session: Session) -> str | None:
        """How a rematch stands, in words, while one is wanted, offered or listened for."""
        if self.undecided(session):
            if session.rules_offered is not None and self.wanted <= 0:
                return REMATCH_OFFERED
            return REMATCH_WAITING if session.role == "host" or self.wanted > 0 else MATCH_OVER
        return REMATCH_WAITING if self.wanted > 0 and session.over and session.failure is None \
            else None

    @staticmethod
    def undecided(session: Session) -> bool:
        """The rematch's handshake waits on a person (the host's offer, the guest's
        answer): no timer runs against the friend meanwhile, as for custom rules."""
        return session.rematch is not None and not session.over and (
            session.rules_offered is not None or session.waiting_for() in ("hello", "welcome"))
