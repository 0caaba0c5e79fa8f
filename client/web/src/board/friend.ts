/**
 * The board's online parts: the host's choice of rules, the invite (link, Copy,
 * QR code), the connection line, the custom rules offered to a guest, the
 * failure alert, both players' identities, the verified hands' records, and
 * `document.body.dataset.state`.
 * Everything shown here that came from the network is set as text, never as HTML.
 */

import { PRESETS, Ruleset, RulesError } from "../engine/rules.ts";
import type { FailureView, PeerNotice, PeerView, RecordView } from "../online/api.ts";
import { InvalidLink, parseBoard, parseRelay, relayOfPage } from "../online/links.ts";
import { plain } from "../online/text.ts";
import { closeDialog, confirm, dialogOpen, openDialog } from "./dialogs.ts";
import { byId, el, fill } from "./dom.ts";
import { AwayNotifier } from "./notify.ts";
import type { OnlineGame } from "./online.ts";
import { qrCanvas } from "./qr.ts";
import {
  declinedWords, failureLines, failureTitle, FRIEND_LEFT_REMATCH, graceWords, originWords, pageState, rematchAwaited,
  statusWords, turnWords,
} from "./words.ts";

const p = (text: string, cls = ""): HTMLElement => el("p", cls ? { class: cls } : {}, text);

/** The numbers a host may change for custom rules: field of `Ruleset.toDict()`, label. */
const CUSTOM_FIELDS: readonly [string, string][] = [
  ["target", "Match to"],
  ["knock_limit", "Knock limit"],
  ["gin_bonus", "Gin bonus"],
  ["undercut_bonus", "Undercut bonus"],
  ["box_bonus", "Box bonus (a hand won)"],
  ["game_bonus", "Game bonus"],
];

/** Where a hosted match plays: the relay, and the board the friend's link opens ("" for the
 * relay's page); `board` is the friend's board a relay suggests until the host changes it. */
export interface Where {
  readonly relay: string;
  readonly board: string | ((relay: string) => string);
}

/** Host: choose the rules (a preset, or custom numbers on top of one), the relay and the
 * friend's board, then `host` (the board null: the relay's own page). */
export function hostDialog(host: (rules: Ruleset, relay: string, board: string | null) => void, cancel: () => void,
                           where: Where, problem = "", chosen = "standard",
                           custom: Record<string, string> = {}): void {
  const presets = el("fieldset", {}, el("legend", {}, "Rules"));
  for (const name of [...PRESETS.keys(), "custom"]) {
    const input = el("input", { type: "radio", name: "host-rules", value: name });
    input.checked = name === chosen;
    input.addEventListener("change", () => { customBox.hidden = name !== "custom"; });
    presets.appendChild(el("label", {}, input, name === "custom" ? " custom: standard with these numbers" : ` ${name}`));
  }
  const standard = (PRESETS.get("standard") as Ruleset).toDict();
  const customBox = el("fieldset", { class: "custom-rules" }, el("legend", {}, "Custom numbers"));
  customBox.hidden = chosen !== "custom";
  for (const [field, label] of CUSTOM_FIELDS) {
    const input = el("input", { type: "number", name: field, min: 0, step: 1, inputmode: "numeric" });
    input.value = custom[field] ?? String(standard[field]);
    customBox.appendChild(el("label", {}, `${label} `, input));
  }
  const relayInput = el("input", { type: "url", id: "host-relay", autocomplete: "off", spellcheck: "false" });
  relayInput.value = where.relay;
  const boardInput = el("input", { type: "url", id: "host-board", autocomplete: "off", spellcheck: "false",
    placeholder: "empty: the relay's own page" });
  const suggest = where.board;
  const suggested = (): string => {
    try {
      return typeof suggest === "string" ? suggest : suggest(parseRelay(relayInput.value));
    } catch {
      return boardInput.value; // no relay to suggest for yet
    }
  };
  boardInput.value = suggested();
  let boardTouched = typeof suggest === "string";
  boardInput.addEventListener("input", () => { boardTouched = true; });
  relayInput.addEventListener("input", () => { if (!boardTouched) boardInput.value = suggested(); });
  const places = el("fieldset", {}, el("legend", {}, "Where"),
    el("label", {}, "Relay ", relayInput),
    el("label", {}, "Your friend's board ", boardInput),
    p("The relay only passes sealed messages. The board is the page your friend's link opens, whose code "
      + "holds their cards: leave it empty for the relay's own page, or give a board neither of you runs "
      + "(a published one).", "small"));
  const body: Node[] = [
    p("You host: this page opens a room on the relay and gives you a link to send "
      + "your friend. They open it in a browser (or with the gin program) and join your table."),
    presets, customBox, places,
    p("Custom rules are shown to your friend, who accepts or declines them before the match starts."),
  ];
  if (problem) body.unshift(p(problem, "warn"));
  const go = (): void => {
    const name = document.querySelector<HTMLInputElement>("input[name=host-rules]:checked")?.value ?? "standard";
    const numbers: Record<string, string> = {};
    for (const [field] of CUSTOM_FIELDS) numbers[field] = customBox.querySelector<HTMLInputElement>(`input[name=${field}]`)!.value;
    const chosenWhere = { relay: relayInput.value.trim(), board: boardTouched ? boardInput.value.trim() : suggest };
    let relay: string;
    let board: string | null;
    try {
      relay = parseRelay(chosenWhere.relay);
      const text = boardInput.value.trim();
      board = text === "" ? null : parseBoard(text);
    } catch (exc) {
      if (!(exc instanceof InvalidLink)) throw exc;
      hostDialog(host, cancel, chosenWhere, `${exc.message[0]!.toUpperCase()}${exc.message.slice(1)}.`, name, numbers);
      return;
    }
    if (name !== "custom") {
      host(PRESETS.get(name)!, relay, board);
      return;
    }
    try {
      const data: Record<string, unknown> = { ...standard, name: "custom" };
      for (const [field, label] of CUSTOM_FIELDS) {
        const text = numbers[field]!.trim();
        if (!/^\d+$/.test(text)) throw new RulesError(`${label}: a whole number, please (got "${text}")`);
        data[field] = Number(text);
      }
      host(Ruleset.fromDict(data), relay, board);
    } catch (exc) {
      if (!(exc instanceof RulesError)) throw exc;
      hostDialog(host, cancel, chosenWhere, `These rules cannot be played: ${exc.message}`, name, numbers);
    }
  };
  openDialog("Play a friend online", body,
    [{ label: "Cancel", run: cancel }, { label: "Host", primary: true, id: "btn-host", run: go }], cancel);
}

