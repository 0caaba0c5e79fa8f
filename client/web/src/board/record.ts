/**
 * Your record: every finished match, kept in this browser, and its statistics (the
 * browser twin of client/record.py; both summarize tests/fixtures/record.json in
 * their tests and must agree).
 *
 * An entry, seen from the player (seat 0 is always "you"):
 * `{opponent: "computer:hard", won, at, hands: [{kind, knocker, winner, points}],
 * totals: [you, them] | null, boxes: [you, them] | null}`. `opponent` is
 * `computer:<strength>` or `friend:<id>`: a friend is known by the five words of its
 * identity (protocol.md §4), whatever link it plays on; a match that ended before the
 * friend's identity was known (and records from before identities) by the invite
 * link's id (its first 16 hex digits). `boxes`
 * are the box bonus points; `totals` and `boxes` are null for a forfeited match.
 */

export const RECORD_KEY = "gin.board.record";
const FORMAT = 1;
const HAND_KINDS = ["knock", "gin", "big_gin", "undercut", "dead"];
const COMPUTERS = ["computer:easy", "computer:normal", "computer:hard"];

export interface HandLine {
  readonly kind: string;
  readonly knocker: number | null;
  readonly winner: number | null;
  readonly points: number;
}

export interface MatchEntry {
  readonly opponent: string;
  readonly won: boolean;
  readonly at: string;
  readonly hands: readonly HandLine[];
  readonly totals: readonly [number, number] | null;
  readonly boxes: readonly [number, number] | null;
  /** The match ended because one side fell silent: "friend" (this player ended it) or
   * "you" (the friend ended it); never a win (client/record.py). */
  readonly abandoned?: "friend" | "you";
}

/** One line of statistics (the keys are client/record.py's, for the shared fixture). */
export interface RecordLine {
  matches: number;
  matches_won: number;
  hands: number;
  hands_won: number;
  gins: number;
  undercuts: number;
  knocks: number;
  boxes: number;
  points: number;
  average_points: number;
  longest_run: number;
  abandoned_by_friend: number;
  abandoned_by_you: number;
}

export interface Summary {
  overall: RecordLine;
  opponents: (RecordLine & { opponent: string; label: string })[];
}

/** Somewhere to keep text (localStorage; a map in tests). */
export interface TextStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** "Computer (hard)", "Friend (maple otter pebble quilt robin)", "Friend (link 1a2b3c4d)". */
export function opponentLabel(key: string): string {
  const at = key.indexOf(":");
  const kind = at < 0 ? key : key.slice(0, at);
  const name = at < 0 ? "" : key.slice(at + 1);
  if (kind === "computer") return `Computer (${name})`;
  if (kind === "friend") {
    if (!name) return "A friend";
    return /^[0-9a-f]{16}$/.test(name) ? `Friend (link ${name.slice(0, 8)})` : `Friend (${name})`;
  }
  return key;
}

/** A friend's key: the words of its identity, or the link's id while none is known. */
export function friendKey(identityWords: string | null, linkHex: string): string {
  return `friend:${identityWords ?? linkHex.slice(0, 16)}`;
}

/** The entry of a finished match; `me` is the player's seat, hands and totals in seats. */
export function matchEntry(opponent: string, me: number, winner: number | null, hands: readonly HandLine[],
                           totals: { totals: readonly number[]; boxBonus: readonly number[] } | null,
                           at: string, abandoned: "friend" | "you" | null = null): MatchEntry {
  const turn = (seat: number | null): number | null => (seat === null ? null : seat === me ? 0 : 1);
  const mine = (pair: readonly number[]): [number, number] => [pair[me]!, pair[1 - me]!];
  return {
    opponent, won: winner === me, at,
    hands: hands.map((h) => ({ kind: h.kind, knocker: turn(h.knocker), winner: turn(h.winner), points: h.points })),
    totals: totals === null ? null : mine(totals.totals),
    boxes: totals === null ? null : mine(totals.boxBonus),
    ...(abandoned === null ? {} : { abandoned }),
  };
}

const isSeat = (v: unknown): boolean => v === null || v === 0 || v === 1;
const isPair = (v: unknown): boolean =>
  v === null || v === undefined || (Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n)));

