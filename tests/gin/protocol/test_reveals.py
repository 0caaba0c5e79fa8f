"""The keys each step of a hand reveals, replayed on stacked decks (gin.protocol.records.reveals).

The session's records are checked by the audit tests; these cover what random
play rarely reaches (big gin) with the exact positions the protocol sends.
"""

from gin import BigGin, Discard, DrawPile, DrawStock, Hand, Knock, LayOff, Pass, parse_cards
from gin.engine.actions import Action
from gin.engine.cards import Card
from gin.engine.hand import UPCARD_POSITION, dealt_positions, stacked_deck
from gin.engine.rules import STANDARD
from gin.protocol.records.records import Step
from gin.protocol.records.reveals import Reveals

NON_DEALER = "2c 3c 4c 5c 6c 5d 5h 5s 7s 8s"  # with the upcard 9s: eleven melded
DEALER = "Ac Ad As 7h 8h 9h Th Kd Qh Jd"


def keys(*positions: int) -> tuple[tuple[int, int], ...]:
    return tuple((p, 1) for p in positions)  # the values are the fair deal's to check


class Replay:
    """A hand and its Reveals, fed steps the way a record lists them."""

    def __init__(self, upcard: str, stock: str = "") -> None:
        deck = stacked_deck(parse_cards(NON_DEALER), parse_cards(DEALER), Card.parse(upcard),
                            parse_cards(stock))
        self.hand = Hand(deck, dealer=1, rules=STANDARD.with_options(big_gin_bonus=31))
        self.reveals = Reveals(self.hand)

    def step(self, seat: int, action: Action | None = None, *positions: int) -> str | None:
        step = Step(seat, action, keys(*positions))
        why = self.reveals.refusal(step)
        if why is None and action is not None:
            self.hand.apply(seat, action)
            self.reveals.applied(step)
        return why

    def deal(self) -> None:
        # Each seat sends its keys for the other's ten cards and the upcard.
        assert self.step(1, None, *dealt_positions(False), UPCARD_POSITION) is None
        assert self.step(0, None, *dealt_positions(True), UPCARD_POSITION) is None


def held(replay: Replay, seat: int) -> list[int]:
    return sorted(p for p in range(52) if replay.hand.card_at(p) in replay.hand.cards(seat))


def test_big_gin_reveals_every_card_not_yet_opened_then_the_defender_shows() -> None:
    r = Replay("9s")
    r.deal()
    assert r.step(0, DrawPile()) is None  # the upcard: both hold its keys already
    mine = [p for p in held(r, 0) if p != UPCARD_POSITION]
    assert len(mine) == 10
    assert r.step(0, BigGin(), *mine[:-1]) is not None  # one card kept hidden
    assert r.step(0, BigGin(), *mine) is None
    assert r.hand.result is not None and r.hand.result.kind == "big_gin"
    assert "show" in (r.reveals.missing() or "")
    assert r.step(1, None, *held(r, 1)) is None
    assert r.reveals.missing() is None


def test_stock_answers_and_discard_keys() -> None:
    r = Replay("Kc", stock="Qs Js Ts")
    r.deal()
    assert r.step(0, Pass()) is None and r.step(1, Pass()) is None
    assert r.step(0, DrawStock()) is None
    assert r.step(0, Discard(Card.parse("Qs"))) is not None  # the key answer comes first
    assert r.step(0, None, 21) is not None  # the drawer cannot answer itself
    assert r.step(1, None, 21) is None
    assert r.step(0, Discard(Card.parse("Qs"))) is not None  # its own key must come along
    assert r.step(0, Discard(Card.parse("Qs")), 21) is None
    assert r.step(1, DrawPile(), 21) is not None  # taking is public: no keys
    assert r.step(1, DrawPile()) is None
    kd = next(p for p in range(52) if r.hand.card_at(p) == Card.parse("Kd"))
    assert kd % 2 == 1  # a card dealt to the dealer: its own key was never sent
    assert r.step(1, Discard(Card.parse("Kd"))) is not None
    assert r.step(1, Discard(Card.parse("Kd")), kd) is None
    assert r.step(0, DrawPile()) is None
    eight = next(p for p in range(52) if r.hand.card_at(p) == Card.parse("8s"))
    assert r.step(0, Discard(Card.parse("8s")), eight) is None
    assert r.step(1, DrawStock()) is None and r.step(0, None, 22) is None
    assert r.step(1, Discard(Card.parse("Js")), 22) is None
    assert r.step(0, DrawStock()) is None and r.step(1, None, 23) is None
    # The non-dealer gave its key for Kd's position at the deal: none goes again.
    assert r.step(0, Discard(Card.parse("Kd")), kd) is not None
    assert r.step(0, Discard(Card.parse("Kd"))) is None


def test_a_knock_carries_exactly_the_unopened_cards() -> None:
    r = Replay("Ah")  # 2c-6c run, 5d5h5s, loose 7s 8s Ah: knock 8s leaves 7s + Ah = 8
    r.deal()
    assert r.step(0, DrawPile()) is None
    mine = [p for p in held(r, 0) if p != UPCARD_POSITION]
    assert r.step(0, Knock(Card.parse("8s")), *mine, UPCARD_POSITION) is not None
    assert r.step(0, Knock(Card.parse("8s")), *mine) is None
    assert r.step(0, LayOff()) is not None  # the defender's show comes first
    assert r.step(1, None, *held(r, 1)[:-1]) is not None
    assert r.step(1, None, *held(r, 1)) is None
    assert r.step(1, LayOff()) is None and r.hand.result is not None
    assert r.reveals.missing() is None
