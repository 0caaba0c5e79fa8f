"""Normal and Hard: one player, two styles.

Both score a ten-card hand as its deadwood minus how close its loose cards are to
melding with the live cards (see :func:`gin.players.evaluate.potential`). Hard
adds a model of the opponent built from every card they took, threw or refused,
and holds back the cards that would complete their melds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from gin.actions import Action, BigGin, Discard, DrawPile, DrawStock, LayOff, Pass
from gin.cards import Card, cards_mask, format_cards, mask_cards
from gin.hand import Observation, Phase
from gin.melds import arrange_mask, discard_table
from gin.players.evaluate import (
    ACES,
    NOT_ACE,
    NOT_KING,
    declare,
    discards,
    least_knock,
    meld_partners,
    melds_with,
    potential,
)
from gin.players.sampling import knock_outlook, opponent_hands, waiting_outlook
from gin.players.view import View, view_of


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action and a one-line reason a person understands."""

    action: Action
    reason: str


@dataclass(frozen=True, slots=True)
class Style:
    """The knobs that tell Normal from Hard."""

    name: str
    reach: float  # weight of a loose card's chance to meld, in deadwood points
    caution: float  # weight of the chance a discard completes an opponent's meld
    take_margin: float  # how much a pile card must improve the score to be taken
    # Knocking by rule of thumb (without samples):
    knock_at_once: int = 0  # knock immediately on this much deadwood or less
    wait_while_stock: int = 0  # otherwise keep drawing while the stock is above this
    # Knocking by guesses at the opponent's hand (this many; 0: by rule of thumb):
    samples: int = 0
    knock_margin: float = 0.0  # how much more than waiting a knock must be worth


NORMAL = Style("normal", reach=3.0, caution=0.0, take_margin=1.0, knock_at_once=4,
               wait_while_stock=12)
# Hard knocks when a knock is worth 3 points more than a round of waiting, judged
# against 30 guessed opponent hands. Knocking whenever a knock is there, or by
# fixed deadwood and stock thresholds, measured worse: see docs/players.md.
HARD = Style("hard", reach=3.0, caution=12.0, take_margin=1.0, samples=30, knock_margin=3.0)


