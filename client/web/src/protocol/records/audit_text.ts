/**
 * gin audit's words (gin/protocol/records/audit.py's replay text, client/commands/audit.py's
 * exit statuses): a hand told line by line, each move, the lay-down, the result and
 * the scores. Apart from the audit itself (audit.ts), so the board's page can tell
 * a replay in the same words without the fair deal's crypto, which stays in the
 * worker that audits.
 */

import { type Card, formatCards } from "../../engine/cards.ts";
import { dealtPositions, type Hand, UPCARD_POSITION } from "../../engine/hand.ts";
import type { Meld } from "../../engine/melds.ts";
import type { Event } from "../../engine/observation.ts";
import type { Outcome } from "../../engine/scoring.ts";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { HandRecord } from "./records.ts";
import { SEATS } from "./seats.ts";

export const VERIFIED = 0;
export const FAILED = 1;
export const NOT_A_RECORD = 2;
export const UNPROVEN = 3;
/** What each exit status means (gin's EXIT_STATUSES); when the files given differ,
 * the first of 2, 1, 3, 0 that applies to any of them is the status. */
export const EXIT_STATUSES: ReadonlyMap<number, string> = new Map([
  [VERIFIED, "every record verified and everything shown is proven"],
  [FAILED, "a record failed its audit: a player cheated, the record contradicts "
    + "itself (the finding says who is at fault), or the records of one invite link "
    + "do not form one history (two first matches, or other players: at most one "
    + "is the real match)"],
  [NOT_A_RECORD, "a file is missing, unreadable or not a hand record"],
  [UNPROVEN, "every record verified except what the records given cannot prove "
    + "(the scores of a later hand without the hands before it, the match a "
    + "rematch continues, or an abandonment: a player's signed word that its "
    + "peer fell silent)"],
]);

/** The hand of `record`, replayed in `hand` on `deck`, told line by line as gin
 * audit prints it before its verdict. */
export function tell(record: HandRecord, hand: Hand, deck: readonly Card[], unproven: boolean): string[] {
  const out = [`Hand ${record.handNumber} of match ${bytesToHex(record.matchId)} `
    + `(${record.rules.name} rules); ${SEATS[record.dealer]} deals and shuffles first`];
  for (const seat of [1 - record.dealer, record.dealer]) {
    const cards = dealtPositions(seat === record.dealer).map((p) => deck[p]!).sort(byRankThenSuit);
    out.push(`  ${SEATS[seat]} is dealt ${formatCards(cards)}`);
  }
  out.push(`  upcard ${deck[UPCARD_POSITION]}, knock limit ${hand.knockLimit}`);
  hand.events.forEach((event, i) => out.push(`  ${String(i + 1).padStart(3)}. ${eventText(event)}`));
  const result = hand.result;
  if (result !== null && result.outcome !== null) {
    const knocker = result.knocker!;
    out.push(...laidDown(result.outcome, SEATS[knocker]!, SEATS[1 - knocker]!));
  }
  if (result !== null) out.push(`  result: ${scoreText(result)}`);
  out.push(`  match scores after the hand: ${scoresText(record.scores)}${unproven ? " (not verified: see below)" : ""}`);
  return out;
}

/** gin's card order (rank, then suit), in which a dealt hand is told. */
const byRankThenSuit = (a: Card, b: Card): number => a.rank - b.rank || a.suit - b.suit;

/** The knocker's layout and the defender's, a line each (a gin has no deadwood). */
export function laidDown(outcome: Outcome, knocker: string, defender: string): string[] {
  const melds = (ms: readonly Meld[]): string => ms.map((m) => m.map(String).join("")).join(" ") || "none";
  const deadwood = (cards: readonly Card[], points: number): string =>
    cards.length ? `deadwood ${formatCards(cards)} = ${points}` : "no deadwood";
  const went = ({ gin: "goes gin", big_gin: "lays down big gin" } as Record<string, string>)[outcome.kind];
  const laid = outcome.layoffs.map(([c, i]) => `${c}>${i}`).join(" ") || "nothing";
  return [
    went === undefined
      ? `  ${knocker} lays out ${melds(outcome.knockerMelds)}, ${deadwood(outcome.knockerDeadwoodCards, outcome.knockerDeadwood)}`
      : `  ${knocker} ${went}: ${melds(outcome.knockerMelds)}, no deadwood`,
    `  ${defender} lays off ${laid}, melds ${melds(outcome.defenderMelds)}, `
      + deadwood(outcome.defenderDeadwoodCards, outcome.defenderDeadwood),
  ];
}

const VERBS: Readonly<Record<string, string>> = {
  pass: "passes the upcard",
  stock: "draws {card} from the stock",
  take: "takes {card}",
  discard: "discards {card}",
  knock: "knocks, discarding {card} face down",
  biggin: "lays down big gin",
  layoff: "answers the knock",
  dead: "leaves too few cards in the stock: the hand is dead",
};

/** One event of a hand as gin audit tells it: "host draws 7h from the stock". */
export function eventText(event: Event): string {
  return `${SEATS[event.player]} ${VERBS[event.kind]!.replace("{card}", String(event.card))}`;
}

/** A hand's result (a record's Score or the engine's HandResult) as gin audit words
 * it: "guest 2 by knock", "a dead hand". */
export function scoreText(score: { readonly winner: number | null; readonly points: number; readonly kind: string }): string {
  if (score.winner === null) return "a dead hand";
  return `${SEATS[score.winner]} ${score.points} by ${score.kind.replace("_", " ")}`;
}

/** The match scores as gin audit words them. */
export const scoresText = (scores: readonly number[]): string => `host ${scores[0]}, guest ${scores[1]}`;
