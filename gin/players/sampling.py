"""Hard's guesses at the opponent's hidden cards, and what a knock is worth
against them.

A guess holds the cards the opponent is known to hold plus cards dealt from the
unseen ones (never a card this player has seen). A random ten-card hand is far
worse than the hand of someone who has been drawing for a while, so each guess
is then improved the way a plain player improves a hand: one unseen card per
stock draw the opponent made, throwing whichever card leaves least deadwood.
Guesses that disagree with what the opponent did (kept a card they threw or
refused, hold loose cards above their latest discard, could have knocked) are
kept less often. The guesses depend only on the observation and the stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gin.engine.layoffs import best_defence
from gin.engine.melds import arrange_mask, discard_table
from gin.engine.rules import Ruleset
from gin.players.evaluate import bit_value, bits, melds_with
from gin.players.view import View
from gin.rand import Rand

# From this stock on, the modelled opponent knocks only when the knock wins. Before,
# knocking whenever they can is the threat at its worst (and how Simple plays).
# Late, an opponent still holding a knockable hand is one who waits for a safe
# knock: assuming they would knock into an undercut made two Hards each wait for
# the other until the hand died. From 12 cost strength against Normal, which
# knocks anything from 12 down (docs/players.md).
LATE_STOCK = 6


#: How much less likely a guess is for each card the opponent threw or left on the
#: pile that would have made a meld with two of the guessed cards: players keep
#: such cards.
COLD_LIKELIHOOD = 0.25
#: ... for each loose card of the guess worth more than the opponent's latest
#: discard: a player throws their costliest loose card, as a rule.
HIGH_LIKELIHOOD = 0.3
#: ... if the guess is within the knock limit: a player who can knock mostly does.
KNOCKABLE_LIKELIHOOD = 0.3


def opponent_hands(view: View, rng: Rand, count: int, limit: int = 10) -> list[int]:
    """``count`` guesses (masks) at the opponent's hand, drawn from ``rng``: each
    is dealt and improved (:func:`_guess`), then kept with the chance
    :func:`_likelihood` gives it, so the guesses agree with what the opponent did
    (after ``3 * count`` tries, any guess is kept)."""
    pool = list(bits(view.unseen))
    cold = list(bits(view.opp_thrown | view.opp_refused))
    last = bit_value(view.opp_last) if view.opp_last else 10
    hands: list[int] = []
    tries = 0
    while len(hands) < count:
        hand = _guess(view, pool, rng)
        tries += 1
        chance = _likelihood(hand, cold, last, limit)
        if chance >= 1.0 or tries > 3 * count or rng.random() < chance:
            hands.append(hand)
    return hands


def _likelihood(hand: int, cold: list[int], last: int, limit: int) -> float:
    """How likely a guess is against what the opponent did, relative to 1: the
    cards they threw or refused, their latest discard, their not knocking. (A
    product of factors, one multiplication each in this order, so that another
    language rounds it the same.)"""
    chance = 1.0
    for card in cold:
        if melds_with(card, hand):
            chance *= COLD_LIKELIHOOD
    arrangement = arrange_mask(hand)
    for loose in bits(arrangement.deadwood_mask):
        if bit_value(loose) > last:
            chance *= HIGH_LIKELIHOOD
    if arrangement.deadwood <= limit:
        chance *= KNOCKABLE_LIKELIHOOD
    return chance


def _guess(view: View, pool: list[int], rng: Rand) -> int:
    """One guess: the known cards plus hidden ones dealt from ``pool``, improved by
    one card per stock draw the opponent made (throwing for least deadwood)."""
    deal = pool[:]
    hidden, draws = view.opp_unknown, view.opp_draws
    # A partial Fisher-Yates shuffle: only the cards dealt are drawn.
    for i in range(min(hidden + draws, len(deal))):
        j = i + rng.below(len(deal) - i)
        deal[i], deal[j] = deal[j], deal[i]
    hand = view.opp_known | sum(deal[:hidden])
    for card in deal[hidden : hidden + draws]:  # known cards stay: still held
        hand, _ = _best_ten(hand | card, view.opp_known)
    return hand


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
    results = [_settle(deadwood, melds, hand, rules) for hand in hands]
    total = max(len(hands), 1)
    return KnockOutlook(sum(w < 0 for w in results) / total, sum(results) / total)


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
