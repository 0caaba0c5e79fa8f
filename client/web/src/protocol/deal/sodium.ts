/**
 * libsodium's WebAssembly build (libsodium-wrappers-sumo) for the fair deal's
 * constant-time multiplications (group.ts `mulBytes`): the online worker loads it,
 * and only it, so the board's page never fetches it. Where WebAssembly may not run
 * (a host whose policy forbids it) the deal stays on noble: the same bytes, slower.
 */

import sodium from "libsodium-wrappers-sumo";

import { useSodium } from "./group.ts";

/** The performance mark that says, in this worker's timeline, that libsodium is in use. */
export const LOADED_MARK = "gin:libsodium";

/** Resolves once the deal multiplies through libsodium, or stays on noble if it cannot load. */
export function loadSodium(): Promise<boolean> {
  return sodium.ready.then(() => {
    useSodium(sodium);
    performance.mark(LOADED_MARK); // for whoever inspects the worker: tests, devtools
    return true;
  }, () => false);
}
