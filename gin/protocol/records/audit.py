"""Re-verify a hand record on its own, and tell the hand as a readable replay.

The checks (``protocol.md`` §9): both players' signatures of the hand digest,
under the keys the match id is bound to; each seed opens its commitment; each deck
message equals what its sender's seed makes of the message it received; every
key revealed is the one its revealer's seed derives, and each step reveals
exactly the keys the protocol sends there (:mod:`gin.protocol.records.reveals`); every
action replays legally through the rules engine on the deck the seeds define; the replayed
score equals the recorded one; the match scores after the hand equal those
after the hand before plus this hand's result. A failure names the seat at
fault (``host`` or ``guest``; ``record`` when the record contradicts itself)
and where. What the records given cannot prove (the scores before a hand
whose predecessor's record is missing) is listed as unproven, never shown as
verified. Deal evidence (:mod:`gin.protocol.records.evidence`: a signed message 2 whose
proof failed) is checked by :func:`audit_evidence`, an abandonment record (a
player's signed word that its peer fell silent) by :func:`audit_abandonment`. Pure:
the session runs the same function at every hand end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gin.engine.cards import Card
from gin.engine.hand import Hand
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import abandonment, cosign, history, identity
from gin.protocol.records.abandonment import AbandonmentRecord
from gin.protocol.records.audit_text import score_text, scores_text, tell
from gin.protocol.records.evidence import DealEvidence
from gin.protocol.records.records import SEATS, HandRecord, Score, Step
from gin.protocol.records.reveals import Reveals


@dataclass(frozen=True, slots=True)
class Finding:
    """One failed check: ``who`` is at fault ("host", "guest" or "record")."""

    who: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: {self.detail} (at fault: {self.who})"


@dataclass(frozen=True, slots=True)
class AuditResult:
    findings: tuple[Finding, ...]
    replay: tuple[str, ...]  # the hand told line by line (empty if no deck)
    #: What the records given cannot prove, each a sentence: not a failure, and
    #: never to be shown as verified.
    unproven: tuple[str, ...] = ()
    #: The deck the seeds define, by position, that the hand was replayed on (empty
    #: when the seeds define none): what a replay of the hand deals from.
    deck: tuple[Card, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.findings


def audit_record(
    record: HandRecord, trust_seat: int | None = None, previous: HandRecord | None = None
) -> AuditResult:
    """Check ``record`` completely. ``trust_seat``: a player auditing its own hand
    skips recomputing its own deck messages (see :func:`gin.protocol.deal.fairdeal.audit_hand`).

    ``previous`` is the verified record of the hand before in the same match, whose
    own scores are proven: this hand's rules, dealer and scores must follow from it.
    Without it the scores of a hand after the first are checked only against what
    this hand alone shows, and the scores before it are listed as unproven.
    """
    signed, unsigned = _check_signatures(record)
    where_key = _key_steps(record)
    report = fd.audit_hand(
        match_id=record.match_id,
        hand_number=record.hand_number,
        first_seed=record.seeds[0],
        second_seed=record.seeds[1],
        first_commitment=record.commitments[0],
        second_commitment=record.commitments[1],
        message1=record.messages[0],
        message2=record.messages[1],
        message3=record.messages[2],
        revealed_keys=[(record.role_of(s.seat), pos, key)
                       for s in record.steps for pos, key in s.keys],
        # A player checked the proof on arrival (or made it): only an auditor rebuilds it.
        proof=record.proof if trust_seat is None else None,
        trust=None if trust_seat is None else record.role_of(trust_seat),
    )
    findings = [
        Finding(SEATS[record.seat_of(d.role)], _where(d, where_key), d.detail)
        for d in report.deviations
    ]
    proven, disowned = _signed_by_their_side(findings, signed)
    if report.deck is None:
        return AuditResult((*signed, *proven), (), (*unsigned, *disowned))
    deck = [Card.from_index(c) for c in report.deck]
    hand, replay_findings = _replay(record, deck)
    # With a deviating deck the hand was played on other cards: a replay failure
    # would then blame whoever met the difference first, so only the deck counts.
    unproven: list[str] = []
    if not findings:
        proven += replay_findings
        if not replay_findings:
            proven += _follows(record, previous)
            score_findings, unproven = _check_scores(record, previous)
            proven += score_findings
    return AuditResult((*signed, *proven),
                       tuple(tell(record, hand, deck, bool(unproven))),
                       (*unsigned, *disowned, *unproven), tuple(deck))


def _signed_by_their_side(findings: list[Finding], signed: tuple[Finding, ...]
                          ) -> tuple[list[Finding], tuple[str, ...]]:
    """The deviations a side's own signature proves against it, and the others as words:
    a side whose signature of this record (its seed included) fails, or that the match
    id does not bind, signed none of what the file says it did (it may be edited)."""
    failed = {f.where for f in signed}
    unbound = any(not where.startswith("signatures.") for where in failed)
    disowned = {seat for seat in SEATS if unbound or f"signatures.{seat}" in failed}
    return ([f for f in findings if f.who not in disowned],
            tuple(f"{f.where}: {f.detail}, which the {f.who} did not sign"
                  for f in findings if f.who in disowned))


def _check_signatures(record: HandRecord) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    """Both players signed this hand as recorded, under the keys its match id names.

    A session checks the other's signature on arrival and keeps no record of a
    hand it could not verify, so a signature that fails here is the record's.
    """
    if record.signatures == (b"", b""):  # a session auditing its hand before signing
        return (), ("the hand is not signed yet",)
    unbound = _binding(record)
    if unbound is not None:
        return (unbound,), ()
    return tuple(
        Finding("record", f"signatures.{SEATS[seat]}",
                f"the {SEATS[seat]}'s signature does not sign this hand and its seed "
                "as recorded")
        for seat in (0, 1)
        if not cosign.verify(record.signing_keys[seat], cosign.seat_signed(record, seat),
                             record.signatures[seat])), ()


def _binding(x: HandRecord | DealEvidence) -> Finding | None:
    """Step 0's binding: the match id and both vouches (:func:`identity.binding_refusal`)."""
    refusal = identity.binding_refusal(x.match_id, x.link_id, x.signing_keys, x.identities,
                                       x.vouches, x.previous)
    return None if refusal is None else Finding("record", *refusal)


