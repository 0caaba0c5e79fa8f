/**
 * Text from the network, a record or a file, made safe to show in the page: the
 * twin of client/text.py.
 *
 * A peer's abort reason, the relay's words, a ruleset's name or a record's
 * contents could carry invisible characters: bidirectional overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) and marks (U+200E, U+200F) that reorder what is
 * shown and so fake a verdict, zero-width characters, line and paragraph separators
 * (U+2028, U+2029), or controls. {@link plain} removes every control and format
 * character and those separators, as the terminal does; nothing else
 * changes. The page never parses such text as markup (it is set as text), so this
 * is about what the player reads, not about injection.
 */

import type { FailureView, PeerNotice } from "./api.ts";

/** Cc: C0/C1 controls and DEL; Cf: format characters such as the bidirectional
 * overrides; Cs: lone surrogates (a pair is one character, kept); Zl, Zp: the line and
 * paragraph separators (U+2028, U+2029), which break a line where none shows. Python's
 * `unicodedata.category` in client/text.py. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `text` without control or format characters; `lines` keeps newlines. */
export function plain(text: string, lines = false): string {
  return text.replace(UNSAFE, (c) => (lines && c === "\n" ? c : ""));
}

/** A failure as the page shows it: every text of it {@link plain}. */
export function plainFailure(failure: FailureView): FailureView {
  return { ...failure, who: plain(failure.who), field: plain(failure.field), reason: plain(failure.reason) };
}

/** A notice as the page shows it: its text or its failure {@link plain}. */
export function plainNotice(notice: PeerNotice): PeerNotice {
  if (notice.kind === "notice") return { kind: "notice", text: plain(notice.text) };
  if (notice.kind === "failed") return { kind: "failed", failure: plainFailure(notice.failure) };
  return notice;
}
