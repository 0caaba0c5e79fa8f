/**
 * What a saved session keeps (the twin of gin/protocol/session/log.py): its role, rules,
 * rematch, channel, the input log's entries and the failure, read back strictly — anything
 * else is a {@link CorruptState}, a local fault. Replaying the log rebuilds the rest
 * (`Session.fromState`).
 */

import { MalformedInput } from "../../engine/errors.ts";
import { Ruleset } from "../../engine/rules.ts";
import { equalBytes } from "../bytes.ts";
import type { MapKey, Value } from "../wire/msgpack.ts";
import { type Failure, FAILURES } from "./events.ts";
import { SEATS, type SessionRole } from "./flow.ts";
import { plain } from "./handshake.ts";
import { PreviousMatch } from "./rematch.ts";
import * as wire from "../wire/channel.ts";

export const STATE_VERSION = 3;

/** A saved session that does not replay to the state it claims: damaged on this machine (never the peer's fault). */
export class CorruptState extends MalformedInput {}

/** One input of the log: its kind, then its arguments. */
export type LogEntry = Value[];

/** A saved session's parts that its replay starts from (the failure is read after the replay: {@link readFailure}). */
export interface SavedSession {
  readonly role: SessionRole;
  readonly rules: Ruleset | null;
  readonly rematch: PreviousMatch | null;
  readonly log: LogEntry[];
  readonly channel: ReadonlyMap<MapKey, Value>;
}

/** The parts of `Session.toState`'s map, checked. */
export function readState(state: ReadonlyMap<MapKey, Value>): SavedSession {
  if (!(state instanceof Map)) throw new CorruptState("the saved session is not a map");
  const reader = new wire.Message("session-state", STATE_VERSION, state, "");
  reader.only("v", "role", "rules", "rematch", "channel", "log", "failure");
  reader.integer("v", STATE_VERSION, STATE_VERSION);
  const role: SessionRole = reader.text("role", 5, SEATS) === "host" ? "host" : "guest";
  const savedRules = state.get("rules") ?? null;
  const rules = savedRules === null ? null : Ruleset.fromDict(plain(savedRules));
  const savedRematch = state.get("rematch") ?? null;
  const rematch = savedRematch === null ? null : PreviousMatch.fromState(savedRematch);
  const log = readLog(reader.array("log", 1 << 20));
  const channel = state.get("channel");
  if (!(channel instanceof Map)) throw new CorruptState("session state: 'channel' must be a map");
  return { role, rules, rematch, log, channel };
}

/** The log's random draws, handed out again in order to the replay. */
export class LoggedRandom {
  private readonly drawn: Uint8Array[];
  private used = 0;

  constructor(log: readonly LogEntry[]) {
    this.drawn = log.filter((entry) => entry[0] === "rand").map((entry) => entry[1] as Uint8Array);
  }

  readonly draw = (n: number): Uint8Array => {
    const value = this.drawn[this.used++];
    if (value === undefined || value.length !== n) throw new CorruptState("the log's random draws do not replay");
    return value;
  };

  checkAllUsed(): void {
    if (this.used < this.drawn.length) throw new CorruptState("the log holds random draws the replay did not use");
  }
}

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
  ["rand", ["bytes"]], ["in", ["bytes"]], ["act", ["string"]], ["timeout", []], ["accept", []], ["decline", []],
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
