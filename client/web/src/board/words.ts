/**
 * The board's words: what to do now, what the computer did, how a hand was
 * scored, the match's totals, and the rules in the project's own words (numbers
 * from the chosen ruleset). The same sentences as the terminal table
 * (client/table/words.py); pure functions of an observation and a ruleset.
 */

import type { Card } from "../engine/cards.ts";
import type { Event, Observation } from "../engine/observation.ts";
import { Phase } from "../engine/observation.ts";
import type { Ruleset } from "../engine/rules.ts";
import type { MatchTotals } from "../engine/scoring.ts";
import type { Connection, FailureView, Owed, PeerView } from "../online/api.ts";
import { siteName } from "../online/links.ts";
import type { SheetRow } from "./scoresheet.ts";

export const THEM = "The computer";
/** What h says online (How to play gives the rule): the terminal says the same. */
export const NO_HINT_ONLINE = "No hint in an online match: neither you nor your friend has one.";

/** The other player as a column heading or after a score: "Computer", "Friend". */
export function shortName(them: string): string {
  const last = them.split(" ").at(-1)!;
  return last[0]!.toUpperCase() + last.slice(1);
}

/** The game's score and the hands won, from the player's seat. */
export function gameLine(obs: Observation, them = THEM): string {
  const me = obs.player;
  const other = shortName(them).toLowerCase();
  return `Game: you ${obs.scores[me]} – ${obs.scores[1 - me]} ${other}. `
    + `Hands won: you ${obs.handsWon[me]}, ${other} ${obs.handsWon[1 - me]}.`;
}

/** The line under the title: the game and the score it is played to; online, the
 * host's offer until the guest accepts it, and no score while it is unknown. */
export function subtitle(target: number | null, offered = false): string {
  const text = "Draw, discard, knock · two players";
  if (target === null) return text;
  return `${text}, to ${target}` + (offered ? " if you accept the host's rules" : "");
}

/** What wins the game, and what a hand and the game itself are worth at its end. */
export function targetLine(rules: Ruleset): string {
  return `First to ${rules.target} points wins the game, with ${rules.boxBonus} for `
    + `every hand won and ${rules.gameBonus} for the game itself.`;
}

/** What the player should do now, in plain words. */
export function prompt(obs: Observation, canKnock: boolean, them = THEM): string {
  const top = obs.topOfPile;
  if (obs.phase === Phase.OVER) return "The hand is over.";
  if (!obs.myTurn) {
    return obs.phase === Phase.LAYOFF ? `${them} is laying off onto your melds…`
      : `${them} is thinking…`;
  }
  if (obs.phase === Phase.UPCARD) return top ? `Take the ${top.glyph} or pass` : "Pass";
  if (obs.phase === Phase.DRAW) {
    if (obs.upcardClosed || top === null) return "Both passed the first card: draw from the stock";
    return `Take the ${top.glyph} or draw from the stock`;
  }
  if (obs.phase === Phase.DISCARD) {
    let text = "Throw a card";
    if (canKnock) text += ", or knock";
    if (obs.justTaken !== null) text += ` (not the ${obs.justTaken.glyph} you just took)`;
    return text;
  }
  return `${them} knocked: lay out your cards and lay off what fits`;
}

/** One line for a move of the opponent (null for the player's own moves). `laidOff`:
 * the cards the lay-off put on the knocker's melds, once the hand is settled (a
 * lay-off that put none says so). */
export function describe(event: Event, me: number, them = THEM, laidOff: readonly Card[] = []): string | null {
  if (event.player === me) return null;
  const card = event.card ? event.card.glyph : "";
  switch (event.kind) {
    case "pass": return `${them} passed on the first card.`;
    case "stock": return `${them} drew from the stock.`;
    case "take": return `${them} took the ${card}.`;
    case "discard": return `${them} threw the ${card}.`;
    case "knock": return `${them} knocked.`;
    case "biggin": return `${them} laid down big gin.`;
    case "layoff": return laidOff.length
      ? `${them} laid off ${laidOff.map((c) => c.glyph).join(" ")} onto your melds.`
      : `${them} had nothing to lay off.`;
    default: return "The stock has run down: the hand is dead.";
  }
}

