"""The conformance corpus: cases from fixed seeds that the TypeScript client
(``client/web``) must answer exactly as gin/ does.

``python -m gin.conformance OUT_DIR`` writes JSON-lines files (one case per line,
each with a ``kind``); ``npm run conformance -- FILE...`` checks them against the
TypeScript twins. The format is documented in ``docs/conformance.md``.

Building the cases is pure (generators of plain dicts, randomness from seeded
``random.Random``); only ``__main__`` writes files. The generators live beside
what they cover: :mod:`gin.conformance.engine_cases` (engine and players),
:mod:`gin.conformance.protocol_cases` (messages, channel, deck, proof, the deal's
audit), :mod:`gin.conformance.records_cases` (hand records and their audit),
:mod:`gin.conformance.encoding_cases` (edge encodings of points and scalars),
:mod:`gin.conformance.evidence_cases` (a failed proof's evidence),
:mod:`gin.conformance.abandonment_cases` (a silent peer's abandonment record),
:mod:`gin.conformance.report_cases` (what ``gin audit`` prints) and
:mod:`gin.conformance.session_cases` (whole online matches, frame by frame).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from gin.conformance.abandonment_cases import abandonment_cases
from gin.conformance.encoding_cases import encoding_cases, record_encoding_cases
from gin.conformance.engine_cases import (
    Case,
    action_cases,
    arrange_cases,
    big_gin_cases,
    decisions_cases,
    match_cases,
    peer_cases,
    rules_cases,
    settle_cases,
)
from gin.conformance.evidence_cases import evidence_cases
from gin.conformance.identity_cases import identity_cases
from gin.conformance.protocol_cases import (
    audit_cases,
    channel_cases,
    deck_cases,
    proof_cases,
    unpack_cases,
)
from gin.conformance.records_cases import (
    record_audit_cases,
    record_cases,
    record_chain_cases,
    record_fuzz_cases,
    record_text_cases,
)
from gin.conformance.report_cases import audit_report_cases
from gin.conformance.session_cases import failed_hand_cases, session_cases


def corpus(scale: int = 1) -> dict[str, Iterator[Case]]:
    """The files of the corpus by name, each an iterator of cases. ``scale`` 1 is
    the size CI checks; larger multiplies the counts."""
    return {
        "arrange.jsonl": chain(arrange_cases(2000 * scale), action_cases(), rules_cases()),
        "settle.jsonl": chain(settle_cases(3000 * scale), big_gin_cases(200 * scale)),
        "match.jsonl": match_cases(8 * scale),
        "peer.jsonl": peer_cases(10 * scale),
        "decisions.jsonl": decisions_cases(100 * scale),
        "unpack.jsonl": unpack_cases(1500 * scale),
        "deck.jsonl": deck_cases(4 * scale),
        "channel.jsonl": channel_cases(40 * scale),
        "shuffle_proof.jsonl": proof_cases(2 * scale),
        "encoding.jsonl": encoding_cases(2 * scale),
        "audit.jsonl": audit_cases(),
        "records.jsonl": chain(record_cases(), record_text_cases(400 * scale),
                               record_encoding_cases()),
        "record_audit.jsonl": chain(record_audit_cases(), record_chain_cases(),
                                    record_fuzz_cases(20 * scale), failed_hand_cases()),
        "evidence.jsonl": evidence_cases(),
        "abandonment.jsonl": abandonment_cases(),
        "audit_report.jsonl": audit_report_cases(),
        "session.jsonl": session_cases(),
        "identity.jsonl": identity_cases(),
    }
