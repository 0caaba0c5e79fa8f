import random
from dataclasses import replace

import pytest

from gin import Card, Hand, MalformedInput, Phase, parse_cards, shuffled_deck
from gin.engine.actions import Action, Discard, DrawPile, DrawStock, Knock, LayOff, Pass
from gin.engine.cards import DECK, cards_mask
from gin.engine.melds import arrange_mask
from gin.engine.observation import Observation
from gin.engine.rules import CLASSIC, STANDARD, Ruleset
from gin.players import NAMES, Hint, Player, get, hint
from gin.players.evaluate import potential
from gin.players.hard import HARD, SkilledPlayer
from gin.players.sampling import LATE_STOCK, knock_outlook, opponent_hands, waiting_outlook
from gin.players.view import decision_rand, view_of
from gin.rand import Rand, derive


def build_deck(p0: str, upcard: str, stock: str = "", p1: str = "") -> list[Card]:
    """A deck where player 0 (non-dealer, dealer 1) is dealt ``p0``, player 1 ``p1``
    (default: the first unused cards from the king of spades down), then the
    upcard and the stock in the given order, the rest after it."""
    mine, up, top = parse_cards(p0), Card.parse(upcard), parse_cards(stock)
    named = [*mine, up, *top, *parse_cards(p1)]
    theirs = parse_cards(p1) or [c for c in reversed(DECK) if c not in named][:10]
    named += [] if p1 else theirs
    assert len(set(named)) == len(named), "a test deck repeats a card"
    rest = [c for c in DECK if c not in named]
    deal = [card for pair in zip(mine, theirs, strict=True) for card in pair]
    return [*deal, up, *top, *rest]


def hand_at_discard(p0: str, drawn: str, rules: Ruleset = STANDARD) -> Hand:
    """Player 0 holds ``p0`` and has just drawn ``drawn`` from the stock."""
    spare = [c for c in DECK if c not in parse_cards(p0 + " " + drawn)]
    hand = Hand(build_deck(p0, str(spare[0]), drawn), dealer=1, rules=rules)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    hand.apply(0, DrawStock())
    return hand


def decide(name: str, hand: Hand, **changes: object) -> Action:
    obs = hand.observation(hand.turn)._replace(**changes)
    return get(name, random.Random(1)).choose(obs, hand.legal_actions())


def test_get_knows_every_name_and_rejects_others() -> None:
    for name in NAMES:
        player: Player = get(name, random.Random(0))
        assert player.name == name
    with pytest.raises(MalformedInput, match="easy, normal, hard, simple, random"):
        get("grandmaster")


@pytest.mark.parametrize("name", NAMES)
def test_every_player_plays_whole_hands_legally(name: str) -> None:
    rng = random.Random(5)
    players = [get(name, random.Random(1)), get("normal")]
    for dealer in (0, 1, 0):
        hand = Hand(shuffled_deck(rng), dealer=dealer)
        while hand.phase is not Phase.OVER:
            seat = hand.turn
            action = players[seat].choose(hand.observation(seat), hand.legal_actions())
            assert hand.refusal(seat, action) is None, (name, action)
            hand.apply(seat, action)


def _swap_hidden(hand: Hand, rng: random.Random) -> list[Card]:
    """The same deck with the opponent's (player 1's) never-shown cards swapped for
    cards still deep in the stock: player 0 cannot tell the two apart."""
    deck = [hand.card_at(i) for i in range(52)]
    shown = {e.card for e in hand.observation(0).history if e.card is not None}
    secret = [i for i in range(20) if i % 2 == 1 and deck[i] not in shown
              and deck[i] in hand.cards(1)]
    deep = list(range(hand.next_stock_position + 1, 52))
    rng.shuffle(deep)
    for pos, other in zip(secret, deep, strict=False):
        deck[pos], deck[other] = deck[other], deck[pos]
    return [c for c in deck if c is not None]


