"""Playing at the table: the player's keys, buttons and clicks become the calls of
the :class:`~client.table.controller.Game` controller (or of an ``OnlineGame``),
the computer's moves follow, and each hand's and match's end is shown.

:class:`PlayingTable` keeps only presentation state (the selected card, the
player's own card order, the hint on show). The opponent's choice runs in a
thread worker, and its moves are applied one at a time with a pause between them
(``delay``, 0 in tests), so the screen never freezes and every move can be
followed. The twin of client/web/src/board/table.ts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from textual import on, work
from textual.widgets import Checkbox, RadioButton, RadioSet

from client.table import words
from client.table.cardview import CardRow, CardView
from client.table.config import AppConfig
from client.table.controller import (
    Game,
    OnlineGame,
    knock_choice,
    knock_layouts,
    layoff_options,
    least_after_discard,
)
from client.table.layout import (
    grouped,
    melds_and_loose,
    moved,
    own_order,
    with_layoffs,
)
from client.table.screens import (
    ConfirmScreen,
    HandOverScreen,
    HowToPlayScreen,
    KeysScreen,
    Layout,
    LayoutScreen,
    MatchEndScreen,
    PileScreen,
    ScoreSheetScreen,
)
from client.table.tableview import TableView, state_key
from gin import (
    PRESETS,
    Action,
    Card,
    Discard,
    DrawPile,
    DrawStock,
    HandResult,
    IllegalAction,
    Knock,
    LayOff,
    Observation,
    Pass,
    Ruleset,
)
from gin.engine.scoring import match_winner

T = TypeVar("T")


class PlayingTable(TableView):
    """The table in play: acting, the opponent's moves, the ends of hands and matches."""

    def __init__(self, config: AppConfig) -> None:
        super().__init__(config)
        self._hand_over_open = False

    # -- a computer match -------------------------------------------------------

    def _new_game(self, rules: Ruleset) -> Game:
        c = self.config
        return Game(rules, c.vs, c.rng, c.storage, make_opponent=c.make_opponent,
                    deck_source=c.deck_source)

    def _begin(self, game: Game) -> None:
        self.game = game
        self.order, self.selected, self.hint, self.message = [], None, None, ""
        self.online_state = self.verified = ""
        with self.prevent(RadioSet.Changed):
            self.query_one("#mode-computer", RadioButton).value = True
            self.query_one(f"#strength-{game.vs}", RadioButton).value = True
            if game.rules.is_preset:  # a custom ruleset has no button
                self.query_one(f"#rules-{game.rules.name}", RadioButton).value = True
        self._show_target(game.rules)
        self._after_action(None)

    # -- acting -----------------------------------------------------------------

    def _play(self, action: Action) -> None:
        game = self.game
        if game is None:
            return
        try:
            result = game.play(action)
        except IllegalAction as exc:
            self.message = str(exc)
            self.refresh_table()
            return
        self.message, self.hint = "", None
        if isinstance(action, DrawStock | DrawPile):
            self._select_after_draw(game.observation())
        self._after_action(result)

    def _select_after_draw(self, obs: Observation) -> None:
        new = [c for c in obs.hand if c not in self.order]
        self.selected = new[0] if new and obs.just_taken is None else None

    def _after_action(self, result: HandResult | None) -> None:
        """Show the new state; then the hand's end, or the opponent's moves."""
        self._changed(result)
        if self.game is not None and self.game.opponent_to_move:
            self.run_opponent()

    def _show_hand_over(self) -> None:
        assert self.game is not None
        self._hand_over_open = True
        # Online the match's totals come after the hand's check: its scores say it ends.
        obs = self.game.observation()
        last = self.game.totals is not None or match_winner(obs.scores, obs.rules) is not None
        self.push_screen(HandOverScreen(obs, self._them(), last=last),
                         self._hand_closed)

    def _changed(self, result: HandResult | None) -> None:
        game = self.game
        assert game is not None
        for warning in game.take_warnings():
            self.notify(warning, severity="error", timeout=10, markup=False)
        self.refresh_table()
        if result is not None:
            self._show_hand_over()

    def _hand_closed(self, _: None) -> None:
        self._hand_over_open = False
        game = self.game
        assert game is not None
        if game.totals is not None:
            self._show_match_end()
            return
        if isinstance(game, OnlineGame):
            return  # the session deals the next hand by itself
        game.next_hand()
        self.order, self.selected = [], None
        self._after_action(None)

    def _show_match_end(self) -> None:
        game = self.game
        assert game is not None and game.totals is not None
        self.push_screen(MatchEndScreen(game.totals, game.rules, game.observation().player,
                                        self._them()), self._match_closed)

    def _match_closed(self, rematch: bool | None) -> None:
        if isinstance(self.game, OnlineGame) and rematch:
            self.game.online.want_rematch()  # on the same link (protocol.md §7.1)
            self.refresh_table()
            return
        if isinstance(self.game, OnlineGame) and self.config.online is None:
            self.workers.cancel_group(self, "online")  # no rematch: the link is done
            self._begin(self._new_game(self.config.rules))  # back to the computer
            return
        if not rematch or not isinstance(self.game, Game):
            self.exit()
            return
        self.game.new_match()
        self.order, self.selected = [], None
        self._after_action(None)

    async def _in_thread(self, fn: Callable[[], T]) -> T:
        return await self.run_worker(fn, thread=True, group="thread").wait()

    @work(exclusive=True, group="opponent")
    async def run_opponent(self) -> None:
        """The opponent's moves, one at a time, its thinking in a thread."""
        game = self.game
        while isinstance(game, Game) and game is self.game and game.opponent_to_move:
            # The pause comes before the computer looks: during it the player's last
            # throw can still be taken back (u), since the computer has not seen it.
            await asyncio.sleep(self.config.delay)
            if game is not self.game or not game.opponent_to_move:
                return  # a new match was started, or the throw taken back, meanwhile
            game.computer_sees()
            action = await self._in_thread(game.opponent_move)
            if game is not self.game:
                return
            result = game.apply_opponent(action)
            self._changed(result)

    # -- actions (keys, buttons and clicks) -------------------------------------

    def action_take(self) -> None:
        self._play_if_legal("take", DrawPile())

    def action_stock(self) -> None:
        self._play_if_legal("stock", DrawStock())

    def action_pass_card(self) -> None:
        self._play_if_legal("pass_card", Pass())

    def _play_if_legal(self, key: str, action: Action) -> None:
        # A second quick click on the stock lands after the draw: nothing to do then.
        if self.game is not None and self._can(key, self.game.legal()):
            self._play(action)

    def action_discard(self) -> None:
        game = self.game
        if game is None or not self._can("discard", game.legal()):
            return
        obs = game.observation()
        if self.selected is None:
            self.message = "Select a card to throw: ← → or click it."
        elif self.selected == obs.just_taken:
            self.message = (f"You just took the {self.selected.glyph} from the pile: it can't "
                            "go straight back. Throw another card.")
        else:
            self._play(Discard(self.selected))
            return
        self.refresh_table()

    def action_knock(self) -> None:
        game = self.game
        if game is None:
            return
        counts = game.knock_counts()
        obs = game.observation() if counts or self._can("discard", game.legal()) else None
        if obs is None:
            return
        if not counts:  # over the limit: say so (k is on only when a throw is due)
            least = least_after_discard(obs, game.legal())
            if least is not None:
                self.message = words.knock_refused(obs, least)
                self.refresh_table()
            return
        card, count = knock_choice(counts, self.selected)
        if count == 0:
            question = f"Go gin, throwing the {card.glyph} face down? Every other card melds."
        else:
            question = (f"Knock, throwing the {card.glyph} face down, with {count} loose "
                        f"point{'s' * (count != 1)}? {self._them()} can lay off onto your "
                        f"melds; {count} or less left in their hand undercuts you.")
        options = knock_layouts(obs, card)
        layouts = [Layout(words.knock_layout_label(i, count, len(options)),
                          (("Your melds, then your loose cards",
                            tuple(melds_and_loose(a.melds, a.deadwood_cards))),))
                   for i, a in enumerate(options)]

        def answer(index: int | None) -> None:
            if index is not None:
                self._play(Knock(card, options[index].melds))

        self.push_screen(LayoutScreen(question, layouts,
                                      "Gin!" if count == 0 else f"Knock with {count}"), answer)

    def action_lay_off(self) -> None:
        game = self.game
        if game is None or not self._can("lay_off", game.legal()):
            return
        obs = game.observation()
        assert obs.knock_melds is not None
        options = layoff_options(obs)
        them = self._them()
        layouts = [Layout(words.layoff_label(i, d.deadwood, len(d.layoffs)),
                          ((f"{them}'s melds, your lay-offs dashed",
                            tuple(with_layoffs(obs.knock_melds, d.laid_off))),
                           ("Your melds, then your loose cards",
                            tuple(melds_and_loose(d.melds, d.deadwood_cards)))))
                   for i, d in enumerate(options)]

        def answer(index: int | None) -> None:
            if index is not None:
                chosen = options[index]
                self._play(LayOff(chosen.laid_off, chosen.melds))

        self.push_screen(LayoutScreen(words.knocked(obs, them), layouts, "Lay out"), answer)

    def action_select(self, step: int) -> None:
        game = self.game
        if game is None:
            return
        shown = self._shown_order(game.observation())
        if not shown:
            return
        if self.selected not in shown:
            self.selected = shown[0 if step > 0 else -1]
        else:
            self.selected = shown[(shown.index(self.selected) + step) % len(shown)]
        self.refresh_table()

    def _shown_order(self, obs: Observation) -> list[Card]:
        if self.grouping:
            return [c for g in grouped(obs.hand) for c in g.cards if c is not None]
        return own_order(self.order, obs.hand)

    def action_move(self, step: int) -> None:
        if self.grouping:
            self.message = "Turn off “Group my sets and runs for me” (g) to arrange cards."
        elif self.selected is not None:
            self.order = moved(self.order, self.selected, step)
        self.refresh_table()
        self.message = ""

    def action_toggle_group(self) -> None:
        box = self.query_one("#group", Checkbox)
        box.value = not box.value

    @on(Checkbox.Changed, "#group")
    def _group_changed(self, event: Checkbox.Changed) -> None:
        game = self.game
        if not event.value and game is not None:
            # Start the player's own order from what they were looking at.
            self.order = self._shown_order(game.observation())
        self.grouping = event.value
        self.refresh_table()

    @work(exclusive=True, group="hint")
    async def action_hint(self) -> None:
        game = self.game
        if game is None or not game.legal():
            return
        key = state_key(game.observation())
        hint = await self._in_thread(game.hint)
        if game is self.game and key == state_key(game.observation()):
            self.hint, self.message = (hint, key), ""
            self.refresh_table()

    def action_undo(self) -> None:
        """Take back the last throw, while the computer has not yet seen it."""
        game = self.game
        if not isinstance(game, Game):
            return
        if not game.can_undo:
            self.message = words.UNDO_NONE
        else:
            self.workers.cancel_group(self, "opponent")
            self.selected, self.hint = game.undo(), None
            self.message = words.undone(self.selected)
        self.refresh_table()

    def action_score_sheet(self) -> None:
        game = self.game
        if game is not None:
            self.push_screen(ScoreSheetScreen(words.sheet_rows(game.score_sheet(), game.seat,
                                                               self._them()),
                                              words.sheet_columns(self._them()),
                                              words.sheet_note(game.totals, game.seat,
                                                               them=self._them())))

    def action_view_pile(self) -> None:
        if self.game is not None:
            self.push_screen(PileScreen(self.game.observation().pile))

    def action_how_to_play(self) -> None:
        rules = self.game.rules if self.game is not None else self.config.rules
        self.push_screen(HowToPlayScreen(words.how_to_play(rules)))

    def action_ask_quit(self) -> None:
        """Leave after asking; say how to come back (online: FriendTable's words)."""
        if isinstance(self.game, Game) and not self.game.match.over:
            self._ask_quit("Quit? The match is saved after every move: gin continues it.")
        else:
            self._ask_quit("Quit?")

    def _ask_quit(self, question: str) -> None:
        def answer(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(ConfirmScreen(question, "Quit", "Stay"), answer)

    def action_keys(self) -> None:
        self.push_screen(KeysScreen())

    def action_strength(self, strength: str) -> None:
        self.query_one(f"#strength-{strength}", RadioButton).value = True

    @on(RadioSet.Changed, "#strength")
    def _strength_changed(self, event: RadioSet.Changed) -> None:
        key = (event.pressed.id or "").removeprefix("strength-")
        game = self.game
        if not isinstance(game, Game) or key == game.vs:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                game.set_strength(key)
                self.notify(f"The computer now plays {key}.")
            else:
                with self.prevent(RadioSet.Changed):
                    self.query_one(f"#strength-{game.vs}", RadioButton).value = True
            self.refresh_table()

        obs = game.observation()
        if obs.hand_number == 1 and not obs.history:
            answer(True)  # nothing played yet: nothing to ask about
            return
        # As n and r ask: a key pressed by mistake must not change the match in play.
        self.push_screen(ConfirmScreen(
            f"Let the computer play {key} from its next move? The match goes on, with "
            "the scores as they are.", f"Play {key}"), answer)

    def action_next_rules(self) -> None:
        names = list(PRESETS)
        current = self.game.rules.name if self.game is not None else self.config.rules.name
        following = names[(names.index(current) + 1) % len(names)] if current in names \
            else names[0]
        self.query_one(f"#rules-{following}", RadioButton).value = True

    @on(RadioSet.Changed, "#rules")
    def _rules_changed(self, event: RadioSet.Changed) -> None:
        game = self.game
        name = (event.pressed.id or "").removeprefix("rules-")
        if not isinstance(game, Game) or name == game.rules.name:
            return

        def answer(yes: bool | None) -> None:
            assert self.game is not None
            if yes:
                self._restart(PRESETS[name])
            elif self.game.rules.is_preset:
                with self.prevent(RadioSet.Changed):
                    self.query_one(f"#rules-{self.game.rules.name}", RadioButton).value = True

        self.push_screen(ConfirmScreen(
            f"Start a new match with the {name} rules? The match in play is abandoned.",
            "New match"), answer)

    def action_new_match(self) -> None:
        def answer(yes: bool | None) -> None:
            if yes and isinstance(self.game, Game):
                self._restart(self.game.rules)

        self.push_screen(ConfirmScreen("Start a new match? The match in play is abandoned.",
                                       "New match"), answer)

    def _restart(self, rules: Ruleset) -> None:
        assert isinstance(self.game, Game)
        self.workers.cancel_group(self, "opponent")
        self.game.new_match(rules)
        self._begin(self.game)

    @on(CardView.Clicked)
    def _card_clicked(self, event: CardView.Clicked) -> None:
        row = next((a.id for a in event.view.ancestors if isinstance(a, CardRow)), None)
        if row == "stock":
            self.action_stock()
        elif row == "discard":
            game = self.game
            if game is not None and self._can("take", game.legal()):
                self.action_take()
            else:
                self.action_view_pile()
        elif row == "hand" and event.card is not None:
            if event.card == self.selected:
                self.action_discard()
            else:
                self.selected, self.message = event.card, ""
                self.refresh_table()
