"""The peers of the session conformance cases (:mod:`gin.conformance.session_cases`):
a :class:`Peer` notes each input with the frames and events it produced and passes its
outgoing messages through a ``tamper`` hook (a cheat); two peers are joined in memory,
or through :class:`LossyLink`, a relay model that drops, duplicates, delays and
reorders frames. Events are summarised as plain JSON by :func:`event_summary`.

Pure: fixed seeds, ``random.Random`` sources; no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import msgpack

from gin.engine.rules import STANDARD, Ruleset
from gin.players import Player, get
from gin.protocol.session.events import (
    Abandoned,
    CardDrawn,
    CheatDetected,
    Failure,
    HandDealt,
    HandScored,
    HandVerified,
    MatchOver,
    MatchStarted,
    Moved,
    RematchDeclined,
    RulesOffered,
    SessionEvent,
)
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.session.session import Session, pump
from gin.protocol.wire import channel as wire

Case = dict[str, Any]
Fields = dict[str, Any]
SECRET = bytes(range(32))
# Each seat's identity key in the cases (any two distinct keys would do).
IDENTITIES = {"host": bytes(range(128, 160)), "guest": bytes(range(160, 192))}
# Matches kept short (a low target) so that the TS replay of the corpus stays quick.
QUICK = STANDARD.with_options(name="quick", target=30)
LONG_GIN = STANDARD.with_options(name="long gin", target=40, big_gin_bonus=31, winner_deals=True,
                                 knock_limit=7)


def event_summary(event: SessionEvent) -> list[Any]:
    """An event as plain JSON: its class name, then its fields (records as JSON text)."""
    name = type(event).__name__
    if isinstance(event, Failure):
        record = event.record if isinstance(event, CheatDetected | Abandoned) else None
        return [name, event.who, event.field, event.reason, event.proven,
                None if record is None else record.to_json()]
    if isinstance(event, MatchStarted):
        return [name, event.rules.to_dict(), event.seat, event.first_dealer, event.match_id.hex()]
    if isinstance(event, RulesOffered):
        return [name, event.rules.to_dict(), event.rematch]
    if isinstance(event, HandDealt):
        return [name, event.hand_number, event.dealer, [str(c) for c in event.cards],
                str(event.upcard)]
    if isinstance(event, Moved):
        return [name, event.seat, str(event.action)]
    if isinstance(event, CardDrawn):
        return [name, str(event.card)]
    if isinstance(event, HandScored):
        r = event.result
        return [name, event.hand_number, [r.kind, r.knocker, r.winner, r.points],
                list(event.scores)]
    if isinstance(event, HandVerified):
        return [name, event.hand_number, event.record.to_json()]
    if isinstance(event, RematchDeclined):
        return [name, event.by, event.reason]
    assert isinstance(event, MatchOver)
    return [name, event.winner, event.forfeited_by,
            None if event.totals is None else list(event.totals.totals)]


class Draws:
    """A seeded source of random bytes that remembers what it gave."""

    def __init__(self, label: str) -> None:
        self._rng = random.Random(label)
        self.given: list[bytes] = []

    def __call__(self, n: int) -> bytes:
        value = self._rng.randbytes(n)
        self.given.append(value)
        return value


Tamper = Callable[["Peer", str, Fields], Fields | None]


class Peer(Session):
    """A session that notes each input with the frames and events it produced, and
    passes its outgoing messages through ``tamper`` (a cheat; None drops one)."""

    steps: list[list[Any]]
    _held: list[bytes]
    draws: Draws
    tamper: Tamper | None = None

    def __init__(self, role: str, rules: Ruleset | None, draws: Draws,
                 tamper: Tamper | None = None, rematch: PreviousMatch | None = None) -> None:
        self.steps, self._held, self.draws, self.tamper = [], [], draws, tamper
        self.given_rules = rules
        super().__init__("host" if role == "host" else "guest", SECRET, rules, draws,
                         IDENTITIES[role], rematch)
        self.note("init", None)

    def note(self, op: str, arg: object) -> None:
        frames = super().data_to_send()
        self._held += frames
        self.steps.append([op, arg, [f.hex() for f in frames],
                           [event_summary(e) for e in super().events()]])

    def data_to_send(self) -> list[bytes]:
        out, self._held = self._held, []
        return out

    def receive(self, frame: bytes) -> None:
        super().receive(frame)
        self.note("in", frame.hex())

    def act(self, action: Any) -> None:
        super().act(action)
        self.note("act", str(action))

    def accept_rules(self) -> None:
        super().accept_rules()
        self.note("accept", None)

    def decline_rules(self, reason: str | None = None) -> None:
        super().decline_rules(reason)
        self.note("decline", None)

    def poll(self, now: float) -> bool:
        queued = super().poll(now)
        self.note("poll", now)
        return queued

    def resend(self) -> list[bytes]:
        frames = super().resend()
        self.steps.append(["resend", None, [f.hex() for f in frames], []])
        return frames

    def peer_timed_out(self) -> None:
        super().peer_timed_out()
        self.note("timeout", None)

    def abandon(self, since: int, now: int) -> None:
        super().abandon(since, now)
        self.note("abandon", [since, now])

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        out: Fields | None = dict(fields)
        if self.tamper is not None:
            out = self.tamper(self, msg_type, dict(fields))
        if out is not None:
            super()._send(msg_type, out, version)

    def case(self, name: str) -> Case:
        return {"kind": "session", "name": name, "role": self.role, "secret": SECRET.hex(),
                "identity": IDENTITIES[self.role].hex(),
                "rules": None if self.given_rules is None else self.given_rules.to_dict(),
                "rematch": None if self.rematch is None else [self.rematch.match_id.hex(),
                                                              self.rematch.loser],
                "random": [d.hex() for d in self.draws.given], "steps": self.steps}


def restore(peer: Peer) -> Peer:
    """``peer`` saved (noted as ``save``) and restored from that save with fresh
    randomness (noted as ``restore``, with the frames it queues): the peer from now on."""
    packed = msgpack.packb(peer.to_state(), use_bin_type=True)
    peer.steps.append(["save", packed.hex(), [], []])
    state = msgpack.unpackb(packed, raw=False)
    back = Peer.from_state(SECRET, state, peer.draws, IDENTITIES[peer.role])
    assert isinstance(back, Peer)
    back.steps, back._held, back.draws, back.given_rules = peer.steps, [], peer.draws, \
        peer.given_rules
    back.tamper = None
    back.note("restore", packed.hex())
    return back


def computer_players(seed: int) -> list[Player]:
    return [get("normal", random.Random(f"{seed}/p{i}")) for i in (0, 1)]


def pair(seed: int, rules: Ruleset, guest_rules: Ruleset | None,
          host_tamper: Tamper | None = None, rematch: tuple[PreviousMatch | None,
                                                            PreviousMatch | None] = (None, None)
          ) -> tuple[Peer, Peer]:
    """Two peers; ``rematch``: the match each side's session continues (§7.1)."""
    return (Peer("host", rules, Draws(f"{seed}/host"), host_tamper, rematch[0]),
            Peer("guest", guest_rules, Draws(f"{seed}/guest"), None, rematch[1]))


