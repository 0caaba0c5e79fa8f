"""Conformance cases for deal evidence (protocol.md §10.2; kind ``evidence``): the
signed message 2 a first shuffler keeps when the shuffle proof fails, as JSON text,
with gin's verdict — the parsed evidence written again and its audit's findings, or
the parser's refusal word for word. The TypeScript twins (``evidence.ts``,
``audit.ts``) must agree. Pure: fixed seeds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from typing import Any

from gin.conformance.encoding_cases import top_bit
from gin.conformance.session_cases import duplicate_in_message2, top_bit_in_message2
from gin.conformance.session_peer import Fields, Peer, computer_players, pair
from gin.engine.errors import MalformedInput
from gin.engine.rules import STANDARD
from gin.protocol.records import cosign
from gin.protocol.records.audit import audit_evidence
from gin.protocol.records.evidence import DealEvidence, parse_file
from gin.protocol.session.events import CheatDetected
from gin.protocol.session.session import play_local

Case = dict[str, Any]


Cheat = Callable[[Peer, Fields], Fields | None]


def _session(seed: int, cheat: Cheat | None) -> tuple[Peer, Peer, list[DealEvidence]]:
    """A match whose second shuffler of hand 1 sends message 2 changed by ``cheat``
    (or plays honestly); the evidence of every message 2 sent, as the first would
    keep it."""
    seen: list[DealEvidence] = []

    def tamper(s: Peer, t: str, f: Fields) -> Fields | None:
        if t == "deck" and f["n"] == 2:
            f = (cheat(s, f) or f) if cheat is not None else f
            hs = s._flow.state()
            assert hs.messages[0] is not None and s._flow.keys is not None
            seen.append(DealEvidence(
                match_id=hs.match_id, hand_number=hs.number, dealer=hs.dealer,
                message1=hs.messages[0], message2=tuple(f["deck"]), proof=b"".join(f["proof"]),
                signature=f["sig"], **s._flow.keys.binding()))
        return f

    host, guest = pair(seed, STANDARD, None, tamper)
    guest.tamper = tamper
    play_local(host, guest, computer_players(seed))
    return host, guest, seen


@cache
def refused_evidence() -> tuple[DealEvidence, DealEvidence, tuple[cosign.Signer, cosign.Signer]]:
    host, guest, seen = _session(16, duplicate_in_message2)
    kept = _kept(host, guest)
    assert kept == seen[0]
    _, _, honest = _session(17, None)
    assert host._flow.keys is not None and guest._flow.keys is not None
    return kept, honest[0], (host._flow.keys.signer, guest._flow.keys.signer)


def _kept(host: Peer, guest: Peer) -> DealEvidence:
    """The evidence the honest side of a refused message 2 kept."""
    return next(f.record for f in (host.failure, guest.failure)
                if isinstance(f, CheatDetected) and isinstance(f.record, DealEvidence))


def evidence_case(name: str, text: str) -> Case:
    """gin's verdict on an evidence file's ``text``."""
    try:
        parsed = parse_file(text)
    except MalformedInput as exc:
        return {"kind": "evidence", "name": name, "text": text, "error": str(exc)}
    assert isinstance(parsed, DealEvidence)
    result = audit_evidence(parsed)
    return {"kind": "evidence", "name": name, "text": text, "parsed": parsed.to_json(),
            "findings": [[f.who, f.where, f.detail, str(f)] for f in result.findings]}


def _resigned(e: DealEvidence, signer: cosign.Signer) -> DealEvidence:
    return replace(e, signature=signer.sign(e.digest()))


def _spoiled(e: DealEvidence, change: Callable[[dict[str, Any]], object]) -> str:
    data = e.to_dict()
    change(data)
    return json.dumps(data)


def evidence_cases() -> Iterator[Case]:
    """Issue 19's duplicating second shuffler as the dealer keeps it; the same file
    altered (a first shuffler framing the second with another message 1, a forged
    signature, a stranger's key); an honest message 2 (no cheat shown); a signed
    answer to a malformed message 1; texts the parser refuses."""
    kept, honest, signers = refused_evidence()
    second = signers[kept.second]
    yield evidence_case("duplicating second shuffler", kept.to_json())
    framed = replace(kept, message1=(kept.message1[1], kept.message1[0], *kept.message1[2:]))
    yield evidence_case("message 1 swapped after the fact", framed.to_json())
    yield evidence_case("signature forged", replace(kept, signature=bytes(64)).to_json())
    stranger = cosign.Signer(bytes(32))
    keys = list(kept.signing_keys)
    keys[kept.second] = stranger.public
    yield evidence_case("a stranger's key", _resigned(
        replace(kept, signing_keys=(keys[0], keys[1])), stranger).to_json())
    yield evidence_case("honest message 2", honest.to_json())
    # A repeated key is refused by the evidence's reader, in its words (issue 26: it was
    # read as a hand record's text), wherever it repeats; the kind is told by the last
    # "format". Text that is not JSON is worded as a hand record's.
    yield evidence_case("a repeated key",
                        kept.to_json().replace('"hand": ', '"hand": 9, "hand": ', 1))
    yield evidence_case("a repeated key in its signing keys", kept.to_json().replace(
        '"guest": ', '"guest": "00", "guest": ', 1))
    yield evidence_case("its format repeated", kept.to_json().replace(
        '"format": ', '"format": "gin-hand-record", "format": ', 1))
    yield evidence_case("evidence's format, then a hand record's", kept.to_json().replace(
        '"version": ', '"format": "gin-hand-record", "version": ', 1))
    yield evidence_case("not JSON", kept.to_json()[:-3])
    # Issue 26: an entry under the top bit of byte 31, with a proof over those bytes.
    yield evidence_case("message 2 entry under the top bit",
                        _kept(*_session(18, top_bit_in_message2)[:2]).to_json())
    repeated = replace(kept, message1=(*kept.message1[:51], kept.message1[0]))
    yield evidence_case("answer to a malformed message 1", _resigned(repeated, second).to_json())
    # Issue 26: evidence keeps message 1 and 2 as signed, not as points: a message 1
    # entry under the top bit is the signer's answer to a malformed message 1.
    under = replace(kept, message1=(*kept.message1[:5], top_bit(kept.message1[5]),
                                    *kept.message1[6:]))
    yield evidence_case("answer to a message 1 entry under the top bit",
                        _resigned(under, second).to_json())
    junk = replace(kept, message2=(*kept.message2[:51], b"\xff" * 32))
    yield evidence_case("message 2 not points", _resigned(junk, second).to_json())
    proof = bytearray(kept.proof)
    proof[0:32] = bytes(32)
    yield evidence_case("proof malformed", _resigned(
        replace(kept, proof=bytes(proof)), second).to_json())
    for name, change in (
        ("version 2", lambda d: d.update(version=2)),
        ("proof cut", lambda d: d.update(proof=d["proof"][:-2])),
        ("extra field", lambda d: d.update(extra=1)),
        ("signature missing", lambda d: d.pop("signature")),
        ("message 2 short", lambda d: d["messages"]["message2"].pop()),
        ("hand 0", lambda d: d.update(hand=0)),
        ("dealer 2", lambda d: d.update(dealer=2)),
        ("upper-case hex", lambda d: d.update(link=d["link"].upper())),
        ("seats swapped", lambda d: d.update(seats=["guest", "host"])),
    ):
        yield evidence_case(name, _spoiled(kept, change))