/** The other player's last move, shown at the stock or the pile until the player's
 * next move: `badge` is its short label ("Computer threw"), `card` the pile's top
 * card it put or left there (null for none), `words` the log's sentence. */
export interface LastMove {
  readonly slot: "stock" | "discard";
  readonly card: Card | null;
  readonly badge: string;
  readonly words: string;
}

const BADGE_VERBS: Readonly<Partial<Record<Event["kind"], string>>> = {
  pass: "passed", stock: "drew", take: "took", discard: "threw", knock: "knocked",
};

/** The other player's move shown at the stock or the pile: their latest, while no
 * move of the player's has followed it and the hand goes on (null otherwise). */
export function lastMove(obs: Observation, them = THEM): LastMove | null {
  const last = obs.history.at(-1);
  const verb = last === undefined ? undefined : BADGE_VERBS[last.kind];
  if (last === undefined || verb === undefined || last.player === obs.player || obs.phase === Phase.OVER) return null;
  const top = obs.topOfPile;
  return {
    slot: last.kind === "stock" ? "stock" : "discard",
    // The card they threw, or the upcard they passed on (a knock's card may lie face down).
    card: (last.kind === "pass" || last.card === top) ? top : null,
    badge: `${shortName(them)} ${verb}${last.kind === "take" && last.card ? ` ${last.card.glyph}` : ""}`,
    words: describe(last, obs.player, them)!,
  };
}

const who = (player: number | null, me: number, them: string): string =>
  player === me ? "You" : them;

/** How the hand that just ended was scored, from the player's seat. */
export function explainResult(obs: Observation, them = THEM): string {
  const result = obs.result;
  if (result === null) return "";
  const out = result.outcome;
  if (result.kind === "dead" || out === null) {
    const left = obs.rules.deadStock;
    return `Dead hand: a discard left ${left} card${left === 1 ? "" : "s"} in the stock and `
      + "nobody knocked. Nobody scores, and the same dealer deals again.";
  }
  const me = obs.player;
  const rules = obs.rules;
  const knocker = who(result.knocker, me, them);
  const winner = who(result.winner, me, them);
  const to = winner === "You" ? "you" : winner.toLowerCase();
  const defender = who(result.knocker === null ? null : 1 - result.knocker, me, them);
  if (out.kind === "gin" || out.kind === "big_gin") {
    const big = out.kind === "big_gin";
    const bonus = big && rules.bigGinBonus !== null ? rules.bigGinBonus : rules.ginBonus;
    return `${knocker} went ${big ? "big gin" : "gin"}: ${bonus} + ${out.defenderDeadwood} `
      + `loose points = ${result.points} to ${to}.`;
  }
  const laid = out.layoffs.length;
  const laidText = laid ? ` after laying off ${laid} card${laid === 1 ? "" : "s"}` : "";
  const left = `${knocker} knocked with ${out.knockerDeadwood}; ${defender === "You" ? "you were"
    : `${defender.toLowerCase()} was`} left with ${out.defenderDeadwood}${laidText}.`;
  if (out.kind === "undercut") {
    return `${left} An undercut: ${out.knockerDeadwood} − ${out.defenderDeadwood} + `
      + `${rules.undercutBonus} = ${result.points} to ${to}.`;
  }
  return `${left} The difference: ${out.defenderDeadwood} − ${out.knockerDeadwood} = `
    + `${result.points} to ${to}.`;
}

/** The end-of-match table: label, the player's column (seat `me`), the opponent's. */
export function totalsRows(totals: MatchTotals, rules: Ruleset, me = 0): [string, string, string][] {
  const you = me;
  const other = 1 - me;
  const boxes = (p: number): string =>
    `${totals.handsWon[p]} × ${rules.boxBonus} = ${totals.boxBonus[p]}`;
  const rows: [string, string, string][] = [
    ["Points", String(totals.points[you]), String(totals.points[other])],
    ["Game bonus", String(totals.gameBonus[you]), String(totals.gameBonus[other])],
    [`Boxes (${rules.boxBonus} a hand won)`, boxes(you), boxes(other)],
  ];
  if (totals.shutout) {
    const doubled = rules.shutout === "double_bonus" ? "game bonus doubled" : "total doubled";
    rows.push(["Shutout", totals.winner === you ? doubled : "", totals.winner === other ? doubled : ""]);
  }
  rows.push(["Total", String(totals.totals[you]), String(totals.totals[other])]);
  return rows;
}

