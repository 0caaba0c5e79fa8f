/**
 * Rulesets: every rule variant as data, as in gin/engine/rules.py. The presets are
 * `standard` (the default), `classic` (the older rule books' bonuses) and
 * `oklahoma` (the knock limit is the first upcard's value).
 *
 * A ruleset comes from the network, a record or a save as often as from code, so
 * every value is checked on construction ({@link RulesError}): each number lies
 * within {@link BOUNDS}, the name is short plain text, and a ruleset named like a
 * preset has exactly its values. Any other ruleset is custom
 * ({@link Ruleset.isPreset} is false).
 */

import { MalformedInput } from "./errors.ts";
import { pyRepr, pyTypeName } from "./pyrepr.ts";

export type ShutoutRule = "double_bonus" | "double_total" | "none";
const SHUTOUT_RULES: readonly string[] = ["double_bonus", "double_total", "none"];

/** A ruleset out of bounds, of the wrong types, or named like a preset it is not. */
export class RulesError extends MalformedInput {}

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

/** The inclusive range of every number of a ruleset (`bigGinBonus` may also be null). */
export const BOUNDS: ReadonlyMap<Field, readonly [number, number]> = new Map<Field, [number, number]>([
  ["knockLimit", [0, 10]],
  ["ginBonus", [0, 100]],
  ["undercutBonus", [0, 100]],
  ["bigGinBonus", [0, 100]],
  ["boxBonus", [0, 100]],
  ["gameBonus", [0, 500]],
  ["target", [1, 500]],
  ["deadStock", [0, 10]],
]);
const FLAGS: readonly Field[] = ["knockLimitFromUpcard", "winnerDeals"];
/** Each rule as a person names it in a sentence (messages about a ruleset's values). */
export const RULE_WORDS: Readonly<Record<Exclude<Field, "name">, string>> = {
  knockLimit: "the knock limit",
  ginBonus: "the gin bonus",
  undercutBonus: "the undercut bonus",
  bigGinBonus: "the big gin bonus",
  boxBonus: "the box bonus",
  gameBonus: "the game bonus",
  target: "the score a match is played to",
  deadStock: "the stock left at a dead hand",
  knockLimitFromUpcard: "whether the first upcard sets the knock limit",
  winnerDeals: "whether the winner deals next",
  shutout: "the shutout rule",
};

/** What a value that is not a map is, by its Python type. */
const KINDS: Readonly<Record<string, string>> = {
  list: "a list", str: "text", int: "a number", float: "a number", bool: "true or false", NoneType: "null",
};

/** A value in a message about a ruleset: as written in its JSON for true, false and
 * null, else as Python writes it (text quoted). */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  return pyRepr(value);
}
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,31}$/;
/** The name {@link Ruleset.withOptions} gives a changed preset. */
export const CUSTOM = "custom";