class SkilledPlayer:
    """Normal or Hard, by style. Deterministic: ties go to the lower-ranked score
    then to the card order."""

    def __init__(self, style: Style, rng: random.Random | None = None) -> None:
        self.style = style
        self.name = style.name
        self.rng = rng  # None: each decision seeds its own from the observation

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return self.decide(obs, legal).action

    def decide(self, obs: Observation, legal: Sequence[Action]) -> Hint:
        if obs.phase is Phase.LAYOFF:
            return Hint(LayOff(), "Lay off every card that fits and meld the rest.")
        if BigGin() in legal:
            return Hint(BigGin(), "Big gin: all eleven cards are in melds.")
        view = view_of(obs)
        if obs.phase is Phase.DISCARD:
            return self._discard(obs, legal, view)
        return self._draw(obs, legal, view)

    # -- scoring -------------------------------------------------------------

    def _score(self, deadwood: int, loose: int, live: int) -> float:
        """Lower is better: deadwood less the value of waiting for the live cards."""
        return deadwood - self.style.reach * potential(loose, live) / max(live.bit_count(), 1)

    def _danger(self, bit: int, view: View) -> float:
        """Roughly the chance that ``bit`` completes a three-card meld for the opponent."""
        if not self.style.caution:
            return 0.0
        unseen = view.unseen
        base = view.opp_unknown / max(unseen.bit_count(), 1)
        # Ranks they threw or refused, and the cards beside them, they are not collecting.
        cold_cards = view.opp_thrown | view.opp_refused
        ranks = (cold_cards | cold_cards >> 13 | cold_cards >> 26 | cold_cards >> 39) & 0x1FFF
        cold = (ranks * ACES) | (cold_cards << 1 & NOT_ACE) | (cold_cards >> 1 & NOT_KING)

        def held(card: int) -> float:
            if card & view.opp_known:
                return 1.0
            if card & unseen:
                return base * (0.5 if card & cold else 1.0)
            return 0.0

        return sum(held(a) * held(b) for a, b in meld_partners(bit))

    # -- drawing -------------------------------------------------------------

    def _draw(self, obs: Observation, legal: Sequence[Action], view: View) -> Hint:
        refuse: Action = Pass() if Pass() in legal else DrawStock()
        top = obs.top_of_pile
        verb = "Pass" if isinstance(refuse, Pass) else "Draw from the stock"
        if top is None or DrawPile() not in legal:
            return Hint(refuse, f"{verb}: the pile is closed to you this turn.")
        live = view.unseen
        taken = view.hand | top.mask
        # Only a card that melds is worth showing: test that before the full scoring.
        if melds_with(top.mask, view.hand):
            arrangement = arrange_mask(taken)
            if not arrangement.deadwood_mask & top.mask:
                now = arrange_mask(view.hand)
                best = min(self._score(o.deadwood, o.deadwood_mask, live)
                           for o in discard_table(taken) if o.bit != top.mask)
                if best < self._score(now.deadwood, now.deadwood_mask, live) \
                        - self.style.take_margin:
                    meld = next(m for m in arrangement.meld_masks if m & top.mask)
                    return Hint(DrawPile(), f"Take the {top.name}: it completes "
                                f"{format_cards(mask_cards(meld))}.")
        return Hint(refuse, f"{verb}: the {top.name} would not improve your hand enough "
                    "to show the opponent what you collect.")

    # -- discarding and knocking -------------------------------------------

    def _discard(self, obs: Observation, legal: Sequence[Action], view: View) -> Hint:
        style = self.style
        least = least_knock(view.hand, legal)
        if least is not None:
            left = least[0]
            action, layout = declare(view.hand, least[1], left, view.unseen)
            if left == 0:
                return Hint(action, f"Gin: throw the {action.card.name} and every card is "
                            "in a meld (25 bonus, nothing can be laid off).")
            why = self._knock_now(obs, view, action.card.mask, layout.meld_masks, left)
            if why is not None:
                return Hint(action, f"Knock, throwing the {action.card.name}: {left} "
                            f"deadwood — {why}.")
        live = view.unseen
        allowed = {c.mask: c for c in discards(legal)}
        scored = []
        for option in discard_table(view.hand):
            card = allowed.get(option.bit)
            if card is None:
                continue
            danger = self._danger(option.bit, view)
            score = self._score(option.deadwood, option.deadwood_mask, live) \
                + style.caution * danger
            scored.append((score, -card.value, card.index, card, danger, option.deadwood))
        _, _, _, card, danger, left = min(scored)
        return Hint(Discard(card), _discard_reason(card, view, danger, left))

    def _knock_now(self, obs: Observation, view: View, thrown: int,
                   melds: tuple[int, ...], left: int) -> str | None:
        """Why to knock on ``left`` deadwood (throwing ``thrown``) now, or None to
        keep drawing."""
        style = self.style
        if not style.samples:
            if left <= style.knock_at_once:
                return "low enough that an undercut is unlikely"
            if obs.stock_count <= style.wait_while_stock:
                return "take the points before the opponent improves"
            return None
        # Knock when that is worth more, against hands the opponent may hold, than
        # a round of waiting: waiting risks their knock (or gin) but may lower ours.
        rng = self.rng or random.Random(_seed(obs))
        hands = opponent_hands(view, rng, style.samples)
        now = knock_outlook(hands, melds, left, obs.rules)
        wait = waiting_outlook(view, view.hand ^ thrown, thrown, hands, rng, obs.stock_count,
                               obs.knock_limit, obs.rules)
        # The margin allows for a wait misjudged; a discard ending the hand dead is not.
        margin = style.knock_margin if obs.stock_count > obs.rules.dead_stock else 0.0
        if now.points <= wait + margin:
            return None
        return (f"worth about {now.points:.0f} points now against {wait:.0f} for waiting "
                f"({now.undercut:.0%} of the hands the opponent may hold undercut it)")


def _seed(obs: Observation) -> int:
    """A seed from what the player sees, so a hint repeats for the same position."""
    return cards_mask(obs.hand) << 8 | len(obs.history)


def _discard_reason(card: Card, view: View, danger: float, left: int) -> str:
    if card.mask & arrange_mask(view.hand).deadwood_mask:
        reason = f"Throw the {card.name}: it is the loose card least likely to meld"
    else:
        reason = f"Throw the {card.name}: breaking up that meld costs least"
    if view.opp_known | view.opp_thrown and danger < 0.05:
        reason += ", and the opponent does not look to be collecting it"
    return f"{reason} ({left} deadwood left)."
