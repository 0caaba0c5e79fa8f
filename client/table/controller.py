"""The table's controller: every game decision outside the user interface.

A :class:`Game` holds the :class:`~gin.Match`, shuffles each deck with an
injected :class:`random.Random`, asks the opponent for its moves, applies the
human's actions, and saves each finished hand and the match in progress after
every action. The UI only presents a :class:`~gin.Observation` and calls these
methods; it never touches the match.

The opponent is anything with ``choose(observation, legal) -> action`` (the
:class:`Opponent` protocol), made by an :data:`OpponentFactory`. :data:`PLAY_MODES`
lists what the player may play against; a mode with no factory is either online
(a friend, through :class:`OnlineGame`) or not ready yet.

:class:`OnlineGame` is the same controller surface for a match against a friend:
the session decides, the friend's moves arrive from the network, and the table
reads it exactly as it reads a :class:`Game`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from client.record import match_entry
from client.storage import Storage, StorageError
from client.table.scoresheet import SheetRow, score_sheet
from gin import (
    Action,
    Card,
    Discard,
    HandResult,
    IllegalAction,
    Knock,
    MalformedInput,
    Match,
    Observation,
    Phase,
    Ruleset,
    shuffled_deck,
)
from gin.engine.cards import cards_mask
from gin.engine.layoffs import Defence, best_defence, layoff_closure
from gin.engine.melds import (
    Arrangement,
    all_arrangements,
    candidate_melds,
    discard_deadwoods,
    mask_value,
    meld_combinations,
)
from gin.engine.scoring import MatchTotals

if TYPE_CHECKING:  # the network stack loads only when a friend is played
    from client.net.peer import OnlineMatch

HUMAN = 0
OPPONENT = 1
SAVE_FORMAT = 1


class Opponent(Protocol):
    """Whoever sits across the table. ``choose`` may block (it runs in a thread)."""

    def choose(self, obs: Observation, legal: Sequence[Action]) -> Action: ...


OpponentFactory = Callable[[str, random.Random], Opponent]
DeckSource = Callable[[random.Random], Sequence[Card]]


def computer_player(strength: str, rng: random.Random) -> Opponent:
    """A computer player of ``strength`` (easy, normal, hard)."""
    from gin import players  # imported on first use: keeps the first frame fast

    return players.get(strength, rng)


@dataclass(frozen=True, slots=True)
class PlayMode:
    """One entry of "Play against". ``factory`` makes the opponent from a strength
    and a random source; None means the mode is not available yet."""

    key: str
    label: str
    factory: OpponentFactory | None
    online: bool = False  # played through the network (OnlineGame), no factory

    @property
    def available(self) -> bool:
        return self.factory is not None or self.online


PLAY_MODES: tuple[PlayMode, ...] = (
    PlayMode("computer", "Computer", computer_player),
    PlayMode("online", "Friend online", None, online=True),
)
#: The computer's strengths: key and label.
STRENGTHS: tuple[tuple[str, str], ...] = (("easy", "Easy"), ("normal", "Normal"), ("hard", "Hard"))


@dataclass(frozen=True, slots=True)
class HintView:
    """What the strongest computer would do now, and why."""

    action: Action
    reason: str


def knock_counts(obs: Observation, legal: Sequence[Action]) -> dict[Card, int]:
    """For each card the player may knock by throwing, the deadwood it leaves."""
    knockable = {a.card for a in legal if isinstance(a, Knock)}
    if not knockable:
        return {}
    best = discard_deadwoods(cards_mask(obs.hand))
    return {card: best[card.mask] for card in sorted(knockable)}


def least_after_discard(obs: Observation, legal: Sequence[Action]) -> int | None:
    """The least deadwood any throw allowed now leaves; None when no throw is."""
    allowed = [a.card for a in legal if isinstance(a, Discard)]
    if not allowed:
        return None
    best = discard_deadwoods(cards_mask(obs.hand))
    return min(best[card.mask] for card in allowed)


def knock_layouts(obs: Observation, card: Card) -> list[Arrangement]:
    """Every least-deadwood way to lay the hand down after throwing ``card``; the
    computer's choice (fewest lay-offs among the cards not seen) first."""
    from gin.players.evaluate import declare
    from gin.players.view import unseen_of

    hand = cards_mask(obs.hand)
    deadwood = discard_deadwoods(hand)[card.mask]
    _, chosen = declare(hand, Knock(card), deadwood, unseen_of(obs, hand))
    others = [a for a in all_arrangements(hand & ~card.mask, deadwood)
              if a.deadwood == deadwood and set(a.meld_masks) != set(chosen.meld_masks)]
    return [chosen, *others]