def audit_evidence(evidence: DealEvidence) -> AuditResult:
    """Check deal evidence: the match id and the second shuffler's signature (else the
    file is not evidence of anything: ``record`` at fault), then message 2 and its
    proof against message 1. A refusal is the second shuffler's proven cheat; a proof
    that holds shows none (``record``). Never ok: no hand was played to verify."""
    second = SEATS[evidence.second]
    replay = (f"Hand {evidence.hand_number} of match {evidence.match_id.hex()}: "
              f"{SEATS[evidence.dealer]} deals and shuffles first; {second} signed message 2 "
              "and its shuffle proof, which the dealer refused",)
    unbound = _binding(evidence)
    if unbound is not None:
        return AuditResult((unbound,), replay)
    if not cosign.verify(evidence.signing_keys[evidence.second], evidence.digest(),
                         evidence.signature):
        return AuditResult((Finding("record", "signature", f"the {second}'s signature does "
                                    "not sign this message 2"),), replay)
    try:
        message1 = fd.validate_message(evidence.message1, "message1")
    except fd.MalformedDeck as exc:  # an honest second shuffler signs no answer to it
        return AuditResult((Finding(second, "message1", f"signed an answer to a malformed "
                                    f"message 1 ({exc})"),), replay)
    refusal = fd.message2_refusal(fd.context(evidence.match_id, evidence.hand_number),
                                  message1, evidence.message2, evidence.proof)
    if refusal is None:
        return AuditResult((Finding("record", "proof", "message 2 is proven a shuffle of "
                                    "message 1: this evidence shows no cheat"),), replay)
    return AuditResult((Finding(second, *refusal),), replay)


def audit_abandonment(record: AbandonmentRecord,
                      hands: Sequence[HandRecord] = ()) -> AuditResult:
    """Check an abandonment record's match id and signature, and that the claimant's
    own signatures of the verified ``hands`` of its match do not contradict it. Never
    ok without a finding's cause: what it says is its claimant's word, so it is always
    listed as unproven."""
    findings = tuple(Finding("record", where, detail)
                     for where, detail in abandonment.check(record))
    false = None if findings else abandonment.contradiction(record, hands)
    if false is not None:  # the claimant's own signatures contradict its claim
        return AuditResult((Finding(SEATS[record.claimant], *false),), (record.words(),))
    gap = None if findings else abandonment.missing_hands(record, hands)
    return AuditResult(findings, (record.words(),), (
        *(() if gap is None else (gap,)),
        f"that the {SEATS[record.owed_seat]} fell silent: only the "
        f"{SEATS[record.claimant]} says so"))


