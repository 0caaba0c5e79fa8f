"""Card widgets: one card, and a row of card groups with a bar under each meld.

A card shows its rank and suit glyph in a box. Red suits are coloured, and the
glyphs (♥♦ against ♣♠) tell the suits apart without colour. The selected card is
raised a line with a heavy border and reverse video, so selection reads on a
monochrome terminal too; the card just taken from the pile is dimmed, with a
square border; a hint has a double border; cards laid off by the other player have a dashed border.

Widgets post messages upward (:class:`CardView.Clicked`); they hold no game state.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, RadioButton, Static
from textual.widgets._toggle_button import ToggleButton

from client.table.layout import Group
from gin import Card

BACK = "░░░"


class CardView(Static):
    """One card, face up, or a card back when ``card`` is None."""

    DEFAULT_CSS = """
    CardView {
        width: 5; height: 3;
        border: round $foreground 50%;
        content-align: center middle;
        margin-top: 1;
    }
    CardView.-red { color: $text-error; }
    CardView.-back { color: $primary; }
    CardView.-selected {
        margin-top: 0; margin-bottom: 1;
        border: heavy $accent; text-style: reverse bold;
    }
    /* The card just taken: dim, and a square border that reads without colour. */
    CardView.-dimmed { text-style: dim; border: ascii $foreground 60%; }
    CardView.-hint { border: double $success; }
    CardView.-laidoff { border: dashed $warning; }
    CardView.-selected.-dimmed { text-style: reverse dim; }
    """

    class Clicked(Message):
        """A card (or a back, ``card`` None) was clicked."""

        def __init__(self, view: CardView, card: Card | None) -> None:
            super().__init__()
            self.view = view
            self.card = card

        @property
        def control(self) -> CardView:
            return self.view

    def __init__(self, card: Card | None, *, id: str | None = None,  # noqa: A002
                 classes: str = "") -> None:
        red = card is not None and card.is_red
        kind = "-back" if card is None else ("-red" if red else "")
        super().__init__(BACK if card is None else f"{card.glyph:>3}", id=id,
                         classes=f"{kind} {classes}".strip())
        self.card = card

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self, self.card))


class _Slot(Widget):
    """One card of a row with the line under it: a bar when the card is in a meld."""

    DEFAULT_CSS = """
    _Slot { width: 5; height: auto; layout: vertical; }
    _Slot.-group-end { margin-right: 1; }
    _Slot > .bar {
        width: 1fr; height: 1; color: $accent; text-wrap: nowrap; text-overflow: clip;
    }
    """

    def __init__(self, card: Card | None) -> None:
        super().__init__()
        name = None if card is None else f"card-{card}"
        self.view = CardView(card, id=name)
        self.bar = Static("", classes="bar")

    def compose(self) -> ComposeResult:
        yield self.view
        yield self.bar


class CardRow(Widget):
    """A row of card groups. Call :meth:`show` to change what it shows.

    Each card keeps its own widget for the life of the row: a change of hand or
    selection moves, marks, shows or hides widgets, and never removes one, so a
    click arriving during an update always lands on a live widget.
    """

    DEFAULT_CSS = """
    CardRow { layout: horizontal; height: auto; width: 1fr; }
    CardRow.-fan _Slot { width: 4; }
    CardRow.-fan _Slot.-group-end { width: 5; }
    CardRow.-fan CardView { width: 4; border-right: none; }
    CardRow.flat _Slot > .bar { display: none; }
    CardRow.-fan _Slot.-group-end CardView { width: 5; border-right: round $foreground 50%; }
    CardRow.-fan _Slot.-group-end CardView.-selected { border-right: heavy $accent; }
    """

    def __init__(self, *, id: str | None = None, classes: str = "") -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._slots: dict[str, _Slot] = {}
        self._shown: list[_Slot] = []

    def show(
        self,
        groups: Sequence[Group],
        *,
        selected: Card | None = None,
        dimmed: Card | None = None,
        hint: Card | None = None,
    ) -> None:
        marks = {"-selected": selected, "-dimmed": dimmed, "-hint": hint}
        shown: list[_Slot] = []
        backs = 0
        for group in groups:
            for i, card in enumerate(group.cards):
                if card is None:
                    key, backs = f"back{backs}", backs + 1
                else:
                    key = str(card)
                slot = self._slots.get(key)
                if slot is None:
                    slot = self._slots[key] = _Slot(card)
                    if self.is_mounted:
                        self.mount(slot)
                shown.append(slot)
                slot.display = True
                slot.set_class(i == len(group.cards) - 1, "-group-end")
                slot.bar.update("━" * 6 if group.meld else " ")
                view = slot.view
                for name, marked in marks.items():
                    view.set_class(card is not None and card == marked, name)
                view.set_class(card is not None and card in group.marked, "-laidoff")
        for slot in self._slots.values():
            if slot not in shown:
                slot.display = False
        self._shown = shown
        if self.is_mounted:
            self._order(shown)

    def _order(self, shown: list[_Slot]) -> None:
        for index, slot in enumerate(shown):
            if self.children[index] is not slot:
                self.move_child(slot, before=index)

    def compose(self) -> ComposeResult:
        yield from self._shown
        yield from (s for s in self._slots.values() if s not in self._shown)

    @property
    def cards(self) -> list[Card | None]:
        """The cards shown, left to right."""
        return [slot.view.card for slot in self._shown]


def _mark_by_shape(button: ToggleButton, mark: str) -> None:
    # Textual tells on from off by colour alone; a blank mark when off reads in
    # a monochrome terminal too.
    button.BUTTON_INNER = mark if button.value else " "


class Choice(RadioButton):
    """A radio button whose mark is blank when off."""

    def on_mount(self) -> None:
        _mark_by_shape(self, "●")

    def watch_value(self) -> None:
        _mark_by_shape(self, "●")
        super().watch_value()


class Tick(Checkbox):
    """A checkbox whose mark is blank when off."""

    def on_mount(self) -> None:
        _mark_by_shape(self, "X")

    def watch_value(self) -> None:
        _mark_by_shape(self, "X")
        super().watch_value()
