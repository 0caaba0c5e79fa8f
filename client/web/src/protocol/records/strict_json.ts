/**
 * JSON read as Python's `json.loads` reads it (gin/protocol/records/strict_json.py), for
 * files whose checks must word their refusals exactly as gin/ does (hand records, deal
 * evidence, abandonment records; envelope.ts reads their fields). `JSON.parse` cannot tell
 * `1` from `1.0` nor keep integers beyond 2^53, and Python can: here an integer
 * is a `bigint`, a number with a fraction or an exponent a {@link PyFloat}, an
 * object a `Map`. An object that repeats a key is refused (Python's json would keep
 * the last, so a record could say two things; gin/protocol/records/strict_json.py refuses it
 * too, in these words). `NaN`, `Infinity` and `-Infinity` are floats, as in Python.
 * A refusal's place counts code points, as Python's strings do.
 */

import { MalformedInput } from "../../engine/errors.ts";
import { PyFloat } from "../../engine/pyrepr.ts";

export type PyJson = null | boolean | bigint | PyFloat | string | PyJson[] | Map<string, PyJson>;

/** Python refuses integer literals longer than this (`sys.get_int_max_str_digits`). */
const MAX_INT_DIGITS = 4300;
/** Deeper nesting is refused (Python's own limit, about 1000, depends on its stack);
 * a record refuses nesting deeper than its MAX_NESTING before reading (envelope.ts). */
export const MAX_DEPTH = 512;

/** Text that Python's `json.loads` would refuse; the message says where. */
export class JsonSyntaxError extends MalformedInput {}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const SPACE = /[ \t\n\r]*/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Parse `text` as Python would; JsonSyntaxError when Python raises. `repeats`: keep the
 * last value of a repeated key instead (only to tell which kind of file a text is, whose
 * own reader then refuses it), as gin's `loads(text, repeats=True)`. */
export function parsePyJson(text: string, { repeats = false }: { repeats?: boolean } = {}): PyJson {
  let at = 0;
  const fail = (why: string): never => {
    throw new JsonSyntaxError(`${why} (char ${[...text.slice(0, at)].length})`);
  };
  const space = (): void => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const literal = (word: string): boolean => {
    if (!text.startsWith(word, at)) return false;
    at += word.length;
    return true;
  };
  const string = (): string => {
    at += 1; // the opening quote
    let out = "";
    for (;;) {
      const ch = text[at];
      if (ch === undefined) fail("unterminated string");
      if (ch === '"') {
        at += 1;
        return out;
      }
      if (ch! < " ") fail("invalid control character");
      if (ch !== "\\") {
        out += ch;
        at += 1;
        continue;
      }
      const esc = text[at + 1];
      if (esc === "u") {
        const hex = text.slice(at + 2, at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid \\uXXXX escape");
        out += String.fromCharCode(parseInt(hex, 16)); // surrogate pairs join by themselves
        at += 6;
      } else if (esc !== undefined && esc in ESCAPES) {
        out += ESCAPES[esc];
        at += 2;
      } else {
        fail("invalid escape");
      }
    }
  };
  const value = (depth: number): PyJson => {
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
    const ch = text[at];
    if (ch === '"') return string();
    if (ch === "{") {
      at += 1;
      const out = new Map<string, PyJson>();
      space();
      if (text[at] === "}") {
        at += 1;
        return out;
      }
      for (;;) {
        if (text[at] !== '"') fail("expecting a property name in double quotes");
        const start = at;
        const key = string();
        if (!repeats && out.has(key)) {
          at = start;
          fail("a key repeats in its object");
        }
        space();
        if (text[at] !== ":") fail("expecting ':'");
        at += 1;
        space();
        out.set(key, value(depth + 1));
        space();
        if (text[at] === "}") {
          at += 1;
          return out;
        }
        if (text[at] !== ",") fail("expecting ',' or '}'");
        at += 1;
        space();
      }
    }
    if (ch === "[") {
      at += 1;
      const out: PyJson[] = [];
      space();
      if (text[at] === "]") {
        at += 1;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        space();
        if (text[at] === "]") {
          at += 1;
          return out;
        }
        if (text[at] !== ",") fail("expecting ',' or ']'");
        at += 1;
        space();
      }
    }
    if (literal("null")) return null;
    if (literal("true")) return true;
    if (literal("false")) return false;
    if (literal("NaN")) return new PyFloat(NaN);
    if (literal("Infinity")) return new PyFloat(Infinity);
    if (literal("-Infinity")) return new PyFloat(-Infinity);
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (number === null) fail("expecting a value");
    at = NUMBER.lastIndex;
    const [whole, fraction, exponent] = number!;
    if (fraction !== undefined || exponent !== undefined) return new PyFloat(Number(whole));
    if (whole.replace("-", "").length > MAX_INT_DIGITS) fail(`an integer of more than ${MAX_INT_DIGITS} digits`);
    return BigInt(whole);
  };
  space();
  const result = value(0);
  space();
  if (at !== text.length) fail("extra data");
  return result;
}
