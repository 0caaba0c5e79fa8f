/**
 * One check per kind of conformance case: each returns null when the TypeScript
 * engine gives what the case records, or a sentence saying what differs.
 * The case format is documented in docs/conformance.md.
 */

import { type Card, parseCards } from "../src/engine/cards.ts";
import { MalformedInput } from "../src/engine/errors.ts";
import { bestArrangement, bestDiscard } from "../src/engine/melds.ts";

// A case is untrusted JSON: read it field by field.
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type CaseObject = { [key: string]: Json };

function field(c: CaseObject, name: string): Json {
  if (!(name in c)) throw new MalformedInput(`case has no field '${name}'`);
  return c[name]!;
}

function cardList(value: Json, name: string): Card[] {
  if (!Array.isArray(value) || !value.every((x) => typeof x === "string")) {
    throw new MalformedInput(`'${name}' must be a list of card texts`);
  }
  return parseCards((value as string[]).join(" "));
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
  const cards = cardList(field(c, "cards"), "cards");
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

const CHECKS: Record<string, (c: CaseObject) => string | null> = {
  arrange: checkArrange,
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
