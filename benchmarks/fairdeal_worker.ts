/**
 * The dedicated Web Worker of benchmarks/fairdeal_browser.py: builds the hands'
 * transcripts, runs a kernel, or plays one hand as a role, on request.
 * Bundled by that script with esbuild; a fresh worker plays each role.
 */

import { prepare } from "../client/web/src/protocol/deal/group.ts";
import { loadSodium } from "../client/web/src/protocol/deal/sodium.ts";
import { type KernelName, prepareKernels, type Role, runKernel, timeHand, type Transcript, transcripts }
  from "./fairdeal_hand.ts";

type Request =
  | { kind: "ping" }
  | { kind: "transcripts"; count: number }
  | { kind: "prepare" }
  | { kind: "kernel"; name: KernelName; calls: number }
  | { kind: "play"; role: Role; hand: Transcript };

const scope = self as unknown as {
  onmessage: (event: MessageEvent<Request>) => void;
  postMessage: (message: unknown) => void;
};

// As the board's worker (src/online/worker.ts) loads libsodium and builds the deal's
// tables when it starts; a worker named "noble" does not load libsodium.
const ready = (self as unknown as { name: string }).name === "noble" ? Promise.resolve(false) : loadSodium();
prepare();

scope.onmessage = ({ data }) => {
  if (data.kind === "ping") void ready.then((sodium) => scope.postMessage(sodium ? "sodium" : "noble"));
  else if (data.kind === "transcripts") scope.postMessage(transcripts(data.count));
  else if (data.kind === "prepare") scope.postMessage(prepareKernels());
  else if (data.kind === "kernel") scope.postMessage(runKernel(data.name, data.calls));
  else scope.postMessage(timeHand(data.role, data.hand));
};
