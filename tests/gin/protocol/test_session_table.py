"""The stage table (gin/protocol/session/table.py): it takes every message type of the
vocabulary and names no other, protocol.md §7 holds its current drawing, and the
stored stage says what the peer owes exactly as the match's state does, move by move."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from gin.engine.observation import Phase
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.session.flow import MatchFlow, Stage
from gin.protocol.session.session import Session, pump
from gin.protocol.session.table import LIVE, OWES, TABLE, redraw
from gin.protocol.wire.messages import MESSAGE_TYPES, OWED_TYPES

PROTOCOL = Path(__file__).resolve().parents[3] / "protocol.md"
LOCAL = {"begin", "act", "accept", "decline"}


def test_protocol_md_holds_the_current_drawing_of_the_table() -> None:
    text = PROTOCOL.read_text(encoding="utf-8")
    assert redraw(text) == text, "run: python -m gin.protocol.session.table protocol.md"


def test_the_table_takes_every_message_type_and_names_no_other() -> None:
    inputs = {given for _, given in TABLE}
    assert inputs - LOCAL == set(MESSAGE_TYPES)
    assert {owed for owed in OWES.values() if owed is not None} == set(OWED_TYPES)
    assert set(OWES) == set(Stage)
    for stage in LIVE:  # the peer may abort in every stage before the end
        assert (stage, "abort") in TABLE
    for (stage, given), _ in TABLE.items():  # a message is taken only where it is owed
        assert given in LOCAL or given == "abort" or OWES[stage] == given, (stage, given)


def _owed_by_state(flow: MatchFlow) -> str | None:
    """What the peer owes, read from the match's state (how the session said it before
    the stage was explicit)."""
    if flow.over:
        return None
    if flow.match is None:
        if flow.role == "host":
            return "welcome"
        if flow.offered is not None:
            return None
        return "hello" if flow.peer_coin is None else "start"
    hs = flow.state()
    if hs.role.other not in hs.commits:
        return "commit"
    if hs.expected_deck() is not None:
        return "deck"
    if not hs.dealt:
        return "deal"
    hand = flow.engine()
    if hand.phase is Phase.OVER:
        return "seed"
    if hs.draw_pending is not None:
        return "key"
    if hs.knock_pending is not None:
        return "show"
    return "move" if hand.turn == flow.peer else None


def test_the_stage_says_what_the_state_says_after_every_input() -> None:
    def fresh(label: str) -> random.Random:
        return random.Random(label)

    rngs = [fresh("host"), fresh("guest")]
    host = Session("host", bytes(32), replace(STANDARD, name="short", target=25),
                   lambda n: rngs[0].randbytes(n), b"h" * 32)
    guest = Session("guest", bytes(32), None, lambda n: rngs[1].randbytes(n), b"g" * 32)
    players = [get("normal", random.Random(i)) for i in (0, 1)]
    seen: set[Stage] = set()

    def check() -> None:
        for s in (host, guest):
            flow = s._flow
            seen.add(flow.stage)
            assert s.waiting_for() == _owed_by_state(flow), flow.stage

    while True:
        frames = [(f, guest) for f in host.data_to_send()] + [
            (f, host) for f in guest.data_to_send()]
        for frame, target in frames:
            target.receive(frame)
            check()
        if frames:
            continue
        if guest.rules_offered is not None:  # custom rules: the guest's player accepts
            guest.accept_rules()
            check()
            continue
        mover = next((s for s in (host, guest) if s.legal_actions()), None)
        if mover is None:
            break
        observation = mover.observation()
        assert observation is not None
        mover.act(players[mover.seat].choose(observation, mover.legal_actions()))
        check()
    assert host.over and guest.over and host.failure is None
    assert pump(host, guest) == 0
    assert seen == set(Stage) - {Stage.NEW, Stage.FAILED}, seen  # every stage of a match
