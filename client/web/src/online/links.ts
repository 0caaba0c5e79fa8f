/**
 * Invite links, the twin of client/net/links.py: `http[s]://RELAY/j/ROOM#SECRET`, the
 * secret 32 bytes in url-safe base64 without padding. The secret lives only in the
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

export function formatInvite(invite: Invite): string {
  return `${invite.relay}/j/${invite.room}#${encodeSecret(invite.secret)}`;
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
  const at = url.pathname.lastIndexOf("/j/");
  if (at < 0) throw new InvalidLink("an invite link's path ends in /j/ROOM");
  const room = url.pathname.slice(at + 3);
  if (!ROOM.test(room)) throw new InvalidLink("the room id after /j/ must be 32 url-safe base64 characters");
  if (url.hash.length <= 1) {
    throw new InvalidLink("the invite link has no secret after '#'; copy the whole link, including the part after '#'");
  }
  return { relay: url.origin + url.pathname.slice(0, at), room, secret: decodeSecret(url.hash.slice(1)) };
}

/** The relay that served a page at `location` (a board at "/" or "/prefix/", or an invite at ".../j/ROOM"). */
export function relayOfPage(location: { origin: string; pathname: string }): string {
  const path = location.pathname;
  const at = path.lastIndexOf("/j/");
  const base = at >= 0 ? path.slice(0, at) : path.slice(0, path.lastIndexOf("/"));
  return location.origin + base;
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
