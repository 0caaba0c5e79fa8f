"""What ``gin audit FILE...`` prints and its exit status, from the files' contents.

Pure, so the browser board's twin (``client/web/src/protocol/records/audit_report.ts``) can
be held to the same text: the command only reads the files and prints the lines,
as plain text (they come from files anyone could have written). Each file is a
hand record or deal evidence; the records are audited together
(:func:`gin.protocol.records.audit.audit_records`), so each hand's scores follow from the
hand before it. A file that cannot be read or is no record is an error line, not
a report. The exit status says what was proven
(:data:`~gin.protocol.records.audit_text.EXIT_STATUSES`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from gin.engine.errors import MalformedInput
from gin.protocol.records.abandonment import AbandonmentRecord
from gin.protocol.records.audit import AuditResult, audit_records
from gin.protocol.records.audit_text import FAILED, NOT_A_RECORD, UNPROVEN, VERIFIED
from gin.protocol.records.evidence import DealEvidence, parse_file
from gin.protocol.records.history import identities_text
from gin.protocol.records.records import HandRecord

_PRECEDENCE = (NOT_A_RECORD, FAILED, UNPROVEN, VERIFIED)


@dataclass(frozen=True, slots=True)
class Given:
    """One file given to the audit: its name and contents (at most
    ``MAX_RECORD_BYTES + 1`` bytes are needed), or why it could not be read."""

    name: str
    data: bytes | None
    unreadable: str = ""


@dataclass(frozen=True, slots=True)
class FileAudit:
    """A file that is a record, evidence or an abandonment record, and its audit."""

    name: str
    record: HandRecord | DealEvidence | AbandonmentRecord
    result: AuditResult

    def lines(self, quiet: bool = False) -> tuple[str, ...]:
        """The file's name, the players' identities, its hand told as a replay (not
        when ``quiet``; an abandonment's words always: they are its verdict), and the
        verdict: ``FAILED`` findings, what is not verified, or ``verified``."""
        lines = [f"{self.name}:", identities_text(self.record.identities),
                 *(() if quiet and not self.claim else self.result.replay)]
        if not self.result.ok:
            lines += [f"FAILED {finding}" for finding in self.result.findings]
        elif self.claim:
            lines += [f"not verified: {line}" for line in self.result.unproven]
        elif self.result.unproven:
            lines.append("verified, except what these records cannot prove:")
            lines += [f"  not verified: {line}" for line in self.result.unproven]
        else:
            lines.append("verified")
        return tuple(lines)

    @property
    def claim(self) -> bool:
        """An abandonment record: a player's word, never verified."""
        return isinstance(self.record, AbandonmentRecord)

    @property
    def status(self) -> int:
        if not self.result.ok:
            return FAILED
        return UNPROVEN if self.claim or self.result.unproven else VERIFIED


@dataclass(frozen=True, slots=True)
class AuditReport:
    #: One line for each file that could not be read or is no record (standard error).
    errors: tuple[str, ...]
    files: tuple[FileAudit, ...]
    status: int

    def lines(self, quiet: bool = False) -> tuple[str, ...]:
        """What ``gin audit`` prints on standard output, line by line."""
        return tuple(line for f in self.files for line in f.lines(quiet))


def audit_report(given: Sequence[Given]) -> AuditReport:
    """Audit the files given together, as ``gin audit`` does."""
    statuses = {VERIFIED}
    errors: list[str] = []
    names: list[str] = []
    records: list[HandRecord | DealEvidence | AbandonmentRecord] = []
    for file in given:
        if file.data is None:
            errors.append(f"gin audit: {file.name}: cannot read: {file.unreadable}")
            statuses.add(NOT_A_RECORD)
            continue
        try:
            records.append(parse_file(file.data))  # a hand record, evidence or an abandonment
            names.append(file.name)
        except MalformedInput as exc:
            errors.append(f"gin audit: {file.name}: {not_a_record(file.data) or exc}")
            statuses.add(NOT_A_RECORD)
    # Together, so each hand is checked against the hand before it in its match.
    files = tuple(FileAudit(name, record, result) for name, record, result
                  in zip(names, records, audit_records(records, names), strict=True))
    statuses.update(f.status for f in files)
    return AuditReport(tuple(errors), files, next(c for c in _PRECEDENCE if c in statuses))


# The top-level fields of the other JSON files in gin's data folder (client/storage.py,
# client/table/controller.py, client/net/store.py), to say what a file given by
# mistake is.
_LOCAL_HAND = frozenset({"hand", "hand_number", "players", "result", "scores_after"})
# A sealed save, the match against the computer, the online session.
_SAVES = (frozenset({"gin-save"}), frozenset({"format", "vs", "match"}),
          frozenset({"format", "role", "session"}))


def not_a_record(data: bytes) -> str | None:
    """What ``data`` is, when it is one of gin's other files rather than a hand record."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested too deep for Python
        return None
    if not isinstance(value, dict):
        return None
    if set(value) == _LOCAL_HAND:
        return ("this is a hand played against the computer, saved by `gin play` "
                "(hands/ in the data folder): it has no fair-deal transcript, so there is "
                "nothing to audit. gin audit checks the records of online matches, saved "
                "under records/ in the data folder.")
    if any(keys <= value.keys() for keys in _SAVES):
        return ("this is a saved match in progress, not a hand record. gin audit checks "
                "the records of finished online hands, saved under records/ in the data "
                "folder.")
    return None