/** One section of How to play: a heading and its paragraphs, or a table. */
export interface HelpSection {
  title: string;
  paragraphs: string[];
  table?: [string, string][];
}

/** The rules in the project's own words, how the computer plays and how the
 * shuffle works, numbers from `rules`. */
export function howToPlay(rules: Ruleset): HelpSection[] {
  const upcardLimit = rules.knockLimitFromUpcard;
  const knock = upcardLimit
    ? "Knock when the card you throw away leaves you no more deadwood than the first "
      + "upcard's value (an ace upcard means gin only)."
    : `Knock when the card you throw away leaves you ${rules.knockLimit} points of deadwood or less.`;
  const shutout = {
    double_bonus: [`the game bonus doubles to ${2 * rules.gameBonus} if the other player never won a hand`,
      "doubled in a shutout"],
    double_total: ["the winner's whole total doubles if the other player never won a hand",
      "and the total doubled in a shutout"],
    none: ["there is no shutout bonus", "no shutout bonus"],
  }[rules.shutout];
  const bigGin = rules.bigGinBonus !== null
    ? [`Lay down all eleven cards after your draw and it's big gin: ${rules.bigGinBonus} plus `
      + "the other hand's deadwood."]
    : [];
  return [
    {
      title: `The rules (${rules.name})`,
      paragraphs: [
        "Ten cards each. On your turn take a card — the face-up discard or the top of the "
          + "stock — and then throw one away, so you always end with ten.",
        "Build sets (three or four of a kind) and runs (three or more in a row in one suit; "
          + "the ace is low, and the run doesn't turn the corner at the king: Q-K-A is not a run).",
        "Everything outside a set or a run is deadwood — your loose cards, and what they count your "
          + "loose points. Aces count 1, "
          + "court cards 10, everything else its own number. A card is in one meld only: "
          + "the board finds the arrangement that leaves the least deadwood, every time "
          + "your hand changes.",
        `${knock} Your opponent then lays out their own sets and runs and lays any of their `
          + "loose cards onto yours — the fourth card of a set, the next card at either end of "
          + "a run — and you score the difference between the two piles of deadwood.",
        `Lay every card down and it's gin: nothing can be laid off against you, and you take `
          + `the other hand's deadwood plus ${rules.ginBonus}.`,
        ...bigGin,
        "Knock and come off no better — a tie counts — and you have been undercut: your "
          + `opponent takes the difference plus ${rules.undercutBonus}.`,
        "The first play of a hand is the turned-up card: it's offered to the player who "
          + "wasn't dealing, then to the dealer, and if neither wants it the first draw comes "
          + "off the stock. The deal takes turns, so you get the first chance every other hand.",
        "You can't throw back the very card you just took from the discard pile (it is "
          + `dimmed), and when a discard leaves the stock at its last ${rules.deadStock} cards `
          + "the hand is dead — nobody scores and the same dealer deals again.",
        `Play runs to ${rules.target}. The winner adds ${rules.gameBonus} for the game, each `
          + `player adds ${rules.boxBonus} for every hand they won (the box), and ${shutout[0]}.`,
      ],
    },
    {
      title: "Scoring",
      paragraphs: [],
      table: [
        [`Knock (deadwood at most ${upcardLimit ? "the limit" : rules.knockLimit})`,
          "the difference in deadwood"],
        ["Gin", `their deadwood + ${rules.ginBonus}`],
        ["Undercut", `the difference + ${rules.undercutBonus}`],
        ["Every hand won", `${rules.boxBonus} at the end`],
        ["Winning the game", `${rules.gameBonus}, ${shutout[1]}`],
      ],
    },
    {
      title: "Worked through",
      paragraphs: [
        "Holding 5♥ 6♥ 7♥ with 7♠ and 7♣, the 7♥ finishes the run or the set, not both. The "
          + "set wins that one; move the same shape down to 2♥ 3♥ 4♥ with 2♠ and 2♦ and the run "
          + "wins. No rule of thumb gets both right: the board tries every arrangement.",
        `You knock with 7 and the computer, after laying off, is left with 31: you score `
          + `31 − 7 = 24.`,
        `The computer knocks with 8 and you lay off down to 5: an undercut, and you score `
          + `8 − 5 + ${rules.undercutBonus} = ${8 - 5 + rules.undercutBonus}.`,
        `You go gin and the computer holds 18 loose points: you score ${rules.ginBonus} + 18 = `
          + `${rules.ginBonus + 18}.`,
        `Knock with 10: left with 11 the other player gives you 1 point; left with 10 they `
          + `undercut you and take ${rules.undercutBonus}. That one point is worth `
          + `${rules.undercutBonus + 1}, the whole argument against knocking on a full ten.`,
        `You reach ${rules.target + 4} having won 4 hands; the computer has 60 from 3. You `
          + `finish with ${rules.target + 4} + ${rules.gameBonus} + 4 × ${rules.boxBonus} = `
          + `${rules.target + 4 + rules.gameBonus + 4 * rules.boxBonus}, the computer with `
          + `60 + 3 × ${rules.boxBonus} = ${60 + 3 * rules.boxBonus}.`,
      ],
    },
    {
      title: "How the computer plays",
      // The terminal's words (client/table/words.py), paragraph for paragraph: a test holds them together.
      paragraphs: [
        "The computer sees exactly what you would see in its seat: its own ten cards, the "
          + "discard pile, the cards you took from the pile, and what you did. It never sees your "
          + "hand or the stock, and the same position always gets the same move.",
        "Easy always draws from the stock, throws its costliest loose card, and knocks at the "
          + "first chance.",
        "Normal takes the discard only when it melds and clearly helps. It throws the card whose "
          + "loss costs least, counting how likely each loose card is to meld with the cards it has "
          + "not seen. It goes gin whenever it can, knocks at once on 4 or less, and otherwise waits "
          + "while the stock is large.",
        "Hard plays like Normal, and also avoids throwing a card you look to be collecting (from "
          + "what you took, threw and passed over). To decide whether to knock, it guesses 30 hands "
          + "you might hold, settles the knock against each, and knocks when that is worth more "
          + "than waiting a round.",
        "When its melds can be laid out more than one way, the computer lays down the one that "
          + "leaves you fewest lay-offs. Hint shows what Hard would do in your place, and why. It is "
          + "there against the computer only: in an online match neither you nor your friend has a "
          + "hint, so nobody plays with the computer's help.",
      ],
    },
    {
      title: "The shuffle",
      paragraphs: [
        "Against the computer, this page shuffles each deck itself with the browser's "
          + "cryptographic random numbers, and the computer sees only what a player at the "
          + "table would see.",
        "Online (Play against → Friend online, or gin host in a terminal: either sends a friend a "
          + "link), the deck is shuffled "
          + "by both devices together: each adds a secret number, sealed with a cryptographic "
          + "hash before the other's is seen, so neither side can choose or peek at the "
          + "cards. At the end of every hand each device checks the whole deck against that "
          + "promise, and any finished hand can be audited later.",
      ],
    },
    {
      title: "Playing on this board",
      paragraphs: [
        "Click the stock or the discard pile to draw. Click a card to select it and click it "
          + "again (or press Throw) to throw it; you can also drag it onto the discard pile. "
          + "With “Group my sets and runs for me” off, drag cards or use shift+← → to "
          + "arrange your hand yourself.",
        "Threw the wrong card? Against the computer, Undo (U) takes your last throw back while "
          + "the computer has not started its answer (the short pause before it moves); online "
          + "there is no undo. Score sheet (C) lists every hand of the match with the running totals.",
        "Every action has a key (press ? to see them all). Press F for a full-screen table. "
          + "The match is kept in this browser: reload the page and it goes on where you were. "
          + "An online match goes on after a reload too, from its invite link (the page's own address "
          + "while you play); each hand whose deck was verified can be downloaded as a record, which "
          + "gin audit checks.",
        "Check records (in the side, or drop the files on the page) checks hand records here as gin "
          + "audit does, with nothing to install: the fair deal, both signatures, every move and the "
          + "scores, in gin audit's words. Then it replays each verified hand move by move with both "
          + "hands face up. The files stay in this page: nothing is sent anywhere.",
      ],
    },
  ];
}