def layoff_options(obs: Observation) -> list[Defence]:
    """The defender's layouts worth choosing between: for each way to meld their own
    cards, every card that then fits laid off (laying off more never costs). The
    engine's own best first, then by deadwood."""
    assert obs.knock_melds is not None, "only after a knock"
    hand = cards_mask(obs.hand)
    knocker = tuple(cards_mask(m) for m in obs.knock_melds)
    best = best_defence(hand, knocker)
    seen = {best.deadwood_mask}
    out = [best]
    for used, _, chosen in meld_combinations(candidate_melds(hand)):
        loose = hand ^ used
        layoffs = layoff_closure(loose, knocker)
        for bit, _i in layoffs:
            loose ^= bit
        if loose not in seen:
            seen.add(loose)
            out.append(Defence(chosen, layoffs, loose, mask_value(loose)))
    return sorted(out, key=lambda d: (d is not best, d.deadwood))


def knock_choice(counts: dict[Card, int], selected: Card | None) -> tuple[Card, int]:
    """The card to knock with: the one leaving least deadwood, the selected one on a
    tie; and the count it leaves. ``counts`` comes from :func:`knock_counts`."""
    count = min(counts.values())
    best = [c for c, n in counts.items() if n == count]
    return (selected if selected in best else best[0]), count


def hint_for(obs: Observation, legal: Sequence[Action]) -> HintView:
    """The strongest computer's move now, with its reason."""
    from gin import players

    if not legal:
        raise IllegalAction("it is not your turn")
    hint = players.hint(obs, legal)
    return HintView(hint.action, hint.reason)


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _set_rng_state(rng: random.Random, state: Any) -> None:
    version, internal, gauss = state
    rng.setstate((version, tuple(internal), gauss))


