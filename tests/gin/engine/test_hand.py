"""The hand and match state machines: every rule of play in the seeds."""

import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    parse_action,
    parse_cards,
    ruleset,
    shuffled_deck,
    stacked_deck,
)
from gin.engine.actions import Action
from gin.engine.cards import DECK, Card, format_cards
from gin.engine.observation import Event
from gin.engine.rules import OKLAHOMA, STANDARD, Ruleset
from gin.players import get

NON_DEALER = "2c 3c 4c 5d 5h 5s 7s 8s 9s Tc"  # deadwood 10 as dealt
DEALER = "Ac Ad As 7h 8h 9h Th Kd Qh Jd"


def deck(upcard: str = "Kc", stock: str = "") -> list[Card]:
    return stacked_deck(parse_cards(NON_DEALER), parse_cards(DEALER), Card.parse(upcard),
                        parse_cards(stock))


def test_deal_gives_ten_each_upcard_and_31_in_stock() -> None:
    hand = Hand(deck(), dealer=1)
    assert format_cards(hand.cards(0)) == format_cards(sorted(parse_cards(NON_DEALER),
                                                               key=lambda c: c.index))
    assert len(hand.cards(1)) == 10
    assert hand.pile == (Card.parse("Kc"),)
    assert hand.stock_count == 31
    assert hand.phase is Phase.UPCARD and hand.turn == 0  # the non-dealer is offered first


def test_upcard_taken_by_non_dealer() -> None:
    hand = Hand(deck(), dealer=1)
    hand.apply(0, DrawPile())
    assert hand.phase is Phase.DISCARD and hand.turn == 0
    assert hand.just_taken == Card.parse("Kc")


def test_upcard_passed_then_taken_by_dealer() -> None:
    hand = Hand(deck(), dealer=1)
    hand.apply(0, Pass())
    assert hand.turn == 1 and hand.phase is Phase.UPCARD
    hand.apply(1, DrawPile())
    assert hand.phase is Phase.DISCARD and hand.turn == 1
    hand.apply(1, Discard(Card.parse("Kd")))
    assert hand.turn == 0 and hand.phase is Phase.DRAW  # the non-dealer is next