def audit_records(
    records: Sequence[HandRecord | DealEvidence | AbandonmentRecord],
    names: Sequence[str] | None = None,
) -> tuple[AuditResult, ...]:
    """Audit several records, in the order given, chaining the hands of each match.

    Each hand is checked against the hand before it in its match when that record
    is among ``records`` and verified with proven scores, so a run of records from
    hand 1 proves every total. Two records of one hand (the two players' copies)
    must agree in everything but the interleaving of the keys both sent at once. The
    records of one link must form one history (:mod:`gin.protocol.records.history`): a record
    of a link whose matches conflict fails (``link``).
    ``names`` label the records in findings (default: "record 1", ...). Deal evidence
    among them is checked on its own (:func:`audit_evidence`), an abandonment record
    against the verified hand records of its match (:func:`audit_abandonment`).
    """
    labels = list(names) if names is not None else [f"record {i + 1}" for i in range(len(records))]
    results: dict[int, AuditResult] = {
        i: audit_evidence(e) for i, e in enumerate(records) if isinstance(e, DealEvidence)}
    hands = [r for r in records if isinstance(r, HandRecord)]
    order = sorted((i for i, r in enumerate(records) if isinstance(r, HandRecord)),
                   key=lambda i: (records[i].match_id, records[i].hand_number))
    proven: dict[tuple[bytes, int], HandRecord] = {}  # verified, scores proven
    for i in order:
        record = records[i]
        assert isinstance(record, HandRecord)
        previous = proven.get((record.match_id, record.hand_number - 1))
        result = audit_record(record, previous=previous)
        if record.hand_number > 1 and previous is None:
            result = _without_previous(result, record, hands)
        clash = [labels[j] for j, other in enumerate(records) if j != i and isinstance(
            other, HandRecord) and _same_hand(other, record) and _differs(other, record)]
        if clash:
            result = replace(result, findings=(*result.findings, Finding(
                "record", "hand", f"{', '.join(clash)} of the same hand tells it otherwise; "
                "at most one of them is true")))
        results[i] = result
        if result.ok and (record.hand_number == 1 or previous is not None):
            proven.setdefault((record.match_id, record.hand_number), record)
    verified = [r for i, r in enumerate(records) if isinstance(r, HandRecord) and results[i].ok]
    for i, record in enumerate(records):
        if isinstance(record, AbandonmentRecord):
            results[i] = audit_abandonment(record, verified)
    for i, placed in history.place(records).items():  # one link, one history
        if placed.conflict is not None:
            results[i] = replace(results[i], findings=(
                *results[i].findings, Finding("record", "link", placed.conflict)))
        elif placed.unproven is not None and results[i].ok:
            results[i] = replace(results[i], unproven=(*results[i].unproven, placed.unproven))
    return tuple(results[i] for i in range(len(records)))


def _same_hand(a: HandRecord, b: HandRecord) -> bool:
    return (a.match_id, a.hand_number) == (b.match_id, b.hand_number)


def _differs(a: HandRecord, b: HandRecord) -> bool:
    """Whether two records of one hand disagree beyond the order of key-only steps
    (each side records its own deal keys and the other's as they came)."""
    def moves(r: HandRecord) -> list[Step]:
        return [s for s in r.steps if s.action is not None]

    def keys_only(r: HandRecord) -> Counter[Step]:
        return Counter(s for s in r.steps if s.action is None)

    return (replace(a, steps=()) != replace(b, steps=()) or moves(a) != moves(b)
            or keys_only(a) != keys_only(b))


def _without_previous(result: AuditResult, record: HandRecord,
                      records: Sequence[HandRecord]) -> AuditResult:
    """Say why the hand before could not be used, when its record was given."""
    given = any(r.match_id == record.match_id and r.hand_number == record.hand_number - 1
                for r in records)
    if not given or not result.unproven:
        return result
    why = (f"the record of hand {record.hand_number - 1} was given but did not verify "
           "with proven scores, so nothing follows from it")
    return replace(result, unproven=(*result.unproven, why))