class Game:
    """One match against one opponent, seen from the human's seat (player 0).

    The opponent deals the first hand, so the human is offered the first upcard.
    """

    seat = HUMAN

    def __init__(
        self,
        rules: Ruleset,
        vs: str,
        rng: random.Random,
        storage: Storage | None = None,
        *,
        make_opponent: OpponentFactory = computer_player,
        deck_source: DeckSource = shuffled_deck,
        match: Match | None = None,
        opponent_rng: random.Random | None = None,
    ) -> None:
        self.rng = rng
        self.storage = storage
        self.deck_source = deck_source
        # The opponent's own random source is separate, so that its play never
        # shifts the decks, and both are saved so a resumed match goes on exactly.
        self.opponent_rng = opponent_rng or random.Random(rng.getrandbits(64))
        self.make_opponent = make_opponent
        self.vs = vs
        self.opponent = self._make_opponent(vs)
        self.match = Match(rules, first_dealer=OPPONENT) if match is None else match
        self.warnings: list[str] = []
        self._unsaved_hands: list[dict[str, Any]] = []
        # The player's last throw may be taken back until the computer starts deciding.
        self._unseen_throw = False
        if self.match.needs_deal:
            self.next_hand()

    # -- construction ------------------------------------------------------

    def _make_opponent(self, strength: str) -> Opponent:
        if strength not in dict(STRENGTHS):
            raise MalformedInput(f"unknown strength {strength!r}: choose one of "
                                 + ", ".join(dict(STRENGTHS)))
        return self.make_opponent(strength, self.opponent_rng)

    @classmethod
    def resume(
        cls,
        storage: Storage,
        *,
        make_opponent: OpponentFactory = computer_player,
        deck_source: DeckSource = shuffled_deck,
    ) -> Game | None:
        """The match saved in ``storage``, exactly where it stopped, or None.

        StorageError if the save cannot be read or does not replay.
        """
        data = storage.load_match()
        if data is None:
            return None
        try:
            if data.get("format") != SAVE_FORMAT:
                raise MalformedInput(f"unknown save format {data.get('format')!r}")
            match = Match.from_dict(data["match"])
            rng, opponent_rng = random.Random(), random.Random()
            _set_rng_state(rng, data["rng"])
            _set_rng_state(opponent_rng, data["opponent_rng"])
            # Built inside the try: a bad field (an unknown strength) is damage too.
            return cls(match.rules, str(data["vs"]), rng, storage,
                       make_opponent=make_opponent, deck_source=deck_source,
                       match=match, opponent_rng=opponent_rng)
        except (MalformedInput, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise storage.set_aside(storage.match_path, "The saved match", exc) from None

    # -- reading -------------------------------------------------------------

    @property
    def rules(self) -> Ruleset:
        return self.match.rules

    def observation(self) -> Observation:
        """What the human may see now: the only view of the game the UI reads."""
        return self.match.observation(HUMAN)

    def legal(self) -> list[Action]:
        """The human's legal actions now (empty while the opponent is to move)."""
        if self.match.hand is None or self.match.turn != HUMAN:
            return []
        return self.match.legal_actions()

    @property
    def opponent_to_move(self) -> bool:
        hand = self.match.hand
        return hand is not None and hand.phase is not Phase.OVER and hand.turn == OPPONENT

    def knock_counts(self) -> dict[Card, int]:
        """For each card the human may knock by throwing, the deadwood it leaves."""
        return knock_counts(self.observation(), self.legal())

    def hint(self) -> HintView:
        """The strongest computer's move for the human now, with its reason."""
        return hint_for(self.observation(), self.legal())

    @property
    def totals(self) -> MatchTotals | None:
        return self.match.totals

    def score_sheet(self) -> list[SheetRow]:
        """Every finished hand of the match, with the running totals and boxes."""
        return score_sheet(self.match.results)

    # -- acting --------------------------------------------------------------

    def play(self, action: Action) -> HandResult | None:
        """Apply the human's action (IllegalAction, nothing changed, if refused)."""
        result = self._apply(HUMAN, action)
        self._unseen_throw = isinstance(action, Discard) and result is None
        return result

    @property
    def can_undo(self) -> bool:
        """The human's last throw may still be taken back: the computer has not
        started deciding its answer (see :meth:`computer_sees`)."""
        hand = self.match.hand
        return (self._unseen_throw and hand is not None and hand.phase is not Phase.OVER
                and bool(hand.actions) and hand.actions[-1][0] == HUMAN
                and isinstance(hand.actions[-1][1], Discard))

    def computer_sees(self) -> None:
        """The computer starts deciding: from now on the last throw stands."""
        self._unseen_throw = False

    def undo(self) -> Card:
        """Take back the human's last throw (IllegalAction if it may not be): the
        match is replayed without it, so the position is exactly the one before.
        Returns the card taken back."""
        if not self.can_undo:
            raise IllegalAction("there is no throw to take back: the computer has seen it")
        assert self.match.hand is not None
        thrown = self.match.hand.actions[-1][1]
        assert isinstance(thrown, Discard)
        data = self.match.to_dict()
        data["hands"][-1]["actions"].pop()
        self.match = Match.from_dict(data)
        self._unseen_throw = False
        self.save()
        return thrown.card

    def opponent_move(self) -> Action:
        """The opponent's choice now. Reads only, so it may run in a worker thread."""
        if not self.opponent_to_move:
            raise IllegalAction("it is not the opponent's turn")
        self.computer_sees()
        return self.opponent.choose(self.match.observation(OPPONENT), self.match.legal_actions())

    def apply_opponent(self, action: Action) -> HandResult | None:
        self.computer_sees()
        return self._apply(OPPONENT, action)

    def next_hand(self) -> None:
        """Deal the next hand from a deck shuffled with the game's random source."""
        self.match.deal(self.deck_source(self.rng))
        self.save()

    def set_strength(self, strength: str) -> None:
        """Play the rest of the match against another computer strength."""
        self.opponent = self._make_opponent(strength)
        self.vs = strength
        self.save()

    def new_match(self, rules: Ruleset | None = None) -> None:
        """Abandon the match in play (if any) and start another."""
        self.match = Match(rules or self.rules, first_dealer=OPPONENT)
        self.next_hand()

    def _apply(self, player: int, action: Action) -> HandResult | None:
        result = self.match.apply(player, action)
        if result is not None:
            self._unsaved_hands.append(self._hand_record(result))
        self.save()
        if result is not None and self.match.totals is not None:
            self._record_match()
        return result

    def _record_match(self) -> None:
        """Add the match just finished to the player's record (client/record.py)."""
        totals = self.match.totals
        if self.storage is None or totals is None:
            return
        try:
            self.warnings += self.storage.add_to_record(match_entry(
                f"computer:{self.vs}", HUMAN, totals.winner, self.match.results, totals))
        except StorageError as exc:
            self.warnings.append(f"{exc.problem} This match is not in your record.")

    def _hand_record(self, result: HandResult) -> dict[str, Any]:
        assert self.match.hand is not None
        return {
            "hand_number": len(self.match.results),
            "players": ["you", f"computer ({self.vs})"],
            "hand": self.match.hand.to_dict(),
            "result": result.to_dict(),
            "scores_after": list(self.match.scores),
        }

    # -- saving --------------------------------------------------------------

    def save(self) -> None:
        """Save unsaved hands and the match in progress; a failure becomes a warning.

        Nothing in play is lost: hands that could not be written are kept and
        written by the next save that succeeds.
        """
        if self.storage is None:
            return
        try:
            while self._unsaved_hands:
                self.storage.save_hand(self._unsaved_hands[0])
                self._unsaved_hands.pop(0)
            if self.match.over:
                self.storage.clear_match()
            else:
                self.storage.save_match({
                    "format": SAVE_FORMAT,
                    "vs": self.vs,
                    "match": self.match.to_dict(),
                    "rng": _rng_state(self.rng),
                    "opponent_rng": _rng_state(self.opponent_rng),
                })
        except StorageError as exc:
            self.warnings.append(str(exc))

    def take_warnings(self) -> list[str]:
        """Warnings (failed saves) since the last call."""
        out, self.warnings = self.warnings, []
        return out


class OnlineGame:
    """The table's controller for a match against a friend, over an ``OnlineMatch``.

    The same reading calls as :class:`Game`; the local player's moves go to the
    session, the friend's arrive by themselves, and the session deals each hand.
    """

    opponent_to_move = False  # never computed here: the friend's moves arrive
    vs = "friend"

    def __init__(self, match: OnlineMatch) -> None:
        self.online = match

    @property
    def rules(self) -> Ruleset:
        rules = self.online.session.rules
        assert rules is not None, "the rules are agreed before the first deal"
        return rules

    @property
    def seat(self) -> int:
        return self.online.seat

    @property
    def dealt(self) -> bool:
        return self.online.session.observation() is not None

    def observation(self) -> Observation:
        obs = self.online.session.observation()
        if obs is None:
            raise IllegalAction("the first hand is not dealt yet")
        return obs

    def legal(self) -> list[Action]:
        return self.online.session.legal_actions()

    def knock_counts(self) -> dict[Card, int]:
        return knock_counts(self.observation(), self.legal()) if self.dealt else {}

    def hint(self) -> HintView:
        raise IllegalAction("there is no hint in an online match")

    @property
    def totals(self) -> MatchTotals | None:
        result = self.online.result
        return None if result is None else result.totals

    def score_sheet(self) -> list[SheetRow]:
        """Every finished hand of the match (the session keeps them, saves included)."""
        return score_sheet(self.online.session.hand_results)

    def play(self, action: Action) -> None:
        """Send the player's move (IllegalAction if refused). The hand's end is told
        by the session's events, since it may need the friend's answer first."""
        if self.online.session.over:  # a failed session raises PeerFault on any input
            raise IllegalAction("the online match is over")
        self.online.act(action)

    def take_warnings(self) -> list[str]:
        return []  # the driver's notices reach the table as updates
