// How parameter values are written on the wire (binance-spot.md §1.3–1.5): numbers in plain
// decimal notation, dates as RFC 3339, JSON-encoded parameters as one compact JSON value, names and
// values percent-encoded so that the bytes signed are the bytes sent.

/**
 * Writes a number in plain decimal notation, as the API requires: `1e-7` becomes `"0.0000001"`,
 * `1e21` becomes `"1000000000000000000000"`. Keeps JavaScript's shortest round-trip digits, so the
 * text parses back to the same number. Throws a RangeError on NaN and ±Infinity.
 */
export function formatDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} cannot be written as a decimal number`);
  const text = String(value);
  const e = text.indexOf("e");
  if (e === -1) return text;
  const sign = value < 0 ? "-" : "";
  const mantissa = text.slice(sign.length, e);
  const dot = mantissa.indexOf(".");
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  // Where the decimal point falls within `digits` (the mantissa always has one integer digit).
  const point = 1 + Number(text.slice(e + 1));
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** RFC 3986's unreserved characters: text of only these is its own encoding. */
const UNRESERVED = /^[A-Za-z0-9._~-]*$/;

/** encodeURIComponent plus the five characters it leaves alone (`!'()*`), as RFC 3986 wants. */
export function percentEncode(text: string): string {
  // Most names and values (symbols, enums, numbers, ids) need no encoding: one test, no copy.
  if (UNRESERVED.test(text)) return text;
  const encoded = encodeURIComponent(text);
  return /[!'()*]/.test(encoded)
    ? encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    : encoded;
}

/** The text of one parameter value, before percent-encoding; `name` is only for error messages. */
export function formatValue(name: string, value: unknown, json: boolean): string {
  if (json) return JSON.stringify(value);
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      return formatDecimal(value);
    case "boolean":
    case "bigint":
      return String(value);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError(`parameter "${name}" is an invalid Date`);
    return value.toISOString();
  }
  throw new TypeError(
    `parameter "${name}" must be a string, number, boolean or Date, got ${Array.isArray(value) ? "an array" : typeof value}`,
  );
}

/**
 * `name=value&…` for the defined entries of `params`, in their own order. `undefined` and `null`
 * values are left out; names in `jsonEncoded` are written as JSON (`symbols=["A","B"]`).
 */
export function encodeParams(
  params: Readonly<Record<string, unknown>> | undefined,
  jsonEncoded: readonly string[],
): string {
  let out = "";
  for (const name in params) {
    const value = params[name];
    if (value === undefined || value === null) continue;
    const text = formatValue(name, value, jsonEncoded.length > 0 && jsonEncoded.includes(name));
    out += `${out === "" ? "" : "&"}${percentEncode(name)}=${percentEncode(text)}`;
  }
  return out;
}

/** Joins two encoded parameter strings with `&`, either of which may be empty. */
export function joinParams(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a}&${b}`;
}
