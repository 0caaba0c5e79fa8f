"""The stage table of one peer's match (protocol.md §7): for each stage and each input —
a message of the peer, or a local action — the handler that takes it and the stages it
may lead to; the twin of client/web/src/protocol/session/table.ts.

What the peer owes (:func:`waiting_for`) and why the local player may not act
(:func:`refusal`) are read from the stage; an input the table has no row for is
refused here and nowhere else. The session's own endings (a rejected frame, a
timeout, an abandonment, another protocol version) stop the match in any stage.

``python -m gin.protocol.session.table protocol.md`` redraws protocol.md §7's diagram
from the table (tests/gin/protocol/test_session_table.py checks it is current).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Literal

from gin.engine.actions import Action
from gin.engine.errors import IllegalAction
from gin.protocol.records.records import SEATS
from gin.protocol.session import deal, moves, start
from gin.protocol.session.flow import OWES, MatchFlow, ProtocolFault, Stage
from gin.protocol.wire import channel as wire
from gin.protocol.wire.messages import MESSAGE_TYPES, MessageType, Owed

#: What the local player does: start the session, play a move, answer offered rules.
LocalAction = Literal["begin", "act", "accept", "decline"]
Handler = Callable[[MatchFlow, Any], Stage]
S = Stage

#: (stage, input) -> (handler, the stages it may lead to). ``abort`` rows are added below.
TABLE: dict[tuple[Stage, MessageType | LocalAction], tuple[Handler, frozenset[Stage]]] = {
    (S.NEW, "begin"): (start.begin, frozenset({S.WELCOME, S.HELLO})),
    (S.HELLO, "hello"): (start.on_hello, frozenset({S.START, S.RULES, S.FAILED})),
    (S.RULES, "accept"): (start.accept, frozenset({S.START})),
    (S.RULES, "decline"): (start.decline, frozenset({S.OVER, S.FAILED})),
    (S.WELCOME, "welcome"): (start.on_welcome, frozenset({S.COMMIT})),
    (S.START, "start"): (start.on_start, frozenset({S.COMMIT})),
    (S.COMMIT, "commit"): (deal.on_commit, frozenset({S.DECK})),
    (S.DECK, "deck"): (deal.on_deck, frozenset({S.DECK, S.DEAL})),
    (S.DEAL, "deal"): (moves.on_deal, frozenset({S.PLAY, S.MOVE})),
    (S.PLAY, "act"): (moves.play, frozenset({S.MOVE, S.PLAY, S.KEY, S.SHOW, S.SEED})),
    (S.MOVE, "move"): (moves.on_move, frozenset({S.MOVE, S.PLAY, S.SEED})),
    (S.KEY, "key"): (moves.on_key, frozenset({S.PLAY})),
    (S.SHOW, "show"): (moves.on_show, frozenset({S.MOVE, S.SEED})),
    (S.SEED, "seed"): (moves.on_seed, frozenset({S.COMMIT, S.OVER, S.FAILED})),
}
#: The stages a match can be in before it ends: the peer may abort in any of them.
LIVE = (S.HELLO, S.WELCOME, S.RULES, S.START, S.COMMIT, S.DECK, S.DEAL, S.PLAY, S.MOVE,
        S.KEY, S.SHOW, S.SEED)
TABLE.update({(stage, "abort"): (moves.on_abort, frozenset({S.FAILED})) for stage in LIVE})
# A host offering a rematch reads the guest's decline there: the series ends, no failure.
TABLE[S.WELCOME, "abort"] = (moves.on_abort, frozenset({S.OVER, S.FAILED}))

#: Why nothing can be accepted or declined outside S.RULES.
NOTHING_OFFERED = {"accept": "no rules are waiting to be accepted",
                   "decline": "no rules are waiting to be declined"}


def waiting_for(flow: MatchFlow) -> Owed | None:
    """The message type the peer owes now, or None (our move, or the match is over)."""
    return OWES[flow.stage]


def stage_refusal(flow: MatchFlow) -> str | None:
    """Why the local player may not move in this stage, or None."""
    if flow.over:
        return "the match is over"
    owed = OWES[flow.stage]
    if flow.hand is None or not flow.hand.dealt:
        return "the hand is not dealt yet"
    return None if owed is None else f"waiting for {SEATS[flow.peer]}'s {owed}"


def legal_actions(flow: MatchFlow) -> list[Action]:
    """The local player's legal actions; empty unless it is its move now."""
    if stage_refusal(flow) is not None:
        return []
    assert flow.match is not None
    return flow.match.legal_actions()


def refusal(flow: MatchFlow, action: Action) -> str | None:
    """Why the local player may not play ``action`` now, or None."""
    why = stage_refusal(flow)
    return why if why is not None else flow.engine().refusal(flow.seat, action)


def receive(flow: MatchFlow, msg: wire.Message) -> None:
    """One message of the peer: its row of the table, or a protocol error (field ``t``)."""
    peer = SEATS[flow.peer]
    if msg.type not in MESSAGE_TYPES:
        raise ProtocolFault(f"unknown message type {msg.type!r}", who=peer, field="t")
    row = TABLE.get((flow.stage, msg.type))
    if row is None:
        raise ProtocolFault(f"unexpected {msg.type!r} message while waiting for "
                            f"{OWES[flow.stage] or 'the local player'}", who=peer, field="t")
    _run(flow, row, msg)


def allows(flow: MatchFlow, given: MessageType | LocalAction) -> bool:
    """Whether this stage has a row for ``given``."""
    return (flow.stage, given) in TABLE


def local(flow: MatchFlow, action: LocalAction, arg: object = None) -> None:
    """A local action; IllegalAction when this stage has no row for it."""
    row = TABLE.get((flow.stage, action))
    if row is None:
        raise IllegalAction(NOTHING_OFFERED.get(action)
                            or f"{flow.role} cannot {action} now: {stage_refusal(flow)}")
    _run(flow, row, arg)


def _run(flow: MatchFlow, row: tuple[Handler, frozenset[Stage]], arg: object) -> None:
    handler, leads_to = row
    after = handler(flow, arg)
    assert after in leads_to, f"{handler.__name__} led {flow.stage} to {after}"
    flow.stage = after


# -- the drawing of protocol.md §7 ---------------------------------------------------------

BEGIN, END = "<!-- stage table: begin -->", "<!-- stage table: end -->"


def drawing() -> str:
    """The table as a Mermaid state diagram (``abort`` leads every live stage to failed)."""
    lines = ["```mermaid", "stateDiagram-v2", "    [*] --> new"]
    for (stage, given), (_, leads_to) in TABLE.items():
        if given == "abort":
            continue
        owner = "local" if given in NOTHING_OFFERED or given in ("begin", "act") else "peer"
        lines += [f"    {stage.value} --> {after.value}: {given} ({owner})"
                  for after in sorted(leads_to, key=list(Stage).index)]
    lines += ["    over --> [*]", "    failed --> [*]", "```"]
    return "\n".join(lines) + "\n"


def redraw(text: str) -> str:
    """``text`` (protocol.md) with the drawing between its markers replaced."""
    head, _, rest = text.partition(BEGIN + "\n")
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{drawing()}{END}{tail}"


if __name__ == "__main__":  # pragma: no cover - the script that redraws protocol.md
    with open(sys.argv[1], encoding="utf-8") as f:
        old = f.read()
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(redraw(old))
