/**
 * The online peer's Web Worker (bundled into dist/worker.js): the sans-I/O session
 * and its crypto run here, off the page's thread, so the board never freezes while
 * a deck is shuffled, proven or checked. It answers each request of the page with
 * one reply, in order (messages.ts); core.ts does the work. The board's "Check
 * records" window asks a worker of its own to audit files (`op: "audit"`), which
 * takes about a second a record: the same crypto, off the page's thread. The deal's
 * multiplications go through libsodium's WebAssembly here (protocol/deal/sodium.ts).
 */

import { Ruleset } from "../engine/rules.ts";
import { auditReport, type Given, reportData } from "../protocol/records/audit_report.ts";
import type { MapKey, Value } from "../protocol/wire/msgpack.ts";
import { MAX_RECORD_BYTES } from "../protocol/records/envelope.ts";
import { prepare } from "../protocol/deal/group.ts";
import { loadSodium } from "../protocol/deal/sodium.ts";
import { Session } from "../protocol/session/session.ts";
import { PeerCore, type RandomBytes } from "./core.ts";
import type { AuditRequest, WorkerRequest } from "./messages.ts";

// Exists in workers, also on plain-http pages (crypto.subtle does not).
const randomBytes: RandomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));

const core = new PeerCore({
  create: (role, secret, rules: Ruleset | null, random, identity, rematch) =>
    new Session(role, secret, rules, random, identity, rematch ?? null),
  restore: (secret, state: Map<MapKey, Value>, random, identity) => Session.fromState(secret, state, random, identity),
}, randomBytes);

const scope = self as unknown as {
  onmessage: ((ev: MessageEvent<WorkerRequest | AuditRequest>) => void) | null;
  postMessage(message: unknown): void;
};

/** A file's contents as gin audit reads them (no more than a record may hold, and
 * one byte to tell it is too long), or why it could not be read. */
async function read(name: string, file: Blob): Promise<Given> {
  try {
    return { name, data: new Uint8Array(await file.slice(0, MAX_RECORD_BYTES + 1).arrayBuffer()) };
  } catch (exc) {
    return { name, data: null, unreadable: exc instanceof Error ? exc.message : String(exc) };
  }
}

// libsodium's WebAssembly multiplies the deal's points about twice as fast as noble
// (docs/performance.md); it loads (compiled off this thread) while the player waits
// for the friend, and requests wait for it, in order (or, if it cannot load, go on
// with noble: the same bytes). Meanwhile this thread builds the deal's tables.
const ready = loadSodium();
prepare();

scope.onmessage = (ev) => {
  const request = ev.data;
  if (request.op !== "audit") {
    void ready.then(() => scope.postMessage(core.handle(request)));
    return;
  }
  void Promise.all([ready, ...request.files.map(({ name, file }) => read(name, file))])
    .then(([, ...given]) => scope.postMessage(reportData(auditReport(given))));
};
