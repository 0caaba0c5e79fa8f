/**
 * Online matches kept in the browser's storage (localStorage), so a reload or a
 * closed tab continues the match: the twin of client/net/store.py's MatchFiles.
 *
 * One entry per match, named by its link id (protocol.md §4), holding the
 * session's state (this hand's secret seed and signing key: it stays in this
 * browser), the relay's address and room, the seat token and ticket; the verified
 * hands' records in a second entry. The invite secret itself is never stored: the
 * page keeps it in its address's fragment, and the link id cannot be turned back
 * into it. When the match ends, the state (and its secrets) is dropped and a note
 * of the outcome stays, so the same link says the match is over.
 */

import type { RecordView, StoredMatch } from "./api.ts";

const PREFIX = "gin-online:";
const RECORDS = "gin-online-records:";
const FORMAT = 1;

/** The page's localStorage, or null where site data is blocked (reading it throws there). */
export function pageStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** What is kept of one match. */
export interface MatchEntry {
  readonly format: number;
  readonly role: "host" | "guest";
  /** The relay's http(s) address (with any path prefix) and the room: the link without its secret. */
  readonly relay: string;
  readonly room: string;
  readonly token: string;
  readonly ticket: string | null;
  readonly savedAt: number;
  /** The session's state (state_codec.ts), or null once the match is over. */
  readonly state: string | null;
  /** How the match ended, once it has. */
  readonly finished: string | null;
}

/** Storage refused an entry: full, blocked, or switched off. Plain words for the player. */
export class StoreError extends Error {}

function problem(exc: unknown, doing: string): StoreError {
  const name = exc instanceof DOMException ? exc.name : "";
  const why = name === "QuotaExceededError"
    ? "this browser's storage for the site is full"
    : name === "SecurityError" ? "this browser blocks storage for the site" : String(exc);
  return new StoreError(`The match could not be ${doing} (${why}).`);
}

export class MatchStore {
  constructor(private readonly storage: Storage | null, private readonly now: () => number = Date.now) {}

  /** The entry of a match by its link id (hex), or null; damaged entries read as null. */
  load(linkId: string): MatchEntry | null {
    const text = this.read(PREFIX + linkId);
    if (text === null) return null;
    try {
      const entry = JSON.parse(text) as MatchEntry;
      return entry !== null && typeof entry === "object" && entry.format === FORMAT
        && (entry.role === "host" || entry.role === "guest") && typeof entry.room === "string"
        && typeof entry.relay === "string" && typeof entry.token === "string" ? entry : null;
    } catch {
      return null;
    }
  }

  /** Store an entry (write-ahead: before the frames it covers are sent). StoreError if refused. */
  save(linkId: string, entry: Omit<MatchEntry, "format" | "savedAt">): void {
    this.write(PREFIX + linkId, JSON.stringify({ format: FORMAT, savedAt: this.now(), ...entry }), "saved");
  }

  records(linkId: string): RecordView[] {
    const text = this.read(RECORDS + linkId);
    try {
      const records: unknown = text === null ? [] : JSON.parse(text);
      return Array.isArray(records) ? (records as RecordView[]) : [];
    } catch {
      return [];
    }
  }

  saveRecords(linkId: string, records: readonly RecordView[]): void {
    this.write(RECORDS + linkId, JSON.stringify(records), "recorded");
  }

  remove(linkId: string): void {
    try {
      this.storage?.removeItem(PREFIX + linkId);
      this.storage?.removeItem(RECORDS + linkId);
    } catch {
      // Nothing to keep safe: storage that cannot be written cannot be cleared either.
    }
  }

  /** Matches in progress, newest first; the links have no secret (open them from the invite). */
  stored(): StoredMatch[] {
    const found: StoredMatch[] = [];
    for (const key of this.keys()) {
      if (!key.startsWith(PREFIX)) continue;
      const entry = this.load(key.slice(PREFIX.length));
      if (entry !== null && entry.finished === null && entry.state !== null) {
        found.push({ role: entry.role, link: `${entry.relay}/j/${entry.room}`, savedAt: entry.savedAt });
      }
    }
    return found.sort((a, b) => b.savedAt - a.savedAt);
  }

  /** Drop the kept match whose link (without its secret) is `link`: state and records. */
  forget(link: string): void {
    if (this.storage === null) return;
    for (const key of this.keys()) {
      if (!key.startsWith(PREFIX)) continue;
      const linkId = key.slice(PREFIX.length);
      const entry = this.load(linkId);
      if (entry !== null && `${entry.relay}/j/${entry.room}` === link) this.remove(linkId);
    }
  }

  /** True when a match in progress in `room` is kept (whose link's secret the page lacks). */
  keeps(room: string): boolean {
    return this.stored().some((match) => match.link.endsWith(`/j/${room}`));
  }

  /** The storage's keys (none where it cannot be read). */
  private keys(): string[] {
    if (this.storage === null) return [];
    try {
      return Array.from({ length: this.storage.length }, (_, i) => this.storage!.key(i) ?? "");
    } catch {
      return [];
    }
  }

  private read(key: string): string | null {
    try {
      return this.storage?.getItem(key) ?? null;
    } catch {
      return null;
    }
  }

  private write(key: string, text: string, doing: string): void {
    if (this.storage === null) throw new StoreError(`The match could not be ${doing} (this browser keeps no site data here).`);
    try {
      this.storage.setItem(key, text);
    } catch (exc) {
      throw problem(exc, doing);
    }
  }
}
