"""The match's score sheet, derived from the hands the match keeps (no second copy):
each hand's result, the running totals and the boxes (hands won). The twin of
client/web/src/board/scoresheet.ts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gin import HandResult


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One hand on the sheet. ``winner`` is None for a dead hand (no points)."""

    number: int
    kind: str  # knock, gin, big_gin, undercut, dead
    knocker: int | None
    winner: int | None
    points: int
    totals: tuple[int, int]  # the running totals after this hand
    boxes: tuple[int, int]  # hands won so far


def score_sheet(results: Sequence[HandResult]) -> list[SheetRow]:
    """A row per finished hand, in order, with the running totals and boxes."""
    totals, boxes = [0, 0], [0, 0]
    rows = []
    for number, result in enumerate(results, start=1):
        if result.winner is not None:
            totals[result.winner] += result.points
            boxes[result.winner] += 1
        rows.append(SheetRow(number, result.kind, result.knocker, result.winner, result.points,
                             (totals[0], totals[1]), (boxes[0], boxes[1])))
    return rows
