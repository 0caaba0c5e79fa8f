"""Hand records: everything needed to re-verify one online hand, as strict JSON.

A record holds the ruleset, the match id, the hand number, the dealer (the first
shuffler), both commitments, the three deck messages, the digest of message 2's
shuffle proof (the second shuffler's seed rebuilds the proof), every step of the hand in
the order the recording peer processed it (an action and/or the keys a seat
revealed with it), both seeds and the result. Bytes travel as lowercase hex.
:func:`parse_record` is strict: unknown or missing fields, wrong lengths,
out-of-range values, a deck entry that is not the one encoding of a point and a key
not reduced modulo L are :class:`MalformedInput` naming the JSON path. The format
is specified in ``protocol.md`` §10.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gin.engine.actions import Action, parse_action
from gin.engine.errors import MalformedInput
from gin.engine.observation import HandResult
from gin.engine.rules import STANDARD, Ruleset
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group as g
from gin.protocol.records.envelope import (
    KEY_BYTES,
    LINK_ID_BYTES,
    MATCH_ID_BYTES,
    SEATS,
    SIGNATURE_BYTES,
    Reader,
    load,
    read_head,
    read_seats,
    seat_pair,
    write,
)

FORMAT = "gin-hand-record"
FORMAT_VERSION = 4
#: The fields of a record, in the order it is written and a missing one is named.
FIELDS = ("format", "version", "match_id", "hand", "seats", "dealer", "rules", "commitments",
          "seeds", "messages", "proof", "steps", "result", "scores", "link", "signing_keys",
          "signatures", "identities", "vouches", "previous")
MAX_STEPS = 512
MAX_ACTION_CHARS = 256
RESULT_KINDS = ("knock", "gin", "big_gin", "undercut", "dead")


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a hand: ``seat`` revealed ``keys`` ((position, key) pairs) and/or acted."""

    seat: int
    action: Action | None = None
    keys: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Score:
    """How the hand ended, as the recording peer's engine scored it."""

    kind: str
    knocker: int | None
    winner: int | None
    points: int

    @classmethod
    def of(cls, result: HandResult) -> Score:
        return cls(result.kind, result.knocker, result.winner, result.points)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished online hand. Seat 0 is the host; the dealer is the first shuffler."""

    rules: Ruleset
    match_id: bytes
    hand_number: int
    dealer: int
    commitments: tuple[bytes, bytes]  # (first shuffler's, second's)
    messages: tuple[fd.Deck, fd.Deck, fd.Deck]
    proof: bytes  # SHA-256 of message 2's shuffle proof (fairdeal.proof_digest)
    steps: tuple[Step, ...]
    seeds: tuple[bytes, bytes]  # (first shuffler's, second's)
    score: Score
    scores: tuple[int, int]  # the match scores after this hand
    # Co-signing (protocol.md §10): the invite link's id, each seat's per-match
    # Ed25519 public key (which the match id is derived from) and each seat's
    # signature of gin.protocol.records.cosign.hand_digest. Empty only while the hand is unsigned.
    link_id: bytes = b""
    signing_keys: tuple[bytes, bytes] = (b"", b"")
    signatures: tuple[bytes, bytes] = (b"", b"")
    # Who played (protocol.md §4, §7.1): each seat's long-term identity key, its
    # vouch for its signing key, and the match on this link that this one continues.
    identities: tuple[bytes, bytes] = (b"", b"")
    vouches: tuple[bytes, bytes] = (b"", b"")
    previous: bytes | None = None

    def role_of(self, seat: int) -> fd.Role:
        return fd.Role.FIRST if seat == self.dealer else fd.Role.SECOND

    def seat_of(self, role: fd.Role) -> int:
        return self.dealer if role is fd.Role.FIRST else 1 - self.dealer

    def to_dict(self) -> dict[str, Any]:
        def step(s: Step) -> dict[str, Any]:
            out: dict[str, Any] = {"seat": s.seat}
            if s.action is not None:
                out["action"] = str(s.action)
            if s.keys:
                out["keys"] = [[pos, _key_hex(key)] for pos, key in s.keys]
            return out

        return write(self, FORMAT, FORMAT_VERSION, FIELDS, {
            "hand": self.hand_number,
            "dealer": self.dealer,
            "rules": self.rules.to_dict(),
            "commitments": {"first": self.commitments[0].hex(),
                            "second": self.commitments[1].hex()},
            "seeds": {"first": self.seeds[0].hex(), "second": self.seeds[1].hex()},
            "messages": {f"message{n}": [x.hex() for x in m]
                         for n, m in enumerate(self.messages, 1)},
            "proof": self.proof.hex(),
            "steps": [step(s) for s in self.steps],
            "result": {"kind": self.score.kind, "knocker": self.score.knocker,
                       "winner": self.score.winner, "points": self.score.points},
            "scores": list(self.scores),
            "signatures": seat_pair(self.signatures),
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"


def _key_hex(key: int) -> str:
    return fd.key_bytes(key).hex()


# --- strict parsing ---------------------------------------------------------------


def _step(top: Reader, value: object, path: str) -> Step:
    r = top.object_at(value, path).only(("seat",), ("action", "keys"))
    seat = r.integer("seat", 0, 1)
    action = None
    if "action" in r.value:
        text = r.get("action")
        if not isinstance(text, str) or len(text) > MAX_ACTION_CHARS:
            r.fail(r.at("action"), f"expected text of at most {MAX_ACTION_CHARS} characters")
        try:
            action = parse_action(text)
        except MalformedInput as exc:
            r.fail(r.at("action"), str(exc))
    keys: list[tuple[int, int]] = []
    if "keys" in r.value:
        for i, pair in enumerate(r.array("keys", 1, fd.DECK_SIZE)):
            where = f"{r.at('keys')}[{i}]"
            items = r.array_at(pair, where, 2, 2)
            position = r.integer_at(items[0], f"{where}[0]", 0, fd.DECK_SIZE - 1)
            keys.append((position, _scalar(r, r.hex_at(items[1], f"{where}[1]", fd.KEY_BYTES),
                                           f"{where}[1]")))
    if action is None and not keys:
        r.fail(path, "a step needs an action or keys")
    return Step(seat, action, tuple(keys))


def _scalar(r: Reader, data: bytes, path: str) -> int:
    """A key as its one encoding, reduced modulo L (whether it is the revealer's key is
    the audit's question)."""
    try:
        return g.scalar_from_bytes(data)
    except g.InvalidScalar as exc:
        r.fail(path, str(exc))


def _deck(r: Reader, name: str) -> fd.Deck:
    """A deck message: 52 entries, each the one encoding of a point (whether they are
    the shuffle its sender's seed makes, with no entry twice, is the audit's question)."""
    deck = r.hex_list(name, fd.DECK_SIZE, g.POINT_BYTES)
    for i, entry in enumerate(deck):
        if not fd.is_point(entry):
            r.fail(f"{r.at(name)}[{i}]", fd.NOT_A_POINT)
    return deck


def parse_record(data: str | bytes) -> HandRecord:
    """Parse a record's JSON text under the limits; MalformedInput names what is wrong."""
    r = Reader(load(data, "hand record"), "record", "hand record", found=True).only(FIELDS)
    read_head(r, FORMAT, FORMAT_VERSION, older=True)  # 3: seeds unsigned; 2: P-256; 1: unsigned
    match_id = r.value.get("match_id")
    if not isinstance(match_id, str) or not 2 <= len(match_id) <= 128:
        r.fail(r.at("match_id"), "expected 1..64 bytes as hex")
    match_bytes = r.hex_at(match_id, r.at("match_id"), len(match_id) // 2)
    read_seats(r)
    # Every rule is written out: a rule left out would be filled with today's default
    # before the digest, so a record could be signed under one ruleset and read as another.
    given = r.get("rules")
    for name in STANDARD.to_dict():
        if isinstance(given, dict) and name not in given:
            r.fail(f"{r.at('rules')}.{name}", "missing")
    try:
        rules = Ruleset.from_dict(given)
    except MalformedInput as exc:
        r.fail(r.at("rules"), str(exc))
    pairs = {}
    for name, names, size in (("commitments", ("first", "second"), 32),
                              ("seeds", ("first", "second"), 32),
                              ("signing_keys", SEATS, KEY_BYTES),
                              ("signatures", SEATS, SIGNATURE_BYTES),
                              ("identities", SEATS, KEY_BYTES),
                              ("vouches", SEATS, SIGNATURE_BYTES)):
        pairs[name] = r.child(name).only(names).pair(size, names)
    msgs = r.child("messages").only(("message1", "message2", "message3"))
    messages = tuple(_deck(msgs, name) for name in ("message1", "message2", "message3"))
    steps = tuple(_step(r, s, f"{r.at('steps')}[{i}]")
                  for i, s in enumerate(r.array("steps", 0, MAX_STEPS)))
    res = r.child("result").only(("kind", "knocker", "winner", "points"))
    if res.get("kind") not in RESULT_KINDS:
        res.fail(res.at("kind"), f"expected one of {', '.join(RESULT_KINDS)}")
    score = Score(str(res.get("kind")), res.seat_or_none("knocker"), res.seat_or_none("winner"),
                  res.integer("points", 0, 10_000))
    scores = r.array("scores", 2, 2)
    return HandRecord(
        rules=rules,
        match_id=match_bytes,
        hand_number=r.integer("hand", 1, fd.MAX_HAND_NUMBER),
        dealer=r.integer("dealer", 0, 1),
        commitments=pairs["commitments"],
        messages=(messages[0], messages[1], messages[2]),
        proof=r.hex("proof", 32),
        steps=steps,
        seeds=pairs["seeds"],
        score=score,
        scores=(r.integer_at(scores[0], r.at("scores[0]"), 0, 1_000_000),
                r.integer_at(scores[1], r.at("scores[1]"), 0, 1_000_000)),
        link_id=r.hex("link", LINK_ID_BYTES),
        signing_keys=pairs["signing_keys"],
        signatures=pairs["signatures"],
        identities=pairs["identities"],
        vouches=pairs["vouches"],
        previous=r.hex_or_none("previous", MATCH_ID_BYTES),
    )
