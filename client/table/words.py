"""The table's words: what to do now, what the opponent did, how a hand was scored,
and the rules in the project's own words (numbers from the chosen ruleset).

Pure functions of an :class:`~gin.Observation` and a :class:`~gin.Ruleset`, so
they are tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gin import (
    Card,
    Event,
    MatchTotals,
    Observation,
    Phase,
    Ruleset,
)

if TYPE_CHECKING:  # the online session's modules load only for online play
    from client.table.scoresheet import SheetRow
    from gin.protocol.session.events import Failure

THEM = "The computer"
FRIEND = "Your friend"  # the opponent in an online match
#: What h says online (How to play gives the rule): the board says the same.
REMATCH_OFFERED = ("Your friend offers a rematch on the same link: the same rules, and the "
                   "loser of the last match deals first.\n\nPlay it?")
NO_HINT_ONLINE = "No hint in an online match: neither you nor your friend has one."


def prompt(obs: Observation, can_knock: bool, them: str = THEM) -> str:
    """What the human should do now, in plain words (``them``: the opponent's name)."""
    top = obs.top_of_pile
    if obs.phase is Phase.OVER:
        return "The hand is over."
    if not obs.my_turn:
        if obs.phase is Phase.LAYOFF:
            return f"{them} is laying off onto your melds…"
        return f"{them} is thinking…"
    if obs.phase is Phase.UPCARD:
        return f"Take the {top.glyph} or pass" if top else "Pass"
    if obs.phase is Phase.DRAW:
        if obs.upcard_closed or top is None:
            return "Both passed the first card: draw from the stock"
        return f"Take the {top.glyph} or draw from the stock"
    if obs.phase is Phase.DISCARD:
        text = "Throw a card"
        if can_knock:
            text += ", or knock"
        if obs.just_taken is not None:
            text += f" (not the {obs.just_taken.glyph} you just took)"
        return text
    return f"{them} knocked: lay out your cards and lay off what fits"


def subtitle(target: int | None, offered: bool = False) -> str:
    """The line under the title: the game and the score it is played to; online, the
    host's offer until the guest accepts it, and no score while it is unknown."""
    text = "Draw, discard, knock · two players"
    if target is None:
        return text
    return f"{text}, to {target}" + (" if you accept the host's rules" if offered else "")


def target_line(rules: Ruleset) -> str:
    """What wins the game, and what a hand and the game itself are worth at its end."""
    return (f"First to {rules.target} points wins the game, with {rules.box_bonus} for "
            f"every hand won and {rules.game_bonus} for the game itself.")


def knock_limit_words(obs: Observation) -> str:
    """This hand's knock limit; Oklahoma's comes from the upcard, so say so."""
    if obs.knock_limit == 0:
        return "gin only (an ace upcard)" if obs.rules.knock_limit_from_upcard else "gin only"
    text = f"knock at {obs.knock_limit} or less"
    return text + " (the upcard)" if obs.rules.knock_limit_from_upcard else text


def knock_refused(obs: Observation, least: int) -> str:
    """Why a knock is refused: ``least`` is the least deadwood a throw leaves."""
    if obs.knock_limit == 0:
        return (f"You can't knock: this hand is gin only (an ace upcard), and your best "
                f"throw leaves {least} loose points.")
    return (f"You can't knock yet: your best throw leaves {least} loose points, and "
            f"this hand's knock limit is {obs.knock_limit}.")


def knock_layout_label(index: int, count: int, options: int) -> str:
    """What a knock layout is: the first is the computer's own choice."""
    if options == 1:
        return "The only way to lay these cards down."
    if index == 0:
        return ("The computer's choice: of the cards you have not seen, the fewest can "
                "be laid off onto these melds.")
    return f"Another way, also leaving {count} loose points."


def layoff_label(index: int, deadwood: int, laid: int) -> str:
    """What a defender's layout is: the first is the best."""
    cards = f"{laid} card{'s' * (laid != 1)} laid off"
    if index == 0:
        return f"The best: {cards}, {deadwood} loose points left."
    return f"{cards[0].upper()}{cards[1:]}, {deadwood} loose points left."


def knocked(obs: Observation, them: str) -> str:
    """The defender's question after a knock: the knocker's melds and loose cards are
    face up, with their count."""
    assert obs.knock_melds is not None and obs.opponent_hand is not None
    melded = {c for m in obs.knock_melds for c in m}
    loose = [c for c in obs.opponent_hand if c not in melded]
    melds = len(obs.knock_melds)
    points = sum(c.value for c in loose)
    held = ("and no loose cards" if not loose else
            f"and {len(loose)} loose card{'s' * (len(loose) != 1)} counting {points}")
    return (f"{them} knocked, laying down {melds} meld{'s' * (melds != 1)} {held}. "
            "Lay out your cards: lay off what fits onto their melds, meld the rest. "
            "← → show other ways.")


def status(obs: Observation, them: str = THEM, column: str = "Computer",
           compact: bool = False) -> str:
    """One line always on show: the hand, the scores, who dealt, the knock limit.
    ``them`` names the opponent in a sentence, ``column`` in one word. ``compact``:
    short enough for 80 columns (the opponent by ``column``, the limit as "≤ N")."""
    me = obs.player
    if compact:
        dealer = "you dealt" if obs.dealer == me else f"{column.lower()} dealt"
        limit = "gin only" if obs.knock_limit == 0 else f"knock ≤ {obs.knock_limit}"
    else:
        dealer = "you dealt" if obs.dealer == me else f"{mid_sentence(them)} dealt"
        limit = knock_limit_words(obs)
    return (f"Hand {obs.hand_number} · You {obs.scores[me]} – {column} "
            f"{obs.scores[1 - me]} (to {obs.rules.target}) · {dealer} · {limit}")


def describe(event: Event, me: int, them: str = THEM, laid_off: Sequence[Card] = ()
             ) -> str | None:
    """One line for a move of the opponent (None for the human's own moves).
    ``laid_off``: the cards the lay-off put on the knocker's melds, once the hand is
    settled (a lay-off that put none says so)."""
    if event.player == me:
        return None
    card = event.card.glyph if event.card is not None else ""
    laid = " ".join(c.glyph for c in laid_off)
    return {
        "pass": f"{them} passed on the first card.",
        "stock": f"{them} drew from the stock.",
        "take": f"{them} took the {card}.",
        "discard": f"{them} threw the {card}.",
        "knock": f"{them} knocked.",
        "biggin": f"{them} laid down big gin.",
        "layoff": f"{them} laid off {laid} onto your melds." if laid
        else f"{them} had nothing to lay off.",
        "dead": "The stock has run down: the hand is dead.",
    }[event.kind]


def log_lines(obs: Observation, them: str = THEM) -> list[str]:
    """The opponent's moves this hand, a line each (as the board's log says them)."""
    outcome = obs.result.outcome if obs.result is not None else None
    laid_off = outcome.laid_off if outcome is not None else ()
    return [line for e in obs.history if (line := describe(e, obs.player, them, laid_off))]


def _who(player: int | None, me: int, them: str) -> str:
    return "You" if player == me else them


def mid_sentence(name: str) -> str:
    """A name as it reads mid-sentence: "The computer" → "the computer"."""
    return name[:1].lower() + name[1:]


def explain_result(obs: Observation, them: str = THEM) -> str:
    """How the hand that just ended was scored, from the human's seat."""
    result = obs.result
    if result is None:
        return ""
    if result.kind == "dead" or result.outcome is None:
        stock = obs.rules.dead_stock
        return (f"Dead hand: a discard left {stock} card{'s' * (stock != 1)} in the stock and "
                "nobody knocked. Nobody scores, and the same dealer deals again.")
    out = result.outcome
    me = obs.player
    knocker, winner = _who(result.knocker, me, them), _who(result.winner, me, them)
    defender = _who(None if result.knocker is None else 1 - result.knocker, me, them)
    rules = obs.rules
    if out.kind in ("gin", "big_gin"):
        bonus = rules.big_gin_bonus if out.kind == "big_gin" and rules.big_gin_bonus else \
            rules.gin_bonus
        name = "big gin" if out.kind == "big_gin" else "gin"
        return (f"{knocker} went {name}: {bonus} + {out.defender_deadwood} loose points "
                f"= {result.points} to {mid_sentence(winner)}.")
    laid = len(out.layoffs)
    laid_text = f" after laying off {laid} card{'s' * (laid != 1)}" if laid else ""
    left = (f"{knocker} knocked with {out.knocker_deadwood}; {mid_sentence(defender)} "
            f"{'were' if defender == 'You' else 'was'} left with {out.defender_deadwood}"
            f"{laid_text}.")
    if out.kind == "undercut":
        return (f"{left} An undercut: {out.knocker_deadwood} − {out.defender_deadwood} + "
                f"{rules.undercut_bonus} = {result.points} to {mid_sentence(winner)}.")
    return (f"{left} The difference: {out.defender_deadwood} − {out.knocker_deadwood} = "
            f"{result.points} to {mid_sentence(winner)}.")


def totals_rows(totals: MatchTotals, rules: Ruleset, me: int = 0
                ) -> list[tuple[str, str, str]]:
    """The end-of-match table: label, the human's column (seat ``me``), the opponent's."""
    you, them = me, 1 - me
    rows = [
        ("Points", str(totals.points[you]), str(totals.points[them])),
        ("Game bonus", str(totals.game_bonus[you]), str(totals.game_bonus[them])),
        (f"Boxes ({rules.box_bonus} a hand won)",
         f"{totals.hands_won[you]} × {rules.box_bonus} = {totals.box_bonus[you]}",
         f"{totals.hands_won[them]} × {rules.box_bonus} = {totals.box_bonus[them]}"),
    ]
    if totals.shutout:
        doubled = "game bonus doubled" if rules.shutout == "double_bonus" else "total doubled"
        rows.append(("Shutout", doubled if totals.winner == you else "",
                     doubled if totals.winner == them else ""))
    rows.append(("Total", str(totals.totals[you]), str(totals.totals[them])))
    return rows


def how_to_play(rules: Ruleset) -> str:
    """The rules in the project's own words, as Markdown, numbers from ``rules``."""
    if rules.knock_limit_from_upcard:
        knock = ("Knock when the card you throw away leaves you no more deadwood than the "
                 "first upcard's value (an ace upcard means gin only).")
        limit = "the limit"
    else:
        knock = (f"Knock when the card you throw away leaves you {rules.knock_limit} points "
                 "of deadwood or less.")
        limit = str(rules.knock_limit)
    shutout, shutout_short = {
        "double_bonus": (f"the game bonus doubles to {2 * rules.game_bonus} if the other "
                         "player never won a hand", "doubled in a shutout"),
        "double_total": ("the winner's whole total doubles if the other player never won "
                         "a hand", "and the total doubled in a shutout"),
        "none": ("there is no shutout bonus", "no shutout bonus"),
    }[rules.shutout]
    big_gin = (f"\n\nLay down all eleven cards after your draw and it's big gin: "
               f"{rules.big_gin_bonus} plus the other hand's deadwood."
               if rules.big_gin_bonus is not None else "")
    return f"""\
# How to play — {rules.name} rules

Ten cards each. On your turn take a card — the face-up discard or the top of the
stock — and then throw one away, so you always end with ten.

Build **sets** (three or four of a kind) and **runs** (three or more in a row in one
suit; the ace is low, and the run doesn't turn the corner at the king).

Everything outside a set or a run is **deadwood** — your *loose cards*, and what they
count your *loose points*. Aces count 1, court cards 10, everything else its own number.

{knock} Your opponent then lays any of their loose cards onto your sets and runs,
and you score the difference between the two piles of deadwood.

Lay every card down and it's **gin**: nothing can be laid off against you, and you
take the other hand's deadwood plus {rules.gin_bonus}.{big_gin}

Knock and come off no better — a tie counts — and you have been **undercut**: your
opponent takes the difference plus {rules.undercut_bonus}.

The first play of a hand is the turned-up card: it's offered to the player who
wasn't dealing, then to the dealer, and if neither wants it the first draw comes off
the stock.

You can't throw back the very card you just took from the discard pile (it is
dimmed, with a square border), and when a discard leaves the stock at its last
{rules.dead_stock} cards the hand is dead — nobody scores and the same dealer deals again.

Play runs to {rules.target}. The winner adds {rules.game_bonus} for the game, each
player adds {rules.box_bonus} for every hand they won, and {shutout}.

## Scoring

| The hand ends with | Points |
| --- | --- |
| Knock (deadwood at most {limit}) | the difference in deadwood |
| Gin | their deadwood + {rules.gin_bonus} |
| Undercut | the difference + {rules.undercut_bonus} |
| Every hand won | {rules.box_bonus} at the end |
| Winning the game | {rules.game_bonus}, {shutout_short} |

## How the computer plays

The computer sees exactly what you would see in its seat: its own ten cards, the
discard pile, the cards you took from the pile, and what you did. It never sees your
hand or the stock, and the same position always gets the same move.

- **Easy** always draws from the stock, throws its costliest loose card, and knocks
  at the first chance.
- **Normal** takes the discard only when it melds and clearly helps. It throws the
  card whose loss costs least, counting how likely each loose card is to meld with
  the cards it has not seen. It goes gin whenever it can, knocks at once on 4 or
  less, and otherwise waits while the stock is large.
- **Hard** plays like Normal, and also avoids throwing a card you look to be
  collecting (from what you took, threw and passed over). To decide whether to
  knock, it guesses 30 hands you might hold, settles the knock against each, and
  knocks when that is worth more than waiting a round.

When its melds can be laid out more than one way, the computer lays down the one
that leaves you fewest lay-offs. **Hint** shows what Hard would do in your place,
and why. It is there against the computer only: in an online match neither you nor
your friend has a hint, so nobody plays with the computer's help.

## A fair shuffle, online

Against a friend, neither of you shuffles alone. Each program picks a secret seed
and commits to it first; the deck's order follows from both seeds, so neither can
choose it. The cards travel encrypted under both players' keys, and a card opens
only for the player allowed to see it: a card you are dealt or draw is opened by
your friend's key for that one position. When the hand ends both seeds are
revealed, and each program rebuilds the whole deck and replays every move; the
table shows "deck verified" when everything checks out. The relay in between only
forwards sealed messages and never sees a card, and `gin audit` checks a saved
hand again later.

## Keys

Press **f** to show or hide the side panel, **?** for every key, **h** for a hint
(against the computer), **c** for the score sheet (every hand of the match).
Against the computer, **u** takes back your last throw while the computer has not
started its answer (the short pause before it moves); online there is no undo.
"""


_FAILURE_TITLES = {
    "CheatDetected": "Cheat detected",
    "ProtocolError": "Protocol error",
    "PeerTimedOut": "No answer in time",
    "FrameRejected": "A message was rejected",
    "PeerAborted": "Your friend ended the match",
    "ClaimedAbandoned": "Your friend ended the match: abandoned by you, it says",
    "LeftOwing": "Your friend left the match",
    "ConnectionFailed": "The connection failed",
    "FriendLeft": "Your friend has left this match",
}


def failure_words(failure: Failure, seat: int) -> tuple[str, str]:
    """A failed online match as a title and an explanation naming who is at fault."""
    from client.net.outcome import FriendLeft, abandoned_words
    from gin.protocol.records.records import SEATS
    from gin.protocol.session.events import Abandoned, LeftOwing

    if isinstance(failure, Abandoned):  # this player ended it: no fault is proven
        return "Abandoned by your friend", abandoned_words(failure)
    title = _FAILURE_TITLES.get(type(failure).__name__, "The match stopped")
    if isinstance(failure, LeftOwing):  # its claim against this side does not hold
        return title, (f"{failure.reason}\n\nYou owed nothing, so the match counts as "
                       "abandoned by your friend. Not a cheat: nobody forfeits.")
    if isinstance(failure, FriendLeft):  # it cannot go on: nobody is to blame
        return title, f"{capital(failure.reason)}.\n\nNobody is at fault and nobody forfeits."
    if not failure.proven:  # a timeout, a rejected frame, an abort: nobody is blamed
        return title, f"{failure.reason}\n\nNothing is proven, so nobody forfeits."
    who = {SEATS[seat]: "you", SEATS[1 - seat]: "your friend"}.get(failure.who, failure.who)
    text = f"{failure.reason}\n\nAt fault: {who} (what failed: {failure.field})."
    if failure.who == SEATS[1 - seat]:
        text += " The match is forfeited to you."
    return title, text


# -- online: what play waits for (the browser's OWED in board/words.ts) ----------------

#: What the friend's device owes, by the protocol's message type (protocol.md); its move
#: is said apart (tests/gin/protocol/test_vocabulary.py holds the keys to the vocabulary).
OWED = {
    "welcome": "to answer your invitation",
    "hello": "to say hello",
    "start": "to start the match",
    "commit": "to seal its secret number for this deck",
    "deck": "to send its part of the shuffle",
    "deal": "to deal",
    "key": "to send the key to your card",
    "show": "to show its knock",
    "seed": "to reveal its secret number, to check the deck",
}


def how_long(seconds: int) -> str:
    """A wait in words: minutes and seconds within the hour, else about how many hours."""
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    hours = round(seconds / 3600)
    return f"about {hours} hour{'' if hours == 1 else 's'}"


def grace_question(owed: str, since: float, now: float) -> str:
    """The friend's grace is over: what it owes, since when, and the choice."""
    from gin.protocol.records.abandonment import iso_time

    waited = max(0, int(now - since))
    who, it = ("Your friend has been due to move", "they") if owed == "move" else (
        f"Your friend's device has been due {OWED.get(owed, f'to send its {owed}')}", "it")
    return (f"{who} since {iso_time(int(since))[11:19]} UTC ({how_long(waited)}): "
            f"{it} may have stopped answering, or the relay may have lost "
            f"what {it} sent.\n\nKeep waiting, or end "
            "the match as abandoned by your friend? That is not a cheat verdict and nobody "
            "forfeits; your signed record of it is saved, and your record counts it apart from "
            "wins.")


def held_up(owed: str | None) -> str:
    """This player's move waits for the friend's device (``owed``: the message type)."""
    if owed is None or owed == "move":
        return "Sending your move…"
    return f"Waiting for your friend's device {OWED.get(owed, f'({owed})')}…"


def capital(text: str) -> str:
    """``text`` as the start of a line: its first letter a capital."""
    return text[:1].upper() + text[1:]


def reach_note(reach: str | None, host: str) -> str:
    """Who can open an invite link (``reach`` from :func:`client.net.links.reach`), as
    the browser's invite window says it for its own address."""
    if reach == "computer":
        return (f"This link works only on this computer ({host} is its own address): "
                "another browser or gin join here. To play a friend elsewhere, host on a "
                "relay they can reach.")
    if reach == "network":
        return (f"This link works only on your network ({host} is a local address): for "
                "a friend elsewhere, host on a public relay (gin host --relay URL).")
    return ""


# -- undo and the score sheet --------------------------------------------------

UNDO_NONE = ("Nothing to take back: only your last throw can be, before the computer "
             "starts its answer.")
UNDO_ONLINE = "There is no undo online: your friend sees your throw at once."


def undone(card: Card) -> str:
    return f"Throw taken back: the {card.glyph} is in your hand again. Throw a card."


def sheet_columns(them: str = THEM) -> tuple[str, ...]:
    """The score sheet's column heads (the opponent by name: "Computer", "Friend")."""
    column = "Friend" if them == FRIEND else "Computer"
    return ("Hand", "Result", "Points", "You", column, "Boxes")


def sheet_result(row: SheetRow, me: int, them: str = THEM) -> str:
    """How one hand ended, from seat ``me``: "You knocked", "The computer went gin"."""
    if row.kind == "dead":
        return "Dead hand"
    who = _who(row.knocker, me, them)
    if row.kind == "undercut":
        return f"{who} knocked, {mid_sentence(_who(row.winner, me, them))} undercut"
    return f"{who} " + {"gin": "went gin", "big_gin": "went big gin"}.get(row.kind, "knocked")


def sheet_rows(rows: Sequence[SheetRow], me: int = 0, them: str = THEM
               ) -> list[tuple[str, ...]]:
    """The sheet's cells, a tuple per hand, in the order of :func:`sheet_columns`."""
    out: list[tuple[str, ...]] = []
    for row in rows:
        points = ("—" if row.winner is None
                  else f"{row.points} to {mid_sentence(_who(row.winner, me, them))}")
        out.append((str(row.number), sheet_result(row, me, them), points,
                    str(row.totals[me]), str(row.totals[1 - me]),
                    f"{row.boxes[me]}–{row.boxes[1 - me]}"))
    return out


def sheet_note(totals: MatchTotals | None, me: int = 0, them: str = THEM) -> str:
    """Under the sheet: no hand yet, the match in play, or its final totals."""
    if totals is None:
        return "Points for each hand won; boxes count the hands each player won."
    you, other = totals.totals[me], totals.totals[1 - me]
    winner = "You win" if totals.winner == me else f"{them} wins"
    return f"{winner} the match, {you} to {other} with the bonuses."
