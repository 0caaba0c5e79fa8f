"""The shortcuts the skilled player takes for speed decide exactly as the plain
rules they stand for: score every discard, take the pile card if any discard
after it scores well enough, word the reason alongside the move."""

import random

from hypothesis import given
from hypothesis import strategies as st

from gin import Hand, Phase, shuffled_deck
from gin.engine.actions import Action, Discard, DrawPile, Knock
from gin.engine.cards import cards_mask
from gin.engine.melds import arrange_mask, discard_table
from gin.engine.observation import Observation
from gin.players import get
from gin.players.evaluate import (
    meld_partners,
    melds_with,
    potential,
    potential_without,
)
from gin.players.hard import HARD, NORMAL, SkilledPlayer
from gin.players.view import unseen_of


def _positions(hands: int, seed: int) -> list[tuple[Observation, list[Action]]]:
    """Every position of ``hands`` hands of normal against normal."""
    rng = random.Random(seed)
    bots = [get("normal"), get("normal")]
    out = []
    for number in range(hands):
        hand = Hand(shuffled_deck(rng), dealer=number % 2)
        while hand.phase is not Phase.OVER:
            seat = hand.turn
            obs, legal = hand.observation(seat), hand.legal_actions()
            out.append((obs, legal))
            hand.apply(seat, bots[seat].choose(obs, legal))
    return out


def _score(deadwood: int, loose: int, live: int) -> float:
    return deadwood - NORMAL.reach * potential(loose, live) / max(live.bit_count(), 1)


def test_potential_only_grows_with_the_loose_cards() -> None:
    # What lets the player skip discards: no part of a hand waits for more than all of it.
    rng = random.Random(7)
    for _ in range(3000):
        hand = cards_mask(shuffled_deck(rng)[:11])
        live = rng.getrandbits(52) & ~hand
        part = hand & rng.getrandbits(52)
        assert potential(part, live) <= potential(hand, live)


_MASKS = st.integers(0, (1 << 52) - 1)


@given(_MASKS, _MASKS, _MASKS, st.integers(0, 51))
def test_potential_without_a_card_is_potential_less_that_card(
    loose: int, thin: int, live: int, index: int
) -> None:
    loose &= thin  # fewer cards, so that runs and pairs are not everywhere
    bit = 1 << index
    loose |= bit
    whole = potential(loose, live)
    assert potential_without(loose, live, bit, whole) == potential(loose ^ bit, live)


def test_melds_with_is_two_cards_of_a_three_card_meld() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        hand = cards_mask(shuffled_deck(rng)[: rng.randrange(15)])
        bit = 1 << rng.randrange(52)
        rest = hand & ~bit
        assert melds_with(bit, rest) == any(a & rest and b & rest for a, b in meld_partners(bit))


def test_normal_throws_the_best_scored_discard_and_takes_as_the_full_scoring_says() -> None:
    normal = SkilledPlayer(NORMAL)
    checked = 0
    for obs, legal in _positions(25, 9):
        action = normal.choose(obs, legal)
        hand = cards_mask(obs.hand)
        live = unseen_of(obs, hand)
        if obs.phase is Phase.DISCARD and isinstance(action, Discard):
            allowed = {a.card.mask: a.card for a in legal if isinstance(a, Discard)}
            best = min((_score(o.deadwood, o.deadwood_mask, live), -allowed[o.bit].value,
                        allowed[o.bit].index) for o in discard_table(hand) if o.bit in allowed)
            assert action.card.index == best[2]
            checked += 1
        elif obs.phase is not Phase.DISCARD and DrawPile() in legal and obs.pile:
            top = obs.pile[-1].mask
            taken = hand | top
            now = arrange_mask(hand)
            wanted = _score(now.deadwood, now.deadwood_mask, live) - NORMAL.take_margin
            take = melds_with(top, hand) and not arrange_mask(taken).deadwood_mask & top and \
                min(_score(o.deadwood, o.deadwood_mask, live)
                    for o in discard_table(taken) if o.bit != top) < wanted
            assert (action == DrawPile()) == take
            checked += 1
    assert checked > 300


def test_choose_makes_the_move_decide_explains() -> None:
    for style in (NORMAL, HARD):
        player = SkilledPlayer(style)
        for obs, legal in _positions(4, 10):
            hint = player.decide(obs, legal)
            assert hint.action == player.choose(obs, legal)
            assert hint.reason
            if isinstance(hint.action, Discard | Knock):
                assert f"the {hint.action.card.glyph}" in hint.reason
