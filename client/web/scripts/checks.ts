/**
 * One check per kind of conformance case: each returns null when the TypeScript
 * engine gives what the case records, or a sentence saying what differs.
 * The case format is documented in docs/conformance.md.
 */

import { type Action, parseAction } from "../src/engine/actions.ts";
import type { Card } from "../src/engine/cards.ts";
import * as data from "../src/engine/data.ts";
import { GinError, IllegalAction, MalformedInput } from "../src/engine/errors.ts";
import { Hand } from "../src/engine/hand.ts";
import { Match } from "../src/engine/match.ts";
import { bestArrangement, bestDiscard } from "../src/engine/melds.ts";
import { eventToData, Observation } from "../src/engine/observation.ts";
import { Ruleset } from "../src/engine/rules.ts";
import { settle } from "../src/engine/scoring.ts";
import { get, hint, NAMES } from "../src/players/index.ts";
import { ENCODING_CHECKS } from "./encoding_checks.ts";
import { IDENTITY_CHECKS } from "./identity_checks.ts";
import { PROTOCOL_CHECKS } from "./protocol_checks.ts";
import { RELAY_CHECKS } from "./relay_checks.ts";

// A case is untrusted JSON: read it field by field.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };

function field(c: CaseObject, name: string): Json {
  if (!(name in c)) throw new MalformedInput(`case has no field '${name}'`);
  return c[name]!;
}

const show = (x: unknown): string => JSON.stringify(x);
const texts = (cards: Card[]): string[] => cards.map(String);

/** Compare one recorded field with what the engine gives. */
function differs(name: string, expected: Json | undefined, actual: unknown): string | null {
  if (expected === undefined) return null; // an optional field the case leaves out
  return show(expected) === show(actual)
    ? null
    : `${name}: expected ${show(expected)}, the TS engine gives ${show(actual)}`;
}

function firstDifference(...checks: (string | null)[]): string | null {
  return checks.find((x) => x !== null) ?? null;
}

/** `arrange`: 10 cards, or 11 (the least deadwood after the best discard). */
function checkArrange(c: CaseObject): string | null {
  const cards = data.cards(field(c, "cards"), "cards");
  if (cards.length !== 10 && cards.length !== 11) {
    throw new MalformedInput(`an arrange case has 10 or 11 cards, not ${cards.length}`);
  }
  const [discard, arrangement] = cards.length === 11
    ? bestDiscard(cards)
    : [undefined, bestArrangement(cards)];
  return firstDifference(
    differs("deadwood", field(c, "deadwood"), arrangement.deadwood),
    differs("discard", c.discard, discard === undefined ? undefined : String(discard)),
    differs("melds", c.melds, arrangement.melds.map(texts)),
    differs("deadwood_cards", c.deadwood_cards, texts(arrangement.deadwoodCards)),
  );
}

/** The first place where two pieces of plain data differ (maps in any key order). */
export function dataDiff(expected: unknown, actual: unknown, path = ""): string | null {
  if (typeof expected !== "object" || expected === null || typeof actual !== "object" || actual === null) {
    return Object.is(expected, actual) ? null : `${path || "value"}: expected ${show(expected)}, `
      + `the TS engine gives ${show(actual)}`;
  }
  if (Array.isArray(expected) !== Array.isArray(actual)) {
    return `${path}: expected ${show(expected)}, the TS engine gives ${show(actual)}`;
  }
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const keys = new Set([...Object.keys(e), ...Object.keys(a)]);
  for (const key of keys) {
    if (!(key in e) || !(key in a)) {
      return `${path}.${key}: ${key in e ? "missing from the TS engine's" : "not in the case's"} data`;
    }
    const why = dataDiff(e[key], a[key], Array.isArray(expected) ? `${path}[${key}]` : `${path}.${key}`);
    if (why !== null) return why;
  }
  return null;
}

/** `settle`: a knock settled, or refused with gin's reason. */
function checkSettle(c: CaseObject): string | null {
  const rules = Ruleset.fromDict(field(c, "rules"));
  const melds = c.knocker_melds === undefined ? null : data.melds(c.knocker_melds, "knocker_melds");
  let outcome: unknown;
  try {
    outcome = settle(data.cards(field(c, "knocker"), "knocker"), data.cards(field(c, "defender"), "defender"),
      rules, melds, data.whole(field(c, "knock_limit"), "knock_limit")).toDict();
  } catch (exc) {
    if (!(exc instanceof IllegalAction)) throw exc;
    return differs("error", field(c, "error"), exc.message);
  }
  if (c.error !== undefined) return `expected the error ${show(c.error)}, the TS engine settles`;
  return dataDiff(field(c, "outcome"), outcome, "outcome");
}

