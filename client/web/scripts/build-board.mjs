// Builds the browser board into dist/: board.js (every module bundled, minified),
// worker.js (the online peer's Web Worker: the session and its crypto, off the
// page's thread), board.css and index.html. The relay serves exactly these four
// files (see relay/static.py), so the folder is emptied first: nothing stale is
// left behind.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";

const board = "src/board";
rmSync("dist", { recursive: true, force: true });
mkdirSync("dist");
const common = { bundle: true, minify: true, legalComments: "none", logLevel: "warning" };
await build({
  ...common,
  entryPoints: [`${board}/main.ts`],
  outfile: "dist/board.js",
  format: "esm",
  target: "es2022",
});
await build({
  ...common,
  entryPoints: ["src/online/worker.ts"],
  outfile: "dist/worker.js",
  format: "iife", // a classic worker: module workers are newer than the rest of the page needs
  target: "es2022",
});
await build({ ...common, entryPoints: [`${board}/board.css`], outfile: "dist/board.css" });
copyFileSync(`${board}/index.html`, "dist/index.html");
