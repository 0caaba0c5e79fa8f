/**
 * A TypeScript online session speaking JSON lines on stdin/stdout, so that another
 * program (tests/web/test_session_bridge.py: a gin/ session) can play a match
 * against it, frames in hex:
 *
 *   node --import tsx scripts/session_bridge.ts --role guest --secret HEX
 *        [--rules JSON] [--player normal] [--player-seed N] [--seed TEXT] [--accept]
 *
 * Input lines: {"frame": HEX} (a frame from the peer), {"resend": true}, {"poll":
 * SECONDS}, {"timeout": true}. After starting and after each input line it writes
 * one line: {"frames": [HEX...], "events": [...], "over": bool, "failure": ...}
 * with the frames to send and the events (as the conformance corpus summarises
 * them, hand records as their JSON text). Between inputs the computer player
 * (`--player`) makes every move the session allows; `--accept` accepts the host's
 * custom rules. `--seed` makes the session's randomness a fixed stream (tests
 * only); without it the randomness comes from crypto.getRandomValues.
 */

import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";

import { Ruleset } from "../src/engine/rules.ts";
import { get } from "../src/players/index.ts";
import { u32be } from "../src/protocol/bytes.ts";
import { type RandomBytes, Session, type SessionRole } from "../src/protocol/session/session.ts";
import { eventSummary } from "./session_checks.ts";

/** SHA-256(label ‖ u32be(i)) blocks, consumed in order: a fixed stream for tests. */
function seededBytes(label: string): RandomBytes {
  let counter = 0;
  let pool: Uint8Array = new Uint8Array(0);
  return (n) => {
    while (pool.length < n) pool = concatBytes(pool, sha256(concatBytes(new TextEncoder().encode(label), u32be(counter++))));
    const out = pool.slice(0, n);
    pool = pool.slice(n);
    return out;
  };
}

const secureBytes: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

function main(): void {
  const { values } = parseArgs({
    options: {
      role: { type: "string" },
      secret: { type: "string" },
      rules: { type: "string" },
      player: { type: "string", default: "normal" },
      "player-seed": { type: "string", default: "0" },
      seed: { type: "string" },
      accept: { type: "boolean", default: false },
      identity: { type: "string" },
    },
  });
  if (values.role !== "host" && values.role !== "guest") throw new Error("--role must be host or guest");
  if (values.secret === undefined) throw new Error("--secret HEX is required");
  const rules = values.rules === undefined ? null : Ruleset.fromDict(JSON.parse(values.rules));
  const player = get(values.player, Number(values["player-seed"]));
  const random = values.seed === undefined ? secureBytes : seededBytes(values.seed);
  // The player's identity key (hex); without one, a key of this match alone.
  const identity = values.identity === undefined ? random(32) : hexToBytes(values.identity);
  const session = new Session(values.role as SessionRole, hexToBytes(values.secret), rules, random, identity);

  const report = (): void => {
    if (values.accept && session.rulesOffered !== null && !session.over) session.acceptRules();
    for (let legal = session.legalActions(); legal.length; legal = session.legalActions()) {
      session.act(player.choose(session.observation()!, legal));
    }
    const failure = session.failure;
    process.stdout.write(JSON.stringify({
      frames: session.dataToSend().map(bytesToHex),
      events: session.events().map(eventSummary),
      over: session.over,
      failure: failure === null ? null : [failure.kind, failure.who, failure.field, failure.reason],
    }) + "\n");
  };

  report();
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    try {
      const input = JSON.parse(line) as { frame?: string; resend?: boolean; poll?: number; timeout?: boolean };
      if (input.frame !== undefined) {
        if (!session.over) session.receive(hexToBytes(input.frame));
      } else if (input.resend) {
        process.stdout.write(JSON.stringify({ frames: session.resend().map(bytesToHex), events: [], over: session.over,
          failure: null }) + "\n");
        return;
      } else if (input.poll !== undefined) {
        session.poll(input.poll);
      } else if (input.timeout) {
        session.peerTimedOut();
      } else {
        throw new Error("expected frame, resend, poll or timeout");
      }
      report();
    } catch (exc) {
      process.stdout.write(JSON.stringify({ error: `${(exc as Error).name}: ${(exc as Error).message}` }) + "\n");
    }
  });
}

try {
  main();
} catch (exc) {
  process.stderr.write(`session_bridge: ${(exc as Error).message}\n`);
  process.exitCode = 2;
}
