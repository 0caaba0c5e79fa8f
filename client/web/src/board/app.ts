/**
 * The board's start: continue the local match kept in this browser (or start
 * one), join the online match of an invite link (`/j/ROOM#SECRET`, or
 * `?relay=RELAY&room=ROOM#SECRET` for a board of any origin), join any invite link
 * pasted (Join with a link), offer to continue an online match kept here, and
 * switch between the computer and a friend online. The online peer comes from
 * `online` (null where this page has none: the choice is then disabled).
 *
 * One page plays on one relay, the one its address names (`?relay=`, else the relay
 * that served it), and adds a policy that lets it reach that relay only. A link or a
 * host's choice for another relay opens a page of its own.
 *
 * Address parameters for tests and demonstrations: `?seed=N` fixes the shuffle
 * of a new local match (a whole number below 2^32), `?delay=MS` the pause before
 * each move made without the player (700 ms by default), and `?bot=LEVEL` (easy,
 * normal or hard) lets the computer play this browser's seat online, as `--bot`
 * does for `gin host` and `gin join`.
 */

import { GinError } from "../engine/errors.ts";
import { type Ruleset, STANDARD } from "../engine/rules.ts";
import type { Online, OnlinePeer, RulesData, StoredMatch } from "../online/api.ts";
import { encodeSecret, formatInvite, InvalidLink, parseInvite, queryText, relayOfPage } from "../online/links.ts";
import { pageStorage } from "../online/store.ts";
import * as players from "../players/index.ts";
import { setUpAuditWindow } from "./audit_window.ts";
import { alertDialog, confirm, openDialog, setUpDialog } from "./dialogs.ts";
import { byId, el } from "./dom.ts";
import { FriendPanel, hostDialog, onlyThisComputer } from "./friend.ts";
import { Game, type Strength, STRENGTHS } from "./game.ts";
import { setUpInstall, whenFree } from "./install.ts";
import { OnlineGame } from "./online.ts";
import { setUpRecordPanel } from "./recordview.ts";
import { Table } from "./table.ts";


