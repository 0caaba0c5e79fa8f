"""What a computer player knows, rebuilt from one Observation.

Players keep no state of their own: everything they remember (what the opponent
took, threw or refused) is replayed from ``obs.history`` on every call, so a new
hand is never confused with the last one and a decision depends only on what the
player was shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from gin.cards import Card, cards_mask
from gin.hand import Observation

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


def view_of(obs: Observation) -> View:
    hand = cards_mask(obs.hand)
    opp_known = cards_mask(obs.opponent_known)
    pile = cards_mask(obs.pile)
    me = obs.player
    thrown = refused = draws = 0
    # Replay the pile to know which card the opponent declined each time.
    stack: list[Card] = _initial_pile(obs)
    for event in obs.history:
        top = stack[-1] if stack else None
        mine = event.player == me
        if event.kind == "take":
            if stack:
                stack.pop()
        elif event.kind == "discard" and event.card is not None:
            stack.append(event.card)
            if not mine:
                thrown |= event.card.mask
        elif event.kind in ("pass", "stock") and not mine:
            draws += event.kind == "stock"
            if top is not None:
                refused |= top.mask
    return View(
        hand=hand,
        unseen=FULL & ~(hand | pile | opp_known),
        opp_known=opp_known,
        opp_thrown=thrown,
        opp_refused=refused & ~opp_known,
        opp_unknown=obs.opponent_card_count - len(obs.opponent_known),
        opp_draws=draws,
    )


def _initial_pile(obs: Observation) -> list[Card]:
    """The pile as dealt: the upcard (taken before any discard, or still at the bottom)."""
    for event in obs.history:
        if event.kind == "take":
            return [event.card] if event.card is not None else []
        if event.kind == "discard":
            break
    return [obs.pile[0]] if obs.pile else []
