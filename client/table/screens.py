"""Modal screens: a yes/no question, the end of a hand, the end of a match, the
discard pile, How to play and the keys (the invite is :mod:`client.table.invite`).
Each presents what it is given and answers through ``dismiss``; none of them
changes the game.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Markdown, Static

from client.net.links import BOARD_ENV
from client.table.cardview import CardRow
from client.table.layout import Group, grouped, laid_out
from client.table.words import THEM, explain_result, mid_sentence, totals_rows
from gin import Card, MatchTotals, Observation, Ruleset

MODAL_CSS = """
ModalScreen { align: center middle; }
ModalScreen > Vertical {
    width: 96; max-width: 100%; height: auto; max-height: 100%;
    border: thick $accent; background: $surface; padding: 0 1;
}
ModalScreen .title { text-style: bold; width: 1fr; }
ModalScreen .buttons { height: auto; width: 1fr; margin-top: 1; }
ModalScreen .buttons Button { margin-right: 2; }
ModalScreen CardRow { margin-bottom: 0; }
"""


class ConfirmScreen(ModalScreen[bool]):
    """A question with a yes and a no button: Enter answers the focused one (yes,
    unless ``safe``: when yes ends something, no takes the focus), ← → move the focus
    between them, Y is yes, Escape/N is no."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = [
        Binding("enter", "press_focused", "Answer"),
        Binding("y", "answer(True)", "Yes"),
        Binding("escape,n", "answer(False)", "No"),
        Binding("left", "focus_button('yes')", show=False),
        Binding("right", "focus_button('no')", show=False),
    ]

    def __init__(self, question: str, yes: str, no: str = "Cancel", *,
                 safe: bool = False) -> None:
        super().__init__()
        self.question, self.yes, self.no, self.safe = question, yes, no, safe

    def on_mount(self) -> None:
        self.action_focus_button("no" if self.safe else "yes")

    def action_focus_button(self, which: str) -> None:
        self.query_one(f"#{which}", Button).focus()

    def action_press_focused(self) -> None:
        focused = self.focused
        self.dismiss(focused.id == "yes" if isinstance(focused, Button) else not self.safe)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(self.yes, id="yes", variant="default" if self.safe else "primary",
                             compact=True)
                yield Button(self.no, id="no", variant="primary" if self.safe else "default",
                             compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class _InfoScreen(ModalScreen[None]):
    """A screen closed by Escape, Enter or its button."""

    DEFAULT_CSS = MODAL_CSS
    BINDINGS = [Binding("escape,enter,q", "close", "Close")]
    CLOSE = "Close"

    def body(self) -> ComposeResult:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical():
            yield from self.body()
            with Horizontal(classes="buttons"):
                yield Button(self.CLOSE, id="close", variant="primary", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        # Textual calls this for subclasses' buttons too: close on the close button only.
        event.stop()
        if event.button.id == "close":
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class HandOverScreen(_InfoScreen):
    """Both hands laid out with melds, the lay-offs marked, and the score explained."""

    def __init__(self, obs: Observation, them: str = THEM, *, last: bool = False) -> None:
        super().__init__()
        self.obs, self.them = obs, them
        self.CLOSE = "The final score" if last else "Next hand"  # the match ends here

    def body(self) -> ComposeResult:
        obs, result = self.obs, self.obs.result
        assert result is not None and obs.opponent_hand is not None
        titles = {"knock": "knocked", "gin": "went gin", "big_gin": "laid down big gin",
                  "undercut": "knocked and was undercut"}
        who = "You" if result.knocker == obs.player else self.them
        title = "Dead hand" if result.kind == "dead" else f"{who} {titles[result.kind]}"
        yield Label(f"Hand {obs.hand_number} — {title}", classes="title")
        yield Static(explain_result(obs, self.them), id="explanation", markup=False)
        mine: list[Group]
        theirs: list[Group]
        if result.outcome is None:
            mine, theirs = grouped(obs.hand), grouped(obs.opponent_hand)
        else:
            i_knocked = result.knocker == obs.player
            mine = laid_out(result.outcome, knocker=i_knocked)
            theirs = laid_out(result.outcome, knocker=not i_knocked)
        yield Label("Your cards")
        mine_row = CardRow(id="mine")
        mine_row.show(mine)
        yield mine_row
        yield Label(f"{self.them}'s cards")
        theirs_row = CardRow(id="theirs")
        theirs_row.show(theirs)
        yield theirs_row
        if result.outcome is not None and result.outcome.layoffs:
            yield Static("Cards with a dashed border were laid off onto the knocker's melds.")
        me, other = obs.player, 1 - obs.player
        yield Static(f"Game: you {obs.scores[me]} · {mid_sentence(self.them)} {obs.scores[other]}  "
                     f"(hands won {obs.hands_won[me]}–{obs.hands_won[other]})", id="game-score")


class MatchEndScreen(ModalScreen[bool]):
    """The final totals with game bonus, boxes and shutout; True means a rematch."""

    DEFAULT_CSS = MODAL_CSS + """
    MatchEndScreen #totals { height: auto; margin: 1 0; }
    """
    BINDINGS = [Binding("enter,r", "answer(True)", "Rematch"),
                Binding("escape,q", "answer(False)", "Quit")]

    def __init__(self, totals: MatchTotals, rules: Ruleset, me: int = 0, them: str = THEM) -> None:
        super().__init__()
        self.totals, self.rules, self.me, self.them = totals, rules, me, them

    def compose(self) -> ComposeResult:
        won = self.totals.winner == self.me
        column = "Computer" if self.them == THEM else self.them.removeprefix("Your ").title()
        rows = [("", "You", column), *totals_rows(self.totals, self.rules, self.me)]
        table = "\n".join(f"{a:<28}{b:>18}{c:>18}" for a, b, c in rows)
        with Vertical():
            yield Label("You won the match!" if won else f"{self.them} won the match.",
                        classes="title")
            yield Static(table, id="totals")
            with Horizontal(classes="buttons"):
                yield Button("Rematch", id="rematch", variant="primary", compact=True)
                yield Button("Quit", id="quit", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "rematch")

    def action_answer(self, rematch: bool) -> None:
        self.dismiss(rematch)


class PileScreen(_InfoScreen):
    """The whole discard pile, bottom first."""

    def __init__(self, pile: tuple[Card, ...]) -> None:
        super().__init__()
        self.pile = pile

    def body(self) -> ComposeResult:
        yield Label(f"The discard pile — {len(self.pile)} cards, the top last", classes="title")
        text = "  ".join(
            f"[$text-error]{c.glyph}[/]" if c.is_red else c.glyph for c in self.pile
        )
        yield Static(text or "(empty)", id="pile-cards")


class HowToPlayScreen(_InfoScreen):
    """The rules in the project's own words, numbers from the ruleset in play."""

    DEFAULT_CSS = MODAL_CSS + """
    HowToPlayScreen VerticalScroll { height: 24; }
    HowToPlayScreen Markdown { margin: 0; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def body(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self.text)


KEYS_TEXT = """\
[b]Keys[/b] (every action also works with the mouse)

  ← →            select a card               click a card: select it
  shift+← →  < > move it (grouping off)      click it again: throw it
  t              take the discard / upcard   click the discard pile
  s              draw from the stock         click the stock
  p              pass the first card
  d  enter       throw the selected card
  k              knock or gin (asks first, showing your count)
  l              lay out and lay off, after the other player knocks
  v              see the whole discard pile
  g              group my sets and runs for me (on/off)
  h  u  c        a hint · take back your last throw (both against the
                 computer only) · the score sheet of the match
  1 2 3          computer strength: easy, normal, hard (asks mid-match)
  r  n           other rules · new match (each asks first)
  f  i  ?        the side panel · how to play · this list
  o              the invite link again (hosting online)
  q              quit, after asking (the match is kept: `gin` continues it)
"""


class ScoreSheetScreen(_InfoScreen):
    """Every hand of the match so far: its result, the running totals and boxes."""

    DEFAULT_CSS = MODAL_CSS + """
    ScoreSheetScreen DataTable { height: auto; max-height: 18; }
    """

    def __init__(self, rows: list[tuple[str, ...]], columns: tuple[str, ...], note: str) -> None:
        super().__init__()
        self.rows, self.columns, self.note = rows, columns, note

    def body(self) -> ComposeResult:
        yield Label("Score sheet", classes="title")
        if self.rows:
            table: DataTable[str] = DataTable(id="sheet", cursor_type="row", zebra_stripes=True)
            table.add_columns(*self.columns)
            table.add_rows(self.rows)
            yield table
        else:
            yield Static("No hand has finished yet.", id="sheet-empty")
        yield Static(self.note, id="sheet-note", markup=False)


class KeysScreen(_InfoScreen):
    def body(self) -> ComposeResult:
        yield Static(KEYS_TEXT)


class AlertScreen(_InfoScreen):
    """A title and a message: a cheat detected, a failed connection."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def body(self) -> ComposeResult:
        yield Label(self.title_text, classes="title", id="alert-title", markup=False)
        yield Static(self.text, id="alert-text", markup=False)


class LinkInput(Input):
    """An input for a link: a paste of several lines (a link copied from a window too
    narrow for it) is taken whole, its line breaks left out."""

    def _on_paste(self, event: events.Paste) -> None:
        from client.net.links import joined_lines

        if "\n" in event.text or "\r" in event.text:
            event.prevent_default()
            event.stop()
            self.insert_text_at_cursor(joined_lines(event.text))


class OnlineScreen(ModalScreen[tuple[str, str, str] | None]):
    """Host a match or join one with a pasted link; answers ("host", relay, board) or
    ("join", link, ""), or None. ``board``: the board a friend's link opens (empty: the
    relay's own page), by default ``GIN_BOARD``'s."""

    DEFAULT_CSS = MODAL_CSS + """
    OnlineScreen Input { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, error: str = "", *, relay: str = "", link: str = "",
                 board: str | None = None) -> None:
        super().__init__()
        self.error, self.relay, self.link = error, relay, link  # filled in for a retry
        self.board = os.environ.get(BOARD_ENV, "") if board is None else board

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Play a friend online", classes="title")
            yield Static("Host: you get a link to send your friend. Leave the relay empty to "
                         "run one on this computer (your friend must be on the same network), "
                         "or give a public relay's address (a name such as relay.example.org "
                         "is taken as https://, an IP address or HOST:PORT as http://).")
            yield Input(self.relay, placeholder="relay address (empty: this computer)",
                        id="relay")
            yield Input(self.board, placeholder="your friend's board (empty: the relay's "
                        "own page; a published board: neither of you serves their code)",
                        id="board")
            yield Static("Join: paste the link your friend sent you.", classes="gap")
            yield LinkInput(self.link, placeholder="http://relay/j/ROOM#SECRET", id="link",
                            password=True)
            yield Static(self.error, id="online-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Host", id="host", variant="primary", compact=True)
                yield Button("Join", id="join", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def _answer(self, kind: str) -> None:
        if kind == "join":
            self.dismiss(("join", self.query_one("#link", Input).value.strip(), ""))
        else:
            self.dismiss(("host", self.query_one("#relay", Input).value.strip(),
                          self.query_one("#board", Input).value.strip()))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("host", "join"):
            self._answer(event.button.id)
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._answer("join" if event.input.id == "link" else "host")

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True, slots=True)
class Layout:
    """One choice of a :class:`LayoutScreen`: a line saying what it is, and rows of
    cards, each with a label."""

    label: str
    rows: tuple[tuple[str, tuple[Group, ...]], ...]


class LayoutScreen(ModalScreen[int | None]):
    """Choose one of several ways to lay cards down (a knock's melds, a defender's
    melds and lay-offs): ← → switch, Enter confirms with the index shown, Escape
    cancels. The first layout is shown first."""

    DEFAULT_CSS = MODAL_CSS + """
    LayoutScreen #layout-label { margin-top: 1; text-style: bold; }
    LayoutScreen .row-label { margin-top: 1; }
    """
    BINDINGS = [
        Binding("left", "switch(-1)", "Previous layout", priority=True),
        Binding("right", "switch(1)", "Next layout", priority=True),
        Binding("enter,y", "confirm", "Confirm"),
        Binding("escape,n", "cancel", "Cancel"),
    ]

    def __init__(self, question: str, layouts: list[Layout], confirm: str) -> None:
        super().__init__()
        self.question, self.layouts, self.confirm = question, layouts, confirm
        self.index = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)
            yield Static("", id="layout-label", markup=False)
            for i, _ in enumerate(self.layouts[0].rows):
                yield Label("", id=f"row-label-{i}", classes="row-label", markup=False)
                yield CardRow(id=f"row-{i}")
            with Horizontal(classes="buttons"):
                yield Button(self.confirm, id="yes", variant="primary", compact=True)
                if len(self.layouts) > 1:
                    yield Button("◀ Other layout", id="previous", compact=True)
                    yield Button("Other layout ▶", id="next", compact=True)
                yield Button("Cancel", id="no", compact=True)

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        layout = self.layouts[self.index]
        count = f"Layout {self.index + 1} of {len(self.layouts)}: " \
            if len(self.layouts) > 1 else ""
        self.query_one("#layout-label", Static).update(count + layout.label)
        for i, (label, groups) in enumerate(layout.rows):
            self.query_one(f"#row-label-{i}", Label).update(label)
            self.query_one(f"#row-{i}", CardRow).show(groups)

    def action_switch(self, step: int) -> None:
        self.index = (self.index + step) % len(self.layouts)
        self._show()

    def action_confirm(self) -> None:
        self.dismiss(self.index)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "yes":
            self.dismiss(self.index)
        elif event.button.id in ("previous", "next"):
            self.action_switch(-1 if event.button.id == "previous" else 1)
        else:
            self.dismiss(None)