function numberParam(params: URLSearchParams, name: string, max: number): number | null {
  const text = params.get(name);
  if (text === null || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value <= max ? value : null;
}

/** This page's parameters without the invite's room (`keep`: without its relay too, when false). */
function ownQuery(keepRelay = true): URLSearchParams {
  const query = new URLSearchParams(window.location.search);
  query.delete("room");
  if (!keepRelay) query.delete("relay");
  return query;
}

function withQuery(path: string, query: URLSearchParams): string {
  const text = queryText(query);
  return text ? `${path}?${text}` : path;
}

/** The board's own path: the page's, without an invite's `j/ROOM`. */
function boardPath(): string {
  return window.location.pathname.replace(/j\/[^/]*$/, "");
}

/** The page's own address without an invite (what a reload should open after leaving). */
function homeAddress(): string {
  return withQuery(boardPath(), ownQuery());
}

/** Whether the page's address is an invite link: `/j/ROOM` or `?room=`. */
function addressInvites(): boolean {
  return /\/j\/[^/]+$/.test(window.location.pathname) || new URLSearchParams(window.location.search).has("room");
}

/** The same board (this page's files) at another relay, with `room` when it joins one:
 * the page's address for it (the page's own parameters, such as ?bot=, kept). */
function boardAt(relay: string, room: string | null = null): string {
  const query = ownQuery(false);
  query.set("relay", relay);
  if (room !== null) query.set("room", room);
  return withQuery(window.location.origin + boardPath(), query);
}

/** Allow this page to reach `relay` and nothing else (a second policy: both hold). */
function onlyReach(relay: string): void {
  const url = new URL(relay);
  const ws = `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = `connect-src ${url.origin} ${ws}`;
  document.head.appendChild(policy);
}

/** The board a friend's link opens by default when the host plays on `relay`: this one,
 * unless the relay serves it (then the relay's own page, as links always did) or only this
 * computer can reach it (`gin web`) while the friend can reach the relay. */
function friendBoard(relay: string): string {
  const here = window.location.origin + boardPath();
  if (here.replace(/\/$/, "") === relay) return "";
  return onlyThisComputer(here) && !onlyThisComputer(relay) ? "" : here;
}

/** A host's choice kept across the page that opens at another relay (this tab only). */
const PENDING_HOST = "gin.board.host";

/** This tab's storage, or null where the page may keep none. */
function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
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

/** Join with a link: paste any invite link; it plays in this board, on the link's relay. */
function joinDialog(join: (link: string) => void, problem = ""): void {
  const input = el("input", { type: "url", id: "join-link", autocomplete: "off", spellcheck: "false",
    "aria-label": "The whole invite link" });
  openDialog("Join with a link", [
    ...(problem ? [el("p", { class: "warn" }, problem)] : []),
    el("p", {}, "Paste the whole invite link your friend sent (with the part after #). The match plays in this "
      + "board, on the relay the link names, whichever site made the link."),
    input,
  ], [{ label: "Cancel" }, { label: "Join", primary: true, id: "btn-join", run: () => join(input.value.trim()) }]);
}

export function startBoard(given: Online | null): void {
  let online = given;
  const params = new URLSearchParams(window.location.search);
  const seed = numberParam(params, "seed", 2 ** 32 - 1);
  const delay = numberParam(params, "delay", 10_000); // null: the player's setting
  const botName = params.get("bot");
  const store = pageStorage();
  setUpDialog();
  let local: Game | null = null;
  let problem = store === null ? "This browser keeps no site data here, so the match will not survive a reload." : "";
  let pageRelay = "";
  try {
    pageRelay = relayOfPage(window.location);
    onlyReach(pageRelay);
  } catch (exc) {
    if (!(exc instanceof InvalidLink)) throw exc;
    online = null;
    problem = `This page's address names a relay that cannot be used (${exc.message}): it cannot play online.`;
  }
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
  table.onShown(setUpInstall(new URL(".", window.location.origin + boardPath()).href, () => whenFree(table.play)));
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
  // Host a new match with these rules (set below when this page can play online).
  let hostNew = (_rules: Ruleset): void => {};
  const leave = (): void => {
    const game = table.play;
    if (game instanceof OnlineGame) game.peer.leave();
    panel?.close();
    panel = null;
    table.setGame(localGame);
    modeRadio("computer").checked = true;
    if (addressInvites()) window.history.replaceState(null, "", homeAddress());
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
    panel = new FriendPanel(game, leave, (rules) => {
      leave();
      hostNew(rules);
    });
  };

  // Join with a link (and a kept match's link): in this page, or in this board at the link's relay.
  // `again`: a link that does not parse is asked for again (else the lobby says why).
  let joinLink = (_text: string, _again = false): void => {};
  const onlineRadio = modeRadio("online");
  onlineRadio.disabled = online === null;
  byId("btn-join-link").toggleAttribute("disabled", online === null);
  if (online !== null) {
    const lobby = online;
    const host = (rules: RulesData, board: string | null): void => play(() => lobby.host(rules, board));
    hostNew = (rules) => host(rules.toDict(), friendBoard(pageRelay) || null);
    onlineRadio.addEventListener("change", () => {
      if (table.play instanceof OnlineGame) return;
      hostDialog((rules, relay, board) => {
        if (relay === pageRelay) {
          host(rules.toDict(), board);
          return;
        }
        // Another relay: this board opens at it (a page allowed to reach it), and hosts there.
        tabStorage()?.setItem(PENDING_HOST, JSON.stringify({ rules: rules.toDict(), board }));
        window.location.assign(boardAt(relay));
      }, () => { modeRadio("computer").checked = true; },
      { relay: pageRelay, board: friendBoard });
    });
    joinLink = (text: string, again = false): void => {
      let invite;
      try {
        invite = parseInvite(text);
      } catch (exc) {
        if (!(exc instanceof InvalidLink)) throw exc;
        if (again) joinDialog((link) => joinLink(link, true), `${exc.message[0]!.toUpperCase()}${exc.message.slice(1)}.`);
        else play(() => lobby.join(text)); // it says why, a kept match's lost secret too
        return;
      }
      if (table.play instanceof OnlineGame) {
        alertDialog("Join with a link", "Leave the online match first (Leave the online match, beside the table).");
        return;
      }
      if (invite.relay === pageRelay) {
        play(() => lobby.join(formatInvite(invite)));
        return;
      }
      // The link's relay is not this page's: this board opens on it, with the link's room and secret.
      window.location.assign(`${boardAt(invite.relay, invite.room)}#${encodeSecret(invite.secret)}`);
    };
    byId("btn-join-link").addEventListener("click", () => joinDialog((link) => joinLink(link, true)));
    modeRadio("computer").addEventListener("change", () => {
      if (!(table.play instanceof OnlineGame)) return;
      modeRadio("online").checked = true; // until the player says so
      byId("btn-leave").click();
    });
  }

  const pending = tabStorage()?.getItem(PENDING_HOST) ?? null;
  tabStorage()?.removeItem(PENDING_HOST);
  if (addressInvites()) {
    if (online === null) {
      problem = "This page cannot play online here. Run gin join and paste this page's address instead.";
    } else if (window.location.hash.length <= 1) {
      problem = "This invite link has lost its secret (the part after #). Ask your friend to send the whole "
        + "link again; meanwhile you can play the computer.";
    } else {
      play(() => online.join(window.location.href));
    }
  } else if (online !== null && pending !== null) {
    // The host chose this relay on the page before: host here as chosen.
    const chosen = JSON.parse(pending) as { rules: RulesData; board: string | null };
    const lobby = online;
    play(() => lobby.host(chosen.rules, chosen.board));
  } else if (online !== null) {
    const kept = online.stored()[0];
    if (kept !== undefined) offerKept(kept, (link) => joinLink(link), () => online.forget(kept.link));
  }
  if (problem) alertDialog("Your match", problem);
}