/** `match`: a whole match replayed step by step against its transcript. */
function checkMatch(c: CaseObject): string | null {
  const match = new Match(Ruleset.fromDict(field(c, "rules")), data.whole(field(c, "first_dealer"), "first_dealer"));
  const hands = field(c, "hands");
  if (!Array.isArray(hands)) throw new MalformedInput("'hands' must be a list");
  for (const [h, handValue] of hands.entries()) {
    const hc = handValue as CaseObject;
    const where = `hand ${h + 1}`;
    const hand = match.deal(data.cards(field(hc, "deck"), "deck"));
    const dealer = differs(`${where} dealer`, hc.dealer, hand.dealer);
    if (dealer) return dealer;
    const steps = field(hc, "steps") as CaseObject[];
    const observations = field(hc, "observations") as CaseObject[];
    let next = 0; // the next observation checkpoint
    const checkObservations = (step: number): string | null => {
      for (; next < observations.length && observations[next]!.step === step; next++) {
        const o = observations[next]!;
        const seat = data.whole(field(o, "player"), "player");
        const expected = field(o, "observation");
        const why = dataDiff(expected, match.observation(seat).toDict(),
          `${where} step ${step} observation of player ${seat}`)
          ?? dataDiff(expected, Observation.fromDict(expected).toDict(),
            `${where} step ${step} observation of player ${seat}, read back from its data`);
        if (why) return why;
      }
      return null;
    };
    for (const [i, step] of steps.entries()) {
      const at = `${where} step ${i + 1}`;
      const seen = checkObservations(i);
      if (seen) return seen;
      const legal = differs(`${at} legal actions`, field(step, "legal"), match.legalActions().map(String));
      if (legal) return legal;
      const refused = probesDiffer(at, field(step, "probes"), (p, a) => hand.refusal(p, a));
      if (refused) return refused;
      const before = hand.events.length;
      try {
        match.apply(data.whole(field(step, "player"), "player"), parseAction(field(step, "action") as string));
      } catch (exc) {
        if (exc instanceof GinError) return `${at}: the TS engine refuses '${step.action}': ${exc.message}`;
        throw exc;
      }
      const events = differs(`${at} events`, field(step, "events"), hand.events.slice(before).map(eventToData));
      if (events) return events;
    }
    const end = checkObservations(steps.length);
    if (end) return end;
    const result = dataDiff(field(hc, "result"), hand.result?.toDict() ?? null, `${where} result`)
      ?? differs(`${where} scores`, hc.scores, match.scores)
      ?? differs(`${where} hands won`, hc.hands_won, match.handsWon);
    if (result) return result;
  }
  if (c.saved !== undefined) {
    const saved = dataDiff(c.saved, match.toDict(), "saved")
      ?? dataDiff(c.saved, Match.fromDict(c.saved).toDict(), "saved, restored");
    if (saved) return saved;
  }
  const t = match.totals;
  return dataDiff(field(c, "totals"), t === null ? null : {
    winner: t.winner,
    points: t.points,
    hands_won: t.handsWon,
    game_bonus: t.gameBonus,
    box_bonus: t.boxBonus,
    shutout: t.shutout,
    totals: t.totals,
  }, "totals");
}

/** `decisions`: a hand replayed; at each position, every player's choice and the hint. */
function checkDecisions(c: CaseObject): string | null {
  const hand = new Hand(data.cards(field(c, "deck"), "deck"), data.whole(field(c, "dealer"), "dealer"),
    Ruleset.fromDict(field(c, "rules")));
  const seed = data.whole(field(c, "seed"), "seed");
  const pair = (name: string): [number, number] => {
    const [a, b] = data.list(c[name] ?? [0, 0], name);
    return [data.whole(a, name), data.whole(b, name)];
  };
  const scores = pair("scores");
  const handsWon = pair("hands_won");
  const players = NAMES.map((name) => get(name, seed));
  const actions = field(c, "actions") as [number, string][];
  const positions = field(c, "positions") as CaseObject[];
  let next = 0;
  for (let step = 0; step <= actions.length; step++) {
    for (; next < positions.length && positions[next]!.step === step; next++) {
      const position = positions[next]!;
      const obs = hand.observationIn(hand.turn, scores, handsWon, 1);
      const legal = hand.legalActions();
      for (const player of players) {
        const why = differs(`step ${step} ${player.name}`, position[player.name], String(player.choose(obs, legal)));
        if (why) return why;
      }
      if (position.hint !== undefined) {
        const advice = hint(obs, legal);
        const why = differs(`step ${step} hint`, position.hint, [String(advice.action), advice.reason]);
        if (why) return why;
      }
    }
    if (step < actions.length) {
      const [player, text] = actions[step]!;
      hand.apply(player, parseAction(text));
    }
  }
  return null;
}

