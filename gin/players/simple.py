"""The research baseline: OpenSpiel's SimpleGinRummyBot, decision for decision.

The bot (``open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc`` and the meld
search of ``gin_rummy_utils.cc``) plays:

* **Draw**: take the pile card if, with it, the bot's 11-card deadwood count
  (below) is within the knock limit, or if the card is not loose in the bot's
  best meld group of the eleven cards; else draw from the stock (or pass).
* **Discard**: knock when the 11-card deadwood count is within the knock limit;
  throw the loose card of the 11-card best meld group that ranks highest
  (rank, then suit in the order spades, clubs, diamonds, hearts). With no loose
  card (eleven melded cards), throw the first card, in card order, whose loss
  leaves gin.
* **Knock**: declare the melds of that best meld group. **Defend**: lay off
  nothing and meld the best meld group of the ten cards.

Its "best meld group" is the first group, in the order its search meets them,
with the most melded points; so among groups of equal deadwood the search order
decides which cards are loose, and with them the discard and the pile-card
test. That order is reproduced here (:func:`best_group`): melds are listed
sets first (cards sorted by rank then suit; each four of a kind gives the four
and two of its threes, then every three in a row of that sort), then runs of
five, four and three (cards sorted by suit then rank); groups are paths of a
depth-first search that starts from each meld in turn and goes on with the
melds that do not overlap. The 11-card deadwood count drops the highest-ranked
loose card of that group, which can exceed the true least deadwood after a
discard; the bot knocks by its own count.

Where the project's rules differ, the bot's own logic picks the next move:

* the card just taken from the pile may not be thrown back (OpenSpiel allows
  it): the bot throws the highest-ranked *other* loose card of the group, else
  the first other card that leaves gin, else the first other card leaving least
  deadwood; it knocks with that card if its declared melds still leave the
  deadwood within the limit, and otherwise just throws it;
* big gin is not in OpenSpiel: with eleven melded cards the bot knocks gin,
  throwing a card as above;
* OpenSpiel's last-card "wall" (take the pile card only to knock) does not
  arise: here a discard that leaves the stock at the floor ends the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from gin.engine.actions import Action, Discard, DrawPile, DrawStock, Knock, LayOff, Pass
from gin.engine.cards import Card, cards_mask, mask_cards
from gin.engine.melds import arrange_mask, mask_value, union
from gin.engine.observation import Observation, Phase
from gin.players.evaluate import bits

_SUIT = 0x1FFF
_LOW_THREE_SUITS = (1 << 39) - 1


def _ours_to_bot(mask: int) -> int:
    """A hand mask in the bot's card numbering: suits spades, clubs, diamonds,
    hearts (ours: clubs, diamonds, hearts, spades), ``suit * 13 + rank``."""
    return (mask >> 39) | (mask & _LOW_THREE_SUITS) << 13


def _bot_to_ours(mask: int) -> int:
    return (mask & _SUIT) << 39 | mask >> 13


def _value(card: int) -> int:
    return min(card % 13 + 1, 10)


def _meld_list(cards: list[int]) -> list[tuple[int, int]]:
    """The bot's melds of ``cards`` (its numbering) as (mask, points), in the
    order its search lists them."""
    melds: list[tuple[int, ...]] = []
    by_rank = sorted(cards, key=lambda c: (c % 13, c))
    n = len(by_rank)
    for i in range(n - 3):
        if by_rank[i] % 13 == by_rank[i + 3] % 13:
            a, b, c, d = by_rank[i : i + 4]
            melds += [(a, b, c, d), (a, b, d), (a, c, d)]
    for i in range(n - 2):
        if by_rank[i] % 13 == by_rank[i + 2] % 13:
            melds.append(tuple(by_rank[i : i + 3]))
    by_suit = sorted(cards)
    for length in (5, 4, 3):
        for i in range(n - length + 1):
            low, high = by_suit[i], by_suit[i + length - 1]
            if low == high - (length - 1) and low // 13 == high // 13:
                melds.append(tuple(by_suit[i : i + length]))
    return [(sum(1 << c for c in meld), sum(map(_value, meld))) for meld in melds]


@lru_cache(maxsize=1 << 12)
def best_group(mask: int) -> tuple[int, ...]:
    """The bot's best meld group of a hand (our mask), as masks of our numbering."""
    bot = _ours_to_bot(mask)
    target = mask_value(mask) - arrange_mask(mask).deadwood  # the most points melded
    melds = _meld_list([b.bit_length() - 1 for b in bits(bot)])

    def search(options: list[tuple[int, int]], value: int) -> list[int] | None:
        if value == target:  # no meld fits beside a group of the most points
            return []
        # Card values depend on the rank alone, the same in both numberings.
        if value + mask_value(union(m for m, _ in options)) < target:
            return None
        for meld, points in options:
            rest = [o for o in options if not o[0] & meld]
            found = search(rest, value + points)
            if found is not None:
                return [meld, *found]
        return None

    group = search(melds, 0)
    assert group is not None  # the exact search's optimum is one of the bot's groups
    return tuple(_bot_to_ours(m) for m in group)


