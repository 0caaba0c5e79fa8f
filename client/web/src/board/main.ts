/** The board's entry point (bundled into dist/board.js). */

import { byId } from "./dom.ts";

function start(): void {
  byId("prompt").textContent = "The board is being set up: play arrives with the engine.";
}

start();
