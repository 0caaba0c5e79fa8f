/**
 * Readers of plain data from outside (JSON from a file, the network or storage):
 * each checks one field's shape and throws MalformedInput naming it.
 */

import { Card } from "./cards.ts";
import { MalformedInput } from "./errors.ts";

/** A JSON object. */
export function record(data: unknown, what: string): Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new MalformedInput(`${what} must be a map`);
  }
  return data as Record<string, unknown>;
}

/** A list. */
export function list(data: unknown, what: string): unknown[] {
  if (!Array.isArray(data)) throw new MalformedInput(`${what} must be a list`);
  return data;
}

/** A whole number ≥ 0. */
export function whole(data: unknown, what: string): number {
  if (typeof data !== "number" || !Number.isInteger(data) || data < 0) {
    throw new MalformedInput(`${what} must be a whole number, got ${JSON.stringify(data)}`);
  }
  return data;
}

/** A player: 0 or 1. */
export function seat(data: unknown, what: string): number {
  if (data !== 0 && data !== 1) throw new MalformedInput(`${what} must be 0 or 1, got ${JSON.stringify(data)}`);
  return data;
}

/** One card from its text. */
export function card(data: unknown, what: string): Card {
  if (typeof data !== "string") throw new MalformedInput(`${what} must be a card's text`);
  return Card.parse(data);
}

/** A list of cards from their texts. */
export function cards(data: unknown, what: string): Card[] {
  return list(data, what).map((x, i) => card(x, `${what}[${i}]`));
}

/** A list of melds, each a list of cards. */
export function melds(data: unknown, what: string): Card[][] {
  return list(data, what).map((x, i) => cards(x, `${what}[${i}]`));
}