def _rank_order(bit: int) -> tuple[int, int]:
    """The bot's card order for loose cards: rank, then suit spades < clubs <
    diamonds < hearts."""
    index = _ours_to_bot(bit).bit_length() - 1
    return index % 13, index


def loose(mask: int) -> int:
    """The loose cards of the bot's best meld group."""
    return mask & ~union(best_group(mask))


def deadwood_count(mask: int) -> int:
    """The bot's deadwood count: of its best group's loose cards, less the
    highest-ranked one for an eleven-card hand."""
    cards = loose(mask)
    if mask.bit_count() == 11 and cards:
        cards ^= max(bits(cards), key=_rank_order)
    return mask_value(cards)


class SimplePlayer:
    """OpenSpiel's SimpleGinRummyBot (see the module text). Deterministic."""

    name = "simple"

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        hand = cards_mask(obs.hand)
        if obs.phase is Phase.LAYOFF:
            return LayOff((), _melds(best_group(hand)))
        if obs.phase is not Phase.DISCARD:
            return self._draw(obs, legal, hand)
        return self._discard(obs, legal, hand)

    def _draw(self, obs: Observation, legal: Sequence[Action], hand: int) -> Action:
        top = obs.top_of_pile
        if top is not None and DrawPile() in legal:
            eleven = hand | top.mask
            if deadwood_count(eleven) <= obs.knock_limit or not loose(eleven) & top.mask:
                return DrawPile()
        return Pass() if Pass() in legal else DrawStock()

    def _discard(self, obs: Observation, legal: Sequence[Action], hand: int) -> Action:
        banned = obs.just_taken.mask if obs.just_taken is not None else 0
        free = loose(hand)
        throwable = [b for b in bits(hand) if not b & banned]
        candidates = [b for b in bits(free) if not b & banned]
        if candidates:
            card = max(candidates, key=_rank_order)
            group = best_group(hand)
            left = mask_value(free ^ card)
        else:
            gin = [b for b in throwable if not arrange_mask(hand ^ b).deadwood]
            if gin:
                card = min(gin, key=_card_order)
            else:  # only the banned card is loose: least deadwood, first in card order
                card = min(throwable, key=lambda b: (arrange_mask(hand ^ b).deadwood,
                                                     _card_order(b)))
            group = best_group(hand ^ card)
            left = mask_value(hand ^ card) - sum(map(mask_value, group))
        chosen = Card.from_index(card.bit_length() - 1)
        knock = Knock(chosen)
        if deadwood_count(hand) <= obs.knock_limit and left <= obs.knock_limit \
                and knock in legal:
            return Knock(chosen, _melds(group))
        return Discard(chosen)


def _card_order(bit: int) -> int:
    """The bot's card order (its hand is listed by card number)."""
    return _ours_to_bot(bit).bit_length() - 1


def _melds(group: tuple[int, ...]) -> tuple[tuple[Card, ...], ...]:
    return tuple(mask_cards(m) for m in group)
