/**
 * The strict reading of a JSON value shared by the files the audit reads beside hand
 * records (deal evidence, abandonment records): every failure is a MalformedInput naming
 * the file's kind and the JSON path of what is wrong (gin/protocol/records/strict_json.py).
 */

import { hexToBytes } from "@noble/hashes/utils.js";

import { MalformedInput } from "../../engine/errors.ts";
import type { PyJson } from "./pyjson.ts";

/** Python's len() of a text: code points, not UTF-16 units. */
export const pyLen = (text: string): number => [...text].length;

/** Readers of one kind of file: `what` heads every error ("deal evidence"). */
export class StrictJson {
  constructor(readonly what: string) {}

  fail(path: string, why: string): never {
    throw new MalformedInput(`${this.what}: ${path}: ${why}`);
  }

  /** A JSON object with exactly the fields `names`. */
  fields(value: PyJson | undefined, path: string, names: readonly string[]): Map<string, PyJson> {
    if (!(value instanceof Map)) this.fail(path, "expected an object");
    for (const key of value.keys()) if (!names.includes(key)) this.fail(`${path}.${key}`, "unexpected field");
    for (const key of names) if (!value.has(key)) this.fail(`${path}.${key}`, "missing");
    return value;
  }

  /** `size` bytes as hex digits (either case). */
  hex(value: PyJson | undefined, path: string, size: number): Uint8Array {
    if (typeof value !== "string" || pyLen(value) !== 2 * size || !/^[0-9a-fA-F]*$/.test(value)) {
      this.fail(path, `expected ${2 * size} hex digits`);
    }
    return hexToBytes(value);
  }

  /** A whole number 0..`high` (not a boolean, not a float). */
  integer(value: PyJson | undefined, path: string, high: number): number {
    if (typeof value !== "bigint" || value < 0n || value > BigInt(high)) this.fail(path, `expected an integer 0..${high}`);
    return Number(value);
  }
}
