/**
 * The conformance runner: `npm run conformance -- FILE...` checks each case of
 * JSON-lines files written by `python -m gin.conformance OUT_DIR` and
 * `python -m relay.conformance OUT_DIR` (or by hand; see docs/conformance.md)
 * against the TypeScript engine and relay client, and prints `N passed, M failed`.
 * Exit status 1 when any case fails or cannot be read. `--sodium` first loads
 * libsodium's WebAssembly, as the online worker does, so the deal's multiplications
 * go through it: the same cases must pass either way.
 */

import { readFileSync } from "node:fs";

import { loadSodium } from "../src/protocol/deal/sodium.ts";
import { checkCase } from "./checks.ts";

const MAX_SHOWN = 20;

function main(files: string[]): number {
  if (!files.length) {
    console.error("usage: npm run conformance -- FILE.jsonl...");
    return 2;
  }
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (exc) {
      console.error(`${file}: cannot read: ${(exc as Error).message}`);
      failed += 1;
      continue;
    }
    text.split("\n").forEach((line, i) => {
      if (!line.trim()) return;
      let why: string | null;
      try {
        why = checkCase(JSON.parse(line));
      } catch (exc) {
        why = `${(exc as Error).name}: ${(exc as Error).message}`;
      }
      if (why === null) {
        passed += 1;
      } else {
        failed += 1;
        if (failed <= MAX_SHOWN) console.log(`${file}:${i + 1}: ${why}`);
      }
    });
  }
  if (failed > MAX_SHOWN) console.log(`(${failed - MAX_SHOWN} more failures not shown)`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

const args = process.argv.slice(2);
if (args.includes("--sodium") && !(await loadSodium())) {
  console.error("libsodium's WebAssembly did not load");
  process.exitCode = 2;
} else {
  process.exitCode = main(args.filter((arg) => arg !== "--sodium"));
}
