/**
 * "Check records": hand records (and deal evidence) opened with the side's file
 * picker or dropped anywhere on the page are audited together, in a worker, by
 * the TypeScript twin of `gin audit` (protocol/records/audit_report.ts), and the window
 * shows its report word for word, then replays each verified hand move by move
 * with both hands face up (replay.ts). The files are read in the page only:
 * nothing is sent anywhere. Everything shown comes from files anyone could have
 * written, so it is set as plain text (online/text.ts), never as markup.
 */

import { Card } from "../engine/cards.ts";
import type { AuditRequest } from "../online/messages.ts";
import { plain } from "../online/text.ts";
import { workerScript } from "../online/lobby.ts";
import type { FileData, ReportData } from "../protocol/records/audit_report.ts";
import { EXIT_STATUSES, FAILED, NOT_A_RECORD, UNPROVEN, VERIFIED } from "../protocol/records/audit_text.ts";
import { SEATS } from "../protocol/records/seats.ts";
import { cardFace, groupsView } from "./cardview.ts";
import { dialogCount, dialogOpen, markScrolling, openDialog } from "./dialogs.ts";
import { byId, el, fill } from "./dom.ts";
import { grouped, type Group, laidOut } from "./layout.ts";
import { type Frame, replayFrames } from "./replay.ts";

const HEADLINES: Readonly<Record<number, string>> = {
  [VERIFIED]: "Verified",
  [FAILED]: "Failed",
  [NOT_A_RECORD]: "Not every file is a hand record",
  [UNPROVEN]: "Verified, except what these records cannot prove",
};

/** Wire the side's "Open records" button and dropping files on the page (once, at start). */
export function setUpAuditWindow(): void {
  const input = byId<HTMLInputElement>("audit-files");
  byId("btn-audit").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const files = [...(input.files ?? [])];
    input.value = ""; // the same files can be opened again
    if (files.length) check(files);
  });
  const carriesFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes("Files") ?? false;
  const dropping = (on: boolean): void => { document.body.classList.toggle("dropping", on); };
  document.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault(); // else the browser opens the file in place of the board
    e.dataTransfer!.dropEffect = "copy";
    dropping(true);
  });
  document.addEventListener("dragleave", (e) => { if (e.relatedTarget === null) dropping(false); });
  document.addEventListener("drop", (e) => {
    dropping(false);
    if (!carriesFiles(e)) return;
    e.preventDefault();
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length) check(files);
  });
}

const p = (text: string, attrs: Record<string, string> = {}): HTMLElement => el("p", attrs, text);

/** How a line of the report is marked, by what it says: a failure, a verdict, or
 * what is not verified. */
function lineClass(line: string): string | null {
  if (line.startsWith("FAILED ")) return "failed";
  if (line === "verified" || line.startsWith("verified, except")) return "verified";
  return line.startsWith("  not verified: ") ? "unproven" : null;
}

/** Lines shown as they are printed, one block (plain text: a file could carry
 * anything), the verdicts marked. */
const block = (lines: readonly string[], cls: string): HTMLElement =>
  el("pre", { class: `audit-text ${cls}` }, ...lines.flatMap((line) => {
    const mark = lineClass(line);
    return [mark === null ? plain(line) : el("span", { class: mark }, plain(line)), "\n"];
  }));

function check(files: File[]): void {
  let worker: Worker | null = null;
  const stop = (): void => { worker?.terminate(); };
  openDialog("Check records", [p(`Checking ${files.length} file${files.length === 1 ? "" : "s"} in this page… `
    + "(about a second for each hand)", { role: "status" })], [{ label: "Cancel", run: stop }], stop);
  const shown = dialogCount();
  worker = new Worker(workerScript());
  worker.onmessage = (ev: MessageEvent<ReportData>) => {
    stop();
    if (dialogCount() === shown && dialogOpen()) showReport(ev.data);
  };
  worker.onerror = (ev: ErrorEvent) => {
    stop();
    if (dialogCount() === shown && dialogOpen()) {
      openDialog("Check records", [p(`The check could not run: ${ev.message || "its script failed"}.`)],
        [{ label: "Close", primary: true }]);
    }
  };
  // The files themselves (a structured clone of a File is the same file): the
  // worker reads them, no further than gin audit reads.
  worker.postMessage({ op: "audit", files: files.map((file) => ({ name: file.name, file })) } satisfies AuditRequest);
}

const canReplay = (file: FileData): boolean =>
  file.hand !== null && file.deck.length === 52 && (file.status === VERIFIED || file.status === UNPROVEN);

/** The report: gin audit's verdict and exit status, its error lines, and each
 * file's lines, with a replay for each verified hand. */
