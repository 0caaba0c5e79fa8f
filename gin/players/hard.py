"""Normal and Hard: one player, two styles.

Both score a ten-card hand as its deadwood minus how close its loose cards are to
melding with the live cards (see :func:`gin.players.evaluate.potential`). Hard
adds a model of the opponent built from every card they took, threw or refused,
holds back the cards that would complete their melds, knocks by weighing the knock
against a round of waiting over guessed hands, and when it waits keeps its
deadwood least.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial, reduce
from math import inf
from operator import attrgetter, or_

from gin.engine.actions import Action, BigGin, Discard, DrawPile, DrawStock, Knock, LayOff, Pass
from gin.engine.cards import Card, cards_mask, mask_cards
from gin.engine.melds import Arrangement, arrange_mask, discard_option, discard_table
from gin.engine.observation import Observation, Phase
from gin.players.evaluate import (
    ACES,
    NOT_ACE,
    NOT_KING,
    bit_value,
    declare,
    least_knock,
    meld_partners,
    melds_with,
    potential,
    potential_without,
)
from gin.players.sampling import knock_outlook, opponent_hands, waiting_outlook
from gin.players.view import decision_rand, unseen_of, view_of


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
    wait_low: bool = False  # declining a knock, throw the card that knock would throw


NORMAL = Style("normal", reach=3.0, caution=0.0, take_margin=1.0, knock_at_once=4,
               wait_while_stock=12)
# Hard knocks when a knock is worth 3 points more than a round of waiting, judged
# against 30 guessed opponent hands. Knocking whenever a knock is there, or by
# fixed deadwood and stock thresholds, measured worse: see docs/players.md.
HARD = Style("hard", reach=3.0, caution=12.0, take_margin=1.0, samples=30, knock_margin=3.0,
             wait_low=True)


#: An action, and how to put the reason for it in words: only a hint asks, and the
#: simulator would otherwise spend as long on the words as on the choice.
Decision = tuple[Action, Callable[[], str]]

_BIG_GIN, _PASS, _DRAW_STOCK, _DRAW_PILE = BigGin(), Pass(), DrawStock(), DrawPile()
_DEADWOOD, _LOOSE = attrgetter("deadwood"), attrgetter("deadwood_mask")


def _harmless(bit: int) -> float:
    return 0.0


class SkilledPlayer:
    """Normal or Hard, by style. Deterministic: ties go to the lower-ranked score
    then to the card order."""

    def __init__(self, style: Style, seed: int = 0) -> None:
        self.style = style
        self.name = style.name
        self.seed = seed  # with the observation, seeds each decision's random stream

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return self._decide(obs, legal)[0]

    def decide(self, obs: Observation, legal: Sequence[Action]) -> Hint:
        action, why = self._decide(obs, legal)
        return Hint(action, why())

    def _decide(self, obs: Observation, legal: Sequence[Action]) -> Decision:
        if obs.phase is Phase.LAYOFF:
            return LayOff(), lambda: "Lay off every card that fits and meld the rest."
        hand = cards_mask(obs.hand)
        if obs.phase is not Phase.DISCARD:
            return self._draw(obs, legal, hand)
        allowed: dict[int, Discard] = {}  # by the mask of the card thrown
        knocks: list[Knock] = []
        for action in legal:  # one pass: `BigGin() in legal` alone compares every action
            if isinstance(action, Discard):
                allowed[action.card.mask] = action
            elif isinstance(action, Knock):
                knocks.append(action)
            elif action == _BIG_GIN:
                return _BIG_GIN, lambda: "Big gin: all eleven cards are in melds."
        return self._discard(obs, hand, allowed, knocks)

    # -- scoring -------------------------------------------------------------

    def _scorer(self, live: int) -> Callable[[int, int], float]:
        """The score of the cards kept, from their deadwood and the potential of their
        loose cards. Lower is better: deadwood less the value of waiting for the
        live cards."""
        reach, count = self.style.reach, max(live.bit_count(), 1)

        def score(deadwood: int, waiting: int) -> float:
            return deadwood - reach * waiting / count

        return score

    def _danger_of(self, obs: Observation) -> Callable[[int], float]:
        """Roughly the chance that a card completes a three-card meld for the opponent."""
        if not self.style.caution:
            return _harmless
        view = view_of(obs)
        known, unseen = view.opp_known, view.unseen
        base = view.opp_unknown / max(unseen.bit_count(), 1)
        # Ranks they threw or refused, and the cards beside them, they are not collecting.
        cold_cards = view.opp_thrown | view.opp_refused
        ranks = (cold_cards | cold_cards >> 13 | cold_cards >> 26 | cold_cards >> 39) & 0x1FFF
        cold = (ranks * ACES) | (cold_cards << 1 & NOT_ACE) | (cold_cards >> 1 & NOT_KING)

        def held(card: int) -> float:
            if card & known:
                return 1.0
            if card & unseen:
                return base * (0.5 if card & cold else 1.0)
            return 0.0

        def danger(bit: int) -> float:
            # Added left to right by hand: Python 3.12's sum() of floats compensates
            # rounding, and the TypeScript twin (and Python 3.11) add plainly.
            total = 0.0
            for a, b in meld_partners(bit):
                total += held(a) * held(b)
            return total

        return danger

    # -- drawing -------------------------------------------------------------

    def _draw(self, obs: Observation, legal: Sequence[Action], hand: int) -> Decision:
        kinds = set(map(type, legal))  # `_PASS in legal` calls a dataclass __eq__ per action
        refuse: Action = _PASS if Pass in kinds else _DRAW_STOCK
        verb = "Pass" if refuse is _PASS else "Draw from the stock"
        top = obs.top_of_pile
        if top is None or DrawPile not in kinds:
            return refuse, lambda: f"{verb}: the pile is closed to you this turn."
        # Only a card that melds is worth showing: test that before the full scoring.
        if melds_with(top.mask, hand):
            taken = hand | top.mask
            arrangement = arrange_mask(taken)
            if not arrangement.deadwood_mask & top.mask:
                # Throwing the pile card back leaves the hand as it is now.
                now = discard_option(taken, top.mask)
                live = unseen_of(obs, hand)
                score = self._scorer(live)
                wanted = score(now.deadwood, potential(now.deadwood_mask, live)) \
                    - self.style.take_margin
                # Least deadwood first: nearly always the first discard is good enough.
                if any(score(option.deadwood, potential(option.deadwood_mask, live)) < wanted
                       for option in sorted(discard_table(taken), key=_DEADWOOD)
                       if option.bit != top.mask):
                    return _DRAW_PILE, lambda: _take_reason(top, arrangement)
        return refuse, lambda: (f"{verb}: the {top.glyph} would not improve your hand enough "
                                "to show the opponent what you collect.")

    # -- discarding and knocking -------------------------------------------

    def _discard(self, obs: Observation, hand: int, allowed: dict[int, Discard],
                 knocks: list[Knock]) -> Decision:
        live = unseen_of(obs, hand)
        least = least_knock(hand, knocks) if knocks else None
        if least is not None:
            knocking = self._knock(obs, hand, live, *least)
            if knocking is not None:
                return knocking
            if self.style.wait_low:
                left, knock = least
                throw = allowed[knock.card.mask]
                return throw, lambda: (f"Throw the {throw.card.glyph}: {left} deadwood, the "
                                       "least, while waiting for a better knock or an undercut.")
        caution = self.style.caution
        danger_of = self._danger_of(obs)
        score = self._scorer(live)
        options = sorted(discard_table(hand), key=_DEADWOOD)
        # Most discards throw a card of one set of loose cards (the least deadwood's,
        # nearly always the hand's own): their potential follows from that set's.
        first = options[0]
        loose = first.deadwood_mask | first.bit
        whole = potential(loose, live)
        # Options by deadwood stop where none can win. Potential only grows with the
        # loose cards (none of them live), so no discard of `loose` waits for more
        # than `whole`, and none at all for more than every option's loose cards
        # together: a bound taken only once the first no longer lets an option through.
        near = score(0, whole)
        lowest: float | None = None
        best, best_bit = inf, 0  # the best score yet, and the card it throws
        for bit, deadwood, kept in options:
            action = allowed.get(bit)
            if action is None:
                continue
            in_loose = kept | bit == loose
            if deadwood + near > best:
                if lowest is None:
                    lowest = score(0, potential(reduce(or_, map(_LOOSE, options)), live))
                if deadwood + lowest > best:
                    break
                if in_loose:
                    continue
            waiting = potential_without(loose, live, bit, whole) if in_loose \
                else potential(kept, live)
            danger = danger_of(bit)
            value = score(deadwood, waiting) + caution * danger
            if value < best or value == best and _order(bit) < _order(best_bit):
                best, best_bit, chosen, risk, left = value, bit, action, danger, deadwood
        # A partial, not a lambda: a closure would make `chosen`, `risk` and `left`
        # cells, slower in the loop above.
        return chosen, partial(_discard_reason, chosen.card, obs, risk, left)

    def _knock(self, obs: Observation, hand: int, live: int, left: int,
               knock: Knock) -> Decision | None:
        """``knock`` with its melds declared, if it is time to knock on ``left``
        deadwood; None to keep drawing."""
        if not left:
            gin, _ = declare(hand, knock, left, live)
            return gin, lambda: (f"Gin: throw the {gin.card.glyph} and every card is in a "
                                 f"meld ({obs.rules.gin_bonus} bonus, nothing can be "
                                 "laid off).")
        if self.style.samples:
            action, layout = declare(hand, knock, left, live)
            why = self._knock_by_samples(obs, hand ^ action.card.mask, action.card.mask,
                                         layout.meld_masks, left)
        else:  # by rule of thumb, which needs no melds: they are declared only to knock
            why = self._knock_by_rule(obs, left)
            if why is not None:
                action, _ = declare(hand, knock, left, live)
        if why is None:
            return None
        return action, lambda: (f"Knock, throwing the {action.card.glyph}: {left} "
                                f"deadwood — {why}.")

    def _knock_by_rule(self, obs: Observation, left: int) -> str | None:
        """Why to knock on ``left`` deadwood now by rule of thumb, or None to keep drawing."""
        style = self.style
        if left <= style.knock_at_once:
            return "low enough that an undercut is unlikely"
        if obs.stock_count <= style.wait_while_stock:
            return "take the points before the opponent improves"
        return None

    def _knock_by_samples(self, obs: Observation, mine: int, thrown: int,
                          melds: tuple[int, ...], left: int) -> str | None:
        """Why to knock on ``left`` deadwood keeping ``mine`` (throwing ``thrown``)
        now, or None to keep drawing: when that is worth more, against hands the
        opponent may hold, than a round of waiting: waiting risks their knock (or
        gin) but may lower ours."""
        style = self.style
        view = view_of(obs)
        rng = decision_rand(obs, self.seed)
        hands = opponent_hands(view, rng, style.samples, obs.knock_limit)
        now = knock_outlook(hands, melds, left, obs.rules)
        wait = waiting_outlook(view, mine, thrown, hands, rng, obs.stock_count,
                               obs.knock_limit, obs.rules)
        # The margin allows for a wait misjudged; a discard ending the hand dead is not.
        margin = style.knock_margin if obs.stock_count > obs.rules.dead_stock else 0.0
        if now.points <= wait + margin:
            return None
        return (f"worth about {now.points:.0f} points now against {wait:.0f} for waiting "
                f"({now.undercut:.0%} of the hands the opponent may hold undercut it)")


def _order(bit: int) -> tuple[int, int]:
    """How discards of equal score rank: the higher card first, then the card order."""
    return -bit_value(bit), bit


def _take_reason(top: Card, arrangement: Arrangement) -> str:
    meld = next(m for m in arrangement.meld_masks if m & top.mask)
    return f"Take the {top.glyph}: it completes {' '.join(c.glyph for c in mask_cards(meld))}."


def _discard_reason(card: Card, obs: Observation, danger: float, left: int) -> str:
    view = view_of(obs)
    if card.mask & arrange_mask(view.hand).deadwood_mask:
        reason = f"Throw the {card.glyph}: it is the loose card least likely to meld"
    else:
        reason = f"Throw the {card.glyph}: breaking up that meld costs least"
    if view.opp_known | view.opp_thrown and danger < 0.05:
        reason += ", and the opponent does not look to be collecting it"
    return f"{reason} ({left} deadwood left)."
