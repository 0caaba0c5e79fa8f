"""The table as it is shown: the layout, fitted to the terminal, and the controller's
observation presented on it. :class:`TableView` only presents; the classes built on
it act (:mod:`client.table.playing`), play online (:mod:`client.table.friend`) and
start matches (:mod:`client.table.app`). The twin of client/web/src/board/tableview.ts.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Button, Footer, Label, RadioSet, Static

from client.table import words
from client.table.cardview import CardRow, Choice, Tick
from client.table.config import AppConfig
from client.table.controller import (
    PLAY_MODES,
    STRENGTHS,
    Game,
    HintView,
    OnlineGame,
)
from client.table.layout import (
    Group,
    grouped,
    own_order,
)
from gin import (
    PRESETS,
    Action,
    Card,
    Discard,
    DrawPile,
    DrawStock,
    Knock,
    LayOff,
    Observation,
    Pass,
    Ruleset,
    best_arrangement,
)

#: The least terminal (columns, rows) the table fits in: 11 cards fanned, the prompt
#: and the actions. Smaller, the table asks for more room.
MINIMUM = (60, 20)
#: From this size the side panel sits beside the table; below it, `f` shows it.
WIDE = (100, 24)
SIDE_WIDTH = 36
#: Below this many columns for the table the hand is fanned (cards overlap).
FAN_BELOW = 64
#: The move log's rows (its height in CSS): the newest lines that fit, one a row.
LOG_ROWS = 4

#: Actions against the computer only: online they do not apply, and are not offered.
COMPUTER_ONLY = ("strength", "next_rules", "new_match", "hint", "undo")
#: Their online stand-ins: the same keys, saying why there is none.
ONLINE_ONLY = ("no_hint", "no_undo")

#: Buttons of the table's actions: id, label.
ACTION_BUTTONS = (
    ("take", "Take"),
    ("pass_card", "Pass"),
    ("stock", "Draw from stock"),
    ("discard", "Throw"),
    ("knock", "Knock"),
    ("lay_off", "Lay off"),
)


class TableView(App[None]):
    """The table's widgets and what they show; the state the showing needs."""

    TITLE = "Gin Rummy"
    CSS = """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    #table { width: 1fr; padding: 0 1; }
    #side { width: 36; padding: 0 1; border-left: vkey $foreground 30%; }
    /* Narrow: the table takes the whole width; the panel (f) replaces it. */
    .-narrow #side { display: none; }
    .-narrow.-panel #side { display: block; width: 1fr; border-left: none; }
    .-narrow.-panel #table { display: none; }
    .-wide.-full #side { display: none; }
    #too-small { display: none; padding: 1 2; }
    .-too-small #main { display: none; }
    .-too-small #too-small { display: block; }
    .flat CardView { margin: 0; }
    #strength { layout: horizontal; }
    #strength RadioButton { margin-right: 1; width: auto; }
    #side RadioSet { border: none; padding: 0; background: transparent; width: 1fr; }
    #side Checkbox { border: none; padding: 0; background: transparent; }
    #side .head { text-style: bold; }
    #computer-settings { height: auto; }
    #side .gap { margin-top: 1; }
    #title { text-style: bold; }
    #status { height: 1; text-wrap: nowrap; text-overflow: ellipsis; text-style: bold; }
    .-wide #status { height: auto; text-wrap: wrap; }
    #scores { height: 3; }
    #middle { height: 4; margin-top: 1; }
    #stock-box, #discard-box { width: 13; height: 4; }
    #stock-box.-hint CardView, #discard-box.-hint CardView { border: double $success; }
    #log {
        width: 1fr; height: 4; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
    }
    #your-label { margin-top: 1; }
    #prompt { text-style: bold; height: auto; min-height: 2; margin-top: 1; }
    #actions { height: 1; }
    #actions Button { margin-right: 1; }
    #actions Button.-hint { text-style: reverse; }
    #side-buttons { height: 1; margin-top: 1; }
    #side-buttons Button { margin-right: 1; }
    #target { margin-top: 1; color: $text-muted; }
    /* Short: no blank lines between the parts of the table. */
    .-short #middle, .-short #your-label, .-short #prompt { margin-top: 0; }
    """
    def __init__(self, config: AppConfig) -> None:
        super().__init__()
        self.config = config
        self.game: Game | OnlineGame | None = None
        self.online_state = ""  # the connection, as the player should see it
        self.online_label = ""  # the same, in the few words after "Your friend ·"
        self.verified = ""  # the last hand's deck check
        self.selected: Card | None = None
        self.order: list[Card] = []
        self.grouping = True
        self.hint: tuple[HintView, tuple[int, int]] | None = None
        self.message = ""

    # -- building the screen ------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="table"):
                yield Static("", id="status", markup=False)
                yield Label("Computer", id="opponent-label", markup=False)
                yield CardRow(id="opponent", classes="flat")
                with Horizontal(id="middle"):
                    with Vertical(id="stock-box"):
                        yield Label("Stock", id="stock-label")
                        yield CardRow(id="stock", classes="flat")
                    with Vertical(id="discard-box"):
                        yield Label("Discard", id="discard-label")
                        yield CardRow(id="discard", classes="flat")
                    yield Static("", id="log", markup=False)
                yield Label("Your hand", id="your-label")
                yield CardRow(id="hand")
                yield Label("Loose cards", id="loose")
                yield Static("Dealing…", id="prompt", markup=False)
                with Horizontal(id="actions"):
                    for key, label in ACTION_BUTTONS:
                        yield action_button(label, key)
            with Vertical(id="side"):
                yield Static("Gin Rummy", id="title")
                yield Static(words.subtitle(self.config.rules.target), id="subtitle")
                yield Static("", id="online", markup=False)
                yield Static("", id="scores", classes="gap")
                yield Label("Play against", classes="head gap")
                with RadioSet(id="mode"):
                    for mode in PLAY_MODES:
                        label = mode.label if mode.available else f"{mode.label} (not yet)"
                        yield Choice(label, value=mode is PLAY_MODES[0], id=f"mode-{mode.key}",
                                          disabled=not mode.available)
                # The computer's settings: hidden online, where they do not apply.
                with Vertical(id="computer-settings"):
                    yield Label("Strength", classes="head")
                    with RadioSet(id="strength"):
                        for key, label in STRENGTHS:
                            yield Choice(label, value=key == self.config.vs,
                                         id=f"strength-{key}")
                    yield Label("Rules", classes="head")
                    with RadioSet(id="rules"):
                        for name in PRESETS:
                            yield Choice(name, value=name == self.config.rules.name,
                                         id=f"rules-{name}")
                yield Tick("Group my sets and runs for me", value=True, id="group")
                with Horizontal(id="side-buttons"):
                    yield action_button("Hint", "hint")
                    yield action_button("How to play", "how_to_play")
                yield Static("", id="target")
        yield Static("", id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        self._fit(self.size)
        for widget in self.query("RadioSet, Checkbox").results(Widget):
            widget.can_focus = False  # keys belong to the table, not to a side widget
        self._show_target(self.config.rules)

    def _show_target(self, rules: Ruleset | None, offered: bool = False) -> None:
        """The score the match is played to, under the title and at the side's foot
        (online: the host's offer until it is accepted; nothing while unknown)."""
        self.query_one("#subtitle", Static).update(
            words.subtitle(None if rules is None else rules.target, offered))
        self.query_one("#target", Static).update(
            "" if rules is None or offered else words.target_line(rules))

    def _show_online(self) -> None:
        state = self.query_one("#online", Static)
        online = isinstance(self.game, OnlineGame)
        state.display = online
        self.query_one("#computer-settings").display = not online
        self.query_one("#btn-hint", Button).display = not online  # no hint against a person
        if online:
            assert isinstance(self.game, OnlineGame)
            match = self.game.online
            # Both identities, whole (the line above the table may have no room for yours).
            ids = [f"{who}: {x.words}" for who, x in (("Your friend", match.friend),
                                                       ("You", match.identity)) if x]
            state.update("\n".join(x for x in (f"Online: {self.online_state}", *ids,
                                                self.verified) if x))

    def _show_undealt(self) -> None:
        """Before the first deal: who we wait for, and nothing to play."""
        self.query_one("#opponent-label", Label).update(self._opponent_title())
        for row in ("#opponent", "#stock", "#discard", "#hand"):
            self.query_one(row, CardRow).show([])
        if isinstance(self.game, OnlineGame):  # the rules agreed, or those on offer
            session = self.game.online.session
            self._show_target(session.rules or session.rules_offered, session.rules is None)
        text = words.capital(self.online_state)
        if isinstance(self.game, OnlineGame) and self.game.seat == 0:
            text += " · o shows the invite link again"
        self.query_one("#prompt", Static).update(text)
        for key, _ in ACTION_BUTTONS:
            self.query_one(f"#btn-{key}", Button).display = False
        self.refresh_bindings()

    def _them(self) -> str:
        return words.FRIEND if isinstance(self.game, OnlineGame) else words.THEM

    def _opponent_title(self) -> str:
        game = self.game
        if isinstance(game, OnlineGame):  # with both fingerprints, once the friend's is known
            match = game.online
            who = "Your friend" if match.friend is None else f"Your friend {match.friend.words}"
            state = f" · {self.online_label or self.online_state} · dealer"
            mine = "" if match.identity is None else f" (you: {match.identity.words})"
            if match.friend is not None and len(who + mine + state) <= self._title_room():
                who += mine  # your own words too, where the line has room for them
            return f"{who} · {self.online_label or self.online_state}"
        return f"Computer ({game.vs})" if game is not None else "Computer"

    def _title_room(self) -> int:
        """The columns the opponent's line has: its row's width (less the side panel)."""
        row = self.screen_stack[0].query_one("#opponent-label").parent
        width = row.size.width if isinstance(row, Widget) else 0
        return (width or self.size.width) - 2

    # -- showing the state ----------------------------------------------------

    def refresh_table(self) -> None:
        """Show the controller's observation."""
        game = self.game
        self._show_online()
        if game is None:
            return
        if isinstance(game, OnlineGame) and not game.dealt:
            self._show_undealt()
            return
        obs = game.observation()
        counts = game.knock_counts()
        them = self._them()
        self.order = own_order(self.order, obs.hand)
        if self.selected not in obs.hand:
            self.selected = None
        hint = self._current_hint(obs)
        hint_card = hint.action.card if hint and isinstance(hint.action, Discard | Knock) \
            else None

        known = obs.opponent_known
        backs = (None,) * (obs.opponent_card_count - len(known))
        self.query_one("#opponent-label", Label).update(
            f"{self._opponent_title()}{' · dealer' if obs.dealer != obs.player else ''}"
            f"{' · took from the pile: ' + ' '.join(c.glyph for c in known) if known else ''}")
        if obs.knock_melds is not None and obs.result is None \
                and obs.opponent_hand is not None:
            # Laying off: the knocker's melds and loose cards lie face up.
            melded = {c for m in obs.knock_melds for c in m}
            rest = tuple(c for c in obs.opponent_hand if c not in melded)
            self.query_one("#opponent", CardRow).show(
                [Group(tuple(m), meld=True) for m in obs.knock_melds] + [Group(rest)])
        else:
            self.query_one("#opponent", CardRow).show([Group(tuple(known)), Group(backs)])
        self.query_one("#stock-label", Label).update(f"Stock {obs.stock_count}")
        self.query_one("#stock", CardRow).show([Group((None,))] if obs.stock_count else [])
        top = obs.top_of_pile
        self.query_one("#discard-label", Label).update(f"Discard ({len(obs.pile)})")
        self.query_one("#discard", CardRow).show([Group((top,))] if top else [])
        for box, kind in (("#stock-box", DrawStock), ("#discard-box", DrawPile)):
            self.query_one(box).set_class(hint is not None and isinstance(hint.action, kind),
                                          "-hint")
        lines = words.log_lines(obs, them)
        self.query_one("#log", Static).update("\n".join(lines[-LOG_ROWS:]))

        groups = grouped(obs.hand) if self.grouping else [Group(tuple(self.order))]
        self.query_one("#your-label", Label).update(
            "Your hand" + ("" if self.grouping else "  (shift+← → to move the selected card)"))
        self.query_one("#hand", CardRow).show(groups, selected=self.selected,
                                              dimmed=obs.just_taken, hint=hint_card)
        self.query_one("#loose", Label).update(self._loose_text(obs, counts))

        text = self.message or self._held_up(obs) or words.prompt(obs, bool(counts), them)
        if hint is not None and not self.message:
            text = f"Hint: {hint.reason}"  # the reason names the move
        self.query_one("#prompt", Static).update(text)
        legal = game.legal()
        for key, _ in ACTION_BUTTONS:
            button = self.query_one(f"#btn-{key}", Button)
            button.display = self._can(key, legal)
            button.set_class(hint is not None and key == action_key(hint.action), "-hint")
        self.query_one("#btn-knock", Button).label = self._knock_label(counts)
        if top is not None:
            self.query_one("#btn-take", Button).label = f"Take the {top.glyph}"
        self._show_side(obs, game)
        self.refresh_bindings()

    def _held_up(self, obs: Observation) -> str | None:
        """What play waits for when it is not the player's to make (online: the
        friend's device, or the connection), else None."""
        return None

    def _loose_text(self, obs: Observation, counts: dict[Card, int]) -> str:
        loose = best_arrangement(obs.hand)
        cards = len(loose.deadwood_cards)
        text = f"Loose points: {loose.deadwood} ({cards} card{'s' * (cards != 1)})"
        if counts:
            low = min(counts.values())
            text += f"  · you can knock (best: {low} after throwing)" if low else \
                "  · you can go gin!"
        return text

    def _knock_label(self, counts: dict[Card, int]) -> str:
        return "Gin!" if counts and min(counts.values()) == 0 else "Knock…"

    def _show_side(self, obs: Observation, game: Game | OnlineGame) -> None:
        column = "Friend" if isinstance(game, OnlineGame) else "Computer"
        # Narrow, the line stands alone at the top: short enough for 80 columns.
        narrow = self.screen_stack[0].has_class("-narrow")
        self.query_one("#status", Static).update(words.status(obs, self._them(), column,
                                                              compact=narrow))
        me, other = obs.player, 1 - obs.player
        rows = [("", "You", column),
                ("Game", str(obs.scores[me]), str(obs.scores[other])),
                ("Hands won", str(obs.hands_won[me]), str(obs.hands_won[other]))]
        self.query_one("#scores", Static).update(
            "\n".join(f"{a:<10}{b:>8}{c:>10}" for a, b, c in rows))

    def _current_hint(self, obs: Observation) -> HintView | None:
        if self.hint is None or self.hint[1] != state_key(obs):
            return None
        return self.hint[0]

    def _can(self, key: str, legal: list[Action]) -> bool:
        kinds: dict[str, Callable[[Action], bool]] = {
            "take": lambda a: isinstance(a, DrawPile),
            "pass_card": lambda a: isinstance(a, Pass),
            "stock": lambda a: isinstance(a, DrawStock),
            "discard": lambda a: isinstance(a, Discard),
            "knock": lambda a: isinstance(a, Knock),
            "lay_off": lambda a: isinstance(a, LayOff),
        }
        return any(kinds[key](a) for a in legal)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the table's actions from the footer when they do not apply now."""
        if action == "invite":  # the host's, while its match runs (not once it is over)
            return isinstance(self.game, OnlineGame) and self.game.seat == 0 \
                and not self.game.online.session.over
        if action in COMPUTER_ONLY:  # online, the rules were agreed and nobody computes
            return not isinstance(self.game, OnlineGame)
        if action in ONLINE_ONLY:
            return isinstance(self.game, OnlineGame)
        if action in ("select", "move") and self.screen is not self.screen_stack[0]:
            return False  # a dialog's own arrows (switching layouts, editing text)
        if action == "knock":  # on whenever a throw is due: k then knocks or says why not
            return self.game is not None and self._can("discard", self.game.legal())
        if action in dict(ACTION_BUTTONS):
            return self.game is not None and self._can(action, self.game.legal())
        return True

    def action_full_screen(self) -> None:
        """Hide the side panel (wide) or show it in place of the table (narrow)."""
        base = self.screen_stack[0]
        base.toggle_class("-panel" if base.has_class("-narrow") else "-full")

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size)
        if self.game is not None:  # the status line's words follow the width, once laid out
            self.call_after_refresh(self.refresh_table)

    def _fit(self, size: Size) -> None:
        """Fit the table to the terminal: the side panel only when there is room,
        cards fanned when narrow, no blank lines when short, and below the least
        size a plain request for more room."""
        base = self.screen_stack[0]
        wide = size.width >= WIDE[0] and size.height >= WIDE[1]
        base.set_class(wide, "-wide")
        base.set_class(not wide, "-narrow")
        base.set_class(size.height < 24, "-short")
        small = size.width < MINIMUM[0] or size.height < MINIMUM[1]
        base.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The table needs a terminal of at least {MINIMUM[0]}×{MINIMUM[1]} "
                f"characters; this one is {size.width}×{size.height}. Make the window "
                "larger (or the font smaller) to play. The match is saved: q quits.")
        table = size.width - (SIDE_WIDTH if wide else 0)
        self.query_one("#hand", CardRow).set_class(table < FAN_BELOW, "-fan")


def state_key(obs: Observation) -> tuple[int, int]:
    """Identifies a moment of play, so a hint computed for it is never shown later."""
    return obs.hand_number, len(obs.history)


def action_key(action: Action) -> str:
    return {Pass: "pass_card", DrawStock: "stock", DrawPile: "take", Discard: "discard",
            Knock: "knock", LayOff: "lay_off"}.get(type(action), "")


def action_button(label: str, action: str) -> Button:
    button = Button(label, id=f"btn-{action}", action=f"app.{action}", compact=True)
    button.can_focus = False  # Enter and the arrows stay with the table
    return button
