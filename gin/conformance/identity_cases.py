"""Conformance cases for identities (protocol.md §4, §9): fingerprints, vouches and match
ids (``identity``), the history of a link's records (``history``: grouped, chained, or in
conflict), and a match minted on a real link beside the real one (``record_chain``).

Pure: fixed seeds; no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from gin.conformance.records_cases import record_chain_case
from gin.conformance.session_peer import IDENTITIES, Case
from gin.engine.rules import STANDARD
from gin.players import get
from gin.protocol.records import cosign
from gin.protocol.records.history import identities_text, place
from gin.protocol.records.identity import Identity, fingerprint, vouch_digest
from gin.protocol.records.records import HandRecord
from gin.protocol.session.events import HandVerified
from gin.protocol.session.session import Session, play_local

SHORT = STANDARD.with_options(name="short", target=30)
LINK_SECRET = bytes(range(64, 96))
#: The minter of the link's fake match holds the host's identity and makes another.
MINTER = bytes(range(192, 224))


def identity_case(seed: bytes, previous: bytes) -> Case:
    """One identity: its public key, words, the vouch for a signing key on a link, and
    the match ids it makes with another identity."""
    me, other = Identity(seed), Identity(bytes(reversed(seed)))
    link = cosign.link_id_for(seed)
    key = cosign.Signer(bytes(b ^ 0x5A for b in seed)).public
    ids = (me.public, other.public)
    return {"kind": "identity", "seed": seed.hex(), "previous": previous.hex(),
            "public": me.public.hex(), "words": fingerprint(me.public),
            "text": identities_text(ids),
            "vouch_digest": vouch_digest(link, 1, key, previous).hex(),
            "vouch": me.vouch(link, 1, key, previous).hex(),
            "match_id": cosign.match_id_for(link, (key, key), ids, previous).hex()}


@dataclass(frozen=True)
class _Bound:
    """What a record names its match by, and nothing else: the history needs no more."""

    match_id: bytes
    link_id: bytes
    signing_keys: tuple[bytes, bytes]
    identities: tuple[bytes, bytes]
    vouches: tuple[bytes, bytes]
    previous: bytes | None


def _bound(secret: bytes, players: tuple[bytes, bytes], previous: bytes | None, n: int,
           vouched: bool = True) -> _Bound:
    link = cosign.link_id_for(secret)
    keys = (cosign.Signer(bytes([n, 0] * 16)).public, cosign.Signer(bytes([n, 1] * 16)).public)
    ids = (Identity(players[0]), Identity(players[1]))
    before = previous or b""
    vouches = tuple(ids[s].vouch(link, s, keys[s], before) if vouched else bytes(64)
                    for s in (0, 1))
    publics = (ids[0].public, ids[1].public)
    return _Bound(cosign.match_id_for(link, keys, publics, before), link, keys, publics,
                  (vouches[0], vouches[1]), previous)


def history_case(name: str, items: list[_Bound]) -> Case:
    """gin's history of ``items`` (each what a record names its match by)."""
    return {"kind": "history", "name": name,
            "items": [{"match_id": x.match_id.hex(), "link": x.link_id.hex(),
                       "signing_keys": [k.hex() for k in x.signing_keys],
                       "identities": [k.hex() for k in x.identities],
                       "vouches": [k.hex() for k in x.vouches],
                       "previous": None if x.previous is None else x.previous.hex()}
                      for x in items],
            "placements": {str(i): [p.conflict, p.unproven] for i, p in place(items).items()}}


def history_cases() -> Iterator[Case]:
    a, b, c = IDENTITIES["host"], IDENTITIES["guest"], MINTER
    first = _bound(LINK_SECRET, (a, b), None, 1)
    rematch = _bound(LINK_SECRET, (a, b), first.match_id, 2)
    yield history_case("one match", [first, first])
    yield history_case("a rematch after its match", [first, rematch])
    yield history_case("a rematch alone", [rematch])
    yield history_case("two first matches", [first, _bound(LINK_SECRET, (a, c), None, 3)])
    yield history_case("other players continue it", [first, _bound(LINK_SECRET, (a, c),
                                                                    first.match_id, 4)])
    yield history_case("two rematches of one match", [first, rematch, _bound(
        LINK_SECRET, (a, b), first.match_id, 5)])
    yield history_case("an unvouched record takes no part", [first, _bound(
        LINK_SECRET, (a, c), None, 6, vouched=False)])
    yield history_case("two links", [first, _bound(bytes(32), (a, c), None, 7)])


@cache
def link_matches() -> tuple[tuple[HandRecord, ...], tuple[HandRecord, ...]]:
    """Two matches on one link: the real one (the host and the guest, identities
    A and B) and one minted by the host alone, playing both seats (A and a fresh C)."""
    out = []
    for tag, guest in (("real", IDENTITIES["guest"]), ("minted", MINTER)):
        host = Session("host", LINK_SECRET, SHORT, random.Random(f"h{tag}").randbytes,
                       IDENTITIES["host"])
        other = Session("guest", LINK_SECRET, None, random.Random(f"g{tag}").randbytes, guest)
        play_local(host, other, [get("normal", random.Random(f"{tag}{i}")) for i in (0, 1)])
        assert host.failure is None and other.failure is None
        out.append(tuple(e.record for e in host.events() if isinstance(e, HandVerified)))
    return out[0], out[1]


def identity_cases() -> Iterator[Case]:
    for n in range(8):
        seed = random.Random(f"identity {n}").randbytes(32)
        yield identity_case(seed, b"" if n % 2 else random.Random(n).randbytes(16))
    yield from history_cases()
    real, minted = link_matches()
    yield record_chain_case("the minted match alone", list(minted))
    yield record_chain_case("a minted match beside the real one", [*real, *minted])
