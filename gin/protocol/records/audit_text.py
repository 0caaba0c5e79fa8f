"""gin audit's words (the twin of client/web/src/protocol/records/audit_text.ts): its exit
statuses, and a hand told line by line — each move, the lay-down, the result and the
scores — by :mod:`gin.protocol.records.audit` and the board's replay."""

from __future__ import annotations

from collections.abc import Iterator

from gin.engine.cards import Card, format_cards
from gin.engine.hand import Hand, dealt_positions
from gin.engine.melds import Meld
from gin.engine.observation import Event
from gin.engine.scoring import Outcome
from gin.protocol.records.records import SEATS, HandRecord, Score

VERIFIED, FAILED, NOT_A_RECORD, UNPROVEN = 0, 1, 2, 3
#: Each exit status and what it means; when the files given differ, the first of
#: 2, 1, 3, 0 that applies to any of them is the status.
EXIT_STATUSES = (
    (VERIFIED, "every record verified and everything shown is proven"),
    (FAILED, "a record failed its audit: a player cheated, the record contradicts "
             "itself (the finding says who is at fault), or the records of one invite link "
             "do not form one history (two first matches, or other players: at most one "
             "is the real match)"),
    (NOT_A_RECORD, "a file is missing, unreadable or not a hand record"),
    (UNPROVEN, "every record verified except what the records given cannot prove "
               "(the scores of a later hand without the hands before it, the match a "
               "rematch continues, or an abandonment: a player's signed word that its "
               "peer fell silent)"),
)

def scores_text(scores: tuple[int, int]) -> str:
    return f"host {scores[0]}, guest {scores[1]}"


def score_text(score: Score) -> str:
    if score.winner is None:
        return "a dead hand"
    return f"{SEATS[score.winner]} {score.points} by {score.kind.replace('_', ' ')}"


def tell(record: HandRecord, hand: Hand, deck: list[Card], unproven: bool) -> Iterator[str]:
    dealer = SEATS[record.dealer]
    yield (f"Hand {record.hand_number} of match {record.match_id.hex()} "
           f"({record.rules.name} rules); {dealer} deals and shuffles first")
    for seat in (1 - record.dealer, record.dealer):
        cards = sorted(deck[p] for p in dealt_positions(seat == record.dealer))
        yield f"  {SEATS[seat]} is dealt {format_cards(cards)}"
    yield f"  upcard {deck[20]}, knock limit {hand.knock_limit}"
    for n, event in enumerate(hand.events, 1):
        yield f"  {n:3}. {event_text(event)}"
    outcome = None if hand.result is None else hand.result.outcome
    if outcome is not None:
        yield from laid_down(outcome, SEATS[1 - _defender(hand)], SEATS[_defender(hand)])
    if hand.result is not None:
        yield f"  result: {score_text(Score.of(hand.result))}"
    yield (f"  match scores after the hand: {scores_text(record.scores)}"
           + (" (not verified: see below)" if unproven else ""))


def laid_down(outcome: Outcome, knocker: str, defender: str) -> Iterator[str]:
    """The knocker's layout and the defender's, a line each (a gin has no deadwood)."""
    def melds(ms: tuple[Meld, ...]) -> str:
        return " ".join("".join(map(str, m)) for m in ms) or "none"

    def deadwood(cards: tuple[Card, ...], points: int) -> str:
        return f"deadwood {format_cards(cards)} = {points}" if cards else "no deadwood"

    went = {"gin": "goes gin", "big_gin": "lays down big gin"}.get(outcome.kind)
    if went is None:
        yield (f"  {knocker} lays out {melds(outcome.knocker_melds)}, "
               f"{deadwood(outcome.knocker_deadwood_cards, outcome.knocker_deadwood)}")
    else:
        yield f"  {knocker} {went}: {melds(outcome.knocker_melds)}, no deadwood"
    laid = " ".join(f"{c}>{i}" for c, i in outcome.layoffs) or "nothing"
    yield (f"  {defender} lays off {laid}, melds {melds(outcome.defender_melds)}, "
           f"{deadwood(outcome.defender_deadwood_cards, outcome.defender_deadwood)}")


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


def event_text(event: Event) -> str:
    return f"{SEATS[event.player]} " + _VERBS[event.kind].format(card=event.card)