/** The keys, for the Keys dialog: key, action. */
export const KEYS: [string, string][] = [
  ["← →", "select a card"],
  ["shift+← → or < >", "move the selected card (grouping off)"],
  ["t", "take the upcard / the discard"],
  ["s", "draw from the stock"],
  ["p", "pass the upcard"],
  ["d or Enter", "throw the selected card"],
  ["k", "knock or gin (asks, showing the count)"],
  ["l", "lay off after the computer knocks"],
  ["Enter or space", "next hand, when a hand is over"],
  ["h", "hint: Hard's move and why (against the computer)"],
  ["u", "take back your last throw (against the computer, before it moves)"],
  ["c", "the score sheet: every hand of the match"],
  ["v", "the whole discard pile"],
  ["g", "group my sets and runs on / off"],
  ["1 2 3", "easy, normal, hard"],
  ["r / n", "next ruleset / new match"],
  ["f", "full-screen table"],
  ["i / ?", "how to play / the keys"],
  ["Esc", "close a window"],
];

// -- online ---------------------------------------------------------------------

/**
 * How the link to the friend stands, as one phrase: the terminal's words too
 * (client/net/peer.py, Link). "Away" while the relay keeps the friend's seat, "left"
 * once it gave the seat up. `started`: the friend came (a hand was dealt, or they were met).
 */
