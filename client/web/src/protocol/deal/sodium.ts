/**
 * libsodium's WebAssembly build (libsodium-wrappers-sumo) for the fair deal's
 * constant-time multiplications (group.ts `mulBytes`): the online worker loads it,
 * and only it, so the board's page never fetches it. Where WebAssembly may not run
 * (a host whose policy forbids it) the deal stays on noble: the same bytes, slower.
 */

import sodium from "libsodium-wrappers-sumo";

import { useSodium } from "./group.ts";

/** Resolves once the deal multiplies through libsodium, or stays on noble if it cannot load. */
export function loadSodium(): Promise<boolean> {
  return sodium.ready.then(() => {
    useSodium(sodium);
    return true;
  }, () => false);
}
