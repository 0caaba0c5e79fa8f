/**
 * libsodium's WebAssembly build (libsodium-wrappers-sumo) for the fair deal's
 * constant-time multiplications (group.ts `mulBytes`): the online worker loads it,
 * and only it, so the board's page never fetches it. Where WebAssembly may not run
 * (a host whose policy forbids it) the deal stays on noble: the same bytes, slower.
 */

import sodium from "libsodium-wrappers-sumo";

import { cardBytes, scalarToBytes, useSodium } from "./group.ts";

/** Multiplications run as it loads: V8 first runs WebAssembly through its baseline
 * compiler and optimizes a function once it has run enough, which a match's first hand
 * paid for (about 10 ms a side in Chromium). */
const WARM_UP = 32;

/** The performance mark that says, in this worker's timeline, that libsodium is in use. */
export const LOADED_MARK = "gin:libsodium";

/** Resolves once the deal multiplies through libsodium, or stays on noble if it cannot load. */
export function loadSodium(): Promise<boolean> {
  return sodium.ready.then(() => {
    const point = cardBytes()[0]!;
    for (let k = 1; k <= WARM_UP; k++) sodium.crypto_scalarmult_ristretto255(scalarToBytes(BigInt(k) * 7919n + 2n), point);
    useSodium(sodium);
    performance.mark(LOADED_MARK); // for whoever inspects the worker: tests, devtools
    return true;
  }, () => false);
}
