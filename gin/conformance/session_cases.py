"""Conformance cases for the online session (kind ``session``): one peer of a match,
input by input, for the TypeScript session to reproduce frame for frame.

Each case is one :class:`gin.protocol.session.session.Session` as it ran in a match played with
:func:`gin.protocol.session.session.play_local` (or a cheat of the peer, made the way
``tests/gin/protocol/test_session.py`` makes them): its role, the invite secret, the rules
it was given, every random draw it made (in order) and its inputs in order —
``init`` (construction), ``in`` (a frame, hex), ``act`` (an action's text),
``accept``, ``decline``, ``timeout``, ``save`` (its :meth:`~Session.to_state`,
msgpack, hex) and ``restore`` (:meth:`Session.from_state` of that save) — each with
the frames it queued after that input (hex) and its events (summarised as plain
JSON by :func:`gin.conformance.session_peer.event_summary`, records as their JSON
text). A cheat case is the honest side's: its last events name the failure (kind,
who, field, reason).

Pure: fixed seeds, ``random.Random`` sources; no I/O.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable, Iterator
from functools import partial
from itertools import islice
from typing import Any

from gin.conformance.encoding_cases import cheating_message2, top_bit
from gin.conformance.records_cases import record_audit_case
from gin.conformance.session_peer import (
    IDENTITIES,
    LONG_GIN,
    QUICK,
    Case,
    Fields,
    LossyLink,
    Peer,
    computer_players,
    pair,
    restore,
    step,
)
from gin.engine.actions import Discard, DrawPile
from gin.engine.cards import DECK
from gin.engine.rules import STANDARD
from gin.players import Player
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import group, shuffle_proof
from gin.protocol.records import cosign
from gin.protocol.records.identity import Identity
from gin.protocol.records.records import HandRecord
from gin.protocol.session.events import CheatDetected
from gin.protocol.session.rematch import PreviousMatch
from gin.protocol.session.session import Session, play_local, pump

ABANDON_SINCE = 1_796_198_400  # 2026-12-02 08:00:00 UTC: when an abandoned peer fell silent


def match_cases() -> Iterator[Case]:
    """Whole matches: custom rules the guest accepts; rules the guest insists on, with
    the guest saved and restored mid-hand; custom rules the guest declines."""
    host, guest = pair(1, QUICK, None)
    play_local(host, guest, computer_players(1))
    assert host.failure is None and guest.failure is None and host.over and guest.over
    yield host.case("quick-accepted")
    yield guest.case("quick-accepted")

    host, guest = pair(2, LONG_GIN, LONG_GIN)
    players = computer_players(2)
    pump(host, guest)
    for _ in range(7):
        assert step(host, guest, players)
    guest = restore(guest)
    play_local(host, guest, players)
    assert host.failure is None and guest.failure is None and host.over and guest.over
    yield host.case("insisted-resumed")
    yield guest.case("insisted-resumed")

    host, guest = pair(4, QUICK, None)
    LossyLink(host, guest, 4).run(computer_players(4))
    assert host.failure is None and guest.failure is None
    yield host.case("lossy-relay")
    yield guest.case("lossy-relay")

    # A relay replays a whole earlier match on this link to a new guest: nothing
    # opens (the guest's fresh contribution is in every key); the real host then plays.
    first_host, first_guest = pair(5, QUICK, None)
    play_local(first_host, first_guest, computer_players(5))
    replayed = [bytes.fromhex(step[1]) for step in first_guest.steps if step[0] == "in"]
    host, guest = pair(6, QUICK, None)
    for frame in replayed:
        guest.receive(frame)
    assert guest.received == 0 and guest.failure is None
    play_local(host, guest, computer_players(6))
    assert host.failure is None and guest.failure is None and guest.over
    yield guest.case("replayed-earlier-match")

    # The offer, and then the acceptance, survive a restart of the guest.
    host, guest = pair(7, QUICK, None)
    pump(host, guest)
    guest = restore(guest)
    assert guest.rules_offered is not None
    guest.accept_rules()
    pump(host, guest)
    guest = restore(guest)
    pump(host, guest)
    assert guest.failure is None and guest.observation() is not None
    yield guest.case("offer-survives-restart")

    host, guest = pair(3, QUICK, None)
    pump(host, guest)
    guest.decline_rules()
    pump(host, guest)
    assert guest.failure is not None and host.failure is not None
    yield host.case("declined")
    yield guest.case("declined")


def rematch_cases() -> Iterator[Case]:
    """A rematch on the link of a finished match (§7.1): offered, accepted, dealt first by
    the loser; declined; a hello naming another match; one this guest did not play."""
    first_host, first_guest = pair(8, QUICK, None)
    play_local(first_host, first_guest, computer_players(8))
    previous = first_host.as_previous()
    assert previous is not None and previous == first_guest.as_previous()
    host, guest = pair(9, QUICK, QUICK, rematch=(previous, previous))
    play_local(host, guest, computer_players(9))
    assert host.failure is None and guest.failure is None and host.over and guest.over
    yield host.case("rematch")
    yield guest.case("rematch")
    host, guest = pair(10, QUICK, QUICK, rematch=(previous, previous))
    pump(host, guest)
    guest.decline_rules()
    pump(host, guest)
    # A normal end of the series on both sides: no failure, nobody at fault; a save
    # replays the decline (it is in the log).
    assert guest.failure is None and host.failure is None and guest.over and host.over
    guest = restore(guest)
    assert guest.declined and guest.failure is None
    yield host.case("rematch-declined")
    yield guest.case("rematch-declined")
    other = PreviousMatch(bytes(16), previous.loser)
    for name, (mine, theirs) in {"rematch-wrong-prev": (other, previous),
                                 "rematch-not-played": (previous, None)}.items():
        host, guest = pair(11, QUICK, None, rematch=(mine, theirs))
        pump(host, guest)
        assert guest.failure is not None
        yield guest.case(name)


# --- cheats: the peer's, as tests/gin/protocol/test_session.py makes them ------------------


def cheat_once(msg_type: str, change: Callable[[Peer, Fields], Fields | None],
                silence_after: bool = False, seed: int = 2) -> tuple[Peer, Peer]:
    """A match where ``change`` alters the first ``msg_type`` message it changes; from
    then on only that side (the cheater) is changed. Returns (honest, cheater)."""
    cheater: list[Session] = []
    host, guest = pair(seed, STANDARD, None)
    host.tamper = guest.tamper = tamper_once(msg_type, change, silence_after, cheater)
    play_local(host, guest, computer_players(seed))
    assert cheater, f"no {msg_type} message was tampered with"
    return (guest, host) if cheater[0] is host else (host, guest)


def tamper_once(msg_type: str, change: Callable[[Any, Fields], Fields | None],
                silence_after: bool, cheater: list[Session]
                ) -> Callable[[Session, str, Fields], Fields | None]:
    """A tamper hook for both sides: ``change`` alters the first ``msg_type`` message it
    changes, and from then on only that side's (appended to ``cheater``);
    ``silence_after``: the cheater then sends nothing more."""
    def tamper(s: Session, t: str, fields: Fields) -> Fields | None:
        if cheater and silence_after and s is cheater[0]:
            return None
        if t == msg_type and (not cheater or s is cheater[0]):
            changed = change(s, fields)
            if changed is not None:
                cheater.append(s)
                if t == "deck":  # a real cheater holds what it sent
                    s._flow.state().messages[changed["n"] - 1] = tuple(changed["deck"])
                return None if silence_after else changed
        return fields
    return tamper


def other_scalar(key: bytes) -> bytes:
    """Another valid scalar than ``key`` (a wrong key that is still well formed)."""
    return fd.key_bytes(fd.key_from_bytes(key) % (group.L - 1) + 1)


def signed_message2(s: Session, f: Fields, deck: list[bytes], proof: bytes) -> Fields:
    """Message 2 ``deck`` with ``proof``, signed by its sender as a cheater signs what
    it sends (an unsigned one would be a protocol error without evidence)."""
    hs = s._flow.state()
    m1 = hs.messages[0]
    assert m1 is not None
    ctx = fd.context(hs.match_id, hs.number)
    assert s._flow.keys is not None
    sig = s._flow.keys.signer.sign(cosign.message2_digest(s.seat, ctx, m1, deck, proof))
    return f | {"deck": deck, "proof": shuffle_proof.words(proof), "sig": sig}


def duplicate_in_message2(s: Session, f: Fields) -> Fields | None:
    """Issue 19's cheat of the second shuffler: its own ten dealt positions re-key the
    message-1 entries of the dealer's ten under its own keys (distinct entries that
    would open to copies of the dealer's hand), with the proof of its honest
    permutation (no proof of any other map passes: tests/gin/protocol/test_shuffle_proof.py)."""
    if f["n"] != 2:
        return None
    hs = s._flow.state()
    m1 = hs.messages[0]
    assert m1 is not None
    mine = hs.mine
    source = list(mine.permutation)
    own = [p for p in range(20) if p % 2 == 0]  # the non-dealer's dealt positions
    for j, dealer in zip(own, [p + 1 for p in own], strict=True):
        source[j] = source[dealer]
    deck = [group.mul(m1[source[j]], mine.position_keys[j]) for j in range(fd.DECK_SIZE)]
    proof = shuffle_proof.prove(fd.context(hs.match_id, hs.number), m1, deck,
                                mine.permutation, mine.position_keys, mine.nonce_key)
    return signed_message2(s, f, deck, proof.to_bytes())


def top_bit_in_message2(s: Session, f: Fields) -> Fields | None:
    """Issue 26's cheat: message 2's entry 45 under the top bit of byte 31 (the same
    element to libsodium), with a proof made over those bytes, signed."""
    if f["n"] != 2:
        return None
    hs = s._flow.state()
    assert hs.messages[0] is not None
    deck, proof = cheating_message2(hs.mine, hs.messages[0],
                                    fd.context(hs.match_id, hs.number), 45)
    return signed_message2(s, f, deck, proof)


def _repeat_in_message2(s: Session, f: Fields) -> Fields | None:
    if f["n"] != 2:
        return None
    deck = [*f["deck"][:51], f["deck"][0]]
    return signed_message2(s, f, deck, b"".join(f["proof"]))


def _refuse_seed(s: Peer, f: Fields) -> Fields | None:
    Session._send(s, "abort", {"why": "cheat", "field": "seed", "reason": "no"})
    return f


def _wrong_commitment(s: Peer, f: Fields) -> Fields | None:
    """A commitment its seed does not open, kept as its own (a real cheater signs the
    hand as it played it): caught at hand end."""
    hs = s._flow.state()
    hs.commits[hs.role] = bytes(32)
    return f | {"c": bytes(32)}


def _message2_of_another_seed(s: Session, f: Fields) -> Fields | None:
    """Issue 26: the second shuffler shuffles, proves and opens with another seed than
    the one it committed to, and reveals the committed one at hand end: every message
    passes on arrival, and the audit finds message 2 is not what the revealed seed makes."""
    if f["n"] != 2:
        return None
    hs = s._flow.state()
    assert hs.messages[0] is not None
    other = fd.SeedMaterial.from_seed(hashlib.sha256(b"another seed" + hs.mine.seed).digest())
    deck, proof = fd.build_message2(other, hs.messages[0], fd.context(hs.match_id, hs.number))
    hs.mine = dataclasses.replace(other, seed=hs.mine.seed)  # the committed seed, revealed
    hs.proof = fd.proof_digest(proof)  # it signs the hand as it played it
    return signed_message2(s, f, list(deck), proof)


def _message3_swapped(s: Session, f: Fields) -> Fields | None:
    """Issue 26: the first shuffler's message 3 swaps its last two entries, which this
    hand never opens (the bottom of the stock): found at hand end, by the seed."""
    if f["n"] != 3:
        return None
    deck = list(f["deck"])
    deck[50], deck[51] = deck[51], deck[50]
    return f | {"deck": deck}


def failed_hand_cases() -> Iterator[Case]:
    """Issue 26: the record the honest side keeps of a hand whose hand-end audit failed,
    audited by a third party: it carries both signatures of the transcript, so the
    audit names the cheater."""
    for name, msg_type, change, silence in _CHEATS:
        honest, _ = cheat_once(msg_type, change, silence)
        failure = honest.failure
        if isinstance(failure, CheatDetected) and isinstance(failure.record, HandRecord):
            yield record_audit_case(f"kept after a failed hand end: {name}", failure.record)


def _claim_while_owing(s: Peer, f: Fields) -> Fields | None:
    """Issue 26: the side whose move is owed claims the other has gone silent and stops:
    the other, which owed nothing, ends the match as the claimant leaving."""
    Session._send(s, "abort", {"why": "abandoned", "field": "move", "reason": "you were gone"})
    return f


_CHEATS: list[tuple[str, str, Callable[[Peer, Fields], Fields | None], bool]] = [
    ("wrong-commitment", "commit", _wrong_commitment, False),
    ("message1-duplicate", "deck",
     lambda s, f: f | {"deck": [f["deck"][0], *f["deck"][:51]]} if f["n"] == 1 else None, False),
    ("message2-duplicate", "deck", duplicate_in_message2, False),
    ("message2-repeat", "deck", _repeat_in_message2, False),
    ("message2-top-bit", "deck", top_bit_in_message2, False),
    ("message1-two-encodings", "deck",
     lambda s, f: f | {"deck": [f["deck"][0], top_bit(f["deck"][0]), *f["deck"][2:]]}
     if f["n"] == 1 else None, False),
    ("message2-unsigned", "deck",
     lambda s, f: f | {"sig": bytes(64)} if f["n"] == 2 else None, False),
    ("message1-substitute", "deck",
     lambda s, f: f | {"deck": [group.mul(f["deck"][0], 2), *f["deck"][1:]]} if f["n"] == 1
     else None, False),
    ("message2-another-seed", "deck", _message2_of_another_seed, False),
    ("message3-swapped", "deck", _message3_swapped, False),
    ("message1-marker", "deck",
     lambda s, f: f | {"deck": [f["deck"][0], group.mul(f["deck"][0], 2), *f["deck"][2:]]}
     if f["n"] == 1 else None, False),
    ("deal-wrong-key", "deal",
     lambda s, f: f | {"keys": [other_scalar(f["keys"][0]), *f["keys"][1:]]}, False),
    ("drawn-wrong-key", "key", lambda s, f: f | {"key": other_scalar(f["key"])}, False),
    ("seed-refused", "seed", _refuse_seed, True),
    ("abandoned-claimed-while-owing", "move", _claim_while_owing, True),
    ("forged-signature", "seed", lambda s, f: f | {"sig": bytes(64)}, False),
]


def _play_until(host: Peer, guest: Peer, players: list[Player], ready: Callable[[Peer], bool]
                ) -> Peer:
    pump(host, guest)
    if guest.rules_offered is not None:
        guest.accept_rules()
        pump(host, guest)
    while not (found := [s for s in (host, guest) if s.legal_actions() and ready(s)]):
        assert step(host, guest, players)
    return found[0]


def _inject(host: Peer, guest: Peer, s: Peer, text: str, pos: list[int], keys: list[bytes]
            ) -> None:
    Session._send(s, "move", {"h": s._flow.state().number, "a": text, "pos": pos, "keys": keys})
    s.note("inject", text)  # the cheater's own log: not a case
    pump(host, guest)


def _can_discard(s: Peer) -> bool:
    return any(isinstance(a, Discard) for a in s.legal_actions())


def _move_cheats() -> Iterator[tuple[str, Peer]]:
    """Illegal moves injected by a side (the honest side of each, by name)."""
    host, guest = pair(4, STANDARD, None)
    players = computer_players(4)
    s = _play_until(host, guest, players, _can_discard)
    other = (guest if s is host else host).observation()
    assert other is not None
    _inject(host, guest, s, f"discard {other.hand[0]}", [], [])
    yield "discard-opponents-card", guest if s is host else host

    # A superscript digit passes Python's str.isdigit: once a crash, now malformed.
    host, guest = pair(4, STANDARD, None)
    s = _play_until(host, guest, computer_players(4), _can_discard)
    _inject(host, guest, s, "layoff 8h>\u00b2", [], [])
    yield "action-unicode-digit", guest if s is host else host

    host, guest = pair(5, STANDARD, None)
    players = computer_players(5)
    s = _play_until(host, guest, players, _can_discard)
    obs, other = s.observation(), (guest if s is host else host).observation()
    assert obs is not None and other is not None
    seen = set(obs.hand) | set(other.hand) | set(obs.pile)
    fake = next(c for c in DECK if c not in seen)
    pos = s._flow.position_of(obs.hand[0])
    _inject(host, guest, s, f"discard {fake}", [pos],
            [fd.key_bytes(s._flow.state().mine.position_keys[pos])])
    yield "discard-unheld-real-key", guest if s is host else host

    host, guest = pair(0, STANDARD.with_options(big_gin_bonus=31), None)
    players = computer_players(0)
    s = _play_until(host, guest, players, lambda s: _can_discard(s) and not (
        guest if s is host else host)._flow.engine().cards(s.seat))
    _inject(host, guest, s, "biggin", [], [])
    yield "biggin-hidden", guest if s is host else host

    host, guest = pair(7, STANDARD, None)
    players = computer_players(7)
    s = _play_until(host, guest, players, lambda s: DrawPile() in s.legal_actions())
    obs = s.observation()
    assert obs is not None and obs.top_of_pile is not None
    upcard = obs.top_of_pile
    s.act(DrawPile())
    pump(host, guest)
    _inject(host, guest, s, f"discard {upcard}", [], [])
    yield "throw-card-just-taken", guest if s is host else host


def _protocol_cheats() -> Iterator[tuple[str, Peer]]:
    """Malformed, untimely or lying messages of the host, and a withheld seed."""
    replaced: list[tuple[str, str, Fields]] = [
        ("unknown-type", "bogus", {}),
        ("wrong-length", "commit", {"h": 1, "c": b"x" * 31}),
        ("unknown-field", "commit", {"h": 1, "c": b"x" * 32, "extra": 1}),
        ("wrong-hand", "commit", {"h": 7, "c": b"x" * 32}),
        ("out-of-range", "commit", {"h": -1, "c": b"x" * 32}),
        ("deck-before-commit", "deck", {"h": 1, "n": 1, "deck": []}),
        ("seed-out-of-order", "seed", {"h": 1, "seed": b"x" * 32}),
    ]
    for name, msg_type, fields in replaced:
        def replace_commit(s: Peer, t: str, f: Fields, msg_type: str = msg_type,
                           fields: Fields = fields) -> Fields | None:
            if t == "commit" and s.role == "host":
                Session._send(s, msg_type, fields)
                return None
            return f

        host, guest = pair(8, STANDARD, None)
        host.tamper = replace_commit
        pump(host, guest)
        yield name, guest

    host, guest = pair(9, STANDARD, None)
    host.tamper = lambda s, t, f: f | {"nonce": bytes(32)} if t == "start" else f
    pump(host, guest)
    yield "coin-not-opened", guest

    for name, rules in [("fake-standard", STANDARD.to_dict() | {"big_gin_bonus": 500}),
                        ("dead-stock-30", STANDARD.to_dict() | {"name": "house", "dead_stock": 30}),
                        ("escape-in-name", STANDARD.to_dict() | {"name": "\x1b[2Jhouse"})]:
        def liar(s: Peer, t: str, f: Fields, rules: Fields = rules) -> Fields | None:
            return f | {"rules": rules} if t == "hello" else f

        host, guest = pair(10, STANDARD, None, liar)
        pump(host, guest)
        yield name, guest

    host, guest = pair(11, STANDARD, STANDARD.with_options(name="house"))
    pump(host, guest)
    yield "rules-not-agreed", guest
    yield from _identity_cheats()

    honest, cheater = cheat_once("seed", lambda s, f: f, silence_after=True)
    honest.peer_timed_out()
    yield "seed-withheld", honest

    for owed in ("start", "key", "seed"):  # silence has a name: abandoned by the peer
        honest, _ = cheat_once(owed, lambda s, f: f, silence_after=True)
        honest.abandon(ABANDON_SINCE, ABANDON_SINCE + 300)
        yield f"abandoned-{owed}", restore(honest)  # the replay rebuilds its signed record
    host, guest = pair(13, STANDARD, None)
    pump(host, guest)
    mover = next(s for s in (host, guest) if s.legal_actions())
    mover.act(mover.legal_actions()[0])
    mover.data_to_send()  # the relay loses its move for good
    waiting = guest if mover is host else host
    waiting.abandon(ABANDON_SINCE, ABANDON_SINCE + 900)
    pump(waiting, mover)  # the side thought silent is told: the claim, quoted
    yield "abandon-claimed", mover
    host, guest = pair(14, STANDARD, None)
    host.abandon(ABANDON_SINCE, ABANDON_SINCE + 90)  # no match id yet: no record
    yield "abandoned-before-the-match-id", host

    host, guest = pair(12, STANDARD, None)
    pump(host, guest)
    Session._send(host, "abort", {"why": "cheat", "field": "deal.keys",
                                  "reason": "guest cheated: at fault: guest"})
    host.note("inject", "abort")
    pump(host, guest)
    yield "abort-is-a-claim", guest


def _then_abort(s: Session, t: str, f: Fields) -> Fields | None:
    """The duplicating second shuffler sends its message 2 and at once an abort, as a
    cheater that expects to be caught might: the proof arrived first, so it is caught."""
    changed = duplicate_in_message2(s, f) if t == "deck" else None
    if changed is None:
        return f
    Session._send(s, "deck", changed)
    Session._send(s, "abort", {"why": "timeout", "field": "deck", "reason": "gone"})
    return None


def _send_as(version: int, s: Session, t: str, f: Fields) -> None:
    Session._send(s, t, f, version)


def _version_cheats() -> Iterator[tuple[str, Peer]]:
    """A peer of an older protocol version (its messages as that code packs them), either
    side: 2, and 3 (before each side signed its own seed at hand end)."""
    for older in (2, 3):
        host, guest = pair(14, STANDARD, None, partial(_send_as, older))
        pump(host, guest)
        yield f"v{older}-host-hello", guest

    host, guest = pair(15, STANDARD, None)
    guest.tamper = lambda s, t, f: None  # a v2 guest answers a v4 hello with its abort
    pump(host, guest)
    Session._send(guest, "abort", {"why": "protocol", "field": "v",
                                   "reason": "unsupported protocol version 4"}, 2)
    guest.note("inject", "abort")
    pump(host, guest)
    yield "v2-guest-abort", host


def _frame_cheats() -> Iterator[tuple[str, Peer]]:
    """Frames the relay altered, reflected, took from another link or cut short."""
    for name in ("tampered", "reflected", "foreign-link", "truncated"):
        host, guest = pair(13, STANDARD, None)
        host_offer, guest_offer = host.data_to_send(), guest.data_to_send()
        host.receive(guest_offer[0])
        guest.receive(host_offer[0])
        offer, hello = host.data_to_send()
        host.receive(guest.data_to_send()[0])
        if name == "tampered":
            target, frame = guest, hello[:30] + bytes([hello[30] ^ 1]) + hello[31:]
        elif name == "reflected":
            target, frame = host, hello
        elif name == "foreign-link":
            target = guest
            frame = Session("host", bytes(32), STANDARD, random.Random("x").randbytes,
                            bytes(32)).data_to_send()[0]
        else:
            target, frame = guest, hello[:9]
        target.receive(frame)
        yield name, target


def _identity_cheats() -> Iterator[tuple[str, Peer]]:
    """A hello or welcome whose identity does not vouch for its signing key, a match
    before of a wrong length, a guest showing the host's own identity."""
    for name, fields in [("hello-bad-vouch", {"vouch": bytes(64)}),
                         ("hello-other-identity", {"id": bytes(range(32))}),
                         ("hello-prev-length", {"prev": bytes(3)})]:
        def liar(s: Peer, t: str, f: Fields, fields: Fields = fields) -> Fields | None:
            return f | fields if t == "hello" else f

        host, guest = pair(12, STANDARD, None, liar)
        pump(host, guest)
        yield name, guest
    host_id = Identity(IDENTITIES["host"]).public
    for name, fields in [("welcome-bad-vouch", {"vouch": bytes(64)}),
                         ("welcome-host-identity", {"id": host_id})]:
        host, guest = pair(12, STANDARD, None)
        guest.tamper = lambda s, t, f, fields=fields: f | fields if t == "welcome" else f
        pump(host, guest)
        yield name, host


