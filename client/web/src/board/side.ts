/** The side of the table: the hand number, the scores, the choices. */

import type { Observation } from "../engine/observation.ts";
import { PRESETS, type Ruleset } from "../engine/rules.ts";
import { byId, el } from "./dom.ts";
import type { Strength } from "./game.ts";
import type { Speed } from "./motion.ts";
import { shortName, subtitle, targetLine } from "./words.ts";

/** Add a choice per preset and wire the radios (once, at start). */
export function buildSide(rulesChosen: (name: string) => void, strengthChosen: (vs: Strength) => void,
                          speedChosen: (speed: Speed) => void, pauseChosen: (ms: number) => void): void {
  const rules = byId("rules");
  for (const name of PRESETS.keys()) {
    const input = el("input", { type: "radio", name: "rules", value: name });
    input.addEventListener("change", () => rulesChosen(name));
    rules.appendChild(el("label", {}, input, ` ${name}`));
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=strength]")) {
    input.addEventListener("change", () => strengthChosen(input.value as Strength));
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=motion]")) {
    input.addEventListener("change", () => speedChosen(input.value as Speed));
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=pause]")) {
    input.addEventListener("change", () => pauseChosen(Number(input.value)));
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("#side input[type=radio]")) {
    // A choice made with the mouse does not keep the focus: on the radio, ↑ ↓ would go
    // on changing it. A choice made with the keys keeps it (← → select cards anyway).
    input.addEventListener("click", () => {
      if (!input.matches(":focus-visible")) input.blur();
    });
  }
}

/** The cards' speed in play (the player's setting, or the system's default). */
export function showSpeed(speed: Speed): void {
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=motion]")) {
    input.checked = input.value === speed;
  }
}

/** The computer's wait before it moves, in ms (one of the choices, or none checked). */
export function showPause(ms: number): void {
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=pause]")) {
    input.checked = Number(input.value) === ms;
  }
}

/** The strength, the rules, the computer's wait and a new match are choices of a local match only. */
export function showLocalChoices(on: boolean): void {
  for (const id of ["strength", "rules", "pause", "btn-new"]) byId(id).hidden = !on;
}

/** Show the hand number, the scores (this hand, the game, the boxes) and the choices
 * in play; `vs` is the computer's strength (null online). */
export function renderSide(obs: Observation, vs: Strength | null, grouping: boolean, them: string): void {
  const me = obs.player;
  const other = 1 - me;
  byId("hand-number").textContent = `Hand ${obs.handNumber}`;
  const result = obs.result;
  const thisHand = ["—", "—"];
  if (result !== null) {
    thisHand[0] = thisHand[1] = "0";
    if (result.winner !== null) thisHand[result.winner] = String(result.points);
  }
  byId("hand-you").textContent = thisHand[me]!;
  byId("hand-them").textContent = thisHand[other]!;
  byId("game-you").textContent = String(obs.scores[me]);
  byId("game-them").textContent = String(obs.scores[other]);
  byId("box-you").textContent = String(obs.handsWon[me]);
  byId("box-them").textContent = String(obs.handsWon[other]);
  // On a phone the side is below the table: the score is also in the title bar.
  byId("mini-score").textContent = `Hand ${obs.handNumber} · you ${obs.scores[me]} – `
    + `${obs.scores[other]} ${shortName(them).toLowerCase()}`;
  byId("score-them").textContent = shortName(them);
  const rules = obs.rules;
  byId("subtitle").textContent = subtitle(rules.target);
  byId("target").textContent = targetLine(rules);
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=strength]")) {
    input.checked = input.value === vs;
  }
  for (const input of document.querySelectorAll<HTMLInputElement>("input[name=rules]")) {
    input.checked = input.value === rules.name;
  }
  byId<HTMLInputElement>("group").checked = grouping;
}

/** Before an online match's first deal: no scores yet; the rules agreed, or those the
 * host offers (`offered`), or none yet. */
export function renderSideEmpty(them: string, rules: Ruleset | null, offered: boolean): void {
  byId("subtitle").textContent = subtitle(rules === null ? null : rules.target, offered);
  byId("hand-number").textContent = "Waiting for the first deal";
  for (const id of ["hand-you", "hand-them"]) byId(id).textContent = "—";
  for (const id of ["game-you", "game-them", "box-you", "box-them"]) byId(id).textContent = "0";
  byId("score-them").textContent = shortName(them);
  byId("mini-score").textContent = `Waiting for the first deal · you 0 – 0 ${shortName(them).toLowerCase()}`;
  byId("target").textContent = rules === null || offered ? "" : targetLine(rules);
}
