// The runtime of the generated validators: marketapi-codegen --validators copies this module, as
// it is, into the output as validators-runtime.ts (behind the generated-file header), where the
// ajv standalone code imports its helpers. It is a real module so that it is type-checked and
// linted where it is written; it must import nothing, since the output is self-contained. Format
// checks keep the meaning of ajv-formats' "full" mode; the validators package tests them side by side.

/** An error as the generated validation code reports it: ajv's error object. */
export interface RawError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A generated validation function: whether data is valid; on failure, errors says why. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: RawError[] | null;
}

/** What error messages know about one schema node, found by the node's schema path. */
export interface SchemaHint {
  /** What a value there must be: "a media type without leading, trailing or repeated whitespace". */
  expect?: string;
  /** How a property this closed object does not declare is reported: "is not a property of Coding". */
  unknown?: string;
  /** When the rules below this node apply: "when type is LIMIT". */
  when?: string;
  /** The spec rule reported instead of the JSON Schema keyword: "x-order-type-rules". */
  rule?: string;
  /** On an anyOf of required branches: the parameters of which at least one is needed. */
  oneOfNames?: readonly string[];
  /** On a not of a required pair: the two parameters that exclude each other. */
  exclusive?: readonly string[];
}

/** One compiled schema, with what its error messages need. */
export interface CompiledSchema {
  validate: CompiledValidator;
  /** Hints of the whole compilation unit, by schema path. */
  hints: Readonly<Record<string, SchemaHint>>;
  /** How messages name the validated value itself: "the Endpoint", "the body". */
  label: string;
}

/** How a parameter's value is written in a query string or form body. */
export type ParameterCoding = "string" | "integer" | "number" | "boolean" | "json" | "integer-or-string";

export interface ParameterInfo {
  name: string;
  in: "query" | "header" | "path" | "cookie";
  coding: ParameterCoding;
  /** What the text must look like, for decoding errors: 'an integer such as "100"'. */
  expect: string;
  /** The schema's x-wire-pattern: a regular expression (unicode mode) the text must match. */
  wirePattern?: string;
}

/** The signing envelope's parameter names (recvWindow is a declared parameter where accepted). */
export interface SigningEnvelope {
  timestamp: string;
  signature: string;
}

/** How a body tells its variant without the request: its JSON type and the properties only it has. */
export interface VariantShape {
  variant: string;
  type: "object" | "array";
  /** A body of this type with any of these claims the variant; empty: every body of this type. */
  markers: readonly string[];
}

/**
 * The bodies one response status may take, chosen by a request parameter (x-response-variant-by):
 * by its value (newOrderRespType=ACK), or by its presence (variants "present" and "absent").
 */
export interface ResponseVariants {
  parameter: string;
  by: "value" | "presence";
  default?: string;
  statuses: readonly string[];
  schemas: Readonly<Record<string, CompiledSchema>>;
  /** Most specific first: the first that matches the body names the variant the body claims. */
  shapes: readonly VariantShape[];
}

export interface OperationValidators {
  method: string;
  path: string;
  request: CompiledSchema;
  parameters: readonly ParameterInfo[];
  signing?: SigningEnvelope;
  /** By status as the spec writes it ("200", "4XX", "default"); null for a response without a body. */
  responses: Readonly<Record<string, CompiledSchema | null>>;
  variants?: ResponseVariants;
}

/** The number of Unicode code points of a string (minLength/maxLength count those, not UTF-16 units). */
export function ucs2length(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if ((next & 0xfc00) === 0xdc00) i++;
    }
    count++;
  }
  return count;
}

/**
 * A schema's `pattern` as a regular expression: with the `u` flag, as JSON Schema reads it, or,
 * where the pattern is no valid regular expression so, as JavaScript reads it without the flag
 * (identity escapes such as `\:`, which published documents write, and which mean the character
 * itself). Only the validators of a spec that is not marketapi's own call it; our own schema
 * rules refuse such a pattern.
 */
export function patternOf(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    if (!flags.includes("u")) throw error;
    return new RegExp(source, flags.replace("u", ""));
  }
}

/** Deep equality of JSON values, as enum, const and uniqueItems mean it. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !equal(left[key], right[key])) return false;
  }
  return true;
}

/**
 * The pair of equal items uniqueItems reports, [i, j] with j < i and i as large as possible (as
 * ajv reports it), or null. Linear in the size of the array: items are compared by a canonical
 * text (object keys sorted), which is deep equality for JSON values.
 */
export function duplicateItems(items: readonly unknown[]): [number, number] | null {
  const seen = new Map<string, number>();
  const identities = new Map<unknown, number>();
  let found: [number, number] | null = null;
  for (let i = 0; i < items.length; i++) {
    const key = canonical(items[i], identities);
    const j = seen.get(key);
    if (j !== undefined) found = [i, j];
    seen.set(key, i);
  }
  return found;
}

function canonical(value: unknown, identities: Map<unknown, number>): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return "undefined";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map((item) => canonical(item, identities)).join(",")}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      return (
        "{" +
        keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key], identities)}`).join(",") +
        "}"
      );
    }
    default: {
      // Functions, symbols, bigints: equal only to themselves.
      if (!identities.has(value)) identities.set(value, identities.size);
      return `#${String(identities.get(value))}`;
    }
  }
}

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;
const DATE_TIME_SEPARATOR = /t|\s/i;
const BYTE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/m;

/** A full-date of RFC 3339: YYYY-MM-DD with a day that exists in that month. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const last = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month] ?? 0);
  return month >= 1 && month <= 12 && day >= 1 && day <= last;
}

/** A full-time of RFC 3339 with a time zone; a leap second only at 23:59:60 UTC. */
function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (!match) return false;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  const second = Number(match[3]);
  const zone = match[4];
  const sign = match[5] === "-" ? -1 : 1;
  const zoneHour = Number(match[6] ?? 0);
  const zoneMinute = Number(match[7] ?? 0);
  if (zoneHour > 23 || zoneMinute > 59 || !zone) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  const utcMinute = minute - zoneMinute * sign;
  const utcHour = hour - zoneHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

function isDateTime(text: string): boolean {
  const parts = text.split(DATE_TIME_SEPARATOR);
  return parts.length === 2 && isDate(parts[0] ?? "") && isTime(parts[1] ?? "");
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The format checks the generated code calls, by format name. */
export const runtimeFormats = {
  date: { validate: isDate },
  time: { validate: isTime },
  "date-time": { validate: isDateTime },
  byte: { validate: (text: string): boolean => BYTE.test(text) },
  int32: {
    type: "number",
    validate: (value: number): boolean => Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX,
  },
  int64: { type: "number", validate: (value: number): boolean => Number.isInteger(value) },
  float: { type: "number", validate: (_value: number): boolean => true },
  double: { type: "number", validate: (_value: number): boolean => true },
} as const;