/** The entries of a stored record; throws an Error saying what is wrong with it. */
export function parse(data: unknown): MatchEntry[] {
  const d = data as { format?: unknown; matches?: unknown } | null;
  if (d === null || typeof d !== "object" || Array.isArray(d) || d.format !== FORMAT) {
    throw new Error("it is not a record of matches (format 1)");
  }
  if (!Array.isArray(d.matches)) throw new Error("it has no list of matches");
  d.matches.forEach((m: Partial<MatchEntry> | null, i: number) => {
    const where = `match ${i + 1}`;
    if (m === null || typeof m !== "object" || typeof m.opponent !== "string" || typeof m.won !== "boolean"
        || typeof m.at !== "string") throw new Error(`${where} lacks its opponent, result or date`);
    if (!Array.isArray(m.hands)) throw new Error(`${where} has no list of hands`);
    for (const h of m.hands as Partial<HandLine>[]) {
      if (h === null || typeof h !== "object" || !HAND_KINDS.includes(h.kind as string) || !isSeat(h.knocker)
          || !isSeat(h.winner) || !Number.isInteger(h.points) || h.points! < 0) {
        throw new Error(`${where} has a hand that is not kind, knocker, winner, points`);
      }
    }
    if (m.abandoned !== undefined && m.abandoned !== "friend" && m.abandoned !== "you") {
      throw new Error(`${where} was abandoned by neither the friend nor you`);
    }
    if (!isPair(m.totals)) throw new Error(`${where}'s totals is not two whole numbers`);
    if (!isPair(m.boxes)) throw new Error(`${where}'s boxes is not two whole numbers`);
  });
  return d.matches as MatchEntry[];
}

function line(matches: readonly MatchEntry[]): RecordLine {
  const hands = matches.flatMap((m) => m.hands);
  const won = hands.filter((h) => h.winner === 0);
  const points = won.reduce((sum, h) => sum + h.points, 0);
  let run = 0;
  let longest = 0;
  for (const m of matches) {
    run = m.won ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return {
    matches: matches.length,
    matches_won: matches.filter((m) => m.won).length,
    hands: hands.length,
    hands_won: won.length,
    gins: won.filter((h) => h.kind === "gin" || h.kind === "big_gin").length,
    undercuts: won.filter((h) => h.kind === "undercut").length,
    knocks: won.filter((h) => h.kind === "knock").length,
    boxes: matches.reduce((sum, m) => sum + (m.boxes ? m.boxes[0] : 0), 0),
    points,
    // Halves round up, as in client/record.py: the same float in both.
    average_points: hands.length ? Math.floor((points * 10) / hands.length + 0.5) / 10 : 0,
    longest_run: longest,
    abandoned_by_friend: matches.filter((m) => m.abandoned === "friend").length,
    abandoned_by_you: matches.filter((m) => m.abandoned === "you").length,
  };
}

/** Overall and per opponent (the computer's strengths first, then friends by first match). */
export function summarize(matches: readonly MatchEntry[]): Summary {
  const rank = (key: string): number => (COMPUTERS.includes(key) ? COMPUTERS.indexOf(key) : COMPUTERS.length);
  const first = (key: string): number => matches.findIndex((m) => m.opponent === key);
  const keys = [...new Set(matches.map((m) => m.opponent))]
    .sort((a, b) => rank(a) - rank(b) || first(a) - first(b));
  return {
    overall: line(matches),
    opponents: keys.map((key) => ({
      opponent: key, label: opponentLabel(key), ...line(matches.filter((m) => m.opponent === key)),
    })),
  };
}

/** Your record as kept in a store: read it, add a match. A damaged record is set aside
 * (kept under another key) and said, never thrown. */
export class RecordBook {
  /** Told after a match is added to any book (the record panel redraws). */
  private static readonly listeners: (() => void)[] = [];

  constructor(private readonly store: TextStore | null) {}

  static onAdded(listener: () => void): void {
    RecordBook.listeners.push(listener);
  }

  /** The entries, and what was wrong with a damaged record (set aside), or "". */
  load(): { matches: MatchEntry[]; problem: string } {
    const text = this.store?.getItem(RECORD_KEY) ?? null;
    if (text === null) return { matches: [], problem: "" };
    try {
      return { matches: parse(JSON.parse(text)), problem: "" };
    } catch (exc) {
      try {
        this.store!.setItem(`${RECORD_KEY}.damaged`, text);
        this.store!.removeItem(RECORD_KEY);
      } catch {
        // left where it is: it is set aside again next time
      }
      return { matches: [], problem: `Your record in this browser was damaged (${(exc as Error).message}); `
        + "it was set aside and a new record begins." };
    }
  }

  /** Add a finished match; the warnings for the player. */
  add(entry: MatchEntry): string[] {
    if (this.store === null) return ["This browser keeps no site data here, so your record is not kept."];
    const { matches, problem } = this.load();
    try {
      this.store.setItem(RECORD_KEY, JSON.stringify({ format: FORMAT, matches: [...matches, entry] }));
    } catch (exc) {
      return [...(problem ? [problem] : []), `This match could not be added to your record: ${(exc as Error).message}`];
    }
    for (const listener of RecordBook.listeners) listener();
    return problem ? [problem] : [];
  }
}
