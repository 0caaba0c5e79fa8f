/**
 * What a saved session keeps besides its channel (the twin of gin/protocol/session_log.py):
 * the input log's entries and the failure, read back strictly — anything else is a
 * {@link CorruptState}, a local fault.
 */

import { MalformedInput } from "../engine/errors.ts";
import { equalBytes } from "./bytes.ts";
import type { Value } from "./msgpack.ts";
import { type Failure, FAILURES } from "./session_events.ts";
import * as wire from "./wire.ts";

/** A saved session that does not replay to the state it claims: damaged on this machine (never the peer's fault). */
export class CorruptState extends MalformedInput {}

/** One input of the log: its kind, then its arguments. */
export type LogEntry = Value[];

/** A failure as the saved state keeps it: [kind, who, field, reason]. */
export const failureEntry = (f: Failure): string[] => [f.kind, f.who, f.field, f.reason];

export function readFailure(value: Value): Failure | null {
  if (value === null) return null;
  if (!(Array.isArray(value) && value.length === 4 && typeof value[0] === "string" && FAILURES.has(value[0])
    && value.every((x) => typeof x === "string"))) {
    throw new CorruptState("session state: 'failure' must be [kind, who, field, reason]");
  }
  const [kind, who, field, reason] = value as string[];
  return new (FAILURES.get(kind!)!)(who!, field!, reason!);
}

const LOG_KINDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["rand", ["bytes"]], ["in", ["bytes"]], ["act", ["string"]], ["timeout", []], ["accept", []],
  ["reject", ["string", "string", "boolean"]], ["abandon", ["number", "number"]],
]);

export function readLog(entries: Value[]): LogEntry[] {
  return entries.map((entry, i) => {
    const want = Array.isArray(entry) && typeof entry[0] === "string" ? LOG_KINDS.get(entry[0]) : undefined;
    if (!(Array.isArray(entry) && want !== undefined && entry.length === 1 + want.length
      && want.every((w, j) => (w === "bytes" ? entry[j + 1] instanceof Uint8Array : typeof entry[j + 1] === w)))) {
      throw new CorruptState(`session state: log[${i}] is not a valid entry`);
    }
    return [...entry];
  });
}

/** The saved `channel` is the one the replayed log makes: the messages `sent` (count, hash chain
 * and those kept unacknowledged) and `delivered` (count, chain). */
export function checkChannel(channel: wire.SealedChannel, sent: readonly Uint8Array[],
  delivered: readonly [number, Uint8Array]): void {
  let sentDigest: Uint8Array = new Uint8Array(32);
  for (const message of sent) sentDigest = wire.chain(sentDigest, message);
  if (channel.nextSendSeq !== BigInt(sent.length) || !equalBytes(channel.sentDigest, sentDigest)
    || channel.nextReceiveSeq !== BigInt(delivered[0]) || !equalBytes(channel.receivedDigest, delivered[1])
    || channel.pendingMessages().some(([seq, message]) => !equalBytes(sent[Number(seq)]!, message))) {
    throw new CorruptState("the saved channel does not match the saved moves");
  }
}
