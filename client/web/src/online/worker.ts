/**
 * The online peer's Web Worker (bundled into dist/worker.js): the sans-I/O session
 * and its crypto run here, off the page's thread, so the board never freezes while
 * a deck is shuffled, proven or checked. It answers each request of the page with
 * one reply, in order (messages.ts); core.ts does the work.
 */

import { Ruleset } from "../engine/rules.ts";
import type { MapKey, Value } from "../protocol/msgpack.ts";
import { Session } from "../protocol/session.ts";
import { PeerCore, type RandomBytes } from "./core.ts";
import type { WorkerRequest } from "./messages.ts";

// Exists in workers, also on plain-http pages (crypto.subtle does not).
const randomBytes: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

const core = new PeerCore({
  create: (role, secret, rules: Ruleset | null, random, identity, rematch) =>
    new Session(role, secret, rules, random, identity, rematch ?? null),
  restore: (secret, state: Map<MapKey, Value>, random, identity) => Session.fromState(secret, state, random, identity),
}, randomBytes);

const scope = self as unknown as {
  onmessage: ((ev: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (ev) => {
  scope.postMessage(core.handle(ev.data));
};
