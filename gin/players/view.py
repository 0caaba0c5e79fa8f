"""What a computer player knows, rebuilt from one Observation.

Players keep no state of their own: everything they remember (what the opponent
took, threw or refused) is replayed from ``obs.history`` on every call, so a new
hand is never confused with the last one and a decision depends only on what the
player was shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from gin.engine.cards import Card, cards_mask
from gin.engine.observation import Observation
from gin.rand import Rand, derive

FULL = (1 << 52) - 1


@dataclass(frozen=True, slots=True)
class View:
    """Masks of one player's knowledge.

    ``unseen``: cards neither in this hand, the pile nor known in the opponent's
    hand — the live cards that may still come from the stock (or sit with the
    opponent). ``opp_*`` masks are the opponent's public acts this hand.
    """

    hand: int
    unseen: int
    opp_known: int  # taken from the pile and still held
    opp_thrown: int  # discarded by the opponent
    opp_refused: int  # offered on top of the pile and left there by the opponent
    opp_unknown: int  # how many of the opponent's cards are not known
    opp_draws: int  # how many cards the opponent drew from the stock
    opp_last: int = 0  # the opponent's latest discard (0: none yet)


def unseen_of(obs: Observation, hand: int) -> int:
    """The live cards of :attr:`View.unseen`, without replaying the history (the
    only part of the view Normal's moves need)."""
    return FULL & ~(hand | cards_mask(obs.pile) | cards_mask(obs.opponent_known))


def view_of(obs: Observation) -> View:
    hand = cards_mask(obs.hand)
    opp_known = cards_mask(obs.opponent_known)
    me = obs.player
    thrown = refused = draws = last = 0
    # Replay the pile to know which card the opponent declined each time.
    stack: list[Card] = _initial_pile(obs)
    push, pop = stack.append, stack.pop
    for event in obs.history:
        kind = event.kind
        if kind == "discard":
            card = event.card
            if card is not None:
                push(card)
                if event.player != me:
                    thrown |= card.mask
                    last = card.mask
        elif kind == "take":
            if stack:
                pop()
        elif (kind == "stock" or kind == "pass") and event.player != me:
            draws += kind == "stock"
            if stack:
                refused |= stack[-1].mask
    return View(
        hand=hand,
        unseen=unseen_of(obs, hand),
        opp_known=opp_known,
        opp_thrown=thrown,
        opp_refused=refused & ~opp_known,
        opp_unknown=obs.opponent_card_count - len(obs.opponent_known),
        opp_draws=draws,
        opp_last=last,
    )


def _initial_pile(obs: Observation) -> list[Card]:
    """The pile as dealt: the upcard (taken before any discard, or still at the bottom)."""
    for event in obs.history:
        if event.kind == "take":
            return [event.card] if event.card is not None else []
        if event.kind == "discard":
            break
    return [obs.pile[0]] if obs.pile else []


def decision_rand(obs: Observation, seed: int) -> Rand:
    """The random stream of one decision: ``Rand(derive(seed, lo, hi, n))`` where
    ``lo``/``hi`` are the low and high 32 bits of the hand's mask (bit
    ``suit * 13 + rank - 1``, suits clubs, diamonds, hearts, spades) and ``n``
    the number of events in ``obs.history``. So a decision depends only on the
    observation and the seed, however many decisions came before it."""
    hand = cards_mask(obs.hand)
    return Rand(derive(seed, hand & 0xFFFFFFFF, hand >> 32, len(obs.history)))
