"""The history of an invite link (protocol.md §9): the records given together, grouped by
link id, must be one history of one pair of players (the twin of
client/web/src/protocol/records/history.ts).

Anyone holding a link can play both seats with keys of their own and mint a whole match
whose every record verifies; what they cannot do is make it the link's history. So the
matches of one link must all name the same two identities, at most one of them may
begin the link (``previous`` null), and each other match continues a different match
before it. Records whose identities do not vouch for their keys (audit step 0) fail on
their own and take no part. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gin.protocol.records.envelope import SEATS, Bound
from gin.protocol.records.identity import binding_refusal, fingerprint


@dataclass
class _Match:
    match_id: bytes
    identities: tuple[bytes, bytes]
    previous: bytes | None
    items: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"match {self.match_id.hex()} (identities "
                f"{' / '.join(fingerprint(x) for x in self.identities)})")


@dataclass(frozen=True)
class Placement:
    """What the history says of one record: a conflict of its link (it cannot be
    verified), or what the records given cannot prove of the match before it."""

    conflict: str | None = None
    unproven: str | None = None


def identities_text(identities: tuple[bytes, bytes]) -> str:
    """Both players' identities as ``gin audit`` prints them: words, then hex."""
    return "identities: " + ", ".join(
        f"{seat} {fingerprint(x)} ({x.hex()})" for seat, x in zip(SEATS, identities, strict=True))


def place(items: Sequence[Bound]) -> dict[int, Placement]:
    """Each record's place in its link's history, by index; a record not listed has
    its place (the link's only match, or one that continues a match given)."""
    links: dict[bytes, dict[bytes, _Match]] = {}
    for i, x in enumerate(items):
        if binding_refusal(x.match_id, x.link_id, x.signing_keys, x.identities, x.vouches,
                           x.previous) is not None:
            continue
        matches = links.setdefault(x.link_id, {})
        match = matches.setdefault(x.match_id, _Match(x.match_id, x.identities, x.previous))
        match.items.append(i)
    out: dict[int, Placement] = {}
    for link, matches in links.items():
        clash = _conflict(list(matches.values()))
        for match in matches.values():
            if clash is not None:
                text = (f"records of link {link.hex()} do not form one history: {clash}; at "
                        "most one is the real match")
                out.update((i, Placement(conflict=text)) for i in match.items)
            elif match.previous is not None and match.previous not in matches:
                text = (f"the match before (match {match.previous.hex()}, which this match "
                        "continues) is not among these records")
                out.update((i, Placement(unproven=text)) for i in match.items)
    return out


def _conflict(matches: list[_Match]) -> str | None:
    """Why the matches of one link are not one history, or None."""
    beginning = [m for m in matches if m.previous is None]
    if len(beginning) > 1:
        return f"{beginning[0]} and {beginning[1]} both begin it"
    first = matches[0]
    for other in matches[1:]:
        if other.identities != first.identities:
            return f"{first} and {other} name other players"
    seen: dict[bytes, _Match] = {}
    for match in matches:
        if match.previous is None:
            continue
        if match.previous in seen:
            return (f"{seen[match.previous]} and {match} both continue match "
                    f"{match.previous.hex()}")
        seen[match.previous] = match
    return None
