"""Hand records: everything needed to re-verify one online hand, as strict JSON.

A record holds the ruleset, the match id, the hand number, the dealer (the first
shuffler), both commitments, the three deck messages, the digest of message 2's
shuffle proof (the second shuffler's seed rebuilds the proof), every step of the hand in
the order the recording peer processed it (an action and/or the keys a seat
revealed with it), both seeds and the result. Bytes travel as lowercase hex.
:func:`parse_record` is strict: unknown or missing fields, wrong lengths and
out-of-range values are :class:`MalformedInput` naming the JSON path. The format
is specified in ``protocol.md`` §10.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from gin.engine.actions import Action, parse_action
from gin.engine.errors import MalformedInput
from gin.engine.observation import HandResult
from gin.engine.rules import STANDARD, Ruleset
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import strict_json

FORMAT = "gin-hand-record"
FORMAT_VERSION = 4
SEATS = ("host", "guest")
MAX_RECORD_BYTES = 1 << 20
MAX_STEPS = 512
MAX_ACTION_CHARS = 256
#: Arrays and objects open at once (a record needs 4); deeper text is not a record.
MAX_NESTING = 64
RESULT_KINDS = ("knock", "gin", "big_gin", "undercut", "dead")
_HEX = re.compile("[0-9a-fA-F]*")
# A string (to its closing quote, or the end of the text) or a bracket.
_NESTING_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


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

        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "match_id": self.match_id.hex(),
            "hand": self.hand_number,
            "seats": list(SEATS),
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
            "link": self.link_id.hex(),
            "signing_keys": {seat: key.hex() for seat, key in zip(SEATS, self.signing_keys,
                                                                   strict=True)},
            "signatures": {seat: sig.hex() for seat, sig in zip(SEATS, self.signatures,
                                                                 strict=True)},
            **binding_dict(self.identities, self.vouches, self.previous),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"


def _key_hex(key: int) -> str:
    return fd.key_bytes(key).hex()


def binding_dict(identities: tuple[bytes, bytes], vouches: tuple[bytes, bytes],
                 previous: bytes | None) -> dict[str, Any]:
    """The identity fields of a record or deal evidence, as JSON."""
    return {"identities": dict(zip(SEATS, (x.hex() for x in identities), strict=True)),
            "vouches": dict(zip(SEATS, (x.hex() for x in vouches), strict=True)),
            "previous": None if previous is None else previous.hex()}


# --- strict parsing ---------------------------------------------------------------


class _Reader:
    """Typed access to one JSON object that names the path of whatever is wrong."""

    def __init__(self, value: object, path: str) -> None:
        if not isinstance(value, dict):
            _fail(path, f"expected an object, got {_kind(value)}")
        self.value: dict[str, object] = value
        self.path = path

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def only(self, required: Sequence[str], optional: Sequence[str] = ()) -> None:
        for key in self.value:
            if key not in required and key not in optional:
                _fail(self.at(key), "unexpected field")
        for key in required:
            if key not in self.value:
                _fail(self.at(key), "missing")

    def get(self, name: str) -> object:
        return self.value.get(name)

    def integer(self, name: str, low: int, high: int) -> int:
        return _integer(self.value.get(name), self.at(name), low, high)

    def seat_or_none(self, name: str) -> int | None:
        value = self.value.get(name)
        return None if value is None else _integer(value, self.at(name), 0, 1)

    def hex(self, name: str, size: int) -> bytes:
        return _hex(self.value.get(name), self.at(name), size)

    def child(self, name: str) -> _Reader:
        return _Reader(self.value.get(name), self.at(name))

    def array(self, name: str, low: int, high: int) -> list[object]:
        return _array(self.value.get(name), self.at(name), low, high)


def _fail(path: str, why: str) -> NoReturn:
    raise MalformedInput(f"hand record: {path}: {why}")


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _integer(value: object, path: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"expected an integer, got {_kind(value)}")
    if not low <= value <= high:
        _fail(path, f"{value} is outside {low}..{high}")
    return value


def _hex(value: object, path: str, size: int) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * size:
        _fail(path, f"expected {2 * size} hex digits")
    # Not bytes.fromhex alone: it skips spaces, and would make a shorter value.
    if not _HEX.fullmatch(value):
        _fail(path, "not hexadecimal")
    return bytes.fromhex(value)


def _array(value: object, path: str, low: int, high: int) -> list[object]:
    if not isinstance(value, list):
        _fail(path, f"expected a list, got {_kind(value)}")
    if not low <= len(value) <= high:
        _fail(path, f"{len(value)} entries, expected {low}..{high}")
    return value


def _step(value: object, path: str) -> Step:
    r = _Reader(value, path)
    r.only(("seat",), ("action", "keys"))
    seat = r.integer("seat", 0, 1)
    action = None
    if "action" in r.value:
        text = r.get("action")
        if not isinstance(text, str) or len(text) > MAX_ACTION_CHARS:
            _fail(r.at("action"), f"expected text of at most {MAX_ACTION_CHARS} characters")
        try:
            action = parse_action(text)
        except MalformedInput as exc:
            _fail(r.at("action"), str(exc))
    keys: list[tuple[int, int]] = []
    if "keys" in r.value:
        for i, pair in enumerate(r.array("keys", 1, fd.DECK_SIZE)):
            where = f"{r.at('keys')}[{i}]"
            items = _array(pair, where, 2, 2)
            position = _integer(items[0], f"{where}[0]", 0, fd.DECK_SIZE - 1)
            keys.append((position, fd.key_from_bytes(_hex(items[1], f"{where}[1]",
                                                          fd.KEY_BYTES))))
    if action is None and not keys:
        _fail(path, "a step needs an action or keys")
    return Step(seat, action, tuple(keys))


def too_deep(text: str) -> str | None:
    """Why ``text`` nests too deep to read, before reading it: the first bracket that
    opens more than MAX_NESTING arrays and objects at once, outside strings, whether
    or not the text is otherwise JSON (the browser's parser words it the same)."""
    depth = 0
    for token in _NESTING_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return f"more than {MAX_NESTING} arrays and objects nested at char {token.start()}"
        elif bracket in "]}":
            depth = max(depth - 1, 0)
    return None


def parse_record(data: str | bytes) -> HandRecord:
    """Parse a record's JSON text under the limits; MalformedInput names what is wrong."""
    if len(data) > MAX_RECORD_BYTES:
        raise MalformedInput(f"hand record: {len(data)} bytes, more than {MAX_RECORD_BYTES}")
    try:
        # Bytes decoded as json.loads decodes them, to look at the nesting first:
        # Python's json recurses once per level and fails at its stack's limit.
        text = data if isinstance(data, str) else data.decode(json.detect_encoding(data),
                                                              "surrogatepass")
        deep = too_deep(text)
        if deep is not None:
            raise MalformedInput(f"hand record: not JSON ({deep})")
        value = strict_json.loads(text)
    except strict_json.JsonSyntaxError as exc:
        raise MalformedInput(f"hand record: not JSON ({exc})") from None
    except MalformedInput:
        raise
    except (ValueError, RecursionError) as exc:
        raise MalformedInput(f"hand record: not JSON ({exc})") from None
    r = _Reader(value, "record")
    r.only(("format", "version", "match_id", "hand", "seats", "dealer", "rules",
            "commitments", "seeds", "messages", "proof", "steps", "result", "scores", "link",
            "signing_keys", "signatures", "identities", "vouches", "previous"))
    if r.get("format") != FORMAT:
        _fail(r.at("format"), f"expected {FORMAT!r}")
    version = r.integer("version", 1, FORMAT_VERSION)
    if version < FORMAT_VERSION:  # 3: seeds unsigned; 2: P-256; 1: unsigned
        _fail(r.at("version"), f"{version} is an older format that gin no longer reads "
              f"(this gin reads version {FORMAT_VERSION})")
    match_id = r.value.get("match_id")
    if not isinstance(match_id, str) or not 2 <= len(match_id) <= 128:
        _fail(r.at("match_id"), "expected 1..64 bytes as hex")
    match_bytes = _hex(match_id, r.at("match_id"), len(match_id) // 2)
    if r.get("seats") != list(SEATS):
        _fail(r.at("seats"), f"expected {list(SEATS)}")
    # Every rule is written out: a rule left out would be filled with today's default
    # before the digest, so a record could be signed under one ruleset and read as another.
    given = r.get("rules")
    for name in STANDARD.to_dict():
        if isinstance(given, dict) and name not in given:
            _fail(f"{r.at('rules')}.{name}", "missing")
    try:
        rules = Ruleset.from_dict(given)
    except MalformedInput as exc:
        _fail(r.at("rules"), str(exc))
    pairs = {}
    for name, names, size in (("commitments", ("first", "second"), 32),
                              ("seeds", ("first", "second"), 32),
                              ("signing_keys", SEATS, 32), ("signatures", SEATS, 64),
                              ("identities", SEATS, 32), ("vouches", SEATS, 64)):
        sub = r.child(name)
        sub.only(names)
        pairs[name] = (sub.hex(names[0], size), sub.hex(names[1], size))
    msgs = r.child("messages")
    msgs.only(("message1", "message2", "message3"))
    messages = tuple(
        tuple(_hex(x, f"{msgs.at(name)}[{i}]", 32)
              for i, x in enumerate(msgs.array(name, fd.DECK_SIZE, fd.DECK_SIZE)))
        for name in ("message1", "message2", "message3")
    )
    steps = tuple(_step(s, f"{r.at('steps')}[{i}]")
                  for i, s in enumerate(r.array("steps", 0, MAX_STEPS)))
    res = r.child("result")
    res.only(("kind", "knocker", "winner", "points"))
    if res.get("kind") not in RESULT_KINDS:
        _fail(res.at("kind"), f"expected one of {', '.join(RESULT_KINDS)}")
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
        scores=(_integer(scores[0], r.at("scores[0]"), 0, 1_000_000),
                _integer(scores[1], r.at("scores[1]"), 0, 1_000_000)),
        link_id=r.hex("link", 16),
        signing_keys=pairs["signing_keys"],
        signatures=pairs["signatures"],
        identities=pairs["identities"],
        vouches=pairs["vouches"],
        previous=None if r.get("previous") is None else r.hex("previous", 16),
    )