// Filled once the presets exist: a ruleset named like one must equal it.
const PRESET_BY_NAME = new Map<string, Ruleset>();

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

  /** A ruleset from some fields (the rest as `standard`); RulesError if invalid. */
  constructor(fields: Partial<RulesetFields> = {}) {
    Object.assign(this, DEFAULTS, fields);
    const value = (f: Field): unknown => this[f];
    if (typeof this.name !== "string" || !NAME_PATTERN.test(this.name)) {
      throw new RulesError("the rules' name must be 1 to 32 letters, digits, spaces or . _ + - "
        + `starting with a letter or digit, not ${shown(value("name"))}`);
    }
    for (const [f, [low, high]] of BOUNDS) {
      const x = value(f);
      if (f === "bigGinBonus" && x === null) continue;
      if (typeof x !== "number" || !Number.isInteger(x) || x < low || x > high) {
        const off = f === "bigGinBonus" ? " (or null: no big gin)" : "";
        throw new RulesError(`${RULE_WORDS[f as Exclude<Field, "name">]} must be a whole number from ${low} to `
          + `${high}${off}, not ${shown(x)}`);
      }
    }
    for (const f of FLAGS) {
      if (typeof value(f) !== "boolean") {
        throw new RulesError(`${RULE_WORDS[f as Exclude<Field, "name">]} must be true or false, not ${shown(value(f))}`);
      }
    }
    if (!SHUTOUT_RULES.includes(value("shutout") as string)) {
      throw new RulesError("the shutout rule must be double_bonus, double_total or none, "
        + `not ${shown(value("shutout"))}`);
    }
    const preset = PRESET_BY_NAME.get(this.name);
    if (preset !== undefined && !preset.equals(this)) {
      const changed = FIELDS.filter((f) => this[f] !== preset[f])
        .map((f) => `${RULE_WORDS[f as Exclude<Field, "name">]} is ${shown(this[f])} (the ${this.name} `
          + `rules have ${shown(preset[f])})`).join(" and ");
      throw new RulesError(`rules named ${shown(this.name)} must be the ${this.name} rules `
        + `exactly, but ${changed}`);
    }
    Object.freeze(this);
  }

  /** One of the presets (a custom ruleset must be shown and accepted first). */
  get isPreset(): boolean {
    return PRESET_BY_NAME.has(this.name);
  }

  /** Every rule in words, one per line (what a guest is shown before agreeing). */
  describe(): string {
    return this.describeLines().map(([text]) => text).join("\n");
  }

  /** {@link describe}'s lines, each with whether it differs from the nearest preset: a
   * custom ruleset's first line names that preset and counts the changes, and each
   * changed rule says what the preset has. */
  describeLines(): [string, boolean][] {
    const base = this.nearestPreset();
    const mine = this.inWords();
    const theirs = base.inWords();
    const changes = mine.filter(([, value], i) => value !== theirs[i]![1]).length;
    let title: string;
    if (this.isPreset) {
      title = `${this.name} rules`;
    } else {
      const named = this.name === CUSTOM ? "custom rules" : `custom rules named ${this.name}`;
      title = changes === 0 ? `${named}: the same as the ${base.name} rules`
        : `${named}: the ${base.name} rules with ${changes} change${changes === 1 ? "" : "s"}`;
    }
    return [[title, false], ...mine.map(([label, value], i): [string, boolean] => {
      const was = theirs[i]![1];
      return value === was ? [`${label}: ${value}`, false] : [`${label}: ${value} — changed from ${was}`, true];
    })];
  }

  /** The preset this ruleset differs least from, rule by rule as {@link describe} says
   * them (itself for a preset; the first of {@link PRESETS} on a tie): a custom
   * ruleset's changes are shown against it. */
  nearestPreset(): Ruleset {
    const mine = this.inWords();
    let best: Ruleset | null = null;
    let fewest = Infinity;
    for (const preset of PRESET_BY_NAME.values()) {
      const theirs = preset.inWords();
      const count = mine.filter(([, value], i) => value !== theirs[i]![1]).length;
      if (count < fewest) [best, fewest] = [preset, count];
    }
    return best!;
  }

  /** Each rule's name and value in words, in {@link describe}'s order. */
  private inWords(): [string, string][] {
    const big = this.bigGinBonus === null ? "off" : `${this.bigGinBonus} + deadwood`;
    const limit = this.knockLimitFromUpcard ? "the first upcard's value (an ace: gin only)" : String(this.knockLimit);
    const shutout = { double_bonus: "doubles the game bonus", double_total: "doubles the winner's total", none: "no extra" };
    return [
      ["knock limit", limit],
      ["gin bonus", `${this.ginBonus} + deadwood`],
      ["undercut bonus", `${this.undercutBonus} + the difference`],
      ["big gin", big],
      ["box bonus", `${this.boxBonus} a hand won`],
      ["game bonus", String(this.gameBonus)],
      ["match to", String(this.target)],
      ["shutout", shutout[this.shutout]],
      ["next dealer", this.winnerDeals ? "the winner" : "alternates"],
      ["dead hand", `a discard that leaves ${this.deadStock} in the stock`],
    ];
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

  /** A ruleset from gin's plain data; RulesError names unknown or bad fields. */
  static fromDict(data: unknown): Ruleset {
    if (pyTypeName(data) !== "dict") {
      const kind = pyTypeName(data);
      throw new RulesError(`the rules must be a map of names to values, not ${KINDS[kind] ?? kind}`);
    }
    const unknown = Object.keys(data as object).filter((k) => !FIELD_OF_DATA.has(k)).sort();
    if (unknown.length) throw new RulesError(`no such rule: ${unknown.join(", ")}`);
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data as object)) fields[FIELD_OF_DATA.get(key)!] = value;
    return new Ruleset(fields as Partial<RulesetFields>);
  }

  /** A copy with some fields changed (house rules on top of a preset). A changed
   * preset is named {@link CUSTOM} unless `changes` names it. */
  withOptions(changes: Partial<RulesetFields>): Ruleset {
    const values: Record<string, unknown> = {};
    for (const f of FIELDS) values[f] = this[f];
    Object.assign(values, changes);
    if (!("name" in changes) && this.isPreset && FIELDS.some((f) => values[f] !== this[f])) {
      values.name = CUSTOM;
    }
    return new Ruleset(values as Partial<RulesetFields>);
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
for (const [name, preset] of PRESETS) PRESET_BY_NAME.set(name, preset);

/** A preset by name, or MalformedInput listing the presets. */
export function ruleset(name: string): Ruleset {
  const found = PRESETS.get(name);
  if (found === undefined) {
    throw new MalformedInput(`unknown ruleset ${pyRepr(name)}; choose one of ${[...PRESETS.keys()].join(", ")}`);
  }
  return found;
}