def test_both_pass_then_non_dealer_must_draw_from_stock() -> None:
    hand = Hand(deck(stock="6d"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    assert hand.turn == 0 and hand.phase is Phase.DRAW
    assert hand.legal_actions() == [DrawStock()]
    with pytest.raises(IllegalAction, match="both players passed the upcard"):
        hand.apply(0, DrawPile())
    hand.apply(0, DrawStock())
    assert Card.parse("6d") in hand.cards(0)
    assert hand.stock_count == 30


def test_card_just_taken_cannot_be_thrown_back() -> None:
    hand = Hand(deck(), dealer=1)
    hand.apply(0, DrawPile())
    before = hand.to_dict()
    with pytest.raises(IllegalAction) as info:
        hand.apply(0, Discard(Card.parse("Kc")))
    message = str(info.value)
    assert "player 0 cannot discard Kc in the discard phase" in message
    assert "just taken from the pile" in message
    assert hand.to_dict() == before  # state unchanged
    assert Discard(Card.parse("Kc")) not in hand.legal_actions()
    hand.apply(0, Discard(Card.parse("Tc")))
    assert hand.just_taken is None


def test_illegal_action_names_action_player_and_phase() -> None:
    hand = Hand(deck(), dealer=1)
    with pytest.raises(IllegalAction, match=r"player 1 cannot take in the upcard phase: "
                                            r"it is player 0's turn"):
        hand.apply(1, DrawPile())
    with pytest.raises(IllegalAction, match="draw a card first"):
        hand.apply(0, Discard(Card.parse("2c")))


def test_a_lay_off_with_no_knock_says_what_the_player_can_do_now() -> None:
    # Issue 21 item 13: it said only "there is no knock to answer".
    hand = Hand(deck(stock="6d"), dealer=1)
    said = "nobody has knocked, so there is nothing to lay off: "
    assert hand.refusal(0, LayOff()) == said + "take the upcard or pass"
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    assert hand.refusal(0, LayOff()) == said + "draw from the stock"
    hand.apply(0, DrawStock())
    assert hand.refusal(0, LayOff()) == \
        said + "throw a card, or knock if your loose cards are few enough"
    hand.apply(0, Discard(Card.parse("6d")))
    assert hand.refusal(1, LayOff()) == said + "draw from the stock or take the discard"


def test_knock_with_layoffs_through_the_hand() -> None:
    # Non-dealer takes the upcard Ah and knocks on Tc: deadwood 1 (Ah).
    hand = Hand(deck(upcard="Ah"), dealer=1)
    hand.apply(0, DrawPile())
    assert Knock(Card.parse("Tc")) in hand.legal_actions()
    hand.apply(0, Knock(Card.parse("Tc")))
    assert hand.phase is Phase.LAYOFF and hand.turn == 1
    hand.apply(1, LayOff())
    result = hand.result
    assert result is not None and result.outcome is not None
    # Dealer: Ac Ad As (Ah was taken: no lay-off), 7h8h9hTh run; Kd Qh Jd = 30 left.
    assert result.kind == "knock" and result.winner == 0
    assert result.points == 30 - 1


def test_the_knockers_hand_is_face_up_for_the_defender_while_laying_off() -> None:
    hand = Hand(deck(upcard="Ah"), dealer=1)
    hand.apply(0, DrawPile())
    before = hand.observation(1)
    assert before.opponent_hand is None  # nothing of the knocker's shows before the knock
    hand.apply(0, Knock(Card.parse("Tc")))
    defender, knocker = hand.observation(1), hand.observation(0)
    assert defender.phase is Phase.LAYOFF
    # The defender sees the knocker's whole hand (its melds and its loose Ah)...
    assert defender.opponent_hand is not None
    assert set(defender.opponent_hand) == set(hand.observation(0).hand)
    assert Card.parse("Ah") in defender.opponent_hand
    assert defender.knock_melds is not None
    assert Card.parse("Ah") not in {c for m in defender.knock_melds for c in m}
    # ...but the knocker does not see the defender's until the hand is over.
    assert knocker.opponent_hand is None
    hand.apply(1, LayOff())
    assert hand.observation(0).opponent_hand is not None


def test_knock_refused_over_the_limit() -> None:
    hand = Hand(deck(upcard="Qc"), dealer=1)
    hand.apply(0, DrawPile())
    with pytest.raises(IllegalAction, match="leaves 27 deadwood; the knock limit is 10"):
        hand.apply(0, Knock(Card.parse("2c")))


def test_gin_ends_the_hand_at_once() -> None:
    hand = Hand(deck(upcard="Ts"), dealer=1)  # 7s..Ts run, Tc is the discard: gin
    hand.apply(0, DrawPile())
    hand.apply(0, Knock(Card.parse("Tc")))
    assert hand.phase is Phase.OVER
    assert hand.result is not None and hand.result.kind == "gin"
    assert hand.result.points == 25 + 30


def test_declared_melds_may_be_worse_than_best() -> None:
    hand = Hand(deck(upcard="Ts"), dealer=1)
    hand.apply(0, DrawPile())
    action = parse_action("knock Tc / 2c3c4c / 5d5h5s / 7s8s9s")  # leaves Ts: 10
    hand.apply(0, action)
    assert hand.phase is Phase.LAYOFF
    hand.apply(1, LayOff())
    assert hand.result is not None and hand.result.outcome is not None
    assert hand.result.outcome.knocker_deadwood == 10


def test_dead_hand_when_a_discard_leaves_two_in_stock_and_same_dealer_deals() -> None:
    match = Match(ruleset("standard"), first_dealer=1)
    hand = match.deal(deck())
    match.apply(0, Pass())
    match.apply(1, Pass())
    while match.hand is hand and hand.phase is not Phase.OVER:
        player = hand.turn
        match.apply(player, DrawStock())
        drawn = hand.events[-1].card
        assert drawn is not None
        match.apply(player, Discard(drawn))
    assert hand.result is not None and hand.result.kind == "dead"
    assert hand.stock_count == 2
    assert match.scores == [0, 0] and match.hands_won == [0, 0]
    assert match.dealer == 1  # the same dealer deals again
    match.deal(deck())
    assert match.hand is not None and match.hand.dealer == 1


def test_knock_is_allowed_with_two_left_in_stock() -> None:
    # Draw down to three cards in stock, then the last draw may knock instead.
    hand = Hand(deck(), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    while hand.stock_count > 3:
        player = hand.turn
        hand.apply(player, DrawStock())
        drawn = hand.events[-1].card
        assert drawn is not None
        hand.apply(player, Discard(drawn))
    player = hand.turn
    hand.apply(player, DrawStock())
    assert hand.stock_count == 2
    knocks = [a for a in hand.legal_actions() if isinstance(a, Knock)]
    if player == 0:
        assert knocks  # the non-dealer holds deadwood 10 plus the drawn card


def test_dealer_alternates_after_a_scored_hand() -> None:
    match = Match(ruleset("standard"), first_dealer=1)
    match.deal(deck(upcard="Ts"))
    match.apply(0, DrawPile())
    match.apply(0, Knock(Card.parse("Tc")))
    assert match.scores == [55, 0] and match.hands_won == [1, 0]
    assert match.dealer == 0
    winner_deals = Match(ruleset("standard").with_options(winner_deals=True), first_dealer=1)
    winner_deals.deal(deck(upcard="Ts"))
    winner_deals.apply(0, DrawPile())
    winner_deals.apply(0, Knock(Card.parse("Tc")))
    assert winner_deals.dealer == 0


def test_match_ends_with_bonuses_and_shutout() -> None:
    match = Match(ruleset("standard"), first_dealer=1)
    gin, other = parse_cards(NON_DEALER), parse_cards(DEALER)
    match.deal(stacked_deck(gin, other, Card.parse("Ts")))
    match.apply(0, DrawPile())  # the non-dealer takes the upcard for gin: 25 + 30
    match.apply(0, Knock(Card.parse("Tc")))
    assert match.dealer == 0 and not match.over
    match.deal(stacked_deck(other, gin, Card.parse("Ts")))
    match.apply(1, Pass())
    match.apply(0, DrawPile())  # now the dealer takes it
    match.apply(0, Knock(Card.parse("Tc")))
    assert match.over and match.totals is not None
    totals = match.totals
    assert totals.points == (110, 0) and totals.hands_won == (2, 0)
    assert totals.shutout and totals.game_bonus == (200, 0)
    assert totals.totals == (110 + 200 + 2 * 25, 0)
    with pytest.raises(IllegalAction, match="the match is over"):
        match.deal(deck())


def test_oklahoma_knock_limit_is_the_upcard_and_ace_means_gin_only() -> None:
    assert Hand(deck(upcard="7d"), 1, ruleset("oklahoma")).knock_limit == 7
    assert Hand(deck(upcard="Kc"), 1, ruleset("oklahoma")).knock_limit == 10
    ace = Hand(deck(upcard="Ah"), 1, ruleset("oklahoma"))
    assert ace.knock_limit == 0
    ace.apply(0, DrawPile())
    with pytest.raises(IllegalAction, match="the knock limit is 0"):
        ace.apply(0, Knock(Card.parse("Tc")))


def test_big_gin_only_when_the_ruleset_allows() -> None:
    eleven = "2c 3c 4c 5c 6c 5d 5h 5s 7s 8s"
    d = stacked_deck(parse_cards(eleven), parse_cards(DEALER), Card.parse("9s"))
    plain = Hand(d, 1)
    plain.apply(0, DrawPile())
    assert BigGin() not in plain.legal_actions()
    big = Hand(d, 1, ruleset("standard").with_options(big_gin_bonus=31))
    big.apply(0, DrawPile())
    assert BigGin() in big.legal_actions()
    big.apply(0, BigGin())
    assert big.result is not None and big.result.kind == "big_gin"
    assert big.result.points == 31 + 30


def test_big_gin_needs_every_card_revealed_like_a_knock() -> None:
    eleven = parse_cards("2c 3c 4c 5c 6c 5d 5h 5s 7s 8s")
    full = stacked_deck(eleven, parse_cards(DEALER), Card.parse("9s"))
    online: list[Card | None] = list(full)
    online[0] = None  # a card the other peer has not been shown
    hand = Hand(online, 1, ruleset("standard").with_options(big_gin_bonus=31))
    hand.apply(0, DrawPile())
    with pytest.raises(IllegalAction, match="cards must all be revealed"):
        hand.apply(0, BigGin())
    hand.reveal(0, full[0])
    hand.apply(0, BigGin())
    assert hand.result is not None and hand.result.kind == "big_gin"


def test_observation_hides_what_the_player_may_not_see() -> None:
    hand = Hand(deck(stock="6d 9d"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    hand.apply(0, DrawStock())
    theirs = hand.observation(1)
    assert theirs.history[-1].kind == "stock" and theirs.history[-1].card is None
    assert hand.observation(0).history[-1].card == Card.parse("6d")
    assert theirs.opponent_hand is None
    assert theirs.opponent_card_count == 11
    assert Card.parse("6d") not in theirs.hand
    hand.apply(0, Discard(Card.parse("Tc")))
    hand.apply(1, DrawPile())
    mine = hand.observation(0)
    assert mine.opponent_known == (Card.parse("Tc"),)


def test_hand_and_match_restore_exactly_through_msgpack() -> None:
    rng = random.Random(7)
    match = Match(ruleset("classic"), first_dealer=0)
    for _ in range(3):
        if match.over:
            break
        match.deal(shuffled_deck(rng))
        while match.hand is not None and match.hand.result is None:
            match.apply(match.turn, rng.choice(match.legal_actions()))
    match.deal(shuffled_deck(rng)) if not match.over else None
    data = msgpack.unpackb(msgpack.packb(match.to_dict()))
    restored = Match.from_dict(data)
    assert restored.to_dict() == match.to_dict()
    assert restored.scores == match.scores and restored.dealer == match.dealer


def test_corrupt_saved_hand_is_a_clear_error() -> None:
    data = Hand(deck(), 1).to_dict()
    data["actions"] = [[1, "take"]]
    with pytest.raises(MalformedInput, match="replays an illegal action"):
        Hand.from_dict(data)
    with pytest.raises(MalformedInput, match="saved hand is corrupt"):
        Hand.from_dict({"deck": []})


@pytest.mark.parametrize(
    "text",
    ["pass", "stock", "take", "discard 7h", "knock Tc", "knock Tc / 2c3c4c / 5d5h5s",
     "biggin", "layoff", "layoff 8h>0 9h>0 / 2c3c4c", "layoff /"],
)
def test_action_text_round_trips(text: str) -> None:
    action = parse_action(text)
    assert parse_action(str(action)) == action


def test_bad_action_text_names_it() -> None:
    with pytest.raises(MalformedInput, match="action 'discard 7x'"):
        parse_action("discard 7x")
    with pytest.raises(MalformedInput, match="action 'fold'"):
        parse_action("fold")


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["standard", "classic", "oklahoma"]))
def test_random_legal_play_always_ends_with_every_card_accounted(seed: int, name: str) -> None:
    rng = random.Random(seed)
    match = Match(ruleset(name), first_dealer=seed % 2)
    hands = 0
    while not match.over and hands < 40:
        hand = match.deal(shuffled_deck(rng))
        hands += 1
        steps = 0
        set_aside = False  # a knock's discard lies face down until the hand is scored
        while hand.result is None:
            counts = hand.card_count(0) + hand.card_count(1) + len(hand.pile) + hand.stock_count
            assert counts + set_aside == 52
            assert not set(hand.cards(0)) & set(hand.cards(1))
            action = rng.choice(match.legal_actions())
            match.apply(hand.turn, action)
            set_aside = isinstance(action, Knock)
            steps += 1
            # Taking from the pile spares the stock, so a random hand may run long
            # (seed 2036 takes exactly 200 moves); this bound only stops a hang.
            assert steps < 2000
        result = hand.result
        if result.kind == "dead":
            assert result.points == 0
        else:
            assert result.points >= 0 and result.winner in (0, 1)
    assert sum(r.points for r in match.results if r.winner == 0) == match.scores[0]
    assert sum(r.points for r in match.results if r.winner == 1) == match.scores[1]


def _every_action(hand: Hand) -> list[Action]:
    per_card = [a for c in DECK for a in (Discard(c), Knock(c))]
    return [Pass(), DrawPile(), DrawStock(), *per_card, BigGin(), LayOff()]


def _seen(hand: Hand, player: int) -> tuple[Event, ...]:
    """The observer's history as the rules define it, rebuilt from all events."""
    over = hand.phase is Phase.OVER
    return tuple(
        e if e.kind not in ("stock", "knock") or e.player == player or (e.kind == "knock" and over)
        else Event(e.player, e.kind)
        for e in hand.events
    )


@pytest.mark.slow
@pytest.mark.parametrize("rules", [STANDARD, OKLAHOMA, Ruleset(name="big", big_gin_bonus=31)])
def test_legal_actions_agree_with_refusal_and_history_with_the_events(rules: Ruleset) -> None:
    # legal_actions and the per-player histories are built incrementally for speed;
    # check both against their definitions through whole matches of skilled play.
    players = [get("hard"), get("easy")]
    rng = random.Random(7)
    match = Match(rules)
    kinds: set[type] = set()
    while not match.over:
        hand = match.deal(shuffled_deck(rng))
        while hand.phase is not Phase.OVER:
            legal = match.legal_actions()
            expected = [a for a in _every_action(hand) if hand.refusal(hand.turn, a) is None]
            assert set(legal) == set(expected) and len(legal) == len(expected)
            for player in (0, 1):
                assert match.observation(player).history == _seen(hand, player)
            match.apply(hand.turn, players[hand.turn].choose(match.observation(hand.turn), legal))
        kinds.add(type(hand.actions[-1][1]))
        for player in (0, 1):
            assert match.observation(player).history == _seen(hand, player)
    assert Knock in kinds or LayOff in kinds
