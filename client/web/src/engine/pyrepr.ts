/**
 * Python's `repr` of plain JSON values, for error messages that must read exactly
 * as gin/'s (`got 'x'`, `got True`, `got None`).
 */

/**
 * A JSON number Python loads as a float (written with a fraction or an exponent),
 * kept apart from integers by readers that must refuse `1.0` where gin/ does.
 */
export class PyFloat {
  constructor(readonly value: number) {
    Object.freeze(this);
  }

  /** Python's `repr(float)`: the shortest digits that round-trip, `1.0`, `1e+16`, `1e-05`. */
  toString(): string {
    const x = this.value;
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    const [mantissa, exponent] = Math.abs(x).toExponential().split("e") as [string, string];
    const digits = mantissa.replace(".", "");
    const point = Number(exponent) + 1; // digits[0..point) are the integer part
    if (point > 16 || point <= -4) { // Python's thresholds for the exponent form
      const e = point - 1;
      const rest = digits.length > 1 ? "." + digits.slice(1) : "";
      return `${sign}${digits[0]}${rest}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    const whole = digits.slice(0, point).padEnd(point, "0");
    return `${sign}${whole}.${digits.slice(point) || "0"}`;
  }
}

/** `repr(value)` of a JSON value as Python would show it once loaded. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value instanceof PyFloat) return String(value);
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pyStr(value);
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${pyStr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
  return String(value);
}

/** What Python's `str.isprintable` refuses (but the space), which `repr` escapes. */
const UNPRINTABLE = /[^\P{C}]|[^\P{Z} ]/gu;

/** Python's escape of one unprintable character: \\xNN, \\uNNNN or \\UNNNNNNNN. */
function pyEscape(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
  if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
  return "\\U" + code.toString(16).padStart(8, "0");
}

/** `repr` of a string: single quotes unless it holds one and no double quote. */
function pyStr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")
    .replace(UNPRINTABLE, pyEscape);
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

/** Python's `type(value).__name__` of a JSON value. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "bigint") return "int";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}
