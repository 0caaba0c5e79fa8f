/**
 * One peer of an online match in a dedicated Web Worker, for
 * benchmarks/fairdeal_browser.py: the real TypeScript session
 * (client/web/src/protocol/session/session.ts) with a computer player choosing its moves,
 * fed frames by the page (which relays between two such workers as the relay
 * would). Fixed seeds stand in for the secure random source. Each reply carries
 * the frames to send and the hands verified in that step; the worker's clock is
 * kept apart for the session's own calls and for the player's thinking, per hand.
 */

import { STANDARD } from "../client/web/src/engine/rules.ts";
import { get } from "../client/web/src/players/index.ts";
import { sha256 } from "../client/web/node_modules/@noble/hashes/sha2.js";
import { concatBytes } from "../client/web/node_modules/@noble/hashes/utils.js";
import { u32be } from "../client/web/src/protocol/bytes.ts";
import { Session } from "../client/web/src/protocol/session/session.ts";
import { Failure } from "../client/web/src/protocol/session/events.ts";
import { prepare } from "../client/web/src/protocol/deal/group.ts";
import { loadSodium } from "../client/web/src/protocol/deal/sodium.ts";

type Request =
  | { kind: "ping" }
  | { kind: "start"; role: "host" | "guest"; seed: number }
  | { kind: "frames"; frames: Uint8Array[] };

/** A hand this side has verified: who dealt, and this side's clocks for it. */
export interface HandDone {
  hand: number;
  dealer: number;
  sessionMs: number;
  playerMs: number;
}

export interface Reply {
  frames: Uint8Array[];
  verified: HandDone[];
  over: boolean;
  failure: string | null;
}

const SECRET = Uint8Array.from({ length: 32 }, (_, i) => 100 + i);

/** A fixed stream of bytes from a SHA-256 counter (benchmarks only: nothing secret). */
function stream(seed: number): (n: number) => Uint8Array {
  const key = Uint8Array.from({ length: 32 }, (_, i) => (i < 4 ? u32be(seed)[i]! : i));
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let at = 0; at < n; at += 32) out.set(sha256(concatBytes(key, u32be(counter++))).subarray(0, n - at), at);
    return out;
  };
}

let session: Session;
let player: ReturnType<typeof get>;
let sessionMs = 0;
let playerMs = 0;

function timed<T>(fn: () => T): T {
  const start = performance.now();
  try {
    return fn();
  } finally {
    sessionMs += performance.now() - start;
  }
}

function step(): Reply {
  if (timed(() => session.rulesOffered) !== null) timed(() => session.acceptRules());
  while (!session.over && timed(() => session.legalActions().length)) {
    const start = performance.now();
    const action = player.choose(session.observation()!, session.legalActions());
    playerMs += performance.now() - start;
    timed(() => session.act(action));
  }
  const verified: HandDone[] = [];
  let failure: string | null = null;
  for (const event of timed(() => session.events())) {
    if (event.kind === "HandVerified") {
      verified.push({ hand: event.handNumber, dealer: event.record.dealer, sessionMs, playerMs });
      sessionMs = 0;
      playerMs = 0;
    } else if (event instanceof Failure) {
      failure = `${event.kind}: ${event.field}: ${event.reason} (${event.who})`;
    }
  }
  return { frames: timed(() => session.dataToSend()), verified, over: session.over, failure };
}

const scope = self as unknown as {
  onmessage: (event: MessageEvent<Request>) => void;
  postMessage: (message: unknown) => void;
};

// As the board's worker (src/online/worker.ts) loads libsodium and builds the deal's
// tables when it starts; a worker named "noble" does not load libsodium.
const ready = (self as unknown as { name: string }).name === "noble" ? Promise.resolve(false) : loadSodium();
prepare();

scope.onmessage = ({ data }) => {
  if (data.kind === "ping") {
    void ready.then((sodium) => scope.postMessage(sodium ? "sodium" : "noble"));
  } else if (data.kind === "start") {
    player = get("normal", data.seed);
    // Each seat's identity key: any two distinct ones.
    const identity = new Uint8Array(32).fill(data.role === "host" ? 1 : 2);
    session = timed(() => new Session(data.role, SECRET, data.role === "host" ? STANDARD : null,
      stream(data.seed), identity));
    scope.postMessage(step());
  } else {
    for (const frame of data.frames) timed(() => session.receive(frame));
    scope.postMessage(step());
  }
};
