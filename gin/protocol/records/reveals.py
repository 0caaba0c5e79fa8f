"""Which keys each step of a hand reveals (``protocol.md`` §7), checked step by step.

A hand record lists every key a seat revealed: at the deal, in answer to a stock
draw, with a discard, a knock or big gin, and the defender's show. The audit
checks that each key is its revealer's (:func:`gin.protocol.deal.fairdeal.audit_hand`); this
checks that each step carries exactly the keys the protocol sends there, so a
record with a key removed, moved or added does not verify. Keys are of deck
positions; a seat's key for a position is sent at most once.
"""

from __future__ import annotations

from collections.abc import Iterable

from gin.engine.actions import BigGin, Discard, DrawStock, Knock
from gin.engine.hand import UPCARD_POSITION, Hand, dealt_positions
from gin.protocol.records.records import SEATS, Step


class Reveals:
    """The keys owed and given so far in one replayed hand.

    Call :meth:`refusal` before applying each step's action to the hand, then
    :meth:`applied` after an action was applied.
    """

    def __init__(self, hand: Hand) -> None:
        self._hand = hand
        self._position = {hand.card_at(p): p for p in range(52)}
        self._given: tuple[set[int], set[int]] = (set(), set())
        self._deal_due = {0, 1}  # seats whose deal keys have not come yet
        # A key-only step that must come next: (seat, positions, what it is).
        self._owed: tuple[int, frozenset[int], str] | None = None

    def refusal(self, step: Step) -> str | None:
        """What is wrong with the keys of ``step``, or None (and they count as given)."""
        got = sorted(p for p, _ in step.keys)
        if self._owed is not None:
            seat, want, what = self._owed
            if step.action is not None or step.seat != seat or got != sorted(want):
                return f"{what} should come here: {SEATS[seat]}'s keys for {_positions(want)}"
            self._owed = None
            self._given[seat].update(want)
            return None
        if step.action is None:
            return self._deal(step.seat, got)
        if self._deal_due:
            return (f"{' and '.join(SEATS[s] for s in sorted(self._deal_due))}'s deal "
                    "keys should come before the first move")
        want = self._with_action(step)
        if got != sorted(want):
            return (f"{SEATS[step.seat]}'s {step.action} should reveal the keys for "
                    f"{_positions(want)}, not for {_positions(got)}")
        self._given[step.seat].update(want)
        return None

    def applied(self, step: Step) -> None:
        """Note what the action just applied makes the other seat owe next."""
        other = 1 - step.seat
        if isinstance(step.action, DrawStock):
            drawn = self._hand.next_stock_position - 1
            self._owed = (other, frozenset((drawn,)),
                          f"the key of the card {SEATS[step.seat]} drew")
        elif isinstance(step.action, Knock | BigGin):
            show = self._unrevealed(other)
            if show:
                self._owed = (other, show, f"{SEATS[other]}'s show of the cards it holds")

    def missing(self) -> str | None:
        """What is still owed once the steps have run out, or None."""
        if self._owed is not None:
            seat, want, what = self._owed
            return f"{what} is missing: {SEATS[seat]}'s keys for {_positions(want)}"
        if self._deal_due:
            return f"{' and '.join(SEATS[s] for s in sorted(self._deal_due))}'s deal keys " \
                "are missing"
        return None

    def _deal(self, seat: int, got: list[int]) -> str | None:
        if seat not in self._deal_due or self._hand.actions:
            return f"{SEATS[seat]} reveals keys where the protocol sends none"
        # Each seat opens the other's dealt cards and the upcard for it.
        want = frozenset((*dealt_positions(1 - seat == self._hand.dealer), UPCARD_POSITION))
        if got != sorted(want):
            return f"{SEATS[seat]}'s deal keys should be for {_positions(want)}"
        self._deal_due.discard(seat)
        self._given[seat].update(want)
        return None

    def _with_action(self, step: Step) -> frozenset[int]:
        """The keys ``step``'s action carries: a discard's card unless already opened
        for the other, or at a knock or big gin every card held not yet opened."""
        action = step.action
        if isinstance(action, Discard):
            position = self._position[action.card]
            return frozenset() if position in self._given[step.seat] else frozenset((position,))
        if isinstance(action, Knock | BigGin):
            return self._unrevealed(step.seat)
        return frozenset()

    def _unrevealed(self, seat: int) -> frozenset[int]:
        held = (self._position[c] for c in self._hand.cards(seat))
        return frozenset(p for p in held if p not in self._given[seat])


def _positions(positions: Iterable[int]) -> str:
    ordered = sorted(positions)
    return "no position" if not ordered else "position" + (
        "s " if len(ordered) > 1 else " ") + ", ".join(map(str, ordered))
