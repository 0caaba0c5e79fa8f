"""The invite window of the host's table: the link to send, whole, a copy button,
the connection's state, who can open the link, and a QR code of it.

At 80×24 everything fits without scrolling: the link wraps over a few lines and
the QR code stands beside the text. Narrower, the QR code goes below the text, in
the part that scrolls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from client.qr import qr_lines
from client.table.clipboard import copy_with_program
from client.table.screens import MODAL_CSS
from client.table.words import capital

#: Width the text beside the QR code needs at least; narrower, the code goes below.
TEXT_BESIDE_QR = 30


class _LinkText(Static):
    """The link, wrapped as the width needs; tells ``on_lines`` how many lines it takes."""

    def __init__(self, link: str, on_lines: Callable[[int], None], **kwargs: Any) -> None:
        super().__init__(link, **kwargs)
        self._tell_lines = on_lines

    def on_resize(self, event: events.Resize) -> None:
        self._tell_lines(event.size.height)


class InviteScreen(ModalScreen[None]):
    """The invite link to send, a copy button (and whether it copied), the
    connection's state (the app updates it with :meth:`show_state`), a note of who
    can open the link (``reach``), and a QR code of it."""

    DEFAULT_CSS = MODAL_CSS + """
    InviteScreen > Vertical {
        width: 100%; max-width: 160; height: 100%; max-height: 60; border: none; padding: 0 1;
    }
    InviteScreen #invite-main { height: 1fr; }
    InviteScreen #invite-text { width: 1fr; height: 1fr; }
    InviteScreen #invite-link { text-style: bold; text-overflow: fold; }
    InviteScreen .invite-buttons { height: auto; margin-top: 1; }
    InviteScreen .invite-buttons Button { margin-right: 2; }
    InviteScreen #invite-state, InviteScreen #invite-reach, InviteScreen #invite-how {
        margin-top: 1;
    }
    InviteScreen #invite-copied { color: $success; display: none; }
    /* Short (80×24): no blank line between the notes, so nothing needs scrolling. */
    InviteScreen.-short #invite-state, InviteScreen.-short #invite-reach,
    InviteScreen.-short #invite-how { margin-top: 0; }
    InviteScreen .qr { width: auto; height: auto; margin-left: 2; }
    InviteScreen #invite-qr-below { margin: 1 0 0 0; }
    """
    BINDINGS = [Binding("escape,enter,q", "close", "Close")]

    def __init__(self, link: str, state: str, reach: str = "") -> None:
        super().__init__()
        self.link, self.state, self.reach = link, state, reach
        self.qr = "\n".join(qr_lines(link))

    def compose(self) -> ComposeResult:
        with Vertical(), Horizontal(id="invite-main"):
            with VerticalScroll(id="invite-text"):
                yield Label("Send this link to your friend", classes="title")
                yield _LinkText(self.link, self._say_fit, id="invite-link", markup=False)
                yield Static("", id="invite-fit", markup=False)
                with Horizontal(classes="invite-buttons"):
                    yield Button("Copy link", id="copy", variant="primary", compact=True)
                    yield Button("Close", id="close", compact=True)
                yield Static("", id="invite-copied", markup=False)
                yield Static(capital(self.state), id="invite-state", markup=False)
                yield Static(self.reach, id="invite-reach", markup=False)
                yield Static("They open it in a browser or gin join. After # is the secret "
                             "(the relay never sees it): send it privately. o shows it again.",
                             id="invite-how", markup=False)
                yield Static(self.qr, id="invite-qr-below", classes="qr")
            yield Static(self.qr, id="invite-qr", classes="qr")

    def on_mount(self) -> None:
        self.query_one("#invite-reach").display = bool(self.reach)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The QR code beside the text when both fit, else below it; and a word when
        the link takes several lines."""
        self.set_class(self.app.size.height < 30, "-short")
        qr_width = max((len(line) for line in self.qr.splitlines()), default=0)
        width = min(self.app.size.width, 160) - 2  # the window's padding
        beside = width - qr_width - 2 >= TEXT_BESIDE_QR
        self.query_one("#invite-qr").display = beside
        self.query_one("#invite-qr-below").display = not beside

    def _say_fit(self, lines: int) -> None:
        """The link now takes ``lines`` lines: on more than one, say so."""
        fit = self.query_one("#invite-fit", Static)
        fit.display = lines > 1 and not self.query_one("#invite-copied").display
        fit.update(f"({lines} lines: Copy takes it whole.)")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "close":
            self.dismiss(None)
        elif event.button.id == "copy":
            copied = copy_with_program(self.link)
            self.app.copy_to_clipboard(self.link)  # the terminal's own clipboard too
            said = self.query_one("#invite-copied", Static)
            said.display, self.query_one("#invite-fit").display = True, False  # in its place
            said.update("The link is copied." if copied else
                        "Sent to the terminal's clipboard: if pasting gives nothing, "
                        "select the link above.")

    def action_close(self) -> None:
        self.dismiss(None)

    def show_state(self, state: str) -> None:
        self.state = state  # shown by compose() when it has not run yet
        for widget in self.query("#invite-state").results(Static):
            widget.update(capital(state))
