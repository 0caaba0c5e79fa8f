/**
 * Invite links, the twin of client/net/links.py, in two forms: `http[s]://RELAY/j/ROOM#SECRET`
 * opens the board the relay serves, and `http[s]://BOARD?relay=RELAY&room=ROOM#SECRET` opens
 * the board at BOARD (any origin: a static site, the player's own `gin web`) on the relay
 * RELAY. The secret, 32 bytes in url-safe base64 without padding, lives only in the
 * fragment, which a browser never sends to a server; it is never stored.
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";


export const SECRET_BYTES = 32;
const ROOM = /^[A-Za-z0-9_-]{32}$/;
const B64URL = /^[A-Za-z0-9_-]{43}$/;

/** An invite link that does not parse; the message names what is wrong (never the secret). */
export class InvalidLink extends Error {}

export interface Invite {
  /** The relay's address: scheme, host and any path prefix, no trailing "/". */
  readonly relay: string;
  readonly room: string;
  readonly secret: Uint8Array;
  /** The board the link opens (its address without query or fragment), or null/absent for
   * the relay's own page (`RELAY/j/ROOM`). */
  readonly board?: string | null;
}

export function encodeSecret(secret: Uint8Array): string {
  let text = "";
  for (const byte of secret) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeSecret(text: string): Uint8Array {
  if (!B64URL.test(text)) {
    throw new InvalidLink("the secret after '#' must be 43 url-safe base64 characters; copy the whole link");
  }
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=");
  const secret = Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
  if (secret.length !== SECRET_BYTES || encodeSecret(secret) !== text) {
    throw new InvalidLink("the secret after '#' is not 32 bytes; copy the whole link");
  }
  return secret;
}

/** A relay's address in a board link's query: escaped, but its ":" and "/" kept readable. */
function queryValue(text: string): string {
  return readable(encodeURIComponent(text));
}

const readable = (escaped: string): string => escaped.replace(/%3A/gi, ":").replace(/%2F/gi, "/");

/** A page's query as text (without "?"), its relay's ":" and "/" kept readable as in a link. */
export function queryText(query: URLSearchParams): string {
  return readable(query.toString());
}

export function formatInvite(invite: Invite): string {
  const secret = encodeSecret(invite.secret);
  if (invite.board != null) return `${invite.board}?relay=${queryValue(invite.relay)}&room=${invite.room}#${secret}`;
  return `${invite.relay}/j/${invite.room}#${secret}`;
}

/** A relay's address (http or https, no query, fragment or user name), without a trailing "/". */
export function parseRelay(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidLink(`the relay address is not a web address: ${JSON.stringify(text.trim().slice(0, 80))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidLink("a relay's address starts with http:// or https://");
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new InvalidLink("a relay's address has no '?', '#' or user name");
  }
  return url.origin + url.pathname.replace(/\/+$/, "");
}

/** A board's address for a link (http or https, no query or fragment). */
export function parseBoard(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidLink(`the board's address is not a web address: ${JSON.stringify(text.trim().slice(0, 80))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidLink("a board's address starts with http:// or https://");
  }
  if (url.username !== "" || url.password !== "") throw new InvalidLink("a board's address has no user name");
  return url.origin + url.pathname;
}

/** Parse an invite link; InvalidLink says what is wrong without echoing the secret. */
export function parseInvite(text: string): Invite {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidLink("the invite link is not a web address");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidLink("an invite link starts with http:// or https://");
  }
  const named = url.searchParams.get("relay");
  let relay: string;
  let room: string;
  let board: string | null = null;
  if (named !== null) {
    relay = parseRelay(named);
    room = url.searchParams.get("room") ?? "";
    board = url.origin + url.pathname;
    if (!ROOM.test(room)) throw new InvalidLink("the room id after room= must be 32 url-safe base64 characters");
  } else {
    const at = url.pathname.lastIndexOf("/j/");
    if (at < 0) throw new InvalidLink("an invite link's path ends in /j/ROOM, or it names ?relay=…&room=…");
    room = url.pathname.slice(at + 3);
    relay = url.origin + url.pathname.slice(0, at);
    if (!ROOM.test(room)) throw new InvalidLink("the room id after /j/ must be 32 url-safe base64 characters");
  }
  if (url.hash.length <= 1) {
    throw new InvalidLink("the invite link has no secret after '#'; copy the whole link, including the part after '#'");
  }
  return { relay, room, secret: decodeSecret(url.hash.slice(1)), board };
}

/** Where a page is: its origin, path and query (the browser's `location`). */
export interface PageLocation {
  readonly origin: string;
  readonly pathname: string;
  readonly search?: string;
}

/** The relay a page at `location` plays on: the one its address names (`?relay=…`), else the
 * relay that served it (a board at "/" or "/prefix/", or an invite at ".../j/ROOM"). */
export function relayOfPage(location: PageLocation): string {
  const named = new URLSearchParams(location.search ?? "").get("relay");
  if (named !== null) return parseRelay(named);
  const path = location.pathname;
  const at = path.lastIndexOf("/j/");
  const base = at >= 0 ? path.slice(0, at) : path.slice(0, path.lastIndexOf("/"));
  return location.origin + base;
}

/** The board a page at `location` is, when its address names its relay (`?relay=…`): its
 * own address for the links it makes; null for a page its relay serves (`/j/ROOM` links). */
export function boardOfPage(location: PageLocation): string | null {
  return new URLSearchParams(location.search ?? "").has("relay") ? location.origin + location.pathname : null;
}

/** A site as a player reads it: its host and any port ("relay.example.org", "127.0.0.1:8765"). */
export function siteName(address: string): string {
  try {
    return new URL(address).host;
  } catch {
    return address;
  }
}

/** The relay's websocket address for an http(s) relay address. */
export function websocketBase(relay: string): string {
  return relay.replace(/^http/, "ws");
}

/**
 * protocol.md §4's link id, which names the match in this browser's storage:
 * `SHA-256("gin/session/v2/link-id" ‖ 00 ‖ S)[:16]`, as hex. The page's thread
 * computes it here rather than through protocol/records/cosign.ts's linkIdFor, whose module
 * brings Ed25519 into board.js; a node test pins both to the same value.
 */
export function linkIdHex(secret: Uint8Array): string {
  const digest = sha256(concatBytes(new TextEncoder().encode("gin/session/v2/link-id"), new Uint8Array([0]), secret));
  return bytesToHex(digest.subarray(0, 16));
}
