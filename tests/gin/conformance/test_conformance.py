"""The conformance corpus: its cases are what gin/ computes, and (when node and the
web client's packages are installed) the TypeScript engine agrees with all of them.

The TS check skips with a message on a machine without node or ``npm ci``, but
never in CI (``CI=true``), where a skip is a failure.
"""

from __future__ import annotations

import json
import subprocess
from itertools import chain, islice
from pathlib import Path

import pytest

from gin import best_arrangement, best_discard, parse_cards
from gin.conformance import corpus
from gin.conformance.abandonment_cases import abandonment_cases
from gin.conformance.encoding_cases import encoding_cases, record_encoding_cases
from gin.conformance.engine_cases import (
    arrange_case,
    arrange_cases,
    decisions_cases,
    match_cases,
    peer_cases,
    settle_cases,
)
from gin.conformance.evidence_cases import evidence_cases
from gin.conformance.identity_cases import history_cases, identity_cases
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
from gin.conformance.session_cases import session_cases
from gin.engine.cards import cards_mask


def test_arrange_case_of_ten_and_of_eleven_cards() -> None:
    ten = parse_cards("2d 3c 3s 4d 4s 5c 5d 5s 6c 6d")
    case = arrange_case(cards_mask(ten))
    assert case["deadwood"] == best_arrangement(ten).deadwood
    assert "discard" not in case
    eleven = parse_cards("2d 3c 3s 4d 4s 5c 5d 5s 6c 6d 6s")
    case = arrange_case(cards_mask(eleven))
    card, arrangement = best_discard(eleven)
    assert (case["deadwood"], case["discard"]) == (arrangement.deadwood, str(card))
    assert case["deadwood"] == 10


def test_arrange_cases_are_fixed_by_the_seed_and_cover_both_sizes() -> None:
    first = list(arrange_cases(20))
    assert first == list(arrange_cases(20))
    assert first != list(arrange_cases(20, seed=2))
    assert {len(c["cards"]) for c in first} == {10, 11}
    assert len(first) == 6 * 20


@pytest.mark.slow
def test_the_typescript_engine_agrees_with_a_small_corpus(
        tmp_path: Path, typescript: Path) -> None:
    files = []
    small = {  # a little of every kind: CI checks the whole corpus separately
        "arrange.jsonl": arrange_cases(50),
        "settle.jsonl": settle_cases(100),
        "match.jsonl": match_cases(1),
        "peer.jsonl": peer_cases(1),
        "decisions.jsonl": decisions_cases(1),
        "unpack.jsonl": unpack_cases(50),
        "deck.jsonl": deck_cases(1),
        "channel.jsonl": channel_cases(2),
        "shuffle_proof.jsonl": proof_cases(1),
        "encoding.jsonl": encoding_cases(1),
        "audit.jsonl": audit_cases(),
        "records.jsonl": chain(islice(record_cases(), 3), record_text_cases(50),
                               islice(record_encoding_cases(), 0, 24, 7)),
        "record_audit.jsonl": chain(islice(record_audit_cases(), 4),
                                    islice(record_chain_cases(), 1, 2), record_fuzz_cases(2)),
        "evidence.jsonl": islice(evidence_cases(), 3),
        "abandonment.jsonl": islice(abandonment_cases(), 4),
        "audit_report.jsonl": islice(audit_report_cases(), 2),
        "session.jsonl": session_cases(small=True),
        "identity.jsonl": chain(islice(identity_cases(), 8), history_cases()),
    }
    assert small.keys() == corpus().keys()
    for name, cases in small.items():
        path = tmp_path / name
        with path.open("w", encoding="utf-8") as out:
            for case in cases:
                out.write(json.dumps(case) + "\n")
        files.append(str(path))
    run = subprocess.run(
        ["npm", "run", "-s", "conformance", "--", *files],
        cwd=typescript, capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith(" 0 failed")
