/**
 * The board's start: continue the local match kept in this browser (or start
 * one), join the online match of an invite link (`/j/ROOM#SECRET`), offer to
 * continue an online match kept here, and switch between the computer and a
 * friend online. The online peer comes from `online` (null where this page has
 * none: the choice is then disabled).
 *
 * Address parameters for tests and demonstrations: `?seed=N` fixes the shuffle
 * of a new local match (a whole number below 2^32), `?delay=MS` the pause before
 * each move made without the player (700 ms by default), and `?bot=LEVEL` (easy,
 * normal or hard) lets the computer play this browser's seat online, as `--bot`
 * does for `gin host` and `gin join`.
 */

import { GinError } from "../engine/errors.ts";
import { STANDARD } from "../engine/rules.ts";
import type { Online, OnlinePeer, StoredMatch } from "../online/api.ts";
import { pageStorage } from "../online/store.ts";
import * as players from "../players/index.ts";
import { setUpAuditWindow } from "./audit_window.ts";
import { alertDialog, confirm, openDialog, setUpDialog } from "./dialogs.ts";
import { byId, el } from "./dom.ts";
import { FriendPanel, hostDialog } from "./friend.ts";
import { Game, type Strength, STRENGTHS } from "./game.ts";
import { OnlineGame } from "./online.ts";
import { setUpRecordPanel } from "./recordview.ts";
import { Table } from "./table.ts";


function numberParam(params: URLSearchParams, name: string, max: number): number | null {
  const text = params.get(name);
  if (text === null || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value <= max ? value : null;
}

/** The page's own address without an invite (what a reload should open after leaving). */
function homeAddress(): string {
  return window.location.pathname.replace(/j\/[^/]*$/, "") + window.location.search;
}

function modeRadio(value: "computer" | "online"): HTMLInputElement {
  return document.querySelector<HTMLInputElement>(`input[name=mode][value=${value}]`)!;
}

/** An online match kept in this browser: its secret is never stored, so it is
 * continued from its whole invite link, pasted here (or opened again). */
function offerKept(kept: StoredMatch, join: (link: string) => void, forget: () => void): void {
  const when = new Date(kept.savedAt).toLocaleString();
  const input = el("input", { type: "url", id: "kept-link", autocomplete: "off", spellcheck: "false",
    "aria-label": "The whole invite link", placeholder: `${kept.link}#…` });
  openDialog("Your online match", [
    el("p", {}, `An online match with your friend is kept in this browser (you ${kept.role === "host" ? "host" : "joined"}; `
      + `last played ${when}). To continue it, paste its whole invite link, with the part after #: `
      + "the secret is never stored."),
    input,
  ], [
    { label: "Forget it", id: "btn-forget", run: () => confirm("Forget the online match",
      "Without its whole invite link it cannot be continued. Forget it? Its state and the "
      + "hand records kept for it leave this browser.", "Forget it", forget) },
    { label: "Play the computer" },
    { label: "Continue", primary: true, id: "btn-continue", run: () => join(input.value.trim()) },
  ]);
}

export function startBoard(online: Online | null): void {
  const params = new URLSearchParams(window.location.search);
  const seed = numberParam(params, "seed", 2 ** 32 - 1);
  const delay = numberParam(params, "delay", 10_000); // null: the player's setting
  const botName = params.get("bot");
  const store = pageStorage();
  setUpDialog();
  let local: Game | null = null;
  let problem = store === null ? "This browser keeps no site data here, so the match will not survive a reload." : "";
  if (store !== null) {
    try {
      local = Game.resume(store);
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      problem = exc.message;
    }
  }
  local ??= seed === null ? new Game(STANDARD, "normal", store) : new Game(STANDARD, "normal", store, seed);
  const localGame = local;
  const table = new Table(localGame, delay, store);
  table.start();
  setUpRecordPanel(store);
  setUpAuditWindow();
  performance.mark("gin-table"); // the dealt hand is on the table (benchmarks/board.py)

  let bot: players.Player | null = null;
  if (botName !== null) {
    if (STRENGTHS.some(([key]) => key === botName)) {
      bot = players.get(botName as Strength, crypto.getRandomValues(new Uint32Array(1))[0]!);
    } else {
      problem = `?bot=${botName} is not a strength: use easy, normal or hard. You play this seat yourself.`;
    }
  }

  let panel: FriendPanel | null = null;
  const leave = (): void => {
    const game = table.play;
    if (game instanceof OnlineGame) game.peer.leave();
    panel?.close();
    panel = null;
    table.setGame(localGame);
    modeRadio("computer").checked = true;
    if (/\/j\/[^/]*$/.test(window.location.pathname)) window.history.replaceState(null, "", homeAddress());
  };
  const play = (connect: () => OnlinePeer): void => {
    let peer: OnlinePeer;
    try {
      peer = connect();
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      modeRadio("computer").checked = true;
      alertDialog("Playing online", exc.message);
      return;
    }
    const game = new OnlineGame(peer, bot);
    modeRadio("online").checked = true;
    table.setGame(game);
    panel = new FriendPanel(game, leave);
  };

  const onlineRadio = modeRadio("online");
  onlineRadio.disabled = online === null;
  if (online !== null) {
    onlineRadio.addEventListener("change", () => {
      if (table.play instanceof OnlineGame) return;
      hostDialog((rules) => play(() => online.host(rules.toDict())), () => { modeRadio("computer").checked = true; });
    });
    modeRadio("computer").addEventListener("change", () => {
      if (!(table.play instanceof OnlineGame)) return;
      modeRadio("online").checked = true; // until the player says so
      byId("btn-leave").click();
    });
  }

  if (/\/j\/[^/]+$/.test(window.location.pathname)) {
    if (online === null) {
      problem = "This page cannot play online here. Run gin join and paste this page's address instead.";
    } else if (window.location.hash.length <= 1) {
      problem = "This invite link has lost its secret (the part after #). Ask your friend to send the whole "
        + "link again; meanwhile you can play the computer.";
    } else {
      play(() => online.join(window.location.href));
    }
  } else if (online !== null) {
    const kept = online.stored()[0];
    if (kept !== undefined) offerKept(kept, (link) => play(() => online.join(link)), () => online.forget(kept.link));
  }
  if (problem) alertDialog("Your match", problem);
}