def step(host: Peer, guest: Peer, players: list[Player]) -> bool:
    """One move, as play_local makes it; False when nobody can move."""
    mover = next((s for s in (host, guest) if s.legal_actions()), None)
    if mover is None:
        return False
    observation = mover.observation()
    assert observation is not None
    mover.act(players[mover.seat].choose(observation, mover.legal_actions()))
    pump(host, guest)
    return True


class LossyLink:
    """Two peers through a relay that drops, duplicates, delays and reorders frames
    (a fixed seed), a clock that drives their re-send timers, and reconnects that
    lose what is in flight: the slow path of a match, as tests/gin/protocol/test_session.py's
    lossy relay plays it."""

    def __init__(self, host: Peer, guest: Peer, seed: int) -> None:
        self.s = (host, guest)
        self.rng = random.Random(seed)
        self.held: list[tuple[bytes, int]] = []
        self.now = 0.0
        self.sent = 0

    def route(self, frame: bytes, to: int) -> list[tuple[bytes, int]]:
        roll = self.rng.random()
        if roll < 0.15:
            return []
        if roll < 0.3:
            self.held.append((frame, to))
            return []
        return [(frame, to), (frame, to)] if roll < 0.4 else [(frame, to)]

    def pump(self) -> None:
        while True:
            frames = [(f, 1) for f in self.s[0].data_to_send()]
            frames += [(f, 0) for f in self.s[1].data_to_send()]
            routed = [r for f, to in frames for r in self.route(f, to)]
            if not routed:
                routed, self.held = self.held, []
                self.rng.shuffle(routed)
            if not routed:
                if not frames:
                    return
                continue
            for frame, to in routed:
                self.sent += 1
                if self.sent % 97 == 0:  # the connection drops: both re-send on reconnect
                    for i in (0, 1):
                        for again in self.s[i].resend():
                            if not self.s[1 - i].over:
                                self.s[1 - i].receive(again)
                    break
                if not self.s[to].over:
                    self.s[to].receive(frame)

    def run(self, players: list[Player]) -> None:
        while not all(s.over for s in self.s):
            self.pump()
            if self.s[1].rules_offered is not None:
                self.s[1].accept_rules()
                continue
            mover = next((s for s in self.s if s.legal_actions()), None)
            if mover is None:  # let time pass: the re-send timers fire
                assert self.now < 10_000 and not any(s.failure for s in self.s)
                self.now += 1.0
                for s in self.s:
                    s.poll(self.now)
                continue
            observation = mover.observation()
            assert observation is not None
            mover.act(players[mover.seat].choose(observation, mover.legal_actions()))
