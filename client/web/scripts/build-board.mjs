// Builds the browser board into dist/: board.js (every module bundled, minified),
// worker.js (the online peer's Web Worker: the session and its crypto, off the
// page's thread), board.css, index.html, the app's manifest and icons (drawn by
// icons.mjs), and sw.js (the service worker: this build's files and their SHA-256,
// which it keeps for offline play and checks each file against). The relay serves
// exactly these files (see relay/static.py), so the folder is emptied first: nothing
// stale is left behind.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { png, svg } from "./icons.mjs";

const board = "src/board";
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
rmSync("dist", { recursive: true, force: true });
mkdirSync("dist");
const common = { bundle: true, minify: true, legalComments: "none", logLevel: "warning" };
await build({
  ...common,
  entryPoints: ["src/online/worker.ts"],
  outfile: "dist/worker.js",
  format: "iife", // a classic worker: module workers are newer than the rest of the page needs
  target: "es2022",
  // V8's explicit compile hint: compile every function as the worker starts, not each on
  // its first call, which a match's first hand paid for (about 10 ms in Chromium 156;
  // docs/performance.md). Not for board.js: the page's first paint comes first.
  banner: { js: "//# allFunctionsCalledOnLoad" },
});
await build({
  ...common,
  entryPoints: [`${board}/main.ts`],
  outfile: "dist/board.js",
  format: "esm",
  target: "es2022",
  // The page asks for the worker of its own build by digest (online/lobby.ts), so a
  // newer worker is never run under an older page.
  define: { GIN_WORKER_SHA256: JSON.stringify(sha256(readFileSync("dist/worker.js"))) },
});
await build({ ...common, entryPoints: [`${board}/board.css`], outfile: "dist/board.css" });
copyFileSync(`${board}/index.html`, "dist/index.html");
copyFileSync(`${board}/manifest.webmanifest`, "dist/manifest.webmanifest");
writeFileSync("dist/icon.svg", svg());
for (const size of [192, 512]) writeFileSync(`dist/icon-${size}.png`, png(size));

// The build's digest: the SHA-256 of its files' lines as SHA256SUMS gives them
// (`DIGEST  NAME`, by name), sw.js aside; /version and gin board-check show it too.
const files = Object.fromEntries(readdirSync("dist").sort().map((name) => [name, sha256(readFileSync(`dist/${name}`))]));
const buildDigest = sha256(Object.entries(files).map(([name, digest]) => `${digest}  ${name}\n`).join(""));
await build({
  ...common,
  entryPoints: [`${board}/sw.ts`],
  outfile: "dist/sw.js",
  format: "iife",
  target: "es2022",
  define: { GIN_BUILD: JSON.stringify(buildDigest), GIN_FILES: JSON.stringify(files) },
});
