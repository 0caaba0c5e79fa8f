/**
 * Tells an online player who is away from the page (away.ts decides what): the tab's
 * title while it is their move, and, once they turned them on with the online panel's
 * button, the browser's notifications. Permission is asked only from that button.
 */

import { pageStorage } from "../online/store.ts";
import { awayNews, awayTitle, type AwayView } from "./away.ts";
import { byId } from "./dom.ts";
import type { OnlineGame } from "./online.ts";

/** The player turned notifications on in this browser (localStorage). */
const KEY = "gin.board.notify";

const ON = "Notifications are on: your move, your friend joining or leaving, and a rematch offered, while this "
  + "page is hidden.";
const BLOCKED = "This browser blocks this page's notifications: allow them in its site settings, then try again.";

export class AwayNotifier {
  private readonly normal = document.title;
  private before: AwayView;
  private closed = false;
  private readonly seen = (): void => this.showTitle();

  constructor(private readonly game: OnlineGame) {
    this.before = game.view;
    const button = byId("btn-notify");
    // A computer playing the seat (?bot=) is not told anything.
    button.hidden = typeof Notification === "undefined" || game.botPlays;
    button.onclick = () => this.toggle();
    this.showButton(this.wanted() && Notification.permission === "granted", "");
    document.addEventListener("visibilitychange", this.seen);
    game.onView((view) => this.update(view));
  }

  /** The match was left: the normal title, and nothing more is said. */
  close(): void {
    this.closed = true;
    document.removeEventListener("visibilitychange", this.seen);
    document.title = this.normal;
  }

  private update(view: AwayView): void {
    if (this.closed || this.game.botPlays) return;
    const news = awayNews(this.before, view);
    this.before = view;
    this.showTitle();
    if (!document.hidden || !this.on()) return;
    for (const text of news) {
      // One tag: the newest replaces what is still shown. A click brings the page back.
      const note = new Notification("Gin Rummy", { body: text, tag: "gin-online" });
      note.onclick = () => window.focus();
    }
  }

  private showTitle(): void {
    if (this.closed || this.game.botPlays) return;
    document.title = awayTitle(this.before, document.hidden, this.normal);
  }

  private wanted(): boolean {
    return pageStorage()?.getItem(KEY) === "on";
  }

  private on(): boolean {
    return typeof Notification !== "undefined" && Notification.permission === "granted" && this.wanted();
  }

  private toggle(): void {
    if (this.on()) {
      pageStorage()?.removeItem(KEY);
      this.showButton(false, "");
      return;
    }
    const granted = (): void => {
      pageStorage()?.setItem(KEY, "on");
      this.showButton(true, ON);
    };
    if (Notification.permission === "granted") granted();
    else if (Notification.permission === "denied") this.showButton(false, BLOCKED);
    else {
      void Notification.requestPermission().then((answer) => {
        if (answer === "granted") granted();
        else this.showButton(false, answer === "denied" ? BLOCKED : "");
      });
    }
  }

  private showButton(on: boolean, said: string): void {
    byId("btn-notify").setAttribute("aria-pressed", String(on));
    byId("notify-state").textContent = said || (on ? ON : "");
  }
}
