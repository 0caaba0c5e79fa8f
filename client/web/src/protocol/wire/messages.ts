/**
 * The closed vocabulary of the session's messages (protocol.md §6.2): every type a peer
 * may send, and those it can owe; the twin of gin/protocol/wire/messages.py.
 *
 * Every table keyed by message type is keyed by these (a `Record` over them: the compiler
 * refuses one that misses a type or names one that is gone).
 */

/** What a peer can owe (`Session.waitingFor`). */
export const OWED_TYPES = ["hello", "welcome", "start", "commit", "deck", "deal", "move", "key", "show", "seed"] as const;
export type Owed = (typeof OWED_TYPES)[number];
/** Every message type of the session: what a peer can owe, and `abort`. */
export const MESSAGE_TYPES = [...OWED_TYPES, "abort"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
/** What a peer owes before the match starts: no hand is in play (a record says 0). */
export const HANDSHAKE: readonly Owed[] = ["hello", "welcome", "start"];

/** `type` as a message type of the vocabulary, or null. */
export function messageType(type: string): MessageType | null {
  return (MESSAGE_TYPES as readonly string[]).includes(type) ? type as MessageType : null;
}