@pytest.mark.parametrize("name", ["easy", "normal", "hard", "simple"])
def test_decisions_depend_only_on_what_the_player_sees(name: str) -> None:
    rng = random.Random(11)
    for _ in range(10):
        deck = shuffled_deck(rng)
        first = Hand(deck, dealer=1)
        bots = [get("normal"), get("normal")]
        for _ in range(rng.randrange(3, 16)):
            if first.phase is Phase.OVER:
                break
            seat = first.turn
            first.apply(seat, bots[seat].choose(first.observation(seat), first.legal_actions()))
        if first.phase is Phase.OVER or first.turn != 0:
            continue
        second = Hand(_swap_hidden(first, rng), dealer=1)
        for seat, action in first.actions:
            second.apply(seat, action)
        assert second.cards(1) != first.cards(1)
        seen_first, seen_second = first.observation(0), second.observation(0)
        assert seen_first == seen_second
        legal = first.legal_actions()
        assert get(name, random.Random(3)).choose(seen_first, legal) == \
            get(name, random.Random(3)).choose(seen_second, legal)


def test_easy_throws_its_costliest_loose_card_and_knocks_at_once() -> None:
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s Kd 2s 4h 3c", "Qs")
    assert decide("easy", hand) == Discard(Card.parse("Kd"))  # K beats Q on rank
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s Jd 2s 3d Ah", "As")
    assert decide("easy", hand) == Knock(Card.parse("Jd"))  # 7 deadwood: knock now


# The simple player's positions: each expected move was derived by hand, tracing
# OpenSpiel's simple_gin_rummy_bot.cc (Step, GetDiscard, GetBestDeadwood) and the
# meld search of gin_rummy_utils.cc (AllMelds, AllMeldGroups, BestMeldGroup,
# MinDeadwood) on the position; the trace is in each comment.

def test_simple_takes_only_a_card_that_melds() -> None:
    base = "5c 6c 9h 9d Kd Ks 2s 4h Qd Jc"
    # 7c: the best group of the eleven is 5c6c7c alone, so 7c is not loose: take.
    melds = Hand(build_deck(base, "7c"), dealer=1)
    assert decide("simple", melds) == DrawPile()
    # 3c melds nothing and the count (loose cards less the king) is far above 10.
    misses = Hand(build_deck(base, "3c"), dealer=1)
    assert decide("simple", misses) == Pass()


def test_simple_takes_a_card_that_melds_nothing_when_it_can_then_knock() -> None:
    # Eleven cards with 2h: best group four jacks + 5c-8c, loose Kd Ac 2h = 13;
    # MinDeadwood drops the highest-ranked loose card (Kd): 3 <= 10, so take.
    hand = Hand(build_deck("5c 6c 7c 8c Jh Jd Js Jc Ac Kd", "2h"), dealer=1)
    assert decide("simple", hand) == DrawPile()
    hand.apply(0, DrawPile())
    # Discard: the count is 3 <= 10, knock; GetDiscard throws the highest-ranked
    # loose card, Kd; the melds laid are the best group (searched from the set
    # of four jacks, listed first, then the run).
    action = decide("simple", hand)
    assert isinstance(action, Knock) and action.card == Card.parse("Kd")
    assert action.melds is not None and {frozenset(m) for m in action.melds} == {
        frozenset(parse_cards("Jc Jd Jh Js")), frozenset(parse_cards("5c 6c 7c 8c"))}
    assert hand.refusal(0, action) is None


def test_simple_weighs_a_set_before_a_run_of_equal_value() -> None:
    # With 4h the eleven hold 5c5d5h (15) or 4h5h6h (15) beside JcJdJs: equal
    # deadwood (39). The bot lists sets before runs, so its search meets the
    # group with the fives first and 4h is loose: it does not take it (the
    # count, 39 less Kh, is 29 > 10). The exact search prefers the run here.
    base = "5h 6h 5c 5d Jc Jd Js Kh Qd 9c"
    assert not arrange_mask(cards_mask(parse_cards(base + " 4h"))).deadwood_mask \
        & Card.parse("4h").mask
    hand = Hand(build_deck(base, "4h"), dealer=1)
    assert decide("simple", hand) == Pass()


def test_simple_throws_the_highest_ranked_loose_card() -> None:
    # Loose: Kd Ks Qh 2d 3h (count 35 - 10 = 25 > 10, no knock). Highest rank:
    # the kings; the bot orders suits spades, clubs, diamonds, hearts: Kd.
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s Kd Ks Qh 2d", "3h")
    assert decide("simple", hand) == Discard(Card.parse("Kd"))