/** True when the link's relay is this computer's loopback address (the page was opened
 * from `gin web` or a relay on 127.0.0.1): nobody else can reach it. */
export function onlyThisComputer(link: string): boolean {
  let host: string;
  try {
    host = new URL(link).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(host) || host === "[::1]";
}

/** True when the link's relay is at a private or link-local address (192.168.…, 10.…,
 * 172.16–31.…, 169.254.…, fd…/fe80… in IPv6) or a local name: only this network reaches
 * it. As the terminal's client/net/links.py reach() says. */
export function onlyThisNetwork(link: string): boolean {
  let host: string;
  try {
    host = new URL(link).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (onlyThisComputer(link)) return false;
  if (host.startsWith("[")) return /^\[(f[cd]|fe[89ab])[0-9a-f]*:/.test(host);
  const ip = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (ip === null) return !host.includes(".") || /\.(local|lan|home\.arpa)$/.test(host);
  const [a, b, c] = [Number(ip[1]), Number(ip[2]), Number(ip[3])];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
    || (a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113);
}

/** Where the friend's page comes from, as the host is told beside the link. */
export function friendPageWords(link: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return "";
  }
  if (url.searchParams.has("relay")) {
    return `Your friend's page comes from ${url.host}, the board this link names; the relay only passes sealed messages.`;
  }
  return `Your friend's page comes from the relay at ${url.host} (this computer, if gin runs it here; or a board `
    + "its operator sends links to), which could read their hand: for a board neither of you runs, give one under "
    + "Your friend's board.";
}

/** The invite: the link (whole, wrapped anywhere), a Copy button and a QR code. */
export function inviteDialog(link: string): void {
  const linkBox = el("p", { id: "invite-link", class: "link" }, link);
  const said = el("p", { id: "copy-status", role: "status", "aria-live": "polite" });
  const copy = el("button", { type: "button", id: "btn-copy" }, "Copy the link");
  copy.addEventListener("click", () => {
    const selectIt = (): void => {
      const range = document.createRange();
      range.selectNodeContents(linkBox);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      said.textContent = "The link is selected: copy it with Ctrl+C (⌘C on a Mac), or long-press on a phone.";
    };
    // navigator.clipboard exists only on secure pages (https, localhost), and may be refused.
    if (navigator.clipboard === undefined) {
      selectIt();
      return;
    }
    navigator.clipboard.writeText(link).then(() => { said.textContent = "Copied"; }, selectIt);
  });
  openDialog("Invite your friend", [
    p("Send this link to your friend: it opens this board and joins your match. Anyone with the link "
      + "can take the seat, so send it only to them."),
    linkBox,
    el("div", { class: "copy-row" }, copy, said),
    el("div", { class: "qr" }, qrCanvas(link, "The invite link as a QR code, for a phone's camera")),
    p("A friend with the gin program can instead run gin join and paste the link.", "small"),
    el("p", { id: "invite-origin", class: "small" }, friendPageWords(link)),
    ...(onlyThisComputer(link) ? [el("p", { id: "invite-local", class: "small" },
      "This link names an address only this computer can reach, so it works only "
      + "here (another browser or gin join on this computer). To play a friend elsewhere, host on a "
      + "relay they can reach (gin relay --host 0.0.0.0 on your network, or a public relay), with a board "
      + "they can reach too, or none: the relay's own page.")] : []),
    ...(onlyThisNetwork(link) ? [el("p", { id: "invite-network", class: "small" },
      `This link works only on your network (${new URL(link).hostname} is a local address): a friend elsewhere `
      + "cannot open it. For one, host on a public relay.")] : []),
  ], [{ label: "Close", primary: true }]);
}

/** Custom rules from the host: every rule in words, accept or decline. */
export function rulesOfferDialog(rules: Ruleset, accept: () => void, decline: () => void,
                                 escape: () => void): void {
  // the first names the preset the changes are from; the rules came from the host
  const lines = rules.describeLines().map(([line, changed]): [string, boolean] => [plain(line), changed]);
  openDialog("Your friend proposes custom rules", [
    p("Your friend, the host, wants to play these rules. Accept them to start the match, or decline "
      + "to end it (the host can then offer one of the usual rulesets)."),
    el("ul", { class: "rules-list" }, ...lines.map(([line, changed]) =>
      el("li", changed ? { class: "changed" } : {}, changed ? el("strong", {}, line) : line))),
  ], [
    { label: "Decline", id: "btn-decline-rules", run: decline },
    { label: "Accept", primary: true, id: "btn-accept-rules", run: accept },
  ], escape);
}

/** The friend, the host, offers a rematch on the same link: accept or decline. */
export function rematchOfferDialog(rules: Ruleset, accept: () => void, decline: () => void,
                                   escape: () => void): void {
  openDialog("Your friend offers a rematch", [
    p(`Your friend offers another match on the same link, with the ${plain(rules.name)} rules you just played; `
      + "the loser of the last match deals first. Accept to play it, or decline to end here."),
  ], [
    { label: "Decline", id: "btn-decline-rematch", run: decline },
    { label: "Accept", primary: true, id: "btn-accept-rematch", run: accept },
  ], escape);
}

/** The failure that stopped the match, as plain text. */
export function failureDialog(failure: FailureView): void {
  openDialog(failureTitle(failure), failureLines(failure).map((line) => p(line)),
    [{ label: "OK", primary: true }]);
}

/** The window on show asks about the friend's rules or rematch offer. */
function offerShown(): boolean {
  return document.getElementById("btn-accept-rematch") !== null || document.getElementById("btn-accept-rules") !== null;
}

/** Save a verified hand's record as a file (made in the page: nothing is fetched). */
export function download(record: RecordView): void {
  const url = URL.createObjectURL(new Blob([record.json], { type: "application/json" }));
  const link = el("a", { href: url, download: record.name, hidden: true });
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000); // after the browser has read it
}

/**
 * Shows an {@link OnlineGame}'s state outside the table: the connection line, the
 * side's online section, the dialogs its notices call for, and the page's state.
 */
export class FriendPanel {
  /** The custom rules last put to the player (as JSON), the failure shown, the invite shown. */
  private offered: string | null = null;
  private failureShown = false;
  private declinedShown = false;
  private invited = false;
  /** The invite's link on show (it leaves the page when another window replaces it). */
  private inviteShown: HTMLElement | null = null;
  private shownRecords = -1;
  /** The friend's grace ran out and the player is asked (keep waiting, or abandon). */
  private graceAsked = false;
  private changeShown = false;
  /** The friend left while this side's rematch waited: said once, until they come back. */
  private leftShown = false;
  /** The match was left: this panel shows nothing more. */
  private closed = false;
  /** The table was brought into view at the match's first deal. */
  private tableShown = false;
  /** The tab's title and the notifications for a player away from the page. */
  private readonly away: AwayNotifier;

  /** `newLink`: leave this match and host a new one with these rules (a new link to send). */
  constructor(private readonly game: OnlineGame, private readonly leave: () => void,
              private readonly newLink: (rules: Ruleset) => void) {
    byId("net").hidden = false;
    byId("online").hidden = false;
    byId("btn-invite").hidden = game.view.role !== "host";
    byId("join-hint").hidden = game.view.role !== "guest";
    byId("btn-invite").onclick = () => {
      if (this.game.view.link !== null) inviteDialog(this.game.view.link);
    };
    byId("btn-leave").onclick = () => this.confirmLeave();
    const [where, trust] = originWords(window.location.origin, relayOfPage(window.location));
    byId("net-origin").textContent = where;
    byId("net-origin-trust").textContent = trust;
    byId("btn-end-abandoned").onclick = () => confirm("End the match",
      "End the match as abandoned by your friend? Your signed record of it is kept; nobody forfeits.",
      "End the match", () => this.game.peer.abandon());
    game.onView((view, notices) => this.update(view, notices));
    this.away = new AwayNotifier(game);
    // What waited for a window to close (a rematch's offer) is shown once it has.
    byId("dialog").addEventListener("close", () => {
      if (!this.closed && !dialogOpen()) this.dialogs(this.game.view, []);
    });
  }

  /** Take the panel down (the match was left). */
  close(): void {
    this.closed = true;
    this.away.close();
    byId("net").hidden = true;
    byId("online").hidden = true;
    byId("btn-end-abandoned").hidden = true;
    delete document.body.dataset.state;
    delete document.body.dataset.matches;
  }

  private confirmLeave(): void {
    const view = this.game.view;
    const question = view.failure?.kind === "OpenedElsewhere"
      ? "Close this match here? It goes on in the other tab or window, which keeps it."
      : view.over || view.failure !== null
      ? "Close this online match? It is forgotten in this browser (download the records you want first)."
      : "Leave the online match? Your friend is told, and the match cannot be continued.";
    openDialog("Leave", [p(question)], [{ label: "Cancel" }, { label: "Leave", primary: true, run: this.leave }]);
  }

  private update(view: PeerView, notices: readonly PeerNotice[]): void {
    if (this.closed) return; // a left match's late word must not overwrite the next one's
    const state = pageState(view);
    // On a phone the host pressed Host down in the side: when the match's first deal
    // comes, bring the table back into view (once: later the player scrolls as they like).
    if (state === "playing" && !this.tableShown) {
      this.tableShown = true;
      showTable();
    }
    document.body.dataset.state = state;
    document.body.dataset.matches = String(view.matches);
    const status = statusWords(view);
    byId("net-connection").textContent = status;
    byId("net-connection").dataset.connection = view.connection;
    const turn = turnWords(view);
    byId("net-turn").textContent = turn === status ? "" : turn; // "The match is over" once
    const last = view.verified.at(-1);
    byId("net-verified").textContent = last === undefined ? "" : `Deck verified for hand ${last}`;
    // Kept waiting past the friend's grace: the match may still be ended, before the next one runs out.
    byId("btn-end-abandoned").hidden = !(view.mayAbandon ?? false) || view.graceOver != null || view.failure !== null;
    this.renderIdentities(view);
    this.renderRecords(view.records);
    this.dialogs(view, notices);
  }

  private dialogs(view: PeerView, notices: readonly PeerNotice[]): void {
    const failed = notices.find((n): n is Extract<PeerNotice, { kind: "failed" }> => n.kind === "failed");
    const failure = failed?.failure ?? view.failure; // a reload shows the stored failure again
    if (failure !== null && !this.failureShown) {
      this.failureShown = true;
      // The match's end window stands over the table: on a phone, one who ended it from
      // the side below was left looking at the side behind it.
      showTable();
      failureDialog(failure);
      return;
    }
    if (view.declined && !this.declinedShown) { // a normal end: said once, blaming nobody
      this.declinedShown = true;
      openDialog("No rematch", [p(declinedWords(view.role))], [{ label: "OK", primary: true }]);
      return;
    }
    const grace = notices.find((n): n is Extract<PeerNotice, { kind: "grace-over" }> => n.kind === "grace-over");
    if (this.graceAsked && !view.graceOver) { // answered, or moot: the friend's message came
      this.graceAsked = false;
      if (document.getElementById("btn-abandon") !== null && dialogOpen()) closeDialog();
    }
    if (grace !== undefined && !this.game.botPlays) {
      this.graceAsked = true;
      // The safe choice takes the focus: Enter keeps waiting (the side's button ends it later).
      openDialog("Your friend stopped answering", graceWords(grace.owed, grace.since, Date.now() / 1000)
        .map((line) => p(line)), [
        { label: "End: abandoned by your friend", id: "btn-abandon", run: () => this.game.peer.abandon() },
        { label: "Keep waiting", primary: true, id: "btn-keep-waiting", run: () => this.game.peer.keepWaiting() },
      ], () => this.game.peer.keepWaiting());
      return;
    }
    if (view.connection !== "peer-gone") this.leftShown = false; // back: a rematch may begin
    const rules = this.game.rules;
    if (view.role === "host" && view.connection === "peer-gone" && rematchAwaited(view) && rules !== null
        && !this.leftShown && !dialogOpen()) {
      this.leftShown = true;
      openDialog("Your friend has left", [p(FRIEND_LEFT_REMATCH)], [
        { label: "Keep waiting", id: "btn-keep-waiting-rematch" },
        { label: "New link", primary: true, id: "btn-new-link", run: () => this.newLink(rules) },
      ]);
      return;
    }
    const said = notices.filter((n): n is Extract<PeerNotice, { kind: "notice" }> => n.kind === "notice");
    if (view.over && view.observation === null && said.length) {
      // The peer only says why it cannot play (a finished match's link): nothing else is shown.
      openDialog("Online match", said.map((n) => p(n.text)), [{ label: "OK", primary: true }]);
      return;
    }
    if (offerShown() && view.rulesOffered === null && dialogOpen()) closeDialog(); // answered (asked first), or moot
    // A rematch may offer the rules of the match before: each match's offer is its own.
    const offer = view.rulesOffered === null ? null : `${view.matches}:${JSON.stringify(view.rulesOffered)}`;
    // A rematch's offer waits for the window on show (the last hand, the match's result).
    if (offer !== null && offer !== this.offered && !(view.rematch && dialogOpen())) {
      this.offered = offer;
      let rules: Ruleset;
      try {
        rules = Ruleset.fromDict(view.rulesOffered);
      } catch (exc) {
        if (!(exc instanceof RulesError)) throw exc;
        // Rules this page cannot even read are not agreed to: declined once the player has read why.
        const decline = (): void => this.game.peer.declineRules();
        openDialog("Your friend's rules", [p(`The host's rules cannot be played: ${plain(exc.message)}.`)],
          [{ label: "Decline", primary: true, run: decline }], decline);
        return;
      }
      const ask = (): void => (view.rematch ? rematchOfferDialog : rulesOfferDialog)(rules,
        () => this.game.peer.acceptRules(), () => this.game.peer.declineRules(), ask);
      ask();
      return;
    }
    if (view.role === "host" && view.link !== null && view.observation === null && view.connection === "waiting"
        && !dialogOpen() && !this.invited) {
      this.invited = true;
      inviteDialog(view.link);
      this.inviteShown = byId("invite-link");
    }
    if (view.observation !== null && this.inviteShown !== null) {
      // The friend came and the cards are dealt: the invite has done its work.
      if (this.inviteShown.isConnected && dialogOpen()) closeDialog();
      this.inviteShown = null;
    }
  }

  /** Both fingerprints; a friend whose identity changed on this link is said once in a dialog too. */
  private renderIdentities(view: PeerView): void {
    const { mine, friendText, changed } = view.identity;
    const friend = byId("id-friend");
    friend.textContent = friendText === null ? "Your friend's identity is shown here once they join."
      : friendText.charAt(0).toUpperCase() + friendText.slice(1);
    friend.classList.toggle("warn", changed);
    byId("id-mine").textContent = mine === null ? "" : `You: ${mine}`;
    if (changed && friendText !== null && !this.changeShown && !dialogOpen()) {
      this.changeShown = true;
      openDialog("Your friend's identity changed", [p(friendText.charAt(0).toUpperCase() + friendText.slice(1))],
        [{ label: "OK", primary: true }]);
    }
  }

  private renderRecords(records: readonly RecordView[]): void {
    if (records.length === this.shownRecords) return;
    this.shownRecords = records.length;
    const list = byId("records");
    fill(list, ...records.map((record) => {
      const button = el("button", { type: "button", class: "small", "data-hand": record.hand },
        record.failed ? `Hand ${record.hand}: download the evidence (failed its check)`
          : record.abandoned ? "Download the abandonment record (your signed word)"
          : `Hand ${record.hand}: download the record`);
      button.addEventListener("click", () => download(record));
      return el("li", {}, button);
    }));
    byId("records-none").hidden = records.length > 0;
  }
}


/** Scroll the table into view when its top is out of sight (a phone's single column). */
function showTable(): void {
  const table = byId("table");
  if (table.getBoundingClientRect().top < 0) table.scrollIntoView({ block: "start" });
}
