"""The local player's moves as this side sends them (protocol.md §7.4): each action with
the keys that go with it, and the keys to every card it holds that the peer cannot open
yet (on a knock, ours or the peer's); the twin of client/web/src/protocol/session_moves.ts.
The functions take what they need of the match flow (:class:`MoveIo`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from gin.engine.actions import Action, BigGin, Discard, DrawStock, Knock
from gin.engine.cards import Card
from gin.engine.hand import Hand
from gin.protocol import fairdeal as fd
from gin.protocol.records import Step
from gin.protocol.session_hand import HandState


class MoveIo(Protocol):
    """What the local player's moves need of the match flow."""

    @property
    def seat(self) -> int: ...

    def send(self, msg_type: str, fields: Mapping[str, object]) -> None: ...

    def engine(self) -> Hand: ...

    def state(self) -> HandState: ...

    def position_of(self, card: Card) -> int: ...

    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat`` in the engine and tell the interface."""

    def after_move(self) -> None:
        """End the hand (sign, send our seed) if the move ended it."""


def play(io: MoveIo, action: Action) -> None:
    """Play the local player's action (already checked legal)."""
    hs = io.state()
    hand = io.engine()
    pairs: tuple[tuple[int, int], ...] = ()
    if isinstance(action, Discard):
        pos = io.position_of(action.card)
        pairs = () if pos in hs.keys_sent else ((pos, hs.mine.position_keys[pos]),)
    elif isinstance(action, Knock | BigGin):
        pairs = unrevealed_keys(io)
    hs.keys_sent.update(p for p, _ in pairs)
    hs.steps.append(Step(io.seat, action, pairs))
    io.send("move", {"h": hs.number, "a": str(action), "pos": [p for p, _ in pairs],
                     "keys": [fd.key_bytes(k) for _, k in pairs]})
    if isinstance(action, Knock | BigGin):
        hs.knock_pending = action  # applied once the defender has shown its cards
        return
    if isinstance(action, DrawStock):
        hs.draw_pending = hand.next_stock_position
    io.apply(io.seat, action)
    io.after_move()


def unrevealed_keys(io: MoveIo) -> tuple[tuple[int, int], ...]:
    """Our keys for every card we hold that the peer cannot open yet."""
    hs = io.state()
    positions = sorted(io.position_of(c) for c in io.engine().cards(io.seat))
    pairs = tuple((p, hs.mine.position_keys[p]) for p in positions if p not in hs.keys_sent)
    hs.keys_sent.update(p for p, _ in pairs)
    return pairs