def test_simple_never_throws_back_the_card_just_taken() -> None:
    hand = Hand(build_deck("5c 6c 9h 9d Kd Ks 2s 4h Qd Jc", "Kc"), dealer=1)
    hand.apply(0, DrawPile())  # the king makes a set; now the kings may not go back
    # Loose: 5c 6c 9h 9d 2s 4h Qd Jc; the highest-ranked is Qd.
    assert decide("simple", hand) == Discard(Card.parse("Qd"))
    # Take-to-knock with Kh: loose Ac 2d Kh, count 3. The bot would knock
    # throwing the Kh back; here it may not, so it throws its next-highest loose
    # card, 2d, which leaves 11 > 10: a plain discard, no knock.
    hand = Hand(build_deck("5c 6c 7c 8c Jh Jd Js Jc Ac 2d", "Kh"), dealer=1)
    assert decide("simple", hand) == DrawPile()
    hand.apply(0, DrawPile())
    assert decide("simple", hand) == Discard(Card.parse("2d"))


def test_simple_knocks_gin_with_the_first_card_that_keeps_it() -> None:
    # Eleven melded cards (no big gin under these rules): GetDiscard tries the
    # cards in the bot's card order (spades first, ace up): As keeps gin.
    hand = hand_at_discard("As 2s 3s 4s 5c 6c 7c 9h 9d 9s", "5s")
    action = decide("simple", hand)
    assert isinstance(action, Knock) and action.card == Card.parse("As")
    assert action.melds is not None and {frozenset(m) for m in action.melds} == {
        frozenset(parse_cards("2s 3s 4s 5s")), frozenset(parse_cards("5c 6c 7c")),
        frozenset(parse_cards("9h 9d 9s"))}


