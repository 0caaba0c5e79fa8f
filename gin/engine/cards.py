"""Cards: a small immutable value type, its text forms, and card sets as bit masks.

A card's index is ``suit * 13 + (rank - 1)`` with suits in the order clubs,
diamonds, hearts, spades. The same numbering is used by the bit masks of
:mod:`gin.engine.melds` and by the fair deal, so a hand is also a 52-bit integer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from gin.engine.errors import MalformedInput

RANKS = "A23456789TJQK"
SUITS = "cdhs"
SUIT_GLYPHS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)

_SUIT_OF_CHAR = {ch: i for i, ch in enumerate(SUITS)} | {g: i for i, g in enumerate(SUIT_GLYPHS)}
# The text-presentation variation selector some terminals append to glyphs.
_VARIATION_SELECTORS = "\ufe0e\ufe0f"
#: The spaces card and action texts may hold: ASCII only, so that every reader of a
#: text (gin/ and the browser's TypeScript twin) splits it the same way.
SPACE = " \t\n\r\f\v"
_SEPARATORS = re.compile(r"[ \t\n\r\f\v]*,[ \t\n\r\f\v]*|[ \t\n\r\f\v]+")


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) to 13 (king); ``suit`` 0..3 (c d h s).

    Ordering is by rank, then suit. ``str(card)`` is the canonical text (``Th``);
    :meth:`parse` accepts that, ``10h``, suit glyphs and any case.
    """

    rank: int
    suit: int
    #: 0..51, the card's bit in a hand mask (stored: the meld search reads it a lot).
    index: int = field(init=False, compare=False, repr=False)
    mask: int = field(init=False, compare=False, repr=False)

    _by_index: ClassVar[tuple[Card, ...]]

    def __post_init__(self) -> None:
        if not (
            isinstance(self.rank, int) and isinstance(self.suit, int)
            and 1 <= self.rank <= 13 and 0 <= self.suit <= 3
        ):
            raise MalformedInput(f"no such card: rank {self.rank!r}, suit {self.suit!r}")
        index = self.suit * 13 + self.rank - 1
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "mask", 1 << index)

    @property
    def value(self) -> int:
        """Deadwood points: ace 1, two to ten their number, court cards 10."""
        return self.rank if self.rank < 10 else 10

    @property
    def is_red(self) -> bool:
        return self.suit in (1, 2)

    @property
    def glyph(self) -> str:
        """Rank and suit glyph for display, such as ``10♥``."""
        rank = "10" if self.rank == 10 else RANKS[self.rank - 1]
        return rank + SUIT_GLYPHS[self.suit]

    @property
    def name(self) -> str:
        """Words, such as ``seven of hearts``."""
        return f"{RANK_NAMES[self.rank - 1]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise MalformedInput(f"card index {index!r} is not in 0..51")
        return cls._by_index[index]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card: ``7h``, ``Th``, ``10h``, ``7♥``, any case."""
        token = text.strip(SPACE)
        for vs in _VARIATION_SELECTORS:
            token = token.replace(vs, "")
        if len(token) < 2:
            raise MalformedInput(f"card {text!r}: expected a rank then a suit, such as 7h or T♥")
        rank_text, suit_text = token[:-1].upper(), token[-1].lower()
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in RANKS:
            raise MalformedInput(
                f"card {text!r}: unknown rank {token[:-1]!r} (use A 2-9 T/10 J Q K)"
            )
        suit = _SUIT_OF_CHAR.get(suit_text)
        if suit is None:
            raise MalformedInput(f"card {text!r}: unknown suit {token[-1]!r} (use c d h s or ♣♦♥♠)")
        return cls._by_index[suit * 13 + RANKS.index(rank_text)]


Card._by_index = tuple(Card(i % 13 + 1, i // 13) for i in range(52))

#: All 52 cards in index order.
DECK: tuple[Card, ...] = Card._by_index


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces and/or commas; duplicates are an error.

    Errors name the bad token and its position (1-based). An empty token (two
    commas in a row) is an error too; extra spaces are not.
    """
    stripped = text.strip(SPACE)
    if not stripped:
        return []
    cards: list[Card] = []
    seen: set[Card] = set()
    for position, token in enumerate(_SEPARATORS.split(stripped), start=1):
        if not token:
            raise MalformedInput(f"card {position} of {text!r} is empty")
        try:
            card = Card.parse(token)
        except MalformedInput as exc:
            raise MalformedInput(f"card {position} of {text!r}: {exc}") from None
        if card in seen:
            raise MalformedInput(f"card {position} of {text!r}: {card} appears twice")
        seen.add(card)
        cards.append(card)
    return cards


def cards_mask(cards: Iterable[Card]) -> int:
    """The 52-bit mask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= card.mask
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in index order (suit, then rank)."""
    # A suit at a time from a cache: observations turn masks into cards on every move.
    if not mask:  # the opponent's known cards, most of the time
        return ()
    return (_suit_cards(mask & _CLUBS) + _suit_cards(mask & _DIAMONDS)
            + _suit_cards(mask & _HEARTS) + _suit_cards(mask & _SPADES))


_CLUBS, _DIAMONDS, _HEARTS, _SPADES = (0x1FFF << (13 * s) for s in range(4))


@lru_cache(maxsize=1 << 15)
def _suit_cards(suit: int) -> tuple[Card, ...]:
    """The cards of one suit's part of a mask (one int key: the cache's fast path)."""
    return tuple(card for card in DECK if suit & card.mask)


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical text of several cards, space separated (inverse of parse_cards)."""
    return " ".join(str(c) for c in cards)


def mask_text(mask: int) -> str:
    """Canonical text of the cards of a mask."""
    return format_cards(mask_cards(mask))