def cheat_cases() -> Iterator[Case]:
    """The honest side of each cheat the Python session tests catch."""
    for name, msg_type, change, silence in _CHEATS:
        honest, _ = cheat_once(msg_type, change, silence)
        assert honest.failure is not None, name  # a tampering that stopped working
        yield honest.case(name)
    host, guest = pair(2, STANDARD, None)
    host.tamper = guest.tamper = _then_abort
    play_local(host, guest, computer_players(2))
    honest = next(p for p in (host, guest) if isinstance(p.failure, CheatDetected))
    assert isinstance(honest.failure, CheatDetected) and honest.failure.record is not None
    yield honest.case("message2-duplicate-then-abort")
    for name, honest in (*_move_cheats(), *_protocol_cheats(), *_version_cheats(),
                         *_frame_cheats()):
        assert honest.failure is not None, name
        yield honest.case(name)


def session_cases(small: bool = False) -> Iterator[Case]:
    """Every session case, or (``small``) a match's guest and three cheats: one caught
    at hand end, a duplicating second shuffler refused with its evidence, a wrong key."""
    if small:
        yield from islice(match_cases(), 1, 2)  # the quick match, its guest
        for name, msg_type, change, silence in _CHEATS:
            if name in ("wrong-commitment", "message2-duplicate", "deal-wrong-key"):
                honest, _ = cheat_once(msg_type, change, silence)
                assert honest.failure is not None, name
                yield honest.case(name)
        return
    yield from match_cases()
    yield from rematch_cases()
    yield from cheat_cases()