export function connectionWords(connection: Connection, role: "host" | "guest", started: boolean): string {
  switch (connection) {
    case "connecting": return "Connecting to the relay…";
    case "waiting":
      if (started) return AWAY;
      return role === "host" ? "Waiting for your friend to open the link" : "Waiting for your friend, the host";
    case "connected": return "Connected to your friend";
    case "reconnecting": return "Connection lost — reconnecting…";
    case "peer-left": return AWAY;
    case "peer-gone": return "Your friend left — waiting in case they come back";
    case "closed": return "Disconnected";
  }
}

const AWAY = "Your friend is away — waiting for them to come back";

/** The connection line: how the match ended once it has, else {@link connectionWords}
 * (a friend met in the handshake is away, not yet to come, even before the first deal). */
export function statusWords(view: Pick<PeerView, "connection" | "role" | "observation" | "over" | "failure"
  | "identity">): string {
  if (view.failure !== null) return "The match was stopped";
  if (view.over) return "The match is over";
  return connectionWords(view.connection, view.role, view.observation !== null || view.identity.friend !== null);
}

/** What the friend's device owes now (a message type of protocol.md), in words; its move is said apart. */
const OWED: Readonly<Record<Exclude<Owed, "move">, string>> = {
  welcome: "to answer your invitation",
  hello: "to say hello",
  start: "to start the match",
  commit: "to seal its secret number for this deck",
  deck: "to send its part of the shuffle",
  deal: "to deal",
  key: "to send the key to your card",
  show: "to show its knock",
  seed: "to reveal its secret number, to check the deck",
};

/** This side asked for a rematch (or began it) that the friend has yet to accept. */
export function rematchAwaited(view: Pick<PeerView, "rematch" | "rematchWanted" | "waitingFor">): boolean {
  return view.rematchWanted || (view.rematch && (view.waitingFor === "welcome" || view.waitingFor === "hello"));
}

/** The host asked for a rematch, and the friend has left (the relay gave their seat up):
 * no rematch on this link, as the terminal says it. */
export const FRIEND_LEFT_REMATCH = "Your friend has left, so there is no rematch on this link. "
  + "Host a new match, with a new link to send them?";

