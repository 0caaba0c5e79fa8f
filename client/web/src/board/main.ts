/**
 * The board's entry point (bundled into dist/board.js): continue the match kept in
 * this browser, or start one, and show the table.
 *
 * Two address parameters exist for tests and demonstrations: `?seed=N` fixes the
 * shuffle of a new match (a whole number below 2^32), `?delay=MS` the pause
 * between the computer's moves (700 ms by default).
 */

import { GinError } from "../engine/errors.ts";
import { STANDARD } from "../engine/rules.ts";
import { alertDialog, setUpDialog } from "./dialogs.ts";
import { Game } from "./game.ts";
import { Table } from "./table.ts";

function storage(): Storage | null {
  try {
    return window.localStorage; // may throw where site data is blocked
  } catch {
    return null;
  }
}

function numberParam(params: URLSearchParams, name: string, max: number): number | null {
  const text = params.get(name);
  if (text === null || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value <= max ? value : null;
}

function start(): void {
  const params = new URLSearchParams(window.location.search);
  const seed = numberParam(params, "seed", 2 ** 32 - 1);
  const delay = numberParam(params, "delay", 10_000) ?? 700;
  const store = storage();
  setUpDialog();
  let game: Game | null = null;
  let problem = store === null ? "This browser keeps no site data here, so the match will not survive a reload." : "";
  if (store !== null) {
    try {
      game = Game.resume(store);
    } catch (exc) {
      if (!(exc instanceof GinError)) throw exc;
      problem = exc.message;
    }
  }
  game ??= seed === null ? new Game(STANDARD, "normal", store) : new Game(STANDARD, "normal", store, seed);
  new Table(game, delay, store).start();
  performance.mark("gin-table"); // the dealt hand is on the table (benchmarks/board.py)
  if (problem) alertDialog("Your match", problem);
}

start();