def _follows(record: HandRecord, previous: HandRecord | None) -> list[Finding]:
    """The rules, the dealer and the match's going on, from the hand before."""
    if previous is None:
        return []
    n = previous.hand_number
    out = []
    if previous.rules != record.rules:
        out.append(Finding("record", "rules", f"hand {n} of this match was played under "
                           "other rules"))
    winner = previous.score.winner
    dealer = previous.dealer if winner is None else (
        winner if record.rules.winner_deals else 1 - previous.dealer)
    if record.dealer != dealer:
        out.append(Finding("record", "dealer", f"after hand {n} {SEATS[dealer]} deals, "
                           f"not {SEATS[record.dealer]}"))
    target = previous.rules.target
    if max(previous.scores) >= target:
        out.append(Finding("record", "hand", f"the match ended with hand {n} (a score "
                           f"reached {target}): there is no hand {record.hand_number}"))
    return out


def _check_scores(record: HandRecord, previous: HandRecord | None
                  ) -> tuple[list[Finding], list[str]]:
    """The match scores after the hand: ``previous``'s plus this hand's points.

    Hand 1 starts from 0-0. For a later hand without the record before it only
    what this hand shows is checked: the scores before it, the recorded ones less
    this hand's points, cannot be negative nor already have ended the match.
    """
    gained = [0, 0]
    if record.score.winner is not None:  # the replayed result: it equals the recorded
        gained[record.score.winner] = record.score.points
    n = record.hand_number
    if n == 1 or previous is not None:
        before = (0, 0) if previous is None else previous.scores
        want = (before[0] + gained[0], before[1] + gained[1])
        if want == record.scores:
            return [], []
        source = "0-0 before hand 1" if previous is None else f"the scores after hand {n - 1}"
        return [Finding("record", "scores",
                        f"recorded {scores_text(record.scores)}; {source} and this hand's "
                        f"result give {scores_text(want)}")], []
    before = (record.scores[0] - gained[0], record.scores[1] - gained[1])
    if min(before) < 0:
        return [Finding("record", "scores",
                        f"recorded {scores_text(record.scores)}, less than this hand's "
                        f"result alone gives")], []
    if max(before) >= record.rules.target:
        return [Finding("record", "scores",
                        f"recorded {scores_text(record.scores)}: before this hand "
                        f"{scores_text(before)}, so the match had already ended at "
                        f"{record.rules.target}")], []
    signed = "" if record.signatures == (b"", b"") else "both players signed them, but "
    return [], [f"the match scores before hand {n} (this record implies "
                f"{scores_text(before)}) and so those after it: {signed}one record cannot "
                f"prove them; give gin audit the records of the hands before it, from hand 1"]


def _where(d: fd.Deviation, key_steps: dict[tuple[fd.Role, int | None], str]) -> str:
    plain = d.field if d.position is None else f"{d.field}[{d.position}]"
    return key_steps.get((d.role, d.position), plain) if d.field == "key" else plain


def _key_steps(record: HandRecord) -> dict[tuple[fd.Role, int | None], str]:
    """Where each revealed key first appears, so a bad key names its step."""
    out: dict[tuple[fd.Role, int | None], str] = {}
    for i, step in enumerate(record.steps):
        for j, (pos, _) in enumerate(step.keys):
            out.setdefault((record.role_of(step.seat), pos), f"steps[{i}].keys[{j}] (key[{pos}])")
    return out


def _replay(record: HandRecord, deck: list[Card]) -> tuple[Hand, list[Finding]]:
    hand = Hand(deck, record.dealer, record.rules)
    reveals = Reveals(hand)
    for i, step in enumerate(record.steps):
        illegal = None if step.action is None else hand.refusal(step.seat, step.action)
        if illegal is not None:
            return hand, [Finding(SEATS[step.seat], f"steps[{i}]",
                                  f"{SEATS[step.seat]} cannot {step.action} in the "
                                  f"{hand.phase.value} phase: {illegal}")]
        # The session checked each key on arrival: a key missing or out of place is
        # the record's own inconsistency, not a player's.
        why = reveals.refusal(step)
        if why is not None:
            return hand, [Finding("record", f"steps[{i}]", why)]
        if step.action is not None:
            hand.apply(step.seat, step.action)
            reveals.applied(step)
    if hand.result is None:
        return hand, [Finding("record", "steps", "the hand is not over after the last step")]
    why = reveals.missing()
    if why is not None:
        return hand, [Finding("record", "steps", why)]
    replayed = Score.of(hand.result)
    if replayed != record.score:
        return hand, [Finding("record", "result",
                              f"recorded {score_text(record.score)}, "
                              f"the replay gives {score_text(replayed)}")]
    return hand, []
