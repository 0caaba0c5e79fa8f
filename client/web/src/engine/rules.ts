/**
 * Rulesets: every rule variant as data, as in gin/rules.py. The presets are
 * `standard` (the default), `classic` (the older rule books' bonuses) and
 * `oklahoma` (the knock limit is the first upcard's value).
 */

import { MalformedInput } from "./errors.ts";

export type ShutoutRule = "double_bonus" | "double_total" | "none";
const SHUTOUT_RULES: readonly ShutoutRule[] = ["double_bonus", "double_total", "none"];

/** The fields of a ruleset. */
export interface RulesetFields {
  name: string;
  /** A knock needs deadwood at most this after the discard. */
  knockLimit: number;
  /** Oklahoma: the knock limit is the first upcard's value (an ace: gin only). */
  knockLimitFromUpcard: boolean;
  ginBonus: number;
  undercutBonus: number;
  /** Bonus for eleven melded cards after the draw, or null when big gin is off. */
  bigGinBonus: number | null;
  /** Box (line) bonus per hand won, added at the end of the match. */
  boxBonus: number;
  gameBonus: number;
  /** The match ends at the end of a hand in which a player has at least this. */
  target: number;
  /** In a shutout (the loser won no hand): double the game bonus, the winner's
   * whole total, or nothing. */
  shutout: ShutoutRule;
  /** Who deals the next hand: alternate, or the winner of the hand. */
  winnerDeals: boolean;
  /** A discard leaving this many cards in the stock ends the hand dead. */
  deadStock: number;
}

const DEFAULTS: RulesetFields = {
  name: "standard",
  knockLimit: 10,
  knockLimitFromUpcard: false,
  ginBonus: 25,
  undercutBonus: 25,
  bigGinBonus: null,
  boxBonus: 25,
  gameBonus: 100,
  target: 100,
  shutout: "double_bonus",
  winnerDeals: false,
  deadStock: 2,
};

type Field = keyof RulesetFields;
const FIELDS = Object.keys(DEFAULTS) as Field[];
/** gin's names of the fields (its `to_dict` keys), in the same order. */
const DATA_NAME = Object.fromEntries(
  FIELDS.map((f) => [f, f.replace(/[A-Z]/g, (ch) => "_" + ch.toLowerCase())])) as Record<Field, string>;
const FIELD_OF_DATA = new Map(FIELDS.map((f) => [DATA_NAME[f], f]));

const isWhole = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0;

/** The numbers and switches of one variant of Gin Rummy (immutable). */
export class Ruleset implements Readonly<RulesetFields> {
  readonly name!: string;
  readonly knockLimit!: number;
  readonly knockLimitFromUpcard!: boolean;
  readonly ginBonus!: number;
  readonly undercutBonus!: number;
  readonly bigGinBonus!: number | null;
  readonly boxBonus!: number;
  readonly gameBonus!: number;
  readonly target!: number;
  readonly shutout!: ShutoutRule;
  readonly winnerDeals!: boolean;
  readonly deadStock!: number;

  /** A ruleset from some fields (the rest as `standard`); MalformedInput if invalid. */
  constructor(fields: Partial<RulesetFields> = {}) {
    Object.assign(this, DEFAULTS, fields);
    for (const f of FIELDS) {
      const value: unknown = this[f];
      const wanted = typeof DEFAULTS[f];
      if (f === "bigGinBonus" || f === "shutout") continue;
      if (wanted === "number" ? !isWhole(value) : typeof value !== wanted) {
        const kind = wanted === "number" ? "a whole number ≥ 0" : wanted === "boolean" ? "true or false" : "text";
        throw new MalformedInput(`ruleset field '${DATA_NAME[f]}' must be ${kind}, got ${JSON.stringify(value)}`);
      }
    }
    if (!SHUTOUT_RULES.includes(this.shutout)) {
      throw new MalformedInput(`ruleset field 'shutout' must be one of ${SHUTOUT_RULES.join(", ")}, `
        + `got ${JSON.stringify(this.shutout)}`);
    }
    if (this.bigGinBonus !== null && !isWhole(this.bigGinBonus)) {
      throw new MalformedInput("ruleset field 'big_gin_bonus' must be a whole number ≥ 0 "
        + `or null, got ${JSON.stringify(this.bigGinBonus)}`);
    }
    if (this.target < 1 || this.deadStock > 30) {
      throw new MalformedInput("ruleset needs target ≥ 1 and dead_stock in 0..30");
    }
    Object.freeze(this);
  }

  /** The knock limit of a hand whose first upcard has `upcardValue` points. */
  knockLimitFor(upcardValue: number): number {
    if (this.knockLimitFromUpcard) return upcardValue === 1 ? 0 : upcardValue;
    return this.knockLimit;
  }

  /** Plain data with gin's field names (`knock_limit`…), as `Ruleset.to_dict`. */
  toDict(): Record<string, string | number | boolean | null> {
    return Object.fromEntries(FIELDS.map((f) => [DATA_NAME[f], this[f]]));
  }

  toJSON(): Record<string, string | number | boolean | null> {
    return this.toDict();
  }

  /** A ruleset from gin's plain data; MalformedInput names unknown or bad fields. */
  static fromDict(data: unknown): Ruleset {
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new MalformedInput("a ruleset must be a map");
    }
    const unknown = Object.keys(data).filter((k) => !FIELD_OF_DATA.has(k)).sort();
    if (unknown.length) throw new MalformedInput(`unknown ruleset field(s): ${unknown.join(", ")}`);
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) fields[FIELD_OF_DATA.get(key)!] = value;
    return new Ruleset(fields as Partial<RulesetFields>);
  }

  /** A copy with some fields changed (for house rules on top of a preset). */
  withOptions(changes: Partial<RulesetFields>): Ruleset {
    const fields: Partial<RulesetFields> = {};
    for (const f of FIELDS) (fields as Record<string, unknown>)[f] = this[f];
    return new Ruleset({ ...fields, ...changes });
  }

  /** Whether two rulesets have the same fields. */
  equals(other: Ruleset): boolean {
    return FIELDS.every((f) => this[f] === other[f]);
  }
}

export const STANDARD = new Ruleset();
export const CLASSIC = new Ruleset({ name: "classic", ginBonus: 20, undercutBonus: 10, boxBonus: 20 });
export const OKLAHOMA = new Ruleset({ name: "oklahoma", knockLimitFromUpcard: true });

/** The presets by name. */
export const PRESETS: ReadonlyMap<string, Ruleset> = new Map(
  [STANDARD, CLASSIC, OKLAHOMA].map((r) => [r.name, r]));

/** A preset by name, or MalformedInput listing the presets. */
export function ruleset(name: string): Ruleset {
  const found = PRESETS.get(name);
  if (found === undefined) {
    throw new MalformedInput(`unknown ruleset '${name}'; choose one of ${[...PRESETS.keys()].join(", ")}`);
  }
  return found;
}
