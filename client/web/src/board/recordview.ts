/** The "Your record" panel of the side, and its window: the page only presents
 * what record.ts keeps and summarizes. */

import { alertDialog, openDialog } from "./dialogs.ts";
import { byId, el } from "./dom.ts";
import { RecordBook, type RecordLine, summarize, type TextStore } from "./record.ts";

const ROWS: [keyof RecordLine, string][] = [
  ["matches", "Matches"], ["matches_won", "Matches won"], ["hands", "Hands"], ["hands_won", "Hands won"],
  ["gins", "Won by gin"], ["undercuts", "Won by undercut"], ["knocks", "Won by knocking"], ["boxes", "Box points"],
  ["average_points", "Points a hand (average)"], ["longest_run", "Longest run of wins"],
  ["abandoned_by_friend", "Abandoned by the friend"], ["abandoned_by_you", "Abandoned by you"],
];

/** Fill the panel and wire its button; it redraws whenever a match is added. */
export function setUpRecordPanel(store: TextStore | null): void {
  const book = new RecordBook(store);
  const draw = (): void => {
    const { matches, problem } = book.load();
    const overall = summarize(matches).overall;
    const panel = byId("record");
    panel.dataset.matches = String(overall.matches);
    byId("record-summary").textContent = overall.matches === 0
      ? "No finished matches yet."
      : `${overall.matches_won} of ${overall.matches} matches won; longest run of wins ${overall.longest_run}.`;
    if (problem) alertDialog("Your record", problem);
  };
  RecordBook.onAdded(draw);
  byId("btn-record").addEventListener("click", () => recordDialog(book));
  draw();
}

function recordDialog(book: RecordBook): void {
  const { matches, problem } = book.load();
  const summary = summarize(matches);
  if (!summary.overall.matches) {
    openDialog("Your record", [el("p", {}, problem || "No finished matches yet: your record starts with the "
      + "first match you finish, against the computer or a friend.")], [{ label: "Close", primary: true }]);
    return;
  }
  // One column per opponent, a statistic per row: narrow enough for a phone.
  const columns = [{ label: "All matches", ...summary.overall }, ...summary.opponents];
  const table = el("table", { id: "record-table" },
    el("thead", {}, el("tr", {}, el("th", {}, el("span", { class: "visually-hidden" }, "Statistic")),
      ...columns.map((c) => el("th", { scope: "col" }, c.label)))),
    el("tbody", {}, ...ROWS.map(([key, title]) => el("tr", {}, el("th", { scope: "row" }, title),
      ...columns.map((c) => el("td", { class: "num" },
        key === "average_points" ? c[key].toFixed(1) : String(c[key])))))));
  openDialog("Your record", [
    el("p", {}, "Every match finished in this browser. A friend is known by the five words of "
      + "its identity, as the online panel shows them (the game has no names)."),
    table,
  ], [{ label: "Close", primary: true }]);
}
