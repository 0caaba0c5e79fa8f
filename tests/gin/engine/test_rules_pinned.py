"""Rules a mutation check found no test held, each pinned by a direct test of its own.

Each test names the rule it holds; each was seen to fail with the rule broken in
the engine (the mutations are listed in the commit that added this file).
"""

import pytest

from gin import (
    BigGin,
    Discard,
    DrawPile,
    DrawStock,
    Hand,
    IllegalAction,
    Knock,
    LayOff,
    MalformedInput,
    Match,
    Pass,
    Phase,
    best_defence_cards,
    parse_action,
    parse_cards,
    ruleset,
    settle,
    stacked_deck,
)
from gin.engine.cards import Card, cards_mask
from gin.engine.layoffs import check_defence

GIN_ON_TS = "2c 3c 4c 5d 5h 5s 7s 8s 9s Tc"  # with the upcard Ts: gin, throwing Tc
DEALER = "Ac Ad As 7h 8h 9h Th Kd Qh Jd"


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def deck(non_dealer: str, dealer: str, upcard: str) -> list[Card]:
    return stacked_deck(cards(non_dealer), cards(dealer), Card.parse(upcard))


# --- an ace is low: no lay-off wraps from king to ace --------------------------------


def test_an_ace_is_not_laid_off_above_a_king() -> None:
    best = best_defence_cards(cards("Ah 2d"), [tuple(cards("Jh Qh Kh"))])
    assert best.laid_off == () and best.deadwood == 1 + 2
    with pytest.raises(IllegalAction, match="does not fit"):
        check_defence(cards_mask(cards("Ah 2d")), (cards_mask(cards("Jh Qh Kh")),), (),
                      ((Card.parse("Ah").mask, 0),))


def test_a_king_is_not_laid_off_below_an_ace() -> None:
    best = best_defence_cards(cards("Kh 2d"), [tuple(cards("Ah 2h 3h"))])
    assert best.laid_off == () and best.deadwood == 10 + 2
    with pytest.raises(IllegalAction, match="does not fit"):
        check_defence(cards_mask(cards("Kh 2d")), (cards_mask(cards("Ah 2h 3h")),), (),
                      ((Card.parse("Kh").mask, 0),))


# --- a meld is three cards or more ----------------------------------------------------


@pytest.mark.parametrize("melds", ["2c3c4c / 5d5h5s / 7s8s", "2c3c4c / 5d5h / 7s8s9s"],
                         ids=["two-card run", "pair"])
def test_the_knocker_may_not_declare_two_cards_as_a_meld(melds: str) -> None:
    # Counted as a meld the two cards would bring the deadwood within the limit.
    hand = Hand(deck(GIN_ON_TS, DEALER, "Ah"), dealer=1)
    hand.apply(0, DrawPile())
    with pytest.raises(IllegalAction, match="is not a meld"):
        hand.apply(0, parse_action(f"knock Tc / {melds}"))
    assert hand.phase is Phase.DISCARD


@pytest.mark.parametrize("pair", ["Ac Ad", "7h 8h"], ids=["pair", "two-card run"])
def test_the_defender_may_not_lay_out_two_cards_as_a_meld(pair: str) -> None:
    hand = Hand(deck(GIN_ON_TS, "Ac Ad Qs 7h 8h 6d Th Kd Qh Jd", "Ah"), dealer=1)
    hand.apply(0, DrawPile())
    hand.apply(0, Knock(Card.parse("Tc")))
    assert hand.phase is Phase.LAYOFF
    with pytest.raises(IllegalAction, match="is not a meld"):
        hand.apply(1, LayOff(layoffs=(), melds=(tuple(cards(pair)),)))
    assert hand.phase is Phase.LAYOFF


def test_settle_refuses_a_declared_pair() -> None:
    with pytest.raises(MalformedInput, match="is not a meld"):
        settle(cards(GIN_ON_TS), cards(DEALER), knocker_melds=[cards("5d 5h")])


# --- undercuts ------------------------------------------------------------------------


def test_classic_undercut_pays_the_difference_and_ten() -> None:
    knocker = cards("Qs Qd Qh 5c 6c 7c 8c Ad 3s 4h")  # deadwood 8
    defender = cards("Qc 9c 2h 3d Js Jd Jh 4s 5s 6s")  # 5 after laying off Qc, 9c
    out = settle(knocker, defender, ruleset("classic"))
    assert (out.kind, out.winner, out.points) == ("undercut", "defender", 8 - 5 + 10)


def test_a_tie_is_an_undercut() -> None:
    knocker = cards("2c 3c 4c 5d 5h 5s 7s 8s 9s Tc")  # deadwood 10
    defender = cards("Jc Jd Jh Js 7h 8h 9h Th 4d 6d")  # deadwood 10, nothing lays off
    out = settle(knocker, defender)
    assert out.knocker_deadwood == out.defender_deadwood == 10
    assert (out.kind, out.winner, out.points) == ("undercut", "defender", 0 + 25)


# --- gin ------------------------------------------------------------------------------


