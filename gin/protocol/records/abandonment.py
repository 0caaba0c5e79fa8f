"""Abandonment records: a player's signed word that its peer fell silent while it owed
something, as strict JSON that ``gin audit`` reads (protocol.md §10.3).

When what the peer owes (a move, a key, a seed, …) has not come within the grace
period, the waiting side may end the match as *abandoned by* the silent seat
(:meth:`gin.protocol.session.session.Session.abandon`). Silence is not a verdict: the
peer may have withheld it or the relay dropped it, so the record proves only who
claims it, about which match, what was owed and since when. It is signed with the
claimant's per-match key (:mod:`gin.protocol.records.cosign`) over every field but the
signature, so a field added to :meth:`AbandonmentRecord.to_dict` (and read in
:func:`parse_value`) is signed with no other change. Pure: times are given in.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import cosign
from gin.protocol.records.envelope import (
    SEATS,
    Reader,
    load,
    open_envelope,
    read_binding,
    write,
)
from gin.protocol.records.identity import binding_refusal
from gin.protocol.records.records import HandRecord

FORMAT = "gin-abandonment"
FORMAT_VERSION = 3
#: The fields of a record, in the order it is written and a missing one is named.
FIELDS = ("format", "version", "match_id", "link", "seats", "signing_keys", "identities",
          "vouches", "previous", "hand", "owed", "since", "claimed", "received", "scores",
          "claimant", "signature")
DOMAIN = b"gin/session/v3/abandon\x00"
#: 9999-12-31T23:59:59Z: times are UTC seconds from 1970 to the end of year 9999.
MAX_TIME = 253_402_300_799
MAX_SCORE = 1_000_000
#: What a peer can owe (:meth:`gin.protocol.session.session.Session.waiting_for`), in words.
OWED = {
    "hello": "its hello", "welcome": "its welcome", "start": "its start of the match",
    "commit": "its commitment", "deck": "its deck message", "deal": "its keys of the deal",
    "key": "the key of the card drawn", "show": "its cards shown after the knock",
    "move": "its move", "seed": "its seed",
}
_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")


@dataclass(frozen=True, slots=True)
class AbandonmentRecord:
    """Seat ``claimant`` says seat ``owed_seat`` owed ``owed`` (a message type) for hand
    ``hand_number`` (0: before the first deal) since ``since`` and ended the match at
    ``claimed`` (UTC seconds), having had ``received`` messages from it (and their hash
    chain, §5)."""

    match_id: bytes
    link_id: bytes
    signing_keys: tuple[bytes, bytes]
    identities: tuple[bytes, bytes]
    vouches: tuple[bytes, bytes]
    previous: bytes | None
    hand_number: int
    owed_seat: int
    owed: str
    since: int
    claimed: int
    received: int
    received_digest: bytes
    scores: tuple[int, int]
    claimant: int
    signature: bytes = b""

    def to_dict(self) -> dict[str, Any]:
        return write(self, FORMAT, FORMAT_VERSION, FIELDS, {
            "hand": self.hand_number,
            "owed": {"seat": self.owed_seat, "what": self.owed},
            "since": iso_time(self.since),
            "claimed": iso_time(self.claimed),
            "received": {"messages": self.received, "digest": self.received_digest.hex()},
            "scores": list(self.scores),
            "claimant": self.claimant,
            "signature": self.signature.hex(),
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def digest(self) -> bytes:
        """SHA-256("gin/session/v3/abandon" ‖ 00 ‖ canonical JSON of every field but
        ``signature``): what the claimant signs."""
        fields = self.to_dict()
        del fields["signature"]
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(DOMAIN + text.encode()).digest()

    def signed(self, signer: cosign.Signer) -> AbandonmentRecord:
        return replace(self, signature=signer.sign(self.digest()))

    def words(self) -> str:
        """The record told as plain words: whose claim, what was owed, since when."""
        owed, claimant = SEATS[self.owed_seat], SEATS[self.claimant]
        hand = "before the first hand" if self.hand_number == 0 else f"for hand {self.hand_number}"
        since, claimed = (_shown(t) for t in (self.since, self.claimed))
        at = claimed[11:19] if since[:10] == claimed[:10] else f"{claimed} UTC"
        return (f"abandoned by the {owed}: it owed {OWED[self.owed]} {hand} since {since} UTC; "
                f"the {claimant} ended the match at {at} (after {self.claimed - self.since} s). "
                f"This is the {claimant}'s signed word: not a cheat, and not proven (the "
                f"{owed} may have withheld it, or the relay dropped it)")


def iso_time(seconds: int) -> str:
    """UTC seconds as ISO 8601, whole seconds: ``2026-12-02T08:00:00Z``."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(seconds: int) -> str:
    return iso_time(seconds)[:19].replace("T", " ")


def check(record: AbandonmentRecord) -> list[tuple[str, str]]:
    """What is wrong with ``record`` as (field, detail): its match id and signature;
    without both it proves nothing, not even its claimant's word."""
    unbound = binding_refusal(record.match_id, record.link_id, record.signing_keys,
                              record.identities, record.vouches, record.previous)
    if unbound is not None:
        return [unbound]
    if not cosign.verify(record.signing_keys[record.claimant], record.digest(),
                         record.signature):
        return [("signature", f"the {SEATS[record.claimant]}'s signature does not sign "
                 "this record")]
    return []


