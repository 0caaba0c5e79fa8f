"""Your record: every finished match, and the statistics `gin history` shows.

Pure: no files, no clock, no game engine. The clients build one :func:`match_entry`
when a match ends (against the computer, or a friend online) and the data folder
keeps the list (:meth:`client.storage.Storage.add_to_record`); :func:`summarize`
turns the list into the numbers, per opponent and over all. The browser's twin is
client/web/src/board/record.ts; tests/client/test_record.py and
client/web/test/record.test.ts summarize the same fixture
(tests/fixtures/record.json) and must agree.

An entry, seen from the player (seat 0 is always "you")::

    {"opponent": "computer:hard", "won": true, "at": "2026-12-02T06:00:00Z",
     "hands": [{"kind": "gin", "knocker": 0, "winner": 0, "points": 31}, ...],
     "totals": [152, 40], "boxes": [3, 1]}

``opponent`` is ``computer:<strength>`` or ``friend:<id>``: a friend is known by
the five words of its identity (protocol.md §4), the same whatever link it plays
on; a match that ended before the friend's identity was known (and records of gin
before identities) is keyed by the invite link's id instead (its first 16 hex
digits). ``totals`` and ``boxes`` (the box bonus points) are None
for a match ended by a forfeit. A match that ended because one player fell silent
(protocol.md §11.3) has ``"abandoned": "friend"`` (the friend fell silent and this
player ended it) or ``"you"`` (the friend ended it, saying this player was silent),
``won`` false and no totals: it is counted apart, never as a win.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from gin.protocol.records.identity import fingerprint

FORMAT = 1
HAND_KINDS = ("knock", "gin", "big_gin", "undercut", "dead")
ABANDONED_BY = ("friend", "you")
#: Opponents listed first, in this order; friends follow, by first match.
COMPUTERS = ("computer:easy", "computer:normal", "computer:hard")


def opponent_label(key: str) -> str:
    """The opponent's name for people: "Computer (hard)", "Friend (maple otter pebble
    quilt robin)", or "Friend (link 1a2b3c4d)" for a friend known only by the link."""
    kind, _, name = key.partition(":")
    if kind == "computer":
        return f"Computer ({name})"
    if kind == "friend":
        if not name:
            return "A friend"
        return f"Friend (link {name[:8]})" if _LINK_KEY.fullmatch(name) else f"Friend ({name})"
    return key


_LINK_KEY = re.compile("[0-9a-f]{16}")


def friend_key(identity: bytes | None, link_id: bytes) -> str:
    """A friend's key: the words of its identity, or the link's id while none is known."""
    return f"friend:{fingerprint(identity) if identity is not None else link_id.hex()[:16]}"


def match_entry(opponent: str, me: int, winner: int | None, hands: Iterable[Any],
                totals: Any | None, abandoned: str | None = None) -> dict[str, Any]:
    """The entry of one finished match, without its date (the data folder adds it).

    ``me`` is the player's seat and ``winner`` the match winner's (None for a match
    ``abandoned`` by the "friend" or by "you": never a win). ``hands`` are
    how each hand ended (anything with kind, knocker, winner, points, in seats: a
    :class:`gin.HandResult`, a protocol record's score); ``totals`` the match's
    :class:`gin.engine.scoring.MatchTotals` (``totals``, ``box_bonus``), or None
    when the match was forfeited. Seats are turned so that the player is 0.
    """
    def turn(seat: int | None) -> int | None:
        return None if seat is None else (0 if seat == me else 1)

    def mine(pair: Sequence[int]) -> list[int]:
        return [int(pair[me]), int(pair[1 - me])]

    return {
        "opponent": opponent, "won": winner == me,
        **({} if abandoned is None else {"abandoned": abandoned}),
        "hands": [{"kind": str(h.kind), "knocker": turn(h.knocker), "winner": turn(h.winner),
                   "points": int(h.points)} for h in hands],
        "totals": None if totals is None else mine(totals.totals),
        "boxes": None if totals is None else mine(totals.box_bonus),
    }


def _check_pair(value: Any, what: str) -> None:
    if value is None:
        return
    if not (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"{what} is not two whole numbers")


def _check_seat(value: Any) -> bool:
    return value is None or value in (0, 1) and not isinstance(value, bool)


