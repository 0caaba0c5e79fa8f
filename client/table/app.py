"""The Textual table: build it with :func:`make_app`.

:class:`GinApp` is the whole table: its keys, and how a match starts (continue a
saved match against the computer or a friend, or start a new one, or connect at
once for ``gin host`` / ``gin join``). It is built in layers, each a module: the
view (:mod:`client.table.tableview`), playing (:mod:`client.table.playing`) and
the online part (:mod:`client.table.friend`). The twin of
client/web/src/board/app.ts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual.binding import Binding

from client.storage import StorageError
from client.table.config import AppConfig
from client.table.controller import Game
from client.table.friend import FriendTable
from client.table.screens import ConfirmScreen, OnlineScreen

if TYPE_CHECKING:
    from client.net.lobby import OnlineStart


def make_app(config: AppConfig) -> GinApp:
    """The table app (a factory, so tests build it with their own config)."""
    return GinApp(config)


class GinApp(FriendTable):
    """Gin Rummy against the computer or a friend: starting, acting, playing online."""

    BINDINGS = [
        Binding("t", "take", "Take"),
        Binding("s", "stock", "Stock"),
        Binding("p", "pass_card", "Pass"),
        Binding("d,enter", "discard", "Throw"),
        Binding("k", "knock", "Knock"),
        Binding("l", "lay_off", "Lay off"),
        # Priority: the arrows pick cards even when a radio set or button has focus.
        Binding("left", "select(-1)", "Select", show=False, priority=True),
        Binding("right", "select(1)", "Select", show=False, priority=True),
        Binding("shift+left,less_than_sign", "move(-1)", "Move left", show=False,
                priority=True),
        Binding("shift+right,greater_than_sign", "move(1)", "Move right", show=False,
                priority=True),
        Binding("g", "toggle_group", "Group"),
        Binding("h", "hint", "Hint"),
        Binding("u", "undo", "Undo"),
        # Online there is neither: not offered, and a key pressed by habit says why.
        Binding("h", "no_hint", "Hint", show=False),
        Binding("u", "no_undo", "Undo", show=False),
        Binding("c", "score_sheet", "Score sheet", show=False),
        Binding("v", "view_pile", "Pile"),
        Binding("f", "full_screen", "Panel"),
        Binding("i", "how_to_play", "How to play"),
        Binding("question_mark", "keys", "Keys"),
        Binding("1", "strength('easy')", "Easy", show=False),
        Binding("2", "strength('normal')", "Normal", show=False),
        Binding("3", "strength('hard')", "Hard", show=False),
        Binding("r", "next_rules", "Rules", show=False),
        Binding("n", "new_match", "New match", show=False),
        Binding("o", "invite", "Invite link"),
        Binding("q", "ask_quit", "Quit"),
    ]

    def on_mount(self) -> None:
        # (Textual also runs TableView.on_mount, which lays the table out.) Start
        # after the first frame is up: loading a saved match and the computer player
        # must not delay it.
        self.call_after_refresh(self._start)

    # -- starting -------------------------------------------------------------

    def _start(self) -> None:
        c = self.config
        if c.online is not None and c.online.saved is not None:
            self._offer_saved_hosting(c.online)
            return
        if c.online is not None:
            self._go_online(c.online)
            return
        if c.storage is None or not c.offer_resume:
            self._start_computer()
            return
        from client.net.links import InvalidLinkError, parse_invite
        from client.net.lobby import OnlineStart
        from client.net.store import MatchFiles

        links = MatchFiles.saved_links(c.storage)
        if not links:
            self._start_computer()
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                self._start_computer()
                return
            try:
                self._go_online(OnlineStart("join", invite=parse_invite(links[0]),
                                            accept_rules=None))
            except InvalidLinkError as exc:
                self.push_screen(OnlineScreen(f"That saved link cannot be used: {exc}"),
                                 self._online_chosen)

        more = f" (and {len(links) - 1} more)" if len(links) > 1 else ""
        self.push_screen(ConfirmScreen(
            f"You have an online match in progress with a friend{more}. Continue it? "
            "Your friend needs to be at the table too.", "Continue online", "Not now"),
            answer)

    def _offer_saved_hosting(self, start: OnlineStart) -> None:
        """``gin host`` again: continue the match it hosts, saved in progress, or not."""
        from client.net.lobby import OnlineStart

        saved = start.saved
        assert saved is not None

        def answer(yes: bool | None) -> None:
            self._go_online(OnlineStart("join", invite=saved, accept_rules=None) if yes
                            else replace(start, saved=None))

        self.push_screen(ConfirmScreen(
            "You host an online match that is saved in progress. Continue it? Its relay "
            f"comes back at {saved.relay.http_url}, where your friend's link points, and "
            "their page or gin reconnects by itself.", "Continue it", "New match"), answer)

    def _start_computer(self) -> None:
        """The computer match: the saved one if the player wants it, else a new one."""
        saved: Game | None = None
        c = self.config
        if c.storage is not None and c.offer_resume:
            try:
                saved = Game.resume(c.storage, make_opponent=c.make_opponent,
                                    deck_source=c.deck_source)
            except StorageError as exc:
                self.notify(str(exc), severity="warning", timeout=10, markup=False)
        if saved is None:
            self._begin(self._new_game(c.rules))
            return
        obs = saved.observation()
        question = (f"You have a match in progress: hand {obs.hand_number}, you "
                    f"{obs.scores[0]} – computer {obs.scores[1]} ({saved.vs}, "
                    f"{saved.rules.name} rules).\nContinue where you stopped?")
        new = "New match"
        if c.chosen and (c.vs, c.rules) != (saved.vs, saved.rules):
            question += (f"\n\nYou asked for a {c.vs} computer and the {c.rules.name} "
                         "rules: start that new match instead? (The saved one is abandoned.)")
            new = f"New match ({c.vs}, {c.rules.name})"

        def answer(yes: bool | None) -> None:
            self._begin(saved if yes else self._new_game(c.rules))

        self.push_screen(ConfirmScreen(question, "Continue", new), answer)
