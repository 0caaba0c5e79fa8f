/**
 * Player actions: small immutable values with text forms that round-trip, as in
 * gin/engine/actions.py.
 *
 * | text                           | action                                          |
 * |--------------------------------|-------------------------------------------------|
 * | `pass`                         | decline the upcard                              |
 * | `stock`                        | draw the top card of the stock                  |
 * | `take`                         | take the upcard or the top of the discard pile  |
 * | `discard 7h`                   | throw a card                                    |
 * | `knock 7h`                     | throw a card face down and knock, best melds    |
 * | `knock 7h / 5h6h7h / 9c9d9s`   | knock declaring the melds                       |
 * | `biggin`                       | lay down all eleven cards (when allowed)        |
 * | `layoff`                       | the defender's best melds and lay-offs          |
 * | `layoff 8h>0 / 2c3c4c`         | the defender's own: card>meld lay-offs, melds   |
 *
 * Two actions are equal when their texts are ({@link sameAction}).
 */

import { Card, parseCards, stripSpace } from "./cards.ts";
import { MalformedInput } from "./errors.ts";
import { pyRepr } from "./pyrepr.ts";
import type { Meld } from "./melds.ts";

/** Decline the upcard. */
export class Pass {
  readonly kind = "pass";
  toString(): string {
    return "pass";
  }
}

/** Draw the top card of the stock. */
export class DrawStock {
  readonly kind = "stock";
  toString(): string {
    return "stock";
  }
}

/** Take the upcard, or the top card of the discard pile. */
export class DrawPile {
  readonly kind = "take";
  toString(): string {
    return "take";
  }
}

/** Throw a card onto the discard pile. */
export class Discard {
  readonly kind = "discard";
  constructor(readonly card: Card) {}
  toString(): string {
    return `discard ${this.card}`;
  }
}

/**
 * Throw `card` face down and lay the hand out. `melds` are the melds declared
 * (null: the best arrangement). Knocking with no deadwood is gin.
 */
export class Knock {
  readonly kind = "knock";
  constructor(readonly card: Card, readonly melds: readonly Meld[] | null = null) {}
  toString(): string {
    return `knock ${this.card}` + meldsText(this.melds);
  }
}

/** Lay down all eleven cards in melds without discarding (when allowed). */
export class BigGin {
  readonly kind = "biggin";
  constructor(readonly melds: readonly Meld[] | null = null) {}
  toString(): string {
    return "biggin" + meldsText(this.melds);
  }
}

/**
 * The defender's answer to a knock: own melds and lay-offs. `layoffs` pairs a
 * card with the index of the knocker's meld it goes on. Both null: the best
 * layout, chosen by the engine.
 */
export class LayOff {
  readonly kind = "layoff";
  constructor(
    readonly layoffs: readonly (readonly [Card, number])[] | null = null,
    readonly melds: readonly Meld[] | null = null,
  ) {}
  toString(): string {
    if (this.layoffs === null && this.melds === null) return "layoff";
    if (!this.layoffs?.length && !this.melds?.length) return "layoff /"; // lays nothing down
    const parts = [(this.layoffs ?? []).map(([c, i]) => `${c}>${i}`).join(" ")];
    for (const m of this.melds ?? []) parts.push(m.join(""));
    return "layoff " + parts.join(" / ");
  }
}

export type Action = Pass | DrawStock | DrawPile | Discard | Knock | BigGin | LayOff;

/** Whether two actions are the same (their text forms are equal). */
export function sameAction(a: Action, b: Action): boolean {
  return a.kind === b.kind && String(a) === String(b);
}

function meldsText(melds: readonly Meld[] | null): string {
  return melds === null ? "" : melds.map((m) => " / " + m.join("")).join("");
}

function parseMeld(text: string): Meld {
  let compact = text.replace(/ /g, "");
  if (compact.length % 2) compact = compact.replace(/10/g, "T"); // "10" for ten
  const pairs: string[] = [];
  for (let i = 0; i < compact.length; i += 2) pairs.push(compact.slice(i, i + 2));
  return parseCards(pairs.join(" "));
}

const SIMPLE: Record<string, () => Action> = {
  pass: () => new Pass(),
  stock: () => new DrawStock(),
  take: () => new DrawPile(),
};

/** Parse an action's text form (see the module table); MalformedInput names it. */
export function parseAction(text: string): Action {
  const words = /^([^ \t\n\r\f\v]+)[ \t\n\r\f\v]*([\s\S]*)$/.exec(stripSpace(text));
  if (words === null) {
    throw new MalformedInput("empty action: expected pass, stock, take, discard CARD, knock CARD…");
  }
  const verb = words[1]!.toLowerCase();
  const rest = words[2]!;
  try {
    const simple = SIMPLE[verb];
    if (simple !== undefined && !rest) return simple();
    if (verb === "discard") return new Discard(Card.parse(rest));
    if (verb === "knock") {
      const [cardText, ...meldTexts] = rest.split("/");
      return new Knock(Card.parse(cardText!), meldTexts.length ? meldTexts.map(parseMeld) : null);
    }
    if (verb === "biggin") {
      const meldTexts = rest ? rest.split("/").slice(1) : [];
      return new BigGin(meldTexts.length ? meldTexts.map(parseMeld) : null);
    }
    if (verb === "layoff") {
      if (!rest) return new LayOff();
      const [layoffText, ...meldTexts] = rest.split("/");
      const layoffs: [Card, number][] = [];
      for (const item of layoffText!.split(/[ \t\n\r\f\v]+/).filter(Boolean)) {
        const sep = item.indexOf(">");
        const index = sep < 0 ? "" : item.slice(sep + 1);
        if (sep < 0 || !/^[0-9]+$/.test(index)) {
          throw new MalformedInput(`lay-off ${pyRepr(item)}: expected CARD>MELD such as 8h>0`);
        }
        layoffs.push([Card.parse(item.slice(0, sep)), Number(index)]);
      }
      return new LayOff(layoffs, meldTexts.filter((m) => m.trim()).map(parseMeld));
    }
  } catch (exc) {
    if (exc instanceof MalformedInput) throw new MalformedInput(`action ${pyRepr(text)}: ${exc.message}`);
    throw exc;
  }
  throw new MalformedInput(`action ${pyRepr(text)}: expected pass, stock, take, discard CARD, `
    + "knock CARD [/ MELD…], biggin or layoff");
}
