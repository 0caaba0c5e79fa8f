"""The table's online part: a friend through a relay.

:class:`FriendTable` hosts or joins (the choice in "Play against", or what
``gin host`` / ``gin join`` asked for), plays through an ``OnlineGame``, and shows
what the online match driver (:mod:`client.net.peer`) reports: the connection, the
friend's moves, the checks of each hand, custom rules to accept and failures. The
network stack is imported only once a friend is played. The twin of
client/web/src/board/friend.ts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.widgets import RadioButton, RadioSet

from client.storage import StorageError
from client.table import words
from client.table.controller import OnlineGame
from client.table.invite import InviteScreen
from client.table.playing import PlayingTable
from client.table.screens import AlertScreen, ConfirmScreen, MatchEndScreen, OnlineScreen
from gin import Observation, Phase, Ruleset

if TYPE_CHECKING:
    from client.net.lobby import OnlineStart
    from client.net.peer import GraceOver, OnlineMatch, Update


class FriendTable(PlayingTable):
    """The table against a friend online: connecting, and the driver's updates."""

    @on(RadioSet.Changed, "#mode")
    def _mode_changed(self, event: RadioSet.Changed) -> None:
        if event.pressed.id != "mode-online" or isinstance(self.game, OnlineGame):
            return
        self.push_screen(OnlineScreen(), self._online_chosen)

    def _online_chosen(self, answer: tuple[str, str, str] | None) -> None:
        from client.net.links import InvalidLinkError, parse_board, parse_invite, parse_relay
        from client.net.lobby import OnlineStart

        if answer is None:
            with self.prevent(RadioSet.Changed):
                self.query_one("#mode-computer", RadioButton).value = True
            if self.game is None:  # nothing was playing: the computer, then
                self._begin(self._new_game(self.config.rules))
            return
        kind, text, board = answer
        rules = self.game.rules if self.game is not None else self.config.rules
        what = "link" if kind == "join" else "relay"
        try:
            if kind == "join":
                start = OnlineStart("join", invite=parse_invite(text), accept_rules=None)
            else:
                relay = parse_relay(text).http_url if text else None
                what = "board"
                start = OnlineStart("host", relay=relay, rules=rules,
                                    board=parse_board(board) if board else None)
        except InvalidLinkError as exc:
            screen = OnlineScreen(f"That link cannot be used: {exc}", link=text) \
                if kind == "join" else \
                OnlineScreen(f"That {what} address cannot be used: {exc}", relay=text,
                             board=board)
            self.push_screen(screen, self._online_chosen)
            return
        self._go_online(start)

    def _go_online(self, start: OnlineStart) -> None:
        self.workers.cancel_group(self, "opponent")
        self.run_worker(self._run_online(start), group="online", exclusive=True)

    async def _run_online(self, start: OnlineStart) -> None:
        """Connect, then play until the match ends; the driver's updates drive the table."""
        from client.net.links import InvalidLinkError
        from client.net.lobby import begin
        from client.net.peer import Link
        from client.net.relay_events import TransportError

        self.online_state = Link.CONNECTING.value
        self._show_online()
        try:
            match = await begin(start, self.config.storage, self.config.online_settings)
        except (TransportError, StorageError, OSError, InvalidLinkError) as exc:
            reason = exc.reason if isinstance(exc, TransportError) else str(exc)
            self.online_state = ""
            self._show_online()
            # Stay online: the error, and the same choice again to retry or cancel.
            link = start.invite.url if start.invite is not None else ""
            self.push_screen(OnlineScreen(f"Could not start the online match: {reason}",
                                          relay=start.relay or "", link=link),
                             self._online_chosen)
            return
        game = OnlineGame(match)
        match.ask_before_abandoning = True  # a person chooses: keep waiting, or end it
        self.game = game
        self.online_state, self.online_label = match.status(), match.status(True)
        self.order, self.selected, self.hint, self.message = [], None, None, ""
        with self.prevent(RadioSet.Changed):
            self.query_one("#mode-online", RadioButton).value = True
        match.rematches.stay = True  # the match-over window offers a rematch on this link
        match.listen(self._online_update)
        if match.session.rules_offered is not None and not match.session.over:
            # A restored match whose custom rules were not answered before quitting.
            self._ask_rules(game, match.session.rules_offered)
        if start.role == "host":
            self._show_invite(match)
        self.refresh_table()
        await match.run()
        if self.game is game and self.is_running and _rematch_pending(match) \
                and not isinstance(self.screen, MatchEndScreen):
            self._offer_new_link(game)  # the friend left before the rematch began

    def _match_closed(self, rematch: bool | None) -> None:
        game = self.game
        if rematch and isinstance(game, OnlineGame) and game.online.finished:
            self._offer_new_link(game)  # the friend has left: no rematch on this link
            return
        super()._match_closed(rematch)

    def _offer_new_link(self, game: OnlineGame) -> None:
        """The friend left after the match: a rematch cannot begin on this link; offer
        a new match with a new link (on the same relay, or one run here again)."""
        from client.net.lobby import OnlineStart

        match = game.online
        here = match.local_relay is not None
        start = OnlineStart("host", relay=None if here else match.invite.relay.http_url,
                            bind=match.invite.relay.host if here else None, rules=game.rules)
        self.online_state = self.online_label = "your friend left"
        self.refresh_table()

        def answer(yes: bool | None) -> None:
            if yes:
                self._go_online(start)
            else:
                super(FriendTable, self)._match_closed(False)

        self.push_screen(ConfirmScreen(
            "Your friend has left, so there is no rematch on this link. Host a new match, "
            "with a new link to send them?", "New link",
            "Quit" if self.config.online is not None else "Play the computer"), answer)

    def _online_update(self, update: Update) -> None:
        """Show what the driver reports: the connection, the friend's moves, the checks."""
        from client.net.peer import GraceOver, LinkChanged, Notice
        from gin.protocol.session import events as session_events

        game = self.game
        if not isinstance(game, OnlineGame) or not self.is_running:
            return  # (shutting down: the match's last news has no table to show on)
        self.online_state, self.online_label = game.online.status(), game.online.status(True)
        if isinstance(update, LinkChanged):
            if isinstance(self.screen, InviteScreen):
                self.screen.show_state(self.online_state)
        elif isinstance(update, Notice):
            self.notify(update.text, severity="warning", timeout=10, markup=False)
        elif isinstance(update, session_events.RulesOffered):
            self._ask_rules(game, update.rules)
        elif isinstance(update, GraceOver):
            self._ask_grace(game, update)
        elif isinstance(update, session_events.HandDealt):
            self.order, self.selected, self.hint, self.message = [], None, None, ""
            if isinstance(self.screen, InviteScreen):
                self.screen.dismiss(None)
            self._show_target(game.rules)
        elif isinstance(update, session_events.CardDrawn):
            # Online, the drawn card is known only once the friend's key arrives.
            self.selected = update.card
        elif isinstance(update, session_events.HandScored):
            self.verified = f"Hand {update.hand_number}: checking the deck…"
            self.refresh_table()
            self._show_hand_over()
        elif isinstance(update, session_events.HandVerified):
            self.verified = f"Hand {update.hand_number}: deck verified ✓"
            self.notify(f"Hand {update.hand_number}: deck verified — the shuffle was fair "
                        "and every move checks out.")
        elif isinstance(update, session_events.MatchOver):
            if update.totals is not None and not self._hand_over_open:
                self._show_match_end()
        elif isinstance(update, session_events.Failure):
            title, text = words.failure_words(update, game.seat)
            self.verified = title
            self.push_screen(AlertScreen(title, text))
        self.refresh_table()

    def _held_up(self, obs: Observation) -> str | None:
        """Online, what the play waits for: a message the friend's device owes for this
        player's move (the key to a card drawn), or the friend or the connection when
        they are not there; None while the friend is simply thinking."""
        from client.net.peer import Link

        game = self.game
        if not isinstance(game, OnlineGame) or game.legal():
            return None
        match = game.online
        if match.session.over:  # ended mid-hand: how, never "Your friend is thinking…"
            return None if obs.phase is Phase.OVER else f"{words.capital(match.status())}."
        lost = match.link is Link.RECONNECTING
        if obs.my_turn:
            text = words.held_up(match.session.waiting_for())
            return f"{text} ({match.status(detail=False)})" if lost else text
        if match.link is Link.CONNECTED or obs.phase is Phase.OVER:
            return None  # the friend's move: "Your friend is thinking…"
        return words.capital(match.status(detail=False))

    def _ask_rules(self, game: OnlineGame, rules: Ruleset) -> None:
        """Show the host's custom rules (as plain text) or rematch, and play them only if
        accepted (a rematch asked for first is accepted at once)."""
        from client.text import plain

        def answer(yes: bool | None) -> None:
            if game.online.session.over or game.online.session.rules_offered is None:
                return
            if yes:
                game.online.accept_rules()
                if isinstance(self.screen, MatchEndScreen):
                    self.pop_screen()  # the rematch begins: the last match's totals go
            else:
                game.online.decline_rules()
            self.refresh_table()

        if game.online.session.rematch is not None:
            if game.online.rematches.wanted <= 0:
                self.push_screen(ConfirmScreen(words.REMATCH_OFFERED, "Rematch", "Decline"),
                                 answer)
            return
        self.push_screen(ConfirmScreen(
            "Your friend proposes custom rules:\n\n"
            + plain(rules.describe(), lines=True) + "\n\nPlay with these rules?",
            "Play these rules", "Decline"), answer)

    def _ask_grace(self, game: OnlineGame, question: GraceOver) -> None:
        """The friend's grace ran out: keep waiting, or end the match as abandoned by it."""
        match = game.online

        def answer(end: bool | None) -> None:
            if match.grace_over is not question or match.session.over:
                return  # the friend answered meanwhile: the question is moot
            if end:
                match.abandon()
            else:
                match.keep_waiting()
            self.refresh_table()

        self.push_screen(ConfirmScreen(
            words.grace_question(question.owed, question.since, match.settings.utc_clock()),
            "End: abandoned by your friend", "Keep waiting", safe=True), answer)

    def action_ask_quit(self) -> None:
        game = self.game
        if not isinstance(game, OnlineGame) or game.online.session.over:
            super().action_ask_quit()
        elif game.online.files is None:
            self._ask_quit("Leave the online match? It is not saved here (no data folder), "
                           "so it cannot be continued.")
        elif game.online.local_relay is not None:
            self._ask_quit("Leave the online match? It is saved, and its relay runs inside "
                           "gin: your friend waits until you are back. Run gin (or gin host) "
                           "again on this computer to continue it: the relay comes back at "
                           f"{game.online.invite.relay.http_url} and your friend's page or "
                           "gin reconnects by itself.")
        else:
            self._ask_quit("Leave the online match? It is saved: run gin again (or gin join "
                           "with the same link) to continue it; your friend waits meanwhile.")

    def action_no_hint(self) -> None:
        self.message = words.NO_HINT_ONLINE
        self.refresh_table()

    def action_no_undo(self) -> None:
        self.message = words.UNDO_ONLINE
        self.refresh_table()

    def action_invite(self) -> None:
        """The invite link again, for as long as the online match runs (the host's)."""
        game = self.game
        if isinstance(game, OnlineGame) and game.seat == 0 and not game.online.session.over:
            self._show_invite(game.online)

    def _show_invite(self, match: OnlineMatch) -> None:
        from client.net.links import page_words, reach

        relay = match.invite.relay
        note = words.reach_note(reach(relay), relay.host)
        origin = page_words(match.invite, match.local_relay is not None)
        self.push_screen(InviteScreen(match.invite.url, self.online_state,
                                      f"{note}\n{origin}" if note else origin))


def _rematch_pending(match: OnlineMatch) -> bool:
    """A rematch this side asked for (or began) that never started playing."""
    session = match.session
    return match.rematches.wanted > 0 or (session.rematch is not None and not session.over
                                          and session.observation() is None)