def test_nothing_is_laid_off_on_gin_in_play() -> None:
    # Ac would go on 2c3c4c and 6s on 7s8s9sTs, but not against gin.
    hand = Hand(deck(GIN_ON_TS, "Ac Ad 7h 8h 9h Th Kd Qh Jd 6s", "Ts"), dealer=1)
    hand.apply(0, DrawPile())
    hand.apply(0, Knock(Card.parse("Tc")))
    assert hand.phase is Phase.OVER  # no lay-off phase at all
    result = hand.result
    assert result is not None and result.outcome is not None and result.kind == "gin"
    assert result.outcome.layoffs == ()
    assert result.outcome.defender_deadwood == 1 + 1 + 30 + 6
    assert result.points == 25 + 38
    with pytest.raises(IllegalAction, match="the hand is over"):
        hand.apply(1, LayOff())


ELEVEN = "2c 3c 4c 5c 6c 5d 5h 5s 7s 8s"  # with the upcard 9s: eleven cards melded


def test_big_gin_is_refused_when_the_rules_do_not_allow_it() -> None:
    hand = Hand(deck(ELEVEN, DEALER, "9s"), dealer=1)
    hand.apply(0, DrawPile())
    before = hand.to_dict()
    assert hand.refusal(0, BigGin()) is not None
    with pytest.raises(IllegalAction, match="big gin is not played under the standard rules"):
        hand.apply(0, BigGin())
    assert hand.to_dict() == before and hand.phase is Phase.DISCARD


def test_settle_refuses_eleven_cards_without_big_gin() -> None:
    knocker = cards(f"{ELEVEN} 9s")
    with pytest.raises(IllegalAction, match="eleven cards may only be laid down as big gin"):
        settle(knocker, cards(DEALER))
    big = ruleset("standard").with_options(big_gin_bonus=31)
    assert settle(knocker, cards(DEALER), big).points == 31 + 30


# --- the match's end and the deal -----------------------------------------------------


@pytest.mark.parametrize(("second_hand", "over"), [
    ("Ac Ad As 7h 8h 9h Th Kd 6d 4d", True),  # gin 25 + 20: 55 + 45 = 100
    ("Ac Ad As 7h 8h 9h Th Kd 6d 3d", False),  # gin 25 + 19: 55 + 44 = 99
], ids=["100 ends", "99 plays on"])
def test_a_match_ends_at_the_end_of_a_hand_reaching_100(second_hand: str, over: bool) -> None:
    match = Match(ruleset("standard"), first_dealer=1)
    match.deal(deck(GIN_ON_TS, DEALER, "Ts"))
    match.apply(0, DrawPile())
    match.apply(0, Knock(Card.parse("Tc")))
    assert match.scores == [55, 0] and not match.over
    match.deal(deck(second_hand, GIN_ON_TS, "Ts"))  # player 0 deals and holds the gin
    match.apply(1, Pass())
    match.apply(0, DrawPile())
    match.apply(0, Knock(Card.parse("Tc")))
    assert match.scores[0] == (100 if over else 99)
    assert match.over is over and match.needs_deal is not over


def play_to_a_dead_hand(match: Match) -> None:
    match.deal(deck(GIN_ON_TS, DEALER, "Kc"))
    match.apply(0 if match.dealer == 1 else 1, Pass())
    match.apply(match.dealer, Pass())
    hand = match.hand
    assert hand is not None
    while hand.phase is not Phase.OVER:
        player = hand.turn
        match.apply(player, DrawStock())
        drawn = hand.events[-1].card
        assert drawn is not None
        match.apply(player, Discard(drawn))
    assert hand.result is not None and hand.result.kind == "dead"


@pytest.mark.parametrize("winner_deals", [False, True])
def test_a_dead_hand_keeps_the_dealer(winner_deals: bool) -> None:
    match = Match(ruleset("standard").with_options(winner_deals=winner_deals), first_dealer=1)
    play_to_a_dead_hand(match)
    assert match.dealer == 1 and match.scores == [0, 0] and match.hands_won == [0, 0]


def test_the_pile_is_closed_after_both_pass_until_the_first_stock_draw() -> None:
    hand = Hand(deck(GIN_ON_TS, DEALER, "Kc"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    assert hand.upcard_closed and hand.legal_actions() == [DrawStock()]
    with pytest.raises(IllegalAction, match="both players passed the upcard"):
        hand.apply(0, DrawPile())
    hand.apply(0, DrawStock())
    assert not hand.upcard_closed
    hand.apply(0, Discard(Card.parse("Tc")))
    assert DrawPile() in hand.legal_actions()  # the dealer may take that discard
    hand.apply(1, DrawPile())
    assert hand.just_taken == Card.parse("Tc")


def test_oklahoma_ace_upcard_means_gin_only() -> None:
    oklahoma = ruleset("oklahoma")
    one = Hand(deck(GIN_ON_TS, DEALER, "Ah"), 1, oklahoma)  # knocking Tc leaves Ah: 1
    assert one.knock_limit == 0
    one.apply(0, DrawPile())
    assert not any(isinstance(a, Knock) for a in one.legal_actions())
    with pytest.raises(IllegalAction, match="the knock limit is 0"):
        one.apply(0, Knock(Card.parse("Tc")))
    # Ac 2c 3c 4c: gin on Tc
    gin = Hand(deck(GIN_ON_TS, "Ah Ad As 7h 8h 9h Th Kd Qh Jd", "Ac"), 1, oklahoma)
    gin.apply(0, DrawPile())
    gin.apply(0, Knock(Card.parse("Tc")))
    assert gin.result is not None and gin.result.kind == "gin"
