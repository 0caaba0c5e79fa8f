/**
 * The board's entry point (bundled into dist/board.js): see app.ts. The online
 * peer is not in the browser yet, so playing a friend online is disabled here.
 */

import { startBoard } from "./app.ts";

startBoard(null);
