// The test vectors of protocol.md §13, read from the document itself so that a
// change to either side shows up as a failing test.
import { readFileSync } from "node:fs";

import { hexToBytes } from "@noble/hashes/utils.js";

const text = readFileSync(new URL("../../../protocol.md", import.meta.url), "utf8");
const block = /```vectors\n([\s\S]*?)```/.exec(text);
if (block === null) throw new Error("protocol.md has no ```vectors block");

export const VECTORS: ReadonlyMap<string, string> = new Map(
  block[1]!.split("\n").filter((l) => l.includes(" = ")).map((l) => {
    const [name, value] = l.split(" = ");
    return [name!.trim(), value!.trim()];
  }),
);

export function vector(name: string): string {
  const value = VECTORS.get(name);
  if (value === undefined) throw new Error(`protocol.md §13 has no vector ${name}`);
  return value;
}

export const hexVector = (name: string): Uint8Array => hexToBytes(vector(name));
export const numbers = (name: string): number[] => vector(name).split(",").map(Number);

/** Bytes from..to-1, as the vectors' seeds and secrets are. */
export const range = (from: number, to: number): Uint8Array =>
  Uint8Array.from({ length: to - from }, (_, i) => from + i);
