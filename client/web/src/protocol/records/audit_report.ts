/**
 * What `gin audit FILE...` prints and its exit status, from the files' contents:
 * the twin of gin/protocol/records/audit_report.py, held to the same text by the
 * conformance corpus (`audit_report` cases). The board's "Check records" window
 * shows it; the lines come from files anyone could have written, so the page
 * shows them as plain text (online/text.ts). Each file is a hand record or deal
 * evidence; the records are audited together ({@link auditRecords}), so each
 * hand's scores follow from the hand before it. A file that cannot be read or is
 * no record is an error line, not a report.
 */

import { MalformedInput } from "../../engine/errors.ts";
import { AbandonmentRecord } from "./abandonment.ts";
import { type AuditResult, auditRecords } from "./audit.ts";
import { FAILED, NOT_A_RECORD, UNPROVEN, VERIFIED } from "./audit_text.ts";
import { type DealEvidence, parseFile } from "./evidence.ts";
import { identitiesText } from "./identity.ts";
import { parsePyJson, type PyJson } from "./strict_json.ts";
import { utf8 } from "./envelope.ts";
import { HandRecord } from "./records.ts";

const PRECEDENCE = [NOT_A_RECORD, FAILED, UNPROVEN, VERIFIED];

/** One file given to the audit: its name and contents (at most MAX_RECORD_BYTES + 1
 * bytes are needed), or (`data` null) why it could not be read. */
export interface Given {
  readonly name: string;
  readonly data: Uint8Array | string | null;
  readonly unreadable?: string;
}

/** A file that is a record, evidence or an abandonment record, and its audit. */
export class FileAudit {
  constructor(readonly name: string, readonly record: HandRecord | DealEvidence | AbandonmentRecord,
    readonly result: AuditResult) {
    Object.freeze(this);
  }

  /** An abandonment record: a player's word, never verified. */
  get claim(): boolean {
    return this.record instanceof AbandonmentRecord;
  }

  /** The file's name, the players' identities, its hand told as a replay (not when
   * `quiet`; an abandonment's words always: they are its verdict), and the verdict:
   * `FAILED` findings, what is not verified, or `verified`. */
  lines(quiet = false): string[] {
    const lines = [`${this.name}:`, identitiesText(this.record.identities),
      ...(quiet && !this.claim ? [] : this.result.replay)];
    if (!this.result.ok) {
      lines.push(...this.result.findings.map((f) => `FAILED ${f}`));
    } else if (this.claim) {
      lines.push(...this.result.unproven.map((line) => `not verified: ${line}`));
    } else if (this.result.unproven.length) {
      lines.push("verified, except what these records cannot prove:",
        ...this.result.unproven.map((line) => `  not verified: ${line}`));
    } else {
      lines.push("verified");
    }
    return lines;
  }

  get status(): number {
    return !this.result.ok ? FAILED : this.claim || this.result.unproven.length ? UNPROVEN : VERIFIED;
  }
}

export class AuditReport {
  constructor(
    /** One line for each file that could not be read or is no record (gin's standard error). */
    readonly errors: readonly string[],
    readonly files: readonly FileAudit[],
    readonly status: number,
  ) {
    Object.freeze(this);
  }

  /** What `gin audit` prints on its standard output, line by line. */
  lines(quiet = false): string[] {
    return this.files.flatMap((f) => f.lines(quiet));
  }
}

/** Audit the files given together, as `gin audit` does. */
export function auditReport(given: readonly Given[]): AuditReport {
  const statuses = new Set([VERIFIED]);
  const errors: string[] = [];
  const names: string[] = [];
  const records: (HandRecord | DealEvidence | AbandonmentRecord)[] = [];
  for (const file of given) {
    if (file.data === null) {
      errors.push(`gin audit: ${file.name}: cannot read: ${file.unreadable ?? ""}`);
      statuses.add(NOT_A_RECORD);
      continue;
    }
    try {
      records.push(parseFile(file.data)); // a hand record, evidence or an abandonment
      names.push(file.name);
    } catch (exc) {
      if (!(exc instanceof MalformedInput)) throw exc;
      errors.push(`gin audit: ${file.name}: ${notARecord(file.data) ?? exc.message}`);
      statuses.add(NOT_A_RECORD);
    }
  }
  // Together, so each hand is checked against the hand before it in its match.
  const results = auditRecords(records, names);
  const files = records.map((record, i) => new FileAudit(names[i]!, record, results[i]!));
  for (const f of files) statuses.add(f.status);
  return new AuditReport(errors, files, PRECEDENCE.find((c) => statuses.has(c))!);
}

/** A hand record as plain data, what a replay needs: its rules, dealer, moves
 * (seat and action text) and the match scores after it. */
export interface HandData {
  readonly number: number;
  readonly dealer: number;
  readonly rules: Record<string, string | number | boolean | null>;
  readonly moves: readonly (readonly [number, string])[];
  readonly scores: readonly [number, number];
}

/** One file's report as plain data: its lines and status, and (a hand record) the
 * hand and the deck the seeds define, by card index, to replay it. */
export interface FileData {
  readonly name: string;
  readonly lines: readonly string[];
  /** The verdict alone: what gin audit --quiet prints after the name. */
  readonly verdict: readonly string[];
  readonly status: number;
  readonly hand: HandData | null;
  readonly deck: readonly number[];
}

function handData(record: HandRecord): HandData {
  return {
    number: record.handNumber, dealer: record.dealer, rules: record.rules.toDict(),
    moves: record.steps.flatMap((s) => (s.action === null ? [] : [[s.seat, String(s.action)] as const])),
    scores: [record.scores[0], record.scores[1]],
  };
}

/** A report as plain data, for a structured clone (the board audits in a worker). */
export interface ReportData {
  readonly errors: readonly string[];
  readonly files: readonly FileData[];
  readonly status: number;
}

export function reportData(report: AuditReport): ReportData {
  return {
    errors: [...report.errors],
    files: report.files.map((f) => ({
      name: f.name, lines: f.lines(), verdict: f.lines(true).slice(1), status: f.status,
      hand: f.record instanceof HandRecord ? handData(f.record) : null,
      deck: f.result.deck.map((c) => c.index),
    })),
    status: report.status,
  };
}

// The top-level fields of the other JSON files in gin's data folder, to say what a
// file given by mistake is (gin/protocol/records/audit_report.py names where each is written).
const LOCAL_HAND = ["hand", "hand_number", "players", "result", "scores_after"];
// A sealed save, the match against the computer, the online session.
const SAVES = [["gin-save"], ["format", "vs", "match"], ["format", "role", "session"]];

/** What `data` is, when it is one of gin's other files rather than a hand record. */
export function notARecord(data: Uint8Array | string): string | null {
  let value: PyJson;
  try {
    value = parsePyJson(typeof data === "string" ? data : utf8(data));
  } catch (exc) {
    if (exc instanceof MalformedInput) return null; // not UTF-8, not JSON, or nested too deep
    throw exc;
  }
  if (!(value instanceof Map)) return null;
  const fields = value;
  if (fields.size === LOCAL_HAND.length && LOCAL_HAND.every((k) => fields.has(k))) {
    return "this is a hand played against the computer, saved by `gin play` "
      + "(hands/ in the data folder): it has no fair-deal transcript, so there is "
      + "nothing to audit. gin audit checks the records of online matches, saved "
      + "under records/ in the data folder.";
  }
  if (SAVES.some((save) => save.every((k) => fields.has(k)))) {
    return "this is a saved match in progress, not a hand record. gin audit checks "
      + "the records of finished online hands, saved under records/ in the data "
      + "folder.";
  }
  return null;
}
