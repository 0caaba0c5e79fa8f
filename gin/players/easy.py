"""The plain players: Random and Easy."""

from __future__ import annotations

from collections.abc import Sequence

from gin.engine.actions import Action, BigGin, Discard, DrawPile, DrawStock, LayOff, Pass
from gin.engine.cards import cards_mask
from gin.engine.melds import arrange_mask
from gin.engine.observation import Observation, Phase
from gin.players.evaluate import best_knock, bit_value, bits, discards
from gin.players.view import decision_rand


class RandomPlayer:
    """Uniform over the legal actions: a floor for the others to beat."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return decision_rand(obs, self.seed).choice(list(legal))


def _draw(legal: Sequence[Action], take: bool) -> Action:
    """Take the pile card if asked to and allowed, else pass the upcard or draw."""
    if take and DrawPile() in legal:
        return DrawPile()
    return Pass() if Pass() in legal else DrawStock()


class EasyPlayer:
    """Never takes from the pile, throws the costliest loose card, knocks at the
    first chance (with its least deadwood)."""

    name = "easy"

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        if obs.phase in (Phase.UPCARD, Phase.DRAW):
            return _draw(legal, take=False)
        if obs.phase is Phase.LAYOFF:
            return LayOff()
        if BigGin() in legal:
            return BigGin()
        hand = cards_mask(obs.hand)
        knock = best_knock(hand, legal, 0)
        if knock is not None:
            return knock[0]
        allowed = {c.mask: c for c in discards(legal)}
        loose = arrange_mask(hand).deadwood_mask & sum(allowed)
        pool = loose or sum(allowed)  # all eleven melded: throw the costliest card
        costliest = max(bits(pool), key=lambda b: (bit_value(b), (b.bit_length() - 1) % 13, b))
        return Discard(allowed[costliest])
