/**
 * What an online player away from the page (another tab or app) is told: the tab's
 * title while it is their move, and the notifications a change of the peer's view
 * calls for. Pure functions of views: notify.ts shows them.
 */

import type { Connection, PeerView } from "../online/api.ts";
import { failureTitle, statusWords, turnWords } from "./words.ts";

/** The tab's title while it is your move and the page is hidden. */
export const YOUR_MOVE_TITLE = "● Your move — Gin Rummy";

/** What these functions read of a view. */
export type AwayView = Pick<PeerView, "legal" | "connection" | "role" | "observation" | "over" | "failure"
  | "identity" | "rulesOffered" | "rematch" | "waitingFor" | "rematchWanted">;

/** The relay says the friend's connection is gone (for a while, or for good). */
const AWAY: ReadonlySet<Connection> = new Set(["peer-left", "peer-gone"]);
/** The friend is not in the room ("waiting": not yet, or not since this side reconnected). */
const ABSENT: ReadonlySet<Connection> = new Set(["waiting", "peer-left", "peer-gone"]);
/** Failures that are the friend leaving the match. */
const LEFT = new Set(["PeerAborted", "ClaimedAbandoned", "LeftOwing"]);

function yourMove(view: AwayView): boolean {
  return view.legal.length > 0 && view.failure === null;
}

function rematchOffered(view: AwayView): boolean {
  return view.rematch && view.rulesOffered !== null;
}

/** The tab's title: {@link YOUR_MOVE_TITLE} while the page is hidden on your move, else `normal`. */
export function awayTitle(view: AwayView, hidden: boolean, normal: string): string {
  return hidden && yourMove(view) ? YOUR_MOVE_TITLE : normal;
}

/** The notifications (their texts, in order) for the change from `before` to `now`:
 * the friend joining (or back) or leaving, the friend's rematch offer, your move. */
export function awayNews(before: AwayView, now: AwayView): string[] {
  const news: string[] = [];
  const was = before.connection;
  const met = AWAY.has(was) || before.observation !== null || before.identity.friend !== null;
  if (now.connection === "connected" && ABSENT.has(was)) news.push(met ? "Your friend is back" : "Your friend joined");
  // Gone from the room (this side reconnecting is not the friend leaving, nor a page that opens).
  if (met && ABSENT.has(now.connection) && !ABSENT.has(was) && was !== "connecting") news.push(statusWords(now));
  if (now.failure !== null && before.failure === null && LEFT.has(now.failure.kind)) news.push(failureTitle(now.failure));
  if (rematchOffered(now) && !rematchOffered(before)) news.push(turnWords(now));
  if (yourMove(now) && !yourMove(before)) news.push("Your move");
  return news;
}
