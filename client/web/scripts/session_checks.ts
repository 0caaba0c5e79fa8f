/**
 * Conformance check of kind `session` (cases written by gin/conformance/session_cases.py): one
 * peer of an online match, input by input. The TypeScript Session is built with the
 * same random draws and fed the same inputs; after each it must queue exactly the
 * same frames, byte for byte, and the same events (as {@link eventSummary} puts
 * them); a `save` must be byte for byte gin's saved state, and a `restore` of it
 * must queue the same frames.
 */

import { parseAction } from "../src/engine/actions.ts";
import { MalformedInput } from "../src/engine/errors.ts";
import { Ruleset } from "../src/engine/rules.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import * as msgpack from "../src/protocol/wire/msgpack.ts";
import { Session, type SessionRole } from "../src/protocol/session/session.ts";
import { Abandoned, CheatDetected, type SessionEvent } from "../src/protocol/session/events.ts";
import { PreviousMatch } from "../src/protocol/session/rematch.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };

/** Limits wide enough for a saved session (its log has thousands of entries). */
export const STATE_LIMITS: msgpack.Limits = { maxStrLen: 1 << 20, maxBinLen: 1 << 20, maxArrayLen: 1 << 20, maxMapLen: 64 };

/** An event as plain JSON, exactly as gin/conformance/session_peer.py's `event_summary` gives it. */
export function eventSummary(event: SessionEvent): Json {
  switch (event.kind) {
    case "MatchStarted":
      return [event.kind, event.rules.toDict(), event.seat, event.firstDealer, bytesToHex(event.matchId)];
    case "RulesOffered":
      return [event.kind, event.rules.toDict(), event.rematch];
    case "HandDealt":
      return [event.kind, event.handNumber, event.dealer, event.cards.map(String), String(event.upcard)];
    case "Moved":
      return [event.kind, event.seat, String(event.action)];
    case "CardDrawn":
      return [event.kind, String(event.card)];
    case "HandScored": {
      const r = event.result;
      return [event.kind, event.handNumber, [r.kind, r.knocker, r.winner, r.points], [...event.scores]];
    }
    case "HandVerified":
      return [event.kind, event.handNumber, event.record.toJson()];
    case "MatchOver":
      return [event.kind, event.winner, event.forfeitedBy, event.totals === null ? null : [...event.totals.totals]];
    case "RematchDeclined":
      return [event.kind, event.by, event.reason];
    default: {
      const record = event instanceof CheatDetected || event instanceof Abandoned ? event.record : null;
      return [event.kind, event.who, event.field, event.reason, event.proven, record === null ? null : record.toJson()];
    }
  }
}

/** Random draws given in order; MalformedInput when a draw of another size is asked for. */
export function replayDraws(draws: readonly Uint8Array[]): (n: number) => Uint8Array {
  let at = 0;
  return (n: number) => {
    const value = draws[at++];
    if (value === undefined || value.length !== n) {
      throw new MalformedInput(`random draw ${at - 1}: ${n} bytes asked for, the case has ${value?.length ?? "none"}`);
    }
    return value;
  };
}

const show = (x: unknown): string => JSON.stringify(x);

function checkSession(c: CaseObject): string | null {
  const secret = hexToBytes(c.secret as string);
  const rules = c.rules === null ? null : Ruleset.fromDict(c.rules);
  const random = replayDraws((c.random as string[]).map(hexToBytes));
  const identity = hexToBytes(c.identity as string);
  let session: Session | null = null;
  for (const [i, step] of (c.steps as Json[][]).entries()) {
    const [op, arg, frames, events] = step as [string, Json, string[], Json[]];
    const where = `${String(c.name)} step ${i} (${op})`;
    if (op === "init") {
      const rematch = c.rematch as [string, number] | null | undefined;
      session = new Session(c.role as SessionRole, secret, rules, random, identity,
        rematch == null ? null : new PreviousMatch(hexToBytes(rematch[0]), rematch[1]));
    } else if (session === null) {
      throw new MalformedInput(`${where}: no init step first`);
    } else if (op === "in") {
      session.receive(hexToBytes(arg as string));
    } else if (op === "act") {
      session.act(parseAction(arg as string));
    } else if (op === "accept") {
      session.acceptRules();
    } else if (op === "decline") {
      session.declineRules();
    } else if (op === "timeout") {
      session.peerTimedOut();
    } else if (op === "abandon") {
      const [since, now] = arg as [number, number];
      session.abandon(since, now);
    } else if (op === "poll") {
      session.poll(arg as number);
    } else if (op === "resend") {
      const again = session.resend().map(bytesToHex);
      if (show(again) !== show(frames)) return `${where}: the re-sent frames differ from gin's`;
      continue;
    } else if (op === "save") {
      const mine = bytesToHex(msgpack.encode(session.toState()));
      if (mine !== arg) return `${where}: the saved state differs from gin's (${mine.length / 2} bytes, gin's ${(arg as string).length / 2})`;
    } else if (op === "restore") {
      const state = msgpack.decode(hexToBytes(arg as string), STATE_LIMITS);
      session = Session.fromState(secret, state as Map<string, msgpack.Value>, random, identity);
    } else {
      throw new MalformedInput(`${where}: unknown step`);
    }
    const sent = session.dataToSend().map(bytesToHex);
    if (show(sent) !== show(frames)) {
      const at = sent.findIndex((f, j) => f !== frames[j]);
      return `${where}: frames differ at ${at < 0 ? sent.length : at} (${sent.length} sent, gin sent ${frames.length})`
        + `: ${(sent[at] ?? "none").slice(0, 80)} vs ${(frames[at] ?? "none").slice(0, 80)}`;
    }
    const said = session.events().map(eventSummary);
    if (show(said) !== show(events)) return `${where}: events differ: expected ${show(events)}, the TS side gives ${show(said)}`;
  }
  return null;
}

export const SESSION_CHECKS: Record<string, (c: CaseObject) => string | null> = {
  session: checkSession,
};
