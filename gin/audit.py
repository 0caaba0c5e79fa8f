"""Re-verify a hand record on its own, and tell the hand as a readable replay.

The checks (``protocol.md`` §9): each seed opens its commitment; each deck
message equals what its sender's seed makes of the message it received; every
key revealed is the one its revealer's seed derives; every action replays
legally through the rules engine on the deck the seeds define; the replayed
score equals the recorded one. A failure names the seat at fault (``host`` or
``guest``; ``record`` when the record contradicts itself) and where.
Pure: the session runs the same function at every hand end.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gin import fairdeal as fd
from gin.cards import Card, format_cards
from gin.errors import IllegalAction
from gin.hand import Event, Hand, dealt_positions
from gin.records import SEATS, HandRecord, Score


@dataclass(frozen=True, slots=True)
class Finding:
    """One failed check: ``who`` is at fault ("host", "guest" or "record")."""

    who: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: {self.detail} (at fault: {self.who})"


@dataclass(frozen=True, slots=True)
class AuditResult:
    findings: tuple[Finding, ...]
    replay: tuple[str, ...]  # the hand told line by line (empty if no deck)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def at_fault(self) -> frozenset[str]:
        return frozenset(f.who for f in self.findings)


def audit_record(record: HandRecord, trust_seat: int | None = None) -> AuditResult:
    """Check ``record`` completely. ``trust_seat``: a player auditing its own hand
    skips recomputing its own deck messages (see :func:`gin.fairdeal.audit_hand`)."""
    where_key = _key_steps(record)
    report = fd.audit_hand(
        match_id=record.match_id,
        hand_number=record.hand_number,
        first_seed=record.seeds[0],
        second_seed=record.seeds[1],
        first_commitment=record.commitments[0],
        second_commitment=record.commitments[1],
        message1=record.messages[0],
        message2=record.messages[1],
        message3=record.messages[2],
        revealed_keys=[(record.role_of(s.seat), pos, key)
                       for s in record.steps for pos, key in s.keys],
        trust=None if trust_seat is None else record.role_of(trust_seat),
    )
    findings = [
        Finding(SEATS[record.seat_of(d.role)], _where(d, where_key), d.detail)
        for d in report.deviations
    ]
    if report.deck is None:
        return AuditResult(tuple(findings), ())
    deck = [Card.from_index(c) for c in report.deck]
    hand, replay_findings = _replay(record, deck)
    # With a deviating deck the hand was played on other cards: a replay failure
    # would then blame whoever met the difference first, so only the deck counts.
    if not findings:
        findings += replay_findings
    return AuditResult(tuple(findings), tuple(_tell(record, hand, deck)))


def _where(d: fd.Deviation, key_steps: dict[tuple[fd.Role, int | None], str]) -> str:
    plain = d.field if d.position is None else f"{d.field}[{d.position}]"
    return key_steps.get((d.role, d.position), plain) if d.field == "key" else plain


def _key_steps(record: HandRecord) -> dict[tuple[fd.Role, int | None], str]:
    """Where each revealed key first appears, so a bad key names its step."""
    out: dict[tuple[fd.Role, int | None], str] = {}
    for i, step in enumerate(record.steps):
        for j, (pos, _) in enumerate(step.keys):
            out.setdefault((record.role_of(step.seat), pos), f"steps[{i}].keys[{j}] (key[{pos}])")
    return out


def _replay(record: HandRecord, deck: list[Card]) -> tuple[Hand, list[Finding]]:
    hand = Hand(deck, record.dealer, record.rules)
    for i, step in enumerate(record.steps):
        if step.action is None:
            continue
        try:
            hand.apply(step.seat, step.action)
        except IllegalAction as exc:
            return hand, [Finding(SEATS[step.seat], f"steps[{i}]", str(exc))]
    if hand.result is None:
        return hand, [Finding("record", "steps", "the hand is not over after the last step")]
    replayed = Score.of(hand.result)
    if replayed != record.score:
        return hand, [Finding("record", "result",
                              f"recorded {_score_text(record.score)}, "
                              f"the replay gives {_score_text(replayed)}")]
    return hand, []


def _score_text(score: Score) -> str:
    if score.winner is None:
        return "a dead hand"
    return f"{SEATS[score.winner]} {score.points} by {score.kind.replace('_', ' ')}"


def _tell(record: HandRecord, hand: Hand, deck: list[Card]) -> Iterator[str]:
    dealer = SEATS[record.dealer]
    yield (f"Hand {record.hand_number} of match {record.match_id.hex()} "
           f"({record.rules.name} rules); {dealer} deals and shuffles first")
    for seat in (1 - record.dealer, record.dealer):
        cards = sorted(deck[p] for p in dealt_positions(seat == record.dealer))
        yield f"  {SEATS[seat]} is dealt {format_cards(cards)}"
    yield f"  upcard {deck[20]}, knock limit {hand.knock_limit}"
    for n, event in enumerate(hand.events, 1):
        yield f"  {n:3}. {_event_text(event)}"
    outcome = None if hand.result is None else hand.result.outcome
    if outcome is not None:
        knocker = SEATS[1 - _defender(hand)]
        melds = " ".join("".join(map(str, m)) for m in outcome.knocker_melds) or "none"
        loose = format_cards(outcome.knocker_deadwood_cards) or "-"
        yield f"  {knocker} lays out {melds}, deadwood {loose} = {outcome.knocker_deadwood}"
        defender = SEATS[_defender(hand)]
        laid = " ".join(f"{c}>{i}" for c, i in outcome.layoffs) or "nothing"
        melds = " ".join("".join(map(str, m)) for m in outcome.defender_melds) or "none"
        yield (f"  {defender} lays off {laid}, melds {melds}, deadwood "
               f"{format_cards(outcome.defender_deadwood_cards) or '-'} = "
               f"{outcome.defender_deadwood}")
    if hand.result is not None:
        yield f"  result: {_score_text(Score.of(hand.result))}"
    yield f"  match scores after the hand: host {record.scores[0]}, guest {record.scores[1]}"


def _defender(hand: Hand) -> int:
    assert hand.result is not None and hand.result.knocker is not None
    return 1 - hand.result.knocker


_VERBS = {
    "pass": "passes the upcard",
    "stock": "draws {card} from the stock",
    "take": "takes {card}",
    "discard": "discards {card}",
    "knock": "knocks, discarding {card} face down",
    "biggin": "lays down big gin",
    "layoff": "answers the knock",
    "dead": "leaves too few cards in the stock: the hand is dead",
}


def _event_text(event: Event) -> str:
    return f"{SEATS[event.player]} " + _VERBS[event.kind].format(card=event.card)