/** `action`: an action's text parsed to its canonical text, or refused with gin's message. */
function checkAction(c: CaseObject): string | null {
  const text = field(c, "text");
  if (typeof text !== "string") throw new MalformedInput("'text' must be text");
  let canonical: string;
  try {
    canonical = String(parseAction(text));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    return differs("error", field(c, "error"), exc.message);
  }
  if (c.error !== undefined) return `expected the error ${show(c.error)}, the TS engine reads ${show(canonical)}`;
  return differs("canonical", field(c, "canonical"), canonical);
}

/** `rules`: a ruleset as data, read to its description or refused with gin's message. */
function checkRules(c: CaseObject): string | null {
  let rules: Ruleset;
  try {
    rules = Ruleset.fromDict(field(c, "data"));
  } catch (exc) {
    if (!(exc instanceof MalformedInput)) throw exc;
    return differs("error", field(c, "error"), exc.message);
  }
  if (c.error !== undefined) return `expected the error ${show(c.error)}, the TS engine accepts the ruleset`;
  return firstDifference(
    differs("is_preset", c.is_preset, rules.isPreset),
    differs("describe", c.describe, rules.describe()),
    c.to_dict === undefined ? null : dataDiff(c.to_dict, rules.toDict(), "to_dict"),
  );
}

/** `peer`: a hand replayed on an online peer's copy, its unknown cards revealed as the case says. */
function checkPeer(c: CaseObject): string | null {
  const deck = data.list(field(c, "deck"), "deck").map((x, i) => (x === null ? null : data.card(x, `deck[${i}]`)));
  const hand = new Hand(deck, data.seat(field(c, "dealer"), "dealer"), Ruleset.fromDict(field(c, "rules")));
  const me = data.seat(field(c, "me"), "me");
  const observations = field(c, "observations") as CaseObject[];
  let next = 0;
  const steps = field(c, "steps") as CaseObject[];
  for (let i = 0; i <= steps.length; i++) {
    for (; next < observations.length && observations[next]!.step === i; next++) {
      const why = dataDiff(field(observations[next]!, "observation"), hand.observation(me).toDict(),
        `step ${i} observation`);
      if (why) return why;
    }
    if (i === steps.length) break;
    const step = steps[i]!;
    for (const item of data.list(field(step, "reveal"), "reveal")) {
      const [pos, card] = data.list(item, "a reveal");
      hand.reveal(data.whole(pos, "a reveal's position"), data.card(card, "a reveal's card"));
    }
    const at = `step ${i + 1}`;
    const why = differs(`${at} legal actions`, field(step, "legal"), hand.legalActions().map(String))
      ?? probesDiffer(at, field(step, "probes"), (p, a) => hand.refusal(p, a));
    if (why) return why;
    const before = hand.events.length;
    hand.apply(data.seat(field(step, "player"), "player"), parseAction(field(step, "action") as string));
    const events = differs(`${at} events`, field(step, "events"), hand.events.slice(before).map(eventToData));
    if (events) return events;
  }
  return dataDiff(field(c, "result"), hand.result?.toDict() ?? null, "result");
}

/** The first probe whose refusal differs from the case's. */
function probesDiffer(at: string, probes: Json, refusal: (player: number, action: Action) => string | null): string | null {
  for (const probe of data.list(probes, "probes")) {
    const [player, text, reason] = probe as [number, string, string | null];
    const why = differs(`${at} refusal of '${text}' by player ${player}`, reason, refusal(player, parseAction(text)));
    if (why) return why;
  }
  return null;
}

const CHECKS: Record<string, (c: CaseObject) => string | null> = {
  peer: checkPeer,
  rules: checkRules,
  action: checkAction,
  decisions: checkDecisions,
  arrange: checkArrange,
  settle: checkSettle,
  match: checkMatch,
  ...PROTOCOL_CHECKS,
  ...IDENTITY_CHECKS,
  ...ENCODING_CHECKS,
  ...RELAY_CHECKS,
};

/** Check one parsed case; MalformedInput when it is not a case of a known kind. */
export function checkCase(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedInput("a case must be a JSON object");
  }
  const c = value as CaseObject;
  const kind = c.kind;
  const check = typeof kind === "string" ? CHECKS[kind] : undefined;
  if (check === undefined) {
    throw new MalformedInput(`unknown kind ${show(kind)}; known: ${Object.keys(CHECKS).join(", ")}`);
  }
  return check(c);
}
