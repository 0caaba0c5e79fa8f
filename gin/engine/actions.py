"""Player actions: small frozen values with text forms that round-trip.

=====================  ==========================================================
text                    action
=====================  ==========================================================
``pass``                decline the upcard
``stock``               draw the top card of the stock
``take``                take the upcard or the top of the discard pile
``discard 7h``          throw a card
``knock 7h``            throw a card face down and knock with the best melds
``knock 7h / 5h6h7h / 9c9d9s``  knock declaring the melds
``biggin``              lay down all eleven cards (when the ruleset allows it)
``layoff``              the defender lays out their best melds and lay-offs
``layoff 8h>0 / 2c3c4c``  the defender's own choice: card>meld lay-offs, then melds
=====================  ==========================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gin.engine.cards import SPACE, Card, parse_cards
from gin.engine.errors import MalformedInput
from gin.engine.melds import Meld


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the upcard."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Draw the top card of the stock."""

    def __str__(self) -> str:
        return "stock"


@dataclass(frozen=True, slots=True)
class DrawPile:
    """Take the upcard, or the top card of the discard pile."""

    def __str__(self) -> str:
        return "take"


@dataclass(frozen=True, slots=True)
class Discard:
    """Throw a card onto the discard pile."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Knock:
    """Throw ``card`` face down and lay the hand out.

    ``melds`` are the melds declared (None: the best arrangement). Knocking with
    no deadwood is gin.
    """

    card: Card
    melds: tuple[Meld, ...] | None = None

    def __str__(self) -> str:
        return f"knock {self.card}" + _melds_text(self.melds)


@dataclass(frozen=True, slots=True)
class BigGin:
    """Lay down all eleven cards in melds without discarding (when allowed)."""

    melds: tuple[Meld, ...] | None = None

    def __str__(self) -> str:
        return "biggin" + _melds_text(self.melds)


@dataclass(frozen=True, slots=True)
class LayOff:
    """The defender's answer to a knock: own melds and lay-offs.

    ``layoffs`` pairs a card with the index of the knocker's meld it goes on.
    Both None: the best layout, chosen by the engine.
    """

    layoffs: tuple[tuple[Card, int], ...] | None = None
    melds: tuple[Meld, ...] | None = None

    def __str__(self) -> str:
        if self.layoffs is None and self.melds is None:
            return "layoff"
        if not self.layoffs and not self.melds:
            return "layoff /"  # lays nothing down: distinct from the engine's best
        parts = [" ".join(f"{c}>{i}" for c, i in self.layoffs or ())]
        parts += ["".join(str(c) for c in m) for m in self.melds or ()]
        return "layoff " + " / ".join(parts)


Action = Pass | DrawStock | DrawPile | Discard | Knock | BigGin | LayOff


def _melds_text(melds: tuple[Meld, ...] | None) -> str:
    if melds is None:
        return ""
    return "".join(" / " + "".join(str(c) for c in m) for m in melds)


def _parse_meld(text: str) -> Meld:
    compact = text.replace(" ", "")
    if len(compact) % 2:
        # Allow "10" for ten inside a compact meld.
        compact = compact.replace("10", "T")
    return tuple(parse_cards(" ".join(compact[i : i + 2] for i in range(0, len(compact), 2))))


_SPACES = re.compile(f"[{re.escape(SPACE)}]+")


def _words(text: str, maxsplit: int = 0) -> list[str]:
    """``text`` split at ASCII spaces (none at either end): Unicode spaces and digits
    are not part of the grammar, so both implementations read a text alike."""
    stripped = text.strip(SPACE)
    return _SPACES.split(stripped, maxsplit=maxsplit) if stripped else []


def parse_action(text: str) -> Action:
    """Parse an action's text form (see the module table); MalformedInput names it."""
    words = _words(text, 1)
    if not words:
        raise MalformedInput("empty action: expected pass, stock, take, discard CARD, knock CARD…")
    verb, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
    try:
        if verb in ("pass", "stock", "take") and not rest:
            simple: dict[str, Action] = {"pass": Pass(), "stock": DrawStock(), "take": DrawPile()}
            return simple[verb]
        if verb == "discard":
            return Discard(Card.parse(rest))
        if verb == "knock":
            card_text, *meld_texts = rest.split("/")
            melds = tuple(_parse_meld(m) for m in meld_texts) if meld_texts else None
            return Knock(Card.parse(card_text), melds)
        if verb == "biggin":
            meld_texts = rest.split("/")[1:] if rest else []
            return BigGin(tuple(_parse_meld(m) for m in meld_texts) if meld_texts else None)
        if verb == "layoff":
            if not rest:
                return LayOff()
            layoff_text, *meld_texts = rest.split("/")
            layoffs = []
            for item in _words(layoff_text):
                card_text, sep, index = item.partition(">")
                if not sep or not (index.isascii() and index.isdigit()):
                    raise MalformedInput(f"lay-off {item!r}: expected CARD>MELD such as 8h>0")
                layoffs.append((Card.parse(card_text), int(index)))
            return LayOff(tuple(layoffs), tuple(_parse_meld(m) for m in meld_texts if m.strip()))
    except MalformedInput as exc:
        raise MalformedInput(f"action {text!r}: {exc}") from None
    raise MalformedInput(
        f"action {text!r}: expected pass, stock, take, discard CARD, knock CARD [/ MELD…], "
        "biggin or layoff"
    )
