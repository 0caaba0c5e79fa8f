/**
 * Computer players: Easy, Normal, Hard, the research "simple player", Random —
 * the twins of gin/players, decision for decision.
 *
 * A player sees only an {@link Observation} and the legal actions, and returns one
 * of them. Players keep no state: a player that draws at random (Hard, Random)
 * seeds a {@link Rand} per decision from its seed and the observation, the same
 * stream gin/ uses, so a decision is a function of (observation, seed).
 */

import type { Action } from "../engine/actions.ts";
import { MalformedInput } from "../engine/errors.ts";
import type { Observation } from "../engine/observation.ts";
import { checkSeed } from "../rand.ts";
import { EasyPlayer, RandomPlayer } from "./easy.ts";
import { SimplePlayer } from "./simple.ts";
import { HARD, type Hint, NORMAL, SkilledPlayer } from "./hard.ts";

export type { Hint } from "./hard.ts";
export { EasyPlayer, RandomPlayer } from "./easy.ts";
export { SimplePlayer } from "./simple.ts";
export { HARD, NORMAL, SkilledPlayer, type Style } from "./hard.ts";

/** A computer player. */
export interface Player {
  readonly name: string;
  choose(obs: Observation, legal: readonly Action[]): Action;
}

export const NAMES = ["easy", "normal", "hard", "simple", "random"] as const;

/** A player by name; `seed` (in [0, 2^32)) drives the random choices of hard and random. */
export function get(name: string, seed = 0): Player {
  checkSeed(seed); // refused here, not at the first decision
  switch (name.trim().toLowerCase()) {
    case "easy": return new EasyPlayer();
    case "normal": return new SkilledPlayer(NORMAL);
    case "hard": return new SkilledPlayer(HARD, seed);
    case "simple": return new SimplePlayer();
    case "random": return new RandomPlayer(seed);
  }
  throw new MalformedInput(`unknown player '${name}'; choose one of ${NAMES.join(", ")}`);
}

const HINTER = new SkilledPlayer(HARD);

/** Hard's move for this observation and a one-line reason for it. */
export function hint(obs: Observation, legal: readonly Action[]): Hint {
  return HINTER.decide(obs, legal);
}
