"""One hand of Gin Rummy as a state machine with explicit phases.

The deck is a sequence of 52 positions. The deal gives positions 0..19 one at a
time, the non-dealer first (even positions to the non-dealer, odd to the dealer);
position 20 is the upcard; positions 21..51 are the stock, drawn in order.

A position's card may be unknown (``None``) to this copy of the hand: an online
peer does not know the cards it was not dealt. Such a card is held face down
until :meth:`Hand.reveal` tells it (a discard is revealed before it is applied,
and at a knock every card is). With a full deck nothing is hidden.

:meth:`Hand.refusal` is the one place that decides what is legal; ``legal_actions``
filters candidates through it and ``apply`` refuses what it refuses, leaving the
state unchanged. What each player may see of the hand, and the values it is made
of (its phase, events and result), are in :mod:`gin.engine.observation`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from gin.engine.actions import (
    Action,
    BigGin,
    Discard,
    DrawPile,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    parse_action,
)
from gin.engine.cards import DECK, Card, mask_cards
from gin.engine.errors import IllegalAction, MalformedInput
from gin.engine.layoffs import Defence, best_defence, check_defence
from gin.engine.melds import check_meld, discard_option, discard_table, mask_value, union
from gin.engine.observation import Event, HandResult, Observation, Phase
from gin.engine.rules import STANDARD, Ruleset
from gin.engine.scoring import knocker_layout, settle_masks

UPCARD_POSITION = 20
FIRST_STOCK_POSITION = 21


def dealt_positions(dealer: bool) -> range:
    """Deck positions of the ten cards dealt to the dealer or the non-dealer."""
    return range(1 if dealer else 0, 20, 2)


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A shuffled deck from an injected random source (never the global one)."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def stacked_deck(
    non_dealer: Sequence[Card],
    dealer: Sequence[Card],
    upcard: Card,
    stock: Sequence[Card] = (),
) -> list[Card]:
    """A deck order that deals the given hands and upcard, with ``stock`` on top of
    the stock and the remaining cards after it in index order (for tests, puzzles
    and replays)."""
    if len(non_dealer) != 10 or len(dealer) != 10:
        raise MalformedInput("each player is dealt exactly 10 cards")
    deck: list[Card] = []
    for a, b in zip(non_dealer, dealer, strict=True):
        deck += [a, b]
    deck += [upcard, *stock]
    if len(set(deck)) != len(deck):
        raise MalformedInput("a stacked deck repeats a card")
    deck += [c for c in DECK if c not in set(deck)]
    return deck


class Hand:
    """One hand: deal, upcard offers, draws and discards, a knock, lay-offs, score."""

    def __init__(
        self, deck: Sequence[Card | None], dealer: int = 0, rules: Ruleset = STANDARD
    ) -> None:
        if len(deck) != 52:
            raise MalformedInput(f"a deck has 52 positions, got {len(deck)}")
        known = [c for c in deck if c is not None]
        if len(set(known)) != len(known):
            raise MalformedInput("the deck repeats a card")
        upcard = deck[UPCARD_POSITION]
        if upcard is None:
            raise MalformedInput("the upcard (position 20) must be known")
        if dealer not in (0, 1):
            raise MalformedInput(f"dealer must be 0 or 1, got {dealer!r}")
        self.rules = rules
        self.dealer = dealer
        self.knock_limit = rules.knock_limit_for(upcard.value)
        self._deck: list[Card | None] = list(deck)
        self._masks = [0, 0]
        self._hidden: list[set[int]] = [set(), set()]
        for player in (0, 1):
            for pos in dealt_positions(player == dealer):
                self._give(player, pos)
        self._next_stock = FIRST_STOCK_POSITION
        self._pile: list[Card] = [upcard]
        self._known = [0, 0]
        self.phase = Phase.UPCARD
        self.turn = 1 - dealer
        self._passes = 0
        self.just_taken: Card | None = None
        self._knock: tuple[int, tuple[int, ...], Card | None] | None = None
        self.result: HandResult | None = None
        self.events: list[Event] = []
        # Each player's view of ``events``, kept as they happen (observations are
        # asked for on every move; rebuilding them each time was a hot spot).
        self._seen: tuple[list[Event], list[Event]] = ([], [])
        self.actions: list[tuple[int, Action]] = []

    # -- reading the state -------------------------------------------------

    @property
    def stock_count(self) -> int:
        return 52 - self._next_stock

    @property
    def pile(self) -> tuple[Card, ...]:
        return tuple(self._pile)

    @property
    def next_stock_position(self) -> int:
        return self._next_stock

    @property
    def upcard_closed(self) -> bool:
        """Both passed the upcard and the first draw, from the stock, is still due."""
        return self._passes == 2 and self.phase is Phase.DRAW and self.stock_count == 31

    def cards(self, player: int) -> tuple[Card, ...]:
        """The known cards ``player`` holds, in index order."""
        return mask_cards(self._masks[player])

    def hidden_count(self, player: int) -> int:
        return len(self._hidden[player])

    def card_count(self, player: int) -> int:
        return self._masks[player].bit_count() + len(self._hidden[player])

    def card_at(self, position: int) -> Card | None:
        return self._deck[position]

    # -- legality: the one place ------------------------------------------

    def refusal(self, player: int, action: Action) -> str | None:
        """Why ``player`` may not do ``action`` now, or None when it is legal."""
        if self.phase is Phase.OVER:
            return "the hand is over"
        if player != self.turn:
            return f"it is player {self.turn}'s turn"
        check = _CHECKS.get(type(action))
        return f"unknown action {action!r}" if check is None else check(self, player, action)

    # One check per kind of action, chosen by ``refusal`` (the phase and the turn
    # are already right for a hand in play).

    def _pass_refusal(self, player: int, action: Pass) -> str | None:
        return None if self.phase is Phase.UPCARD else "only the upcard can be passed"

    def _pile_refusal(self, player: int, action: DrawPile) -> str | None:
        phase = self.phase
        if phase is Phase.UPCARD:
            return None
        if phase is not Phase.DRAW:
            return "you have drawn already"
        return "both players passed the upcard: draw from the stock" \
            if self.upcard_closed else None

    def _stock_refusal(self, player: int, action: DrawStock) -> str | None:
        phase = self.phase
        return None if phase is Phase.DRAW else (
            "take or pass the upcard first" if phase is Phase.UPCARD else "not drawing now"
        )

    def _discard_refusal(self, player: int, action: Discard | Knock) -> str | None:
        phase = self.phase
        if phase is not Phase.DISCARD:
            return "draw a card first" if phase in (Phase.DRAW, Phase.UPCARD) \
                else "not discarding now"
        card = action.card
        if card.mask & self._throwable(player):
            return None
        if self._masks[player] & card.mask:
            return f"{card} was just taken from the pile and cannot be thrown now"
        return f"player {player} does not hold {card}"

    def _throwable(self, player: int) -> int:
        """The cards ``player`` may throw in the discard phase: those held, less the
        card just taken from the pile."""
        taken = self.just_taken
        return self._masks[player] & ~(0 if taken is None else taken.mask)

    def _knock_refusal(self, player: int, action: Knock) -> str | None:
        why = self._discard_refusal(player, action)
        if why is not None:
            return why
        if self._hidden[player]:
            return "the knocker's cards must all be revealed"
        mask, bit = self._masks[player], action.card.mask
        if action.melds is None:  # the best melds: the cached discard table knows
            deadwood = discard_option(mask, bit).deadwood
        else:
            try:
                _, loose = self._declared(mask & ~bit, action.melds)
            except (IllegalAction, MalformedInput) as exc:
                return str(exc)
            deadwood = mask_value(loose)
        if deadwood > self.knock_limit:
            return (f"knocking with {action.card} leaves {deadwood} deadwood; "
                    f"the knock limit is {self.knock_limit}")
        return None

    def _big_gin_refusal(self, player: int, action: BigGin) -> str | None:
        if self.phase is not Phase.DISCARD:
            return "big gin is declared with eleven cards, after the draw"
        if self.rules.big_gin_bonus is None:
            return f"big gin is not played under the {self.rules.name} rules"
        if self._hidden[player]:  # as for a knock: what is laid down must be seen
            return "the knocker's cards must all be revealed"
        try:
            melds = self._declared(self._masks[player], action.melds)
        except (IllegalAction, MalformedInput) as exc:
            return str(exc)
        return None if melds[1] == 0 else "not every card is in a meld"

    def _layoff_refusal(self, player: int, action: LayOff) -> str | None:
        if self.phase is not Phase.LAYOFF:
            return f"nobody has knocked, so there is nothing to lay off: {self._what_now()}"
        try:
            self._defence(player, action)
        except (IllegalAction, MalformedInput) as exc:
            return str(exc)
        return None

    def _what_now(self) -> str:
        """What the player to move may do in the upcard, draw or discard phase."""
        if self.phase is Phase.UPCARD:
            return "take the upcard or pass"
        if self.phase is Phase.DRAW:
            return "draw from the stock" if self.upcard_closed \
                else "draw from the stock or take the discard"
        return "throw a card, or knock if your loose cards are few enough"

    def _declared(
        self, cards: int, melds: tuple[tuple[Card, ...], ...] | None
    ) -> tuple[tuple[int, ...], int]:
        declared = None if melds is None else [check_meld(m) for m in melds]
        return knocker_layout(cards, declared)

    def _defence(self, player: int, action: LayOff) -> Defence:
        if self._hidden[player]:
            raise IllegalAction("the defender's cards must all be revealed")
        assert self._knock is not None
        _, knocker_melds, _ = self._knock
        mask = self._masks[player]
        if action.layoffs is None and action.melds is None:
            return best_defence(mask, knocker_melds)
        melds = tuple(check_meld(m) for m in action.melds or ())
        layoffs = tuple((c.mask, i) for c, i in action.layoffs or ())
        return check_defence(mask, knocker_melds, melds, layoffs)

    def legal_actions(self) -> list[Action]:
        """Every action the player to move may take now.

        In the lay-off phase the defender's layout is free; this lists the best
        one (``LayOff()``), and any other valid layout is legal too.
        """
        # Candidates filtered by the checks ``refusal`` would choose for them (its
        # first tests, a hand in play and the player to move, hold here). Knocks are
        # proposed only where the cached discard table says the limit is met, so
        # little more than the legal actions themselves is checked.
        player, phase = self.turn, self.phase
        candidates: list[Action]
        if phase is Phase.UPCARD:
            candidates = [_TAKE, _PASS]
        elif phase is Phase.DRAW:
            candidates = [_STOCK, _TAKE]
        elif phase is Phase.LAYOFF:
            candidates = [_LAYOFF]
        elif phase is Phase.DISCARD:
            return self._discard_phase_actions(player)
        else:
            return []
        return [a for a in candidates if _CHECKS[type(a)](self, player, a) is None]

    def _discard_phase_actions(self, player: int) -> list[Action]:
        # The discards are exactly the throwable cards: the rule _discard_refusal
        # applies, read as a mask instead of asked card by card.
        mask, throwable = self._masks[player], self._throwable(player)
        if self._hidden[player]:  # an online peer's hand: discards of the known cards
            return [_DISCARD_OF[c.mask] for c in mask_cards(throwable)]
        table = discard_table(mask)
        legal: list[Action] = [_DISCARD_OF[bit] for bit, _, _ in table if bit & throwable]
        limit, knock_check = self.knock_limit, self._knock_refusal
        legal += [a for bit, deadwood, _ in table if deadwood <= limit
                  for a in (_KNOCK_OF[bit],) if knock_check(player, a) is None]
        if self.rules.big_gin_bonus is not None and any(o.deadwood == 0 for o in table) \
                and self._big_gin_refusal(player, _BIG_GIN) is None:
            legal.append(_BIG_GIN)  # eleven melded cards allow a gin discard
        return legal

    # -- changing the state ------------------------------------------------

    def apply(self, player: int, action: Action) -> None:
        """Do ``action`` for ``player``; IllegalAction (state unchanged) if refused."""
        why = self.refusal(player, action)
        if why is not None:
            raise IllegalAction(
                f"player {player} cannot {action} in the {self.phase.value} phase: {why}"
            )
        self.actions.append((player, action))
        other = 1 - player
        if isinstance(action, Discard):  # the kinds by how often they come
            self._remove(player, action.card)
            self._pile.append(action.card)
            self._log(Event(player, "discard", action.card))
            self.just_taken = None
            if self.stock_count <= self.rules.dead_stock:
                self._log(Event(player, "dead"))
                self._finish(HandResult("dead", None, None, 0, None))
            else:
                self.turn, self.phase = other, Phase.DRAW
        elif isinstance(action, DrawStock):
            pos = self._next_stock
            self._next_stock += 1
            self._give(player, pos)
            self.just_taken = None
            self._log(Event(player, "stock", self._deck[pos]))
            self.phase = Phase.DISCARD
        elif isinstance(action, DrawPile):
            card = self._pile.pop()
            self._masks[player] |= card.mask
            self._known[player] |= card.mask
            self.just_taken = card
            self._log(Event(player, "take", card))
            self.phase = Phase.DISCARD
        elif isinstance(action, Pass):
            self._log(Event(player, "pass"))
            self._passes += 1
            if self._passes == 1:
                self.turn = other
            else:  # both passed: the non-dealer draws, from the stock only
                self.turn, self.phase = 1 - self.dealer, Phase.DRAW
        elif isinstance(action, Knock):
            self._remove(player, action.card)
            melds, _ = self._declared(self._masks[player], action.melds)
            self._knock = (player, melds, action.card)
            self._log(Event(player, "knock", action.card))
            if not self._masks[player] & ~union(melds):
                self._settle(None)  # gin: nothing may be laid off
            else:
                self.turn, self.phase = other, Phase.LAYOFF
        elif isinstance(action, BigGin):
            melds, _ = self._declared(self._masks[player], action.melds)
            self._knock = (player, melds, None)
            self._log(Event(player, "biggin"))
            self._settle(None)
        elif isinstance(action, LayOff):
            defence = self._defence(player, action)
            self._log(Event(player, "layoff"))
            self._settle(defence)

    def reveal(self, position: int, card: Card) -> None:
        """Tell this copy of the hand the card at a position it did not know.

        MalformedInput if that contradicts what is known (the card is elsewhere,
        or the position holds another card).
        """
        if not 0 <= position < 52:
            raise MalformedInput(f"deck position {position} is not in 0..51")
        current = self._deck[position]
        if current is not None:
            if current != card:
                raise MalformedInput(f"position {position} holds {current}, not {card}")
            return
        if card in self._deck:
            raise MalformedInput(f"{card} is already at position {self._deck.index(card)}")
        self._deck[position] = card
        for player in (0, 1):
            if position in self._hidden[player]:
                self._hidden[player].discard(position)
                self._masks[player] |= card.mask

    def _give(self, player: int, position: int) -> None:
        card = self._deck[position]
        if card is None:
            self._hidden[player].add(position)
        else:
            self._masks[player] |= card.mask

    def _remove(self, player: int, card: Card) -> None:
        self._masks[player] &= ~card.mask
        self._known[player] &= ~card.mask

    def _settle(self, defence: Defence | None) -> None:
        assert self._knock is not None
        knocker, melds, _ = self._knock
        defender = 1 - knocker
        if defence is None and self._hidden[defender]:
            raise IllegalAction("the defender's cards must be revealed before gin is scored")
        outcome = settle_masks(
            self._masks[knocker], self._masks[defender], self.rules, melds, self.knock_limit,
            defence,
        )
        winner = knocker if outcome.winner == "knocker" else defender
        self._finish(HandResult(outcome.kind, knocker, winner, outcome.points, outcome))

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.OVER
        # The knocker's face-down discard is shown to both once the hand is over (each
        # player's list of events runs alongside ``events``).
        for index, event in enumerate(self.events):
            if event.kind == "knock":
                for seen in self._seen:
                    seen[index] = event

    def _log(self, event: Event) -> None:
        self.events.append(event)
        if event.kind in _HIDDEN_CARD_KINDS:
            for player, seen in enumerate(self._seen):
                seen.append(_seen_as(event, player, self.phase is Phase.OVER))
        else:  # seen alike by both
            self._seen[0].append(event)
            self._seen[1].append(event)

    # -- what a player sees --------------------------------------------------

    def observation(self, player: int) -> Observation:
        """Exactly what ``player`` may see now."""
        return observe(self, player)

    # -- saving --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON or msgpack) from which :meth:`from_dict` restores
        this hand exactly: the deck, the dealer, the rules and every action."""
        return {
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "deck": [None if c is None else str(c) for c in self._deck],
            "actions": [[p, str(a)] for p, a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Hand:
        if not isinstance(data, dict):
            raise MalformedInput("a saved hand must be a map")
        try:
            deck = [None if c is None else Card.parse(c) for c in data["deck"]]
            hand = cls(deck, data["dealer"], Ruleset.from_dict(data["rules"]))
            for player, text in data["actions"]:
                hand.apply(player, parse_action(text))
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedInput(f"saved hand is corrupt: {exc!r}") from None
        except IllegalAction as exc:
            raise MalformedInput(f"saved hand replays an illegal action: {exc}") from None
        return hand


# Events whose card one player may not see: the other's stock draw, and a knocker's
# face-down discard until the hand is over.


def observe(
    hand: Hand, player: int, scores: tuple[int, int] = (0, 0),
    hands_won: tuple[int, int] = (0, 0), number: int = 1,
) -> Observation:
    """What ``player`` may see of ``hand`` now, with the match's context filled in
    (:class:`~gin.engine.match.Match` passes its scores; a lone hand is hand 1 at 0-0).
    A function beside :class:`Hand`, not a method: the projection reads the hand's
    state but is not part of its rules."""
    other = 1 - player
    over = hand.phase is Phase.OVER
    knock_melds = None
    shown = over  # the opponent's hand
    if hand._knock is not None and hand.phase in (Phase.LAYOFF, Phase.OVER):
        knock_melds = tuple(mask_cards(m) for m in hand._knock[1])
        shown = over or hand._knock[0] == other
    # In field order, positionally: keywords cost more than the rest of this call.
    return Observation(
        player,
        hand.phase,
        hand.turn,
        hand.dealer,
        mask_cards(hand._masks[player]),  # hand
        hand.just_taken if hand.turn == player else None,
        tuple(hand._pile),
        hand.stock_count,
        hand.card_count(other),
        mask_cards(hand._known[other]),  # opponent_known
        tuple(hand._seen[player]),  # history
        hand.knock_limit,
        hand.rules,
        hand.upcard_closed,
        hand.result,
        mask_cards(hand._masks[other]) if shown else None,  # opponent_hand
        knock_melds,
        scores,
        hands_won,
        number,
    )


def _seen_as(event: Event, player: int, over: bool) -> Event:
    """``event`` as ``player`` sees it: a hidden card is left out (only in the kinds
    of :data:`_HIDDEN_CARD_KINDS`; a knock's discard shows once the hand is over)."""
    if event.kind == "stock":
        visible = event.player == player
    elif event.kind == "knock":
        visible = event.player == player or over
    else:
        return event
    return event if visible else Event(event.player, event.kind)


_HIDDEN_CARD_KINDS = frozenset({"stock", "knock"})
_CHECKS: dict[type, Callable[[Hand, int, Any], str | None]] = {
    Pass: Hand._pass_refusal,
    DrawPile: Hand._pile_refusal,
    DrawStock: Hand._stock_refusal,
    Discard: Hand._discard_refusal,
    Knock: Hand._knock_refusal,
    BigGin: Hand._big_gin_refusal,
    LayOff: Hand._layoff_refusal,
}
# Actions are frozen values: ``legal_actions`` hands out shared ones.
_PASS, _TAKE, _STOCK, _BIG_GIN, _LAYOFF = Pass(), DrawPile(), DrawStock(), BigGin(), LayOff()
_DISCARD_OF = {c.mask: Discard(c) for c in DECK}  # by the card's bit
_KNOCK_OF = {c.mask: Knock(c) for c in DECK}

