/**
 * Your identity and your known friends, kept in this browser's storage for the site
 * (protocol.md §4, §7.1): the twin of client/identity.py.
 *
 * The identity key is made on first use and kept, so your friends see the same five
 * words for you each time. Storage is per site: the relay that served the page, so
 * the same browser has another identity on another relay. A damaged key is set
 * aside (kept under another name) and a new one made, and you are told that your
 * friends will see a new identity. Known friends remember, by invite link, the
 * identity your friend showed there and, by identity, how many matches you played
 * with it, so the board can say whether a friend is new, known, or no longer the one
 * this link showed before.
 */

import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

import type { IdentityData } from "./messages.ts";

const IDENTITY_KEY = "gin-identity";
const FRIENDS_KEY = "gin-friends";
const FORMAT = 1;
const SEED_BYTES = 32;
const MAX_MATCHES_KEPT = 1000; // match ids remembered per friend, to count matches once each
const HEX64 = /^[0-9a-f]{64}$/;

/** Your identity key's secret bytes; `warning` when a damaged one was set aside. */
export interface LocalIdentity {
  readonly secret: Uint8Array;
  readonly warning: string | null;
}

/** Your friend as this board shows them. */
export interface Friend {
  readonly words: string;
  /** Matches played with this identity before this one. */
  readonly matches: number;
  /** The words this link showed before, when they changed. */
  readonly was: string | null;
}

/** How the board says who your friend is. */
export function describeFriend(friend: Friend): string {
  if (friend.was !== null) {
    return `your friend's identity on this link changed: was ${friend.was}, now ${friend.words}; `
      + "someone else may hold this link";
  }
  if (friend.matches === 0) return `your friend: ${friend.words} (new: you have not played this identity before)`;
  return `your friend: ${friend.words} (known: ${friend.matches} match${friend.matches === 1 ? "" : "es"} before)`;
}

function read(storage: Storage | null, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage: Storage | null, key: string, text: string): boolean {
  try {
    storage?.setItem(key, text);
    return storage !== null;
  } catch {
    return false;
  }
}

/** Move a damaged entry aside (`KEY.damaged-TIME`), where nothing overwrites it; its new name. */
function setAside(storage: Storage | null, key: string, text: string, now: number): string {
  const aside = `${key}.damaged-${now}`;
  write(storage, aside, text);
  try {
    storage?.removeItem(key);
  } catch {
    // It is overwritten next.
  }
  return aside;
}

/** This browser's identity key for the site, made and kept on first use. Without
 * storage (site data blocked) the key lives for this page alone. */
export function loadIdentity(storage: Storage | null, randomBytes: (n: number) => Uint8Array,
  now: () => number = Date.now): LocalIdentity {
  const text = read(storage, IDENTITY_KEY);
  let warning: string | null = null;
  if (text !== null) {
    try {
      const data = JSON.parse(text) as { format?: unknown; key?: unknown };
      if (data.format === FORMAT && typeof data.key === "string" && HEX64.test(data.key)) {
        return { secret: hexToBytes(data.key), warning: null };
      }
    } catch {
      // Not JSON: damaged, as below.
    }
    const aside = setAside(storage, IDENTITY_KEY, text, now());
    warning = `Your identity key kept in this browser was damaged; it was moved to ${aside}. A new identity key `
      + "was made: your friends will see a new identity.";
  }
  const secret = randomBytes(SEED_BYTES);
  write(storage, IDENTITY_KEY, JSON.stringify({ format: FORMAT, key: bytesToHex(secret) }));
  return { secret, warning };
}

interface FriendsData {
  format: number;
  links: Record<string, IdentityData>;
  seen: Record<string, string[]>;
}

function parseFriends(text: string): FriendsData | null {
  try {
    const data = JSON.parse(text) as FriendsData;
    const ok = data.format === FORMAT && typeof data.links === "object" && data.links !== null
      && Object.values(data.links).every((v) => typeof v?.hex === "string" && HEX64.test(v.hex)
        && typeof v.words === "string")
      && typeof data.seen === "object" && data.seen !== null
      && Object.values(data.seen).every((v) => Array.isArray(v) && v.every((m) => typeof m === "string"));
    return ok ? data : null;
  } catch {
    return null;
  }
}

/** Note that `friend` plays match `matchId` on the link `linkId` (hex); how the board
 * should show them, and warnings for the player. */
export function meetFriend(storage: Storage | null, linkId: string, friend: IdentityData, matchId: string,
  now: () => number = Date.now): { friend: Friend; warnings: string[] } {
  const warnings: string[] = [];
  const text = read(storage, FRIENDS_KEY);
  let data: FriendsData = { format: FORMAT, links: {}, seen: {} };
  if (text !== null) {
    const parsed = parseFriends(text);
    if (parsed === null) {
      const aside = setAside(storage, FRIENDS_KEY, text, now());
      warnings.push(`Your known friends kept in this browser were damaged; they were moved to ${aside}. Your known `
        + "friends start again from this match.");
    } else {
      data = parsed;
    }
  }
  const before = data.links[linkId];
  const matches = (data.seen[friend.hex] ?? []).filter((m) => m !== matchId);
  const was = before === undefined || before.hex === friend.hex ? null : before.words;
  data.links[linkId] = { hex: friend.hex, words: friend.words };
  data.seen[friend.hex] = [...matches, matchId].slice(-MAX_MATCHES_KEPT);
  if (storage !== null && !write(storage, FRIENDS_KEY, JSON.stringify(data))) {
    warnings.push("Your known friends could not be updated (this browser's storage for the site refused it).");
  }
  return { friend: { words: friend.words, matches: matches.length, was }, warnings };
}