def _last(record: AbandonmentRecord, hands: Sequence[HandRecord]) -> HandRecord | None:
    mine = [h for h in hands if h.match_id == record.match_id]
    return max(mine, key=lambda h: h.hand_number) if mine else None


def contradiction(record: AbandonmentRecord, hands: Sequence[HandRecord]
                  ) -> tuple[str, str] | None:
    """Where and why the verified ``hands`` of the record's match prove its claim false,
    or None. Both are the claimant's signatures: a hand record carries its signature of
    the hand's whole transcript (every move, key and card shown, the scores after it), so
    the claimant had all of that hand, the match went on from those scores, and the
    silent seat owed nothing in it but its seed (whose arrival no signature proves); and
    after a hand that ended the match nothing more was owed."""
    last = _last(record, hands)
    if last is None:
        return None
    claimant, n, owed = SEATS[record.claimant], last.hand_number, SEATS[record.owed_seat]
    false = "a false claim, signed by the claimant"
    if record.hand_number < n:
        return "hand", (f"the {claimant} signed hand {n} as complete, so the match was not "
                        f"left in hand {record.hand_number}: {false}")
    if record.hand_number <= n + 1 and record.scores != last.scores:
        return "scores", (f"the {claimant} signed hand {n} ending at host {last.scores[0]}, "
                          f"guest {last.scores[1]}; this record says host {record.scores[0]}, "
                          f"guest {record.scores[1]}: {false}")
    if record.hand_number == n and record.owed != "seed":
        return "owed", (f"the {claimant} signed hand {n} as complete (its transcript holds "
                        f"every move, key and card shown), so the {owed} owed nothing of that "
                        f"hand but its seed; this record says it owed {OWED[record.owed]}: "
                        f"{false}")
    if record.hand_number == n + 1 and max(last.scores) >= last.rules.target:
        return "owed", (f"the {claimant} signed hand {n}, which ended the match (host "
                        f"{last.scores[0]}, guest {last.scores[1]}, playing to "
                        f"{last.rules.target}); this record says the {owed} owed "
                        f"{OWED[record.owed]} in hand {n + 1}: {false}")
    return None


def missing_hands(record: AbandonmentRecord, hands: Sequence[HandRecord]) -> str | None:
    """The hands between the last record given and the claim's hand, if any: what the
    records given cannot say (a dead hand leaves the scores as they were)."""
    last = _last(record, hands)
    if last is None or record.hand_number <= last.hand_number + 1:
        return None
    first, end = last.hand_number + 1, record.hand_number - 1
    which = f"hand {first}" if first == end else f"hands {first} to {end}"
    return (f"what happened in {which}: the records given end with hand "
            f"{last.hand_number}, and the claim is of hand {record.hand_number}")


# --- strict parsing ---------------------------------------------------------------


def _time(r: Reader, name: str) -> int:
    value = r.get(name)
    match = _TIME.fullmatch(value) if isinstance(value, str) else None
    try:
        if match is None:
            raise ValueError
        year, month, day, hour, minute, second = (int(x) for x in match.groups())
        when = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        r.fail(r.at(name), "expected a UTC time as YYYY-MM-DDTHH:MM:SSZ")
    seconds = int(when.timestamp())
    if not 0 <= seconds <= MAX_TIME:
        r.fail(r.at(name), "expected a time from 1970 on")
    return seconds


def parse_value(value: object) -> AbandonmentRecord:
    """An abandonment record from its JSON value; MalformedInput names the path."""
    r = Reader(value, "record", "abandonment record")
    pairs = open_envelope(r, FORMAT, FORMAT_VERSION, FIELDS)
    owed = r.child("owed").only(("seat", "what"))
    if not isinstance(owed.get("what"), str) or owed.get("what") not in OWED:
        owed.fail(owed.at("what"), f"expected one of {', '.join(OWED)}")
    received = r.child("received").only(("messages", "digest"))
    scores = r.get("scores")
    if not isinstance(scores, list) or len(scores) != 2:
        r.fail(r.at("scores"), "expected [host, guest]")
    record = AbandonmentRecord(
        match_id=r.hex("match_id", cosign.MATCH_ID_BYTES),
        **read_binding(r, pairs),
        hand_number=r.integer("hand", 0, fd.MAX_HAND_NUMBER),
        owed_seat=owed.integer("seat", 0, 1),
        owed=str(owed.get("what")),
        since=_time(r, "since"),
        claimed=_time(r, "claimed"),
        received=received.integer("messages", 0, 1 << 32),
        received_digest=received.hex("digest", 32),
        scores=(r.integer_at(scores[0], r.at("scores[0]"), 0, MAX_SCORE),
                r.integer_at(scores[1], r.at("scores[1]"), 0, MAX_SCORE)),
        claimant=r.integer("claimant", 0, 1),
        signature=r.hex("signature", cosign.SIGNATURE_BYTES),
    )
    if record.claimant == record.owed_seat:
        r.fail(r.at("claimant"), "the claimant is the seat that owed")
    if record.claimed < record.since:
        r.fail(r.at("claimed"), "earlier than 'since'")
    return record


def parse(data: str | bytes) -> AbandonmentRecord:
    """Parse a record's JSON text under the hand records' limits (size, nesting)."""
    return parse_value(load(data, "abandonment record: record"))