/** Whose move it is, or what the friend's device owes. */
export function turnWords(
  view: Pick<PeerView, "legal" | "waitingFor" | "over" | "failure" | "rulesOffered" | "connection" | "rematch"
    | "rematchWanted">,
): string {
  if (view.failure !== null) return "The match was stopped";
  if (rematchAwaited(view)) return "Waiting for your friend to accept the rematch";
  if (view.over) return "The match is over";
  if (view.rulesOffered !== null) {
    return view.rematch ? "Your friend offers a rematch: accept or decline"
      : "Your friend proposes custom rules: accept or decline";
  }
  if (view.legal.length) return "Your move";
  if (view.connection !== "connected") return ""; // the connection line says what is awaited
  if (view.waitingFor === "move") return "Your friend's move";
  if (view.waitingFor === null) return "";
  return `Waiting for your friend's device ${OWED[view.waitingFor]}`;
}

/** `document.body.dataset.state` for tests and demonstrations. */
export type PageState = "waiting" | "playing" | "match-over" | "failed";

export function pageState(view: Pick<PeerView, "failure" | "over" | "observation" | "connection">): PageState {
  if (view.failure !== null) return "failed";
  if (view.over) return "match-over";
  const away = view.connection === "waiting" || view.connection === "peer-left" || view.connection === "peer-gone"
    || view.connection === "connecting";
  return view.observation === null || away ? "waiting" : "playing";
}

/** A wait in words: minutes and seconds within the hour, else about how many hours (as the terminal says it). */
export function howLong(seconds: number): string {
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const hours = Math.round(seconds / 3600);
  return `about ${hours} hour${hours === 1 ? "" : "s"}`;
}

/** The friend's grace ran out (protocol.md §11.3): what it owes, since when (UTC seconds), and the choice. */
export function graceWords(owed: Owed, since: number, now: number): string[] {
  const waited = Math.max(0, Math.floor(now - since));
  const at = new Date(since * 1000).toISOString().slice(11, 19);
  const what = owed === "move" ? "it is their move" : `their device has yet ${OWED[owed]}`;
  return [`Your friend has not answered since ${at} UTC (${howLong(waited)}): ${what}. `
    + "They may have stopped answering, or the relay may have lost their message.",
  "Keep waiting, or end the match as abandoned by your friend? That is not a cheat verdict and nobody forfeits; "
    + "your signed record of it is kept, and your record counts it apart from wins."];
}

/** The failure as the player reads it: what happened, what failed, who is at fault. */
export function failureLines(failure: FailureView): string[] {
  if (failure.kind === "Abandoned") { // this player ended it: no fault is named, nothing is proven
    const said = failure.reason.slice(failure.reason.indexOf(": ") + 2).replace(/([^.])$/, "$1.");
    return [`Abandoned by your friend (the ${failure.who}): ${said}`,
      "Saved as a signed record you can audit: download it from the side (gin audit reads it)."];
  }
  if (failure.kind === "ClaimedAbandoned") return [failure.reason, "It is their word, not a verdict: nobody forfeits."];
  if (failure.kind === "LeftOwing") {
    return [failure.reason, "You owed nothing, so the match counts as abandoned by your friend. Not a cheat: nobody forfeits."];
  }
  if (failure.kind === "FriendLeft") return [failure.reason, "Nobody is at fault and nobody forfeits."];
  const lines = [failure.reason];
  if (failure.field) lines.push(`What failed: ${failure.field}.`);
  if (failure.who) lines.push(`At fault: ${failure.who}${failure.proven ? " (proven: the match is forfeited)" : ""}.`);
  return lines;
}

/** A declined rematch, a normal end of the series on the link (nobody is at fault): the
 * window's text, from the guest's (who declined) or the host's side. */
export function declinedWords(role: "host" | "guest"): string {
  return `${role === "guest" ? "You" : "Your friend"} declined the rematch, so the matches on this link end here. `
    + "Nothing failed and nobody is at fault; the records of the hands played stay in the side.";
}

/** The title of the failure's window. */
export function failureTitle(failure: FailureView): string {
  switch (failure.kind) {
    case "CheatDetected": return "Cheating detected";
    case "PeerTimedOut": return "Your friend stopped answering";
    case "PeerAborted": return "Your friend ended the match";
    case "Abandoned": return "Abandoned by your friend";
    case "ClaimedAbandoned": return "Your friend ended the match: abandoned by you, it says";
    case "LeftOwing": return "Your friend left the match";
    case "FriendLeft": return "Your friend has left this match";
    case "RulesDeclined": return "The rules were declined";
    case "OpenedElsewhere": return "This match was opened in another tab";
    case "SeatTaken": return "Someone has already joined with this link";
    default: return "The match was stopped";
  }
}