def test_simple_defends_without_laying_off() -> None:
    # Player 1 (the bot) could lay 8c off on 5c6c7c; the bot never lays off and
    # melds its best group: QdQhQs.
    hand = Hand(build_deck("5c 6c 7c 9h 9d 9s Ad As 2s 4h", "3c", "Kd",
                           "8c Qh Qd Qs 2c 3d 6h 7d Th Jd"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())
    hand.apply(0, DrawStock())
    hand.apply(0, Knock(Card.parse("Kd")))
    action = decide("simple", hand)
    assert action == LayOff((), (tuple(parse_cards("Qd Qh Qs")),))
    assert hand.refusal(1, action) is None


def test_normal_knocks_at_once_on_four_or_less_and_takes_gin() -> None:
    low = hand_at_discard("5c 6c 7c 8c 9h 9d 9s Ad Ah 2s", "Kd")
    assert decide("normal", low) == Knock(Card.parse("Kd"))  # 4 deadwood
    gin = hand_at_discard("5c 6c 7c 9h 9d 9s 2s 3s 4s Kd", "8c")
    assert decide("normal", gin) == Knock(Card.parse("Kd"))


def test_normal_waits_for_a_tidier_knock_until_the_stock_is_low() -> None:
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s 4d 3s 2h Ac", "Kd")  # knock on 10
    assert isinstance(decide("normal", hand), Discard)
    assert decide("normal", hand, stock_count=12) == Knock(Card.parse("Kd"))


def test_normal_refuses_an_upcard_that_does_not_help() -> None:
    base = "5c 6c 9h 9d Kd Ks 2s 4h Qd Jc"
    useless = Hand(build_deck(base, "8s"), dealer=1)
    assert decide("normal", useless) == Pass()
    melds = Hand(build_deck(base, "7c"), dealer=1)
    assert decide("normal", melds) == DrawPile()


@pytest.mark.parametrize("name", ["normal", "hard"])
def test_knock_melds_leave_fewest_lay_offs(name: str) -> None:
    # 7h can sit in the set or extend 8h9hTh: as a run 7h-Th it would take 6h and
    # Jh; as the four sevens plus 8h9hTh only Jh. Same deadwood either way.
    hand = hand_at_discard("7c 7d 7h 7s 8h 9h Th Ac Ad 2s", "Kc")
    action = decide(name, hand, stock_count=8)  # a late knock on 4: both knock
    assert isinstance(action, Knock) and action.card == Card.parse("Kc")
    assert action.melds is not None
    assert {frozenset(m) for m in action.melds} == {
        frozenset(parse_cards("7c 7d 7h 7s")), frozenset(parse_cards("8h 9h Th"))}
    assert hand.refusal(0, action) is None


def test_hard_holds_back_a_card_the_opponent_collects() -> None:
    # Player 1 took the ten of hearts. The jack of hearts and king of spades are
    # equally loose for player 0; only Hard sees that the jack would feed them.
    hand = Hand(build_deck("2c 3c 4c 5d 5h 5s 8d Ks Jh Ah", "Th", "9c",
                           "6c 7c Qd Qc 2h 3s 4s 6d 9d Tc"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, DrawPile())
    hand.apply(1, Discard(Card.parse("2h")))
    hand.apply(0, DrawStock())
    assert decide("normal", hand) == Discard(Card.parse("Jh"))
    assert decide("hard", hand) == Discard(Card.parse("Ks"))


def test_hint_gives_hards_move_and_a_reason() -> None:
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s 2s 3s 4s Kd", "8c")
    advice = hint(hand.observation(0), hand.legal_actions())
    assert isinstance(advice, Hint)
    assert advice.action == Knock(Card.parse("Kd"))
    assert advice.reason.startswith("Gin")
    upcard = Hand(build_deck("5c 6c 9h 9d Kd Ks 2s 4h Qd Jc", "8s"), dealer=1)
    advice = hint(upcard.observation(0), upcard.legal_actions())
    assert advice.action == Pass() and "the 8♠ would not" in advice.reason


def test_a_hint_names_every_card_one_way_as_the_tables_show_them() -> None:
    # Issue 21 item 13: "Take the nine of diamonds: it completes 9c 9d 9h."
    taking = Hand(build_deck("9c 9h 2s 4h 6d 8c Jc Qd Ks Ah", "9d"), dealer=1)
    advice = hint(taking.observation(0), taking.legal_actions())
    assert advice == Hint(DrawPile(), "Take the 9♦: it completes 9♣ 9♦ 9♥.")
    classic = hand_at_discard("5c 6c 7c 9h 9d 9s 2s 3s 4s Kd", "8c", rules=CLASSIC)
    advice = hint(classic.observation(0), classic.legal_actions())
    assert advice.reason == ("Gin: throw the K♦ and every card is in a meld (20 bonus, "
                             "nothing can be laid off).")


def test_lay_off_phase_answers_with_the_best_layout() -> None:
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s Ad As 2s 4h", "Kd")
    hand.apply(0, Knock(Card.parse("Kd")))
    assert hand.phase is Phase.LAYOFF
    for name in NAMES:
        if name != "simple":  # the bot lays off nothing (see its own test)
            assert decide(name, hand) == LayOff()


def test_view_tracks_what_the_opponent_threw_and_refused() -> None:
    hand = Hand(build_deck("2c 3c 4c 5d 5h 5s 8s Qd Ah Ac", "7d", "Kc 6h 9s",
                           "8c 8d 2h 3s Jd Kh 4s 6c 9d Tc"), dealer=1)
    hand.apply(0, Pass())
    hand.apply(1, Pass())  # refuses the 7d
    hand.apply(0, DrawStock())
    hand.apply(0, Discard(Card.parse("Kc")))
    hand.apply(1, DrawStock())  # refuses the Kc
    hand.apply(1, Discard(Card.parse("6h")))
    view = view_of(hand.observation(0))
    assert view.opp_thrown == Card.parse("6h").mask
    assert view.opp_refused == Card.parse("7d").mask | Card.parse("Kc").mask
    assert view.opp_unknown == 10
    assert not view.unseen & (view.hand | Card.parse("6h").mask)


def test_potential_counts_live_cards_that_complete_a_meld() -> None:
    loose = Card.parse("5h").mask | Card.parse("6h").mask
    both = Card.parse("4h").mask | Card.parse("7h").mask
    assert potential(loose, both) == 2 * potential(loose, Card.parse("4h").mask) > 0
    assert potential(loose, Card.parse("8h").mask) == 0
    pair = Card.parse("9c").mask | Card.parse("9d").mask
    assert potential(pair, Card.parse("9s").mask) == 18



def _played(seed: int, moves: int) -> Hand:
    """A hand of normal against normal, ``moves`` moves in (or ended early)."""
    hand = Hand(shuffled_deck(random.Random(seed)), dealer=1)
    bots = [get("normal"), get("normal")]
    for _ in range(moves):
        if hand.phase is Phase.OVER:
            break
        seat = hand.turn
        hand.apply(seat, bots[seat].choose(hand.observation(seat), hand.legal_actions()))
    return hand


def test_guessed_hands_hold_what_the_opponent_may_hold_and_nothing_seen() -> None:
    for seed in range(6):
        hand = _played(seed, 24)
        if hand.phase is Phase.OVER:
            continue
        obs = hand.observation(0)
        view = view_of(obs)
        seen = view.hand | sum(c.mask for c in obs.pile) | view.opp_thrown
        guesses = opponent_hands(view, Rand(seed), 20)
        assert len(guesses) == 20
        for guess in guesses:
            assert guess.bit_count() == obs.opponent_card_count
            assert guess & view.opp_known == view.opp_known
            assert not guess & seen
            assert not guess & ~(view.unseen | view.opp_known)
        assert opponent_hands(view, Rand(seed), 20) == guesses


def test_undercut_share_is_nil_for_gin_and_grows_with_the_count() -> None:
    # The knocker melds 5c6c7c and the nines; the defender can lay off 8c and the
    # fourth nine, so only hands low enough after that undercut.
    melds = (sum(c.mask for c in parse_cards("5c 6c 7c")),
             sum(c.mask for c in parse_cards("9c 9d 9h")))
    hands = [sum(c.mask for c in parse_cards(text)) for text in (
        "8c 9s Ad As 2d 2h Jc Jd Js 3s",  # 8c, 9s off; jacks melded: 1+1+2+2+3 = 9 left
        "8c 9s Ad As 2d 2h Jc Jd Js Qh",  # 16 left
        "Kc Kd Ks Qc Qd Qs Jc Jd Js Ah",  # 1 left
        "2c 3d 4h 5s 6d 7h 8s Td Jh Qs",  # 65 left
    )]
    shares = [knock_outlook(hands, melds, left, STANDARD).undercut for left in (0, 1, 5, 9, 10)]
    assert shares[0] == 0
    assert shares == sorted(shares) and shares[-1] == 0.5
    gin = knock_outlook(hands, melds, 0, STANDARD)
    assert gin.points == 25 + (26 + 33 + 1 + 65) / 4  # no lay-offs against gin


def test_hard_weighs_a_knock_against_waiting() -> None:
    # A knock on 10 at the first draw: random hands seldom undercut, so it knocks.
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s 4d 3s 2h Ac", "Kd")
    assert decide("hard", hand) == Knock(Card.parse("Kd"))
    # Later (21 cards left in the stock), able to knock on 10: the opponent has been drawing
    # and Hard waits for a lower knock.
    late = _played(1, 26)
    legal = late.legal_actions()
    assert any(isinstance(a, Knock) for a in legal)
    advice = hint(late.observation(late.turn), legal)
    assert isinstance(advice.action, Discard)
    # The hint samples from a seed of the position: asked twice, it answers the same.
    assert advice == hint(late.observation(late.turn), legal)


def test_hard_knocks_at_the_floor_rather_than_let_the_hand_die() -> None:
    # With 22 cards left Hard prefers waiting to this knock; with the stock at the
    # floor the next discard ends the hand dead, so a knock worth anything wins.
    hand = _played(4, 21)
    obs, legal = hand.observation(hand.turn), hand.legal_actions()
    assert obs.stock_count == 22
    assert isinstance(hint(obs, legal).action, Discard)
    floor = obs._replace(stock_count=STANDARD.dead_stock)
    assert isinstance(hint(floor, legal).action, Knock)


def test_hard_declining_a_knock_keeps_its_deadwood_least() -> None:
    # Hard could knock throwing the 3h and waits: it still throws the 3h, the
    # discard that waiting was judged with, for the best chance of an undercut
    # (scored as Normal it would keep the 3h and throw the As).
    hand = _played(6, 37)
    obs, legal = hand.observation(hand.turn), hand.legal_actions()
    assert any(isinstance(a, Knock) for a in legal)
    advice = hint(obs, legal)
    assert advice.action == Discard(Card.parse("3h"))
    assert "while waiting" in advice.reason
    assert SkilledPlayer(replace(HARD, wait_low=False)).choose(obs, legal) != advice.action


def test_late_in_the_stock_the_modelled_opponent_knocks_only_to_win() -> None:
    # Hard (6 deadwood) throws the Kd; the guessed opponent takes it and could knock
    # on 6, which Hard undercuts. Early that knock is assumed (Hard gains 25); late
    # an opponent knocks only to win, so waiting is worth less.
    hand = hand_at_discard("5c 6c 7c 9h 9d 9s 2d 2s Ah Ac", "Kd")
    view = view_of(hand.observation(0))
    thrown = Card.parse("Kd").mask
    theirs = [sum(c.mask for c in parse_cards("Kc Ks Qh Qd Qs Jh Jd Js 8h 6d"))]

    def waiting(stock: int) -> float:
        return waiting_outlook(view, view.hand ^ thrown, thrown, theirs, Rand(1),
                               stock, 10, STANDARD)

    assert waiting(20) == 25
    assert waiting(LATE_STOCK) < 25


def test_get_takes_a_32_bit_seed_or_draws_one_from_a_random_source() -> None:
    assert get("hard", 2**32 - 1).name == "hard"
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match="seed"):
            get("hard", bad)
    drawn = get("random", random.Random(9))
    assert drawn.choose(*_position(3)) == get("random", random.Random(9).getrandbits(32)) \
        .choose(*_position(3))


def _position(seed: int) -> tuple[Observation, list[Action]]:
    """A position of a hand still in play (the last of the first 21 moves)."""
    moves = 21
    while (hand := _played(seed, moves)).phase is Phase.OVER:
        moves -= 1
    return hand.observation(hand.turn), hand.legal_actions()


def test_decision_stream_is_seeded_from_the_seed_and_the_observation() -> None:
    # The derivation the browser's players repeat: derive(seed, hand low 32 bits,
    # hand high 20 bits, number of events seen).
    obs, _ = _position(2)
    hand = cards_mask(obs.hand)
    expected = Rand(derive(77, hand & 0xFFFFFFFF, hand >> 32, len(obs.history))).next_u32()
    assert decision_rand(obs, 77).next_u32() == expected
    assert decision_rand(obs, 78).next_u32() != expected


@pytest.mark.parametrize("name", ["hard", "random"])
def test_a_decision_is_a_function_of_the_observation_and_the_seed(name: str) -> None:
    # The same player asked about other positions first answers as a fresh one.
    busy = get(name, 5)
    positions = [_position(seed) for seed in range(8)]
    late = _played(1, 26)  # a knock is legal: Hard samples the opponent's hands
    positions.append((late.observation(late.turn), late.legal_actions()))
    for obs, legal in positions:
        busy.choose(obs, legal)
    for obs, legal in reversed(positions):
        assert busy.choose(obs, legal) == get(name, 5).choose(obs, legal)


def test_guesses_agree_with_what_the_opponent_threw_and_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Each weight on its own leaves fewer guesses that would have kept a card the
    # opponent threw or refused, fewer holding loose cards above their latest
    # discard, fewer that could knock (they did not).
    from gin.players import sampling
    from gin.players.evaluate import bit_value, bits, melds_with

    def tallies() -> tuple[int, int, int]:
        cold = high = knockable = 0
        for seed in range(12):
            hand = _played(seed, 24)
            if hand.phase is Phase.OVER:
                continue
            view = view_of(hand.observation(0))
            last = bit_value(view.opp_last) if view.opp_last else 10
            for guess in opponent_hands(view, Rand(seed), 40):
                cold += sum(melds_with(c, guess) for c in bits(view.opp_thrown | view.opp_refused))
                layout = arrange_mask(guess)
                high += sum(bit_value(b) > last for b in bits(layout.deadwood_mask))
                knockable += layout.deadwood <= 10
        return cold, high, knockable

    names = ("COLD_LIKELIHOOD", "HIGH_LIKELIHOOD", "KNOCKABLE_LIKELIHOOD")
    weights = {name: getattr(sampling, name) for name in names}
    assert all(w < 1 for w in weights.values())
    for name in names:
        monkeypatch.setattr(sampling, name, 1.0)
    plain = tallies()
    for which, name in enumerate(names):
        monkeypatch.setattr(sampling, name, weights[name])
        assert tallies()[which] < plain[which], name
        monkeypatch.setattr(sampling, name, 1.0)
