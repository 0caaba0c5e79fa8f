"""Card widgets: one card, and a row of card groups with a bar under each meld.

A card shows its rank and suit glyph in a box. Red suits are coloured, and the
glyphs (♥♦ against ♣♠) tell the suits apart without colour. The selected card is
raised a line with a heavy border and reverse video, so selection reads on a
monochrome terminal too; the card just taken from the pile is dimmed; a hint has
a double border; cards laid off by the other player have a dashed border.

Widgets post messages upward (:class:`CardView.Clicked`); they hold no game state.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, RadioButton, Static
from textual.widgets._toggle_button import ToggleButton

from client.ui.layout import Group
from gin import Card

CARD_WIDTH = 5
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
    CardView.-dimmed { text-style: dim; border: round $foreground 20%; }
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


class _GroupView(Widget):
    DEFAULT_CSS = """
    _GroupView { width: auto; height: auto; margin-right: 1; }
    _GroupView > Horizontal { width: auto; height: auto; }
    _GroupView > .bar { width: auto; height: 1; color: $accent; }
    """


class CardRow(Widget):
    """A row of card groups. Call :meth:`show` to change what it shows."""

    DEFAULT_CSS = """
    CardRow { layout: horizontal; height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str = "") -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self._groups: tuple[Group, ...] = ()
        self._marks: dict[str, frozenset[Card]] = {}

    def show(
        self,
        groups: Sequence[Group],
        *,
        selected: Card | None = None,
        dimmed: Card | None = None,
        hint: Card | None = None,
    ) -> None:
        marks = {
            "-selected": frozenset([selected] if selected else []),
            "-dimmed": frozenset([dimmed] if dimmed else []),
            "-hint": frozenset([hint] if hint else []),
        }
        if tuple(groups) != self._groups or marks != self._marks:
            self._groups, self._marks = tuple(groups), marks
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        for group in self._groups:
            if not group.cards:
                continue
            cards = []
            for card in group.cards:
                classes = [name for name, cs in self._marks.items() if card in cs]
                if card is not None and card in group.marked:
                    classes.append("-laidoff")
                name = None if card is None else f"card-{card}"
                cards.append(CardView(card, id=name, classes=" ".join(classes)))
            # The bar sits under the meld; loose cards get a blank line so rows align.
            bar = "━" * (CARD_WIDTH * len(group.cards)) if group.meld else " "
            yield _GroupView(Horizontal(*cards), Static(bar, classes="bar"))


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