// -- undo and the score sheet ---------------------------------------------------

export const UNDO_NONE = "Nothing to take back: only your last throw can be, before the computer "
  + "starts its answer.";

export function undone(card: Card): string {
  return `Throw taken back: the ${card.glyph} is in your hand again. Throw a card.`;
}

/** The score sheet's column heads. */
export function sheetColumns(them: string = THEM): string[] {
  return ["Hand", "Result", "Points", "You", them === THEM ? "Computer" : "Friend", "Boxes"];
}

function whoName(player: number | null, me: number, them: string): string {
  return player === me ? "You" : them;
}

function midSentence(name: string): string {
  return name.slice(0, 1).toLowerCase() + name.slice(1);
}

/** How one hand ended, from seat `me`: "You knocked", "The computer went gin". */
export function sheetResult(row: SheetRow, me: number, them: string = THEM): string {
  if (row.kind === "dead") return "Dead hand";
  const who = whoName(row.knocker, me, them);
  if (row.kind === "undercut") return `${who} knocked, ${midSentence(whoName(row.winner, me, them))} undercut`;
  return `${who} ${row.kind === "gin" ? "went gin" : row.kind === "big_gin" ? "went big gin" : "knocked"}`;
}

/** The sheet's cells, a row per hand, in the order of {@link sheetColumns}. */
export function sheetRows(rows: readonly SheetRow[], me = 0, them: string = THEM): string[][] {
  return rows.map((row) => [
    String(row.number), sheetResult(row, me, them),
    row.winner === null ? "—" : `${row.points} to ${midSentence(whoName(row.winner, me, them))}`,
    String(row.totals[me]), String(row.totals[1 - me]), `${row.boxes[me]}–${row.boxes[1 - me]}`,
  ]);
}

/** Under the sheet: the match in play, or its final totals. */
export function sheetNote(totals: MatchTotals | null, me = 0, them: string = THEM): string {
  if (totals === null) return "Points for each hand won; boxes count the hands each player won.";
  const winner = totals.winner === me ? "You win" : `${them} wins`;
  return `${winner} the match, ${totals.totals[me]} to ${totals.totals[1 - me]} with the bonuses.`;
}

/**
 * Where this page's code came from and which relay it plays on, in words (issue 27):
 * the line "Board from … · relay …", then what it means for trust. `board` and `relay`
 * are web addresses (the page's origin, the relay's address).
 */
export function originWords(board: string, relay: string): [string, string] {
  const site = siteName;
  const same = (() => {
    try {
      return new URL(board).origin === new URL(relay).origin;
    } catch {
      return false;
    }
  })();
  if (same) {
    return [`Board from ${site(board)} · relay ${site(relay)}: the same server`,
      "The relay sent this page's code, so it could read your hand or play it for you. To play this match "
      + "in a board you trust, open your own (gin web, or a published board), choose Join with a link and "
      + "paste the invite link; or run gin join in a terminal."];
  }
  return [`Board from ${site(board)} · relay ${site(relay)}`,
    `This page's code came from ${site(board)}, which you trust with your cards. The relay at ${site(relay)} `
    + "only passes sealed messages: it cannot read or play your hand."];
}

/** A newer build of the board waits (board/install.ts): its digest is /version's "build". */
export const updateWords = {
  ready: (build: string): string => `A new version of the board is ready (build ${build.slice(0, 16)}).`,
  button: (when: "now" | "hand" | "match"): string =>
    when === "now" ? "Use the new version" : when === "hand" ? "Use it after this hand" : "Use it after this match",
  when: (when: "now" | "hand" | "match", chosen: boolean): string => {
    const after = when === "hand" ? "this hand" : "the online match";
    if (when === "now") return "It starts when you choose, or the next time the board opens.";
    return chosen ? `It starts as soon as ${after} is over.`
      : `It can start once ${after} is over, or the next time the board opens.`;
  },
};
