"""Hard's guesses at the opponent's hidden cards, and what a knock is worth
against them.

A guess holds the cards the opponent is known to hold plus cards dealt from the
unseen ones (never a card this player has seen). A random ten-card hand is far
worse than the hand of someone who has been drawing for a while, so each guess
is then improved the way a plain player improves a hand: one unseen card per
stock draw the opponent made, throwing whichever card leaves least deadwood.
The guesses depend only on the observation and the random source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gin.layoffs import best_defence
from gin.melds import arrange_mask, discard_table
from gin.players.evaluate import bits
from gin.players.view import View
from gin.rand import Rand
from gin.rules import Ruleset

# From this stock on, the modelled opponent knocks only when the knock wins. Before,
# knocking whenever they can is the threat at its worst (and how Simple plays).
# Late, an opponent still holding a knockable hand is one who waits for a safe
# knock: assuming they would knock into an undercut made two Hards each wait for
# the other until the hand died. From 12 cost strength against Normal, which
# knocks anything from 12 down (docs/players.md).
LATE_STOCK = 6


def opponent_hands(view: View, rng: Rand, count: int) -> list[int]:
    """``count`` guesses (masks) at the opponent's hand, drawn from ``rng``."""
    pool = list(bits(view.unseen))
    hidden, draws = view.opp_unknown, view.opp_draws
    hands = []
    for _ in range(count):
        deal = pool[:]
        rng.shuffle(deal)
        deal = deal[: hidden + draws]
        hand = view.opp_known | sum(deal[:hidden])
        for card in deal[hidden:]:  # known cards stay: the opponent still holds them
            hand, _ = _best_ten(hand | card, view.opp_known)
        hands.append(hand)
    return hands


def _left(option: tuple[int, int, int]) -> int:
    return option[1]


@dataclass(frozen=True, slots=True)
class KnockOutlook:
    """A knock judged against the guessed hands."""

    undercut: float  # the share of guesses that undercut it
    points: float  # the mean points it wins (negative: it loses)


def knock_outlook(
    hands: Sequence[int], melds: tuple[int, ...], deadwood: int, rules: Ruleset
) -> KnockOutlook:
    """How a knock on ``deadwood`` with ``melds`` fares against each guessed hand,
    with the defender's exact best lay-offs (none against gin)."""
    undercuts, points = 0, 0
    for hand in hands:
        won = _settle(deadwood, melds, hand, rules)
        undercuts += won < 0
        points += won
    total = max(len(hands), 1)
    return KnockOutlook(undercuts / total, points / total)


def _settle(knocker_left: int, melds: tuple[int, ...], defender: int, rules: Ruleset) -> int:
    """Points the knocker wins (negative: loses) against ``defender``'s cards."""
    if knocker_left == 0:
        return rules.gin_bonus + arrange_mask(defender).deadwood
    defended = best_defence(defender, melds).deadwood
    if defended <= knocker_left:
        return -(rules.undercut_bonus + knocker_left - defended)
    return defended - knocker_left


def _best_ten(eleven: int, keep: int = 0) -> tuple[int, int]:
    """The ten cards left after the discard leaving least deadwood (never a card of
    ``keep``), and that deadwood."""
    option = min((o for o in discard_table(eleven) if not o.bit & keep), key=_left)
    return eleven ^ option.bit, option.deadwood


def waiting_outlook(
    view: View, mine: int, thrown: int, hands: Sequence[int], rng: Rand,
    stock: int, limit: int, rules: Ruleset,
) -> float:
    """Mean points of throwing ``thrown`` instead of knocking, keeping ``mine``, by
    looking one round ahead against each guessed hand: the opponent takes the
    thrown card if it melds, else draws, and knocks if they can — once the stock
    is down to ``LATE_STOCK``, only if that knock wins; if they do not, this
    player draws and knocks. A discard that leaves ``rules.dead_stock`` cards or
    fewer in the ``stock`` ends the hand dead, worth nothing to either."""
    if stock <= rules.dead_stock:
        return 0.0
    total = 0
    for hand in hands:
        pool = list(bits(view.unseen & ~hand))
        theirs = hand | thrown
        if arrange_mask(theirs).deadwood_mask & thrown:
            theirs = hand | pool.pop(rng.below(len(pool)))
        theirs, their_left = _best_ten(theirs)
        if their_left <= limit:
            won = _settle(their_left, arrange_mask(theirs).meld_masks, mine, rules)
            if won > 0 or stock - 1 > LATE_STOCK:
                total -= won
                continue
        if stock - 1 <= rules.dead_stock or not pool:
            continue  # their discard ends the hand dead
        ten, left = _best_ten(mine | rng.choice(pool))
        if left <= limit:
            total += _settle(left, arrange_mask(ten).meld_masks, theirs, rules)
    return total / max(len(hands), 1)
