/**
 * The board's entry point (bundled into dist/board.js): the board of app.ts with
 * the browser's online peer (src/online/lobby.ts, peer.ts).
 */

import { browserOnline } from "../online/lobby.ts";
import { startBoard } from "./app.ts";

startBoard(browserOnline());