def parse(data: Any) -> list[dict[str, Any]]:
    """The entries of a stored record; ValueError saying what is wrong with it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("it is not a record of matches (format 1)")
    matches = data.get("matches")
    if not isinstance(matches, list):
        raise ValueError("it has no list of matches")
    for n, entry in enumerate(matches, 1):
        where = f"match {n}"
        if not isinstance(entry, dict) or not isinstance(entry.get("opponent"), str) \
                or not isinstance(entry.get("won"), bool) or not isinstance(entry.get("at"), str):
            raise ValueError(f"{where} lacks its opponent, result or date")
        hands = entry.get("hands")
        if not isinstance(hands, list):
            raise ValueError(f"{where} has no list of hands")
        for hand in hands:
            if not isinstance(hand, dict) or hand.get("kind") not in HAND_KINDS \
                    or not _check_seat(hand.get("knocker")) or not _check_seat(hand.get("winner")) \
                    or not isinstance(hand.get("points"), int) or hand["points"] < 0:
                raise ValueError(f"{where} has a hand that is not kind, knocker, winner, points")
        if entry.get("abandoned", "friend") not in ABANDONED_BY:
            raise ValueError(f"{where} was abandoned by neither the friend nor you")
        _check_pair(entry.get("totals"), f"{where}'s totals")
        _check_pair(entry.get("boxes"), f"{where}'s boxes")
    return matches


def stored(matches: list[dict[str, Any]]) -> dict[str, Any]:
    """What the data folder keeps: the entries under a format number."""
    return {"format": FORMAT, "matches": matches}


def _line(matches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    hands = [h for m in matches for h in m["hands"]]
    won = [h for h in hands if h["winner"] == 0]
    points = sum(h["points"] for h in won)
    run = longest = 0
    for m in matches:
        run = run + 1 if m["won"] else 0
        longest = max(longest, run)
    return {
        "matches": len(matches),
        "matches_won": sum(1 for m in matches if m["won"]),
        "hands": len(hands),
        "hands_won": len(won),
        "gins": sum(1 for h in won if h["kind"] in ("gin", "big_gin")),
        "undercuts": sum(1 for h in won if h["kind"] == "undercut"),
        "knocks": sum(1 for h in won if h["kind"] == "knock"),
        "boxes": sum(m["boxes"][0] for m in matches if m.get("boxes")),
        "points": points,
        # Halves round up, as Math.floor does in record.ts: the same float in both.
        "average_points": math.floor(points * 10 / len(hands) + 0.5) / 10 if hands else 0.0,
        "longest_run": longest,
        "abandoned_by_friend": sum(1 for m in matches if m.get("abandoned") == "friend"),
        "abandoned_by_you": sum(1 for m in matches if m.get("abandoned") == "you"),
    }


def summarize(matches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The statistics: ``overall``, and ``opponents`` (one line per opponent, the
    computer's strengths first, then friends by their first match), oldest first.

    Per line: matches and matches won; hands and hands won; gins (big gins
    included), undercuts and knocks among the hands won; boxes (the box bonus
    points won); points (hand points won) and average_points per hand played;
    longest_run, the most matches won in a row; abandoned_by_friend and
    abandoned_by_you, the matches that ended because one side fell silent.
    """
    keys = sorted({m["opponent"] for m in matches},
                  key=lambda k: (COMPUTERS.index(k) if k in COMPUTERS else len(COMPUTERS),
                                 next(i for i, m in enumerate(matches) if m["opponent"] == k)))
    return {
        "overall": _line(matches),
        "opponents": [{"opponent": key, "label": opponent_label(key)}
                      | _line([m for m in matches if m["opponent"] == key]) for key in keys],
    }


def describe(summary: dict[str, Any]) -> list[str]:
    """The summary in plain lines, for `gin history`."""
    def n(count: int, word: str) -> str:
        return f"{count} {word}{'' if count == 1 else 'es' if word == 'match' else 's'}"

    def block(title: str, line: dict[str, Any]) -> list[str]:
        return [
            f"{title}: {line['matches_won']} of {n(line['matches'], 'match')} won "
            f"(longest run of wins: {line['longest_run']})",
            f"  hands: {line['hands_won']} of {line['hands']} won, with {n(line['gins'], 'gin')}, "
            f"{n(line['undercuts'], 'undercut')}, {n(line['knocks'], 'knock')}",
            f"  points: {line['average_points']:.1f} a hand on average; "
            f"boxes: {line['boxes']} points",
        ] + ([f"  abandoned: {n(line['abandoned_by_friend'], 'match')} by your friend, "
              f"{line['abandoned_by_you']} by you (one side fell silent: never counted as "
              "a win)"] if line["abandoned_by_friend"] or line["abandoned_by_you"] else [])

    overall = summary["overall"]
    if not overall["matches"]:
        return ["No finished matches yet: your record starts with the first match you finish."]
    out = block("All matches", overall)
    for line in summary["opponents"]:
        out += block(line["label"], line)
    return out