function showReport(report: ReportData): void {
  const body: Node[] = [
    p("Checked in this page as gin audit checks them: the files were not sent anywhere."),
    p(`${HEADLINES[report.status]}: ${EXIT_STATUSES.get(report.status)} (gin audit's exit status ${report.status}).`,
      { class: "arith", id: "audit-verdict" }),
  ];
  if (report.errors.length) body.push(block(report.errors, "audit-errors"));
  report.files.forEach((file, i) => {
    // The verdict first (a failure is the last of many lines), then the whole text.
    const section = el("section", { class: "audit-file", "aria-label": plain(file.name) },
      el("h3", {}, plain(file.name)), block(file.verdict, "audit-verdict"));
    if (canReplay(file)) {
      const button = el("button", { type: "button", class: "small", id: `btn-replay-${i}` },
        `Replay hand ${file.hand!.number}`);
      button.addEventListener("click", () => showReplay(file, () => showReport(report)));
      section.append(button);
    }
    section.append(block(file.lines, "audit-lines"));
    body.push(section);
  });
  openDialog("Check records", body, [{ label: "Close", primary: true }]);
}

function side(title: string, groups: Group[]): HTMLElement {
  return el("div", { class: "side" }, el("h3", {}, title), el("div", { class: "row" }, ...groupsView(groups)));
}

/** One hand replayed: first, back, forward, last (the buttons, or ← → Home End
 * while the replay has the focus), both hands face up. */
function showReplay(file: FileData, back: () => void): void {
  const record = file.hand!;
  const frames = replayFrames(record, file.deck.map((i) => Card.fromIndex(i)), file.status === VERIFIED);
  let at = 0;
  const said = el("p", { id: "replay-said", "aria-live": "polite" });
  const where = el("span", { id: "replay-step" });
  const table = el("div", { id: "replay-table" });
  const control = (label: string, id: string, to: () => number): HTMLButtonElement => {
    const button = el("button", { type: "button", id, class: "small" }, label);
    button.addEventListener("click", () => go(to()));
    return button;
  };
  const buttons = [control("First", "replay-first", () => 0), control("Back", "replay-back", () => at - 1),
    control("Forward", "replay-forward", () => at + 1), control("Last", "replay-last", () => frames.length - 1)];
  const name = (seat: number): string => {
    const seatName = SEATS[seat]!;
    return seatName[0]!.toUpperCase() + seatName.slice(1) + (seat === record.dealer ? " (dealer)" : "");
  };
  const draw = (): void => {
    const frame: Frame = frames[at]!;
    where.textContent = at === 0 ? `The deal (${frames.length - 1} moves)` : `Move ${at} of ${frames.length - 1}`;
    fill(said, ...frame.said.map((line, i) => [i ? el("br") : null, plain(line)]).flat());
    const result = frame.result;
    const outcome = result?.outcome ?? null;
    const top = frame.pile[frame.pile.length - 1];
    const hand = (seat: number): HTMLElement => side(name(seat), outcome !== null && result!.knocker !== null
      ? laidOut(outcome, seat === result!.knocker) : grouped(frame.hands[seat]!));
    // As on the table: one hand above, the stock and the pile, the other below.
    fill(table, hand(0),
      el("div", { class: "replay-middle" },
        el("span", {}, `Stock: ${frame.stock} card${frame.stock === 1 ? "" : "s"}`),
        el("span", {}, `Discard pile: ${frame.pile.length} card${frame.pile.length === 1 ? "" : "s"}`
          + (top === undefined ? "" : ", the top")),
        top === undefined ? null : cardFace(top)),
      hand(1));
    buttons[0]!.disabled = buttons[1]!.disabled = at === 0;
    buttons[2]!.disabled = buttons[3]!.disabled = at === frames.length - 1;
  };
  const go = (to: number): void => {
    const focused = replay.contains(document.activeElement);
    at = Math.max(0, Math.min(frames.length - 1, to));
    draw();
    // A button just disabled (Forward at the end) drops the focus, at the browser's next
    // focus fix-up (it is still the active element now): keep the focus in the replay.
    const active = document.activeElement;
    if (focused && (!replay.contains(active) || (active instanceof HTMLButtonElement && active.disabled))) {
      replay.focus();
    }
    markScrolling();
  };
  const replay = el("div", { id: "replay", tabindex: "0", role: "group",
    "aria-label": `Hand ${record.number}: ← and → step through it, Home and End go to its start and end` },
  el("div", { class: "replay-controls" }, ...buttons, where), said, table);
  replay.addEventListener("keydown", (e) => {
    const to = ({ ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: frames.length - 1 } as Record<string, number>)[e.key];
    if (to === undefined || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    go(to);
  });
  openDialog(`Replay of hand ${record.number}: ${plain(file.name)}`, [replay],
    [{ label: "Back to the report", id: "btn-replay-report", run: back }, { label: "Close", primary: true }]);
  draw();
  replay.focus();
}
