"""One hand's fair deal before play (protocol.md §7.2, §7.3): the commitments, the
three deck messages, the shuffle proof and this side's deal — the twin of
client/web/src/protocol/session_deal.ts. Each handler takes the hand's
:class:`~gin.protocol.session_hand.HandState`, the peer's message and what it
needs of the match flow (:class:`DealIo`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from gin.engine.errors import PeerFault
from gin.engine.hand import UPCARD_POSITION, dealt_positions
from gin.protocol import ecc, wire
from gin.protocol import fairdeal as fd
from gin.protocol import shuffle_proof as sp
from gin.protocol.records import Step
from gin.protocol.session_hand import HandState

KEY_BYTES = 32


def key_bytes(key: int) -> bytes:
    """A 32-byte key as it travels."""
    return key.to_bytes(KEY_BYTES, "big")


class DealIo(Protocol):
    """What the deal's handlers need of the match flow."""

    @property
    def seat(self) -> int: ...

    @property
    def peer(self) -> int: ...

    def send(self, msg_type: str, fields: Mapping[str, object]) -> None: ...

    def random(self, n: int) -> bytes: ...

    def hand_fields(self, msg: wire.Message, *names: str) -> None:
        """Schema of a hand message: only ``h`` and ``names``, and ``h`` the hand in play."""

    def protocol(self, message: str, field: str) -> PeerFault: ...

    def cheat(self, message: str, field: str) -> PeerFault: ...


def on_commit(hs: HandState, msg: wire.Message, io: DealIo) -> None:
    """The peer's commitment; the first shuffler then sends message 1."""
    io.hand_fields(msg, "c")
    hs.commits[hs.role.other] = msg.blob("c", size=32)
    if hs.role is fd.Role.FIRST:  # commitments exchanged: the first shuffle may go
        message1 = fd.build_message1(hs.mine)
        hs.messages[0] = message1
        io.send("deck", {"h": hs.number, "n": 1, "deck": list(message1)})


def on_deck(hs: HandState, msg: wire.Message, io: DealIo) -> None:
    """A deck message, checked (§8.6); the second answers message 1 with message 2 and
    its shadows, and deals on message 3."""
    io.hand_fields(msg, "n", "deck")
    n = msg.integer("n", low=1, high=3)
    if n != hs.expected_deck():
        raise io.protocol(f"deck message {n} while waiting for message {hs.expected_deck()}",
                          "deck.n")
    entries = msg.blobs("deck", min_len=fd.DECK_SIZE, max_len=fd.DECK_SIZE, size=32)
    try:
        deck = fd.validate_message(list(entries), f"message{n}")
    except fd.MalformedDeck as exc:
        where = exc.field if exc.position is None else f"{exc.field}[{exc.position}]"
        raise io.cheat(str(exc), where) from None
    hs.messages[n - 1] = deck
    if n == 1:  # the second shuffle, and the shadows that prove it (§8.9)
        message2 = fd.build_message2(hs.mine, deck)
        hs.messages[1] = message2
        io.send("deck", {"h": hs.number, "n": 2, "deck": list(message2)})
        shadows = sp.shadows(hs.mine, deck)
        io.send("shuffle", {"h": hs.number, "s": [x for s in shadows for x in s]})
    elif n == 3:
        _send_deal(hs, io)


def on_shuffle(hs: HandState, msg: wire.Message, io: DealIo) -> None:
    """The second's shadows: the first draws its challenge and sends message 3."""
    io.hand_fields(msg, "s")
    size = sp.ROUNDS * fd.DECK_SIZE
    flat = msg.blobs("s", min_len=size, max_len=size, size=ecc.COORD_BYTES)
    hs.shadows = tuple(tuple(flat[r * fd.DECK_SIZE:(r + 1) * fd.DECK_SIZE])
                       for r in range(sp.ROUNDS))
    hs.challenge = int.from_bytes(io.random(1), "big") % (1 << sp.ROUNDS)
    io.send("challenge", {"h": hs.number, "c": hs.challenge})
    m2 = hs.messages[1]
    assert m2 is not None
    message3 = fd.build_message3(hs.mine, m2)
    hs.messages[2] = message3
    io.send("deck", {"h": hs.number, "n": 3, "deck": list(message3)})


def on_challenge(hs: HandState, msg: wire.Message, io: DealIo) -> None:
    """The first's challenge: the second opens the rounds it names."""
    io.hand_fields(msg, "c")
    hs.challenge = msg.integer("c", low=0, high=(1 << sp.ROUNDS) - 1)
    openings = sp.open_rounds(hs.mine, hs.challenge)
    io.send("proof", {
        "h": hs.number,
        "seeds": [o.seed for o in openings if o.seed is not None],
        "tau": [i for o in openings for i in o.tau],
        "keys": [key_bytes(k) for o in openings for k in o.keys]})


def on_proof(hs: HandState, msg: wire.Message, io: DealIo) -> None:
    """The second's openings, checked round by round (§8.9); then the first deals."""
    io.hand_fields(msg, "seeds", "tau", "keys")
    assert hs.challenge is not None and hs.shadows is not None
    ones = bin(hs.challenge).count("1")
    seeds = iter(msg.blobs("seeds", min_len=sp.ROUNDS - ones, max_len=sp.ROUNDS - ones,
                           size=fd.SEED_BYTES))
    size = ones * fd.DECK_SIZE
    taus = msg.integers("tau", min_len=size, max_len=size, low=0, high=fd.DECK_SIZE - 1)
    keys = msg.blobs("keys", min_len=size, max_len=size, size=KEY_BYTES)
    m1, m2, _ = hs.messages
    assert m1 is not None and m2 is not None
    opened = 0
    for r in range(sp.ROUNDS):
        bit = hs.challenge >> r & 1
        if bit:
            part = slice(opened * fd.DECK_SIZE, (opened + 1) * fd.DECK_SIZE)
            opening = sp.Opening(tau=taus[part], keys=tuple(
                int.from_bytes(k, "big") for k in keys[part]))
            opened += 1
        else:
            opening = sp.Opening(seed=next(seeds))
        why = sp.check_round(m1, m2, hs.shadows[r], bit, opening)
        if why is not None:
            raise io.cheat(f"proof[{r}]: message 2 is not proven a shuffle of message 1: {why}",
                           f"proof[{r}]")
    hs.shuffle_proven = True
    _send_deal(hs, io)


def _send_deal(hs: HandState, io: DealIo) -> None:
    """Our keys for the peer's ten dealt positions and the upcard (§7.3)."""
    positions = [*dealt_positions(io.peer == hs.dealer), UPCARD_POSITION]
    keys = [hs.mine.position_keys[p] for p in positions]
    hs.keys_sent.update(positions)
    hs.steps.append(Step(io.seat, None, tuple(zip(positions, keys, strict=True))))
    io.send("deal", {"h": hs.number, "keys": [key_bytes(k) for k in keys]})
