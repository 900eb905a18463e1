import type { ValidationError } from "./explain.js";
import type { OperationValidators, ParameterInfo } from "./generated/validators-runtime.gen.js";

/**
 * Parameters as a server receives them: text. A query string ("symbol=BTCUSDT&limit=5", with or
 * without "?"), a URLSearchParams (also what a form body parses to), pairs, or an object of
 * strings such as Node's querystring or most frameworks give (an array for a repeated name).
 */
export type ParameterText =
  | string
  | URLSearchParams
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface Decoded {
  /** The decoded values, by parameter name (an object that inherits no properties). */
  params: Record<string, unknown>;
  /** Values that are not text of their parameter's type, and names given more than once. */
  errors: ValidationError[];
}

const INTEGER = /^-?[0-9]+$/;
/** Plain decimal notation, as the spec asks ("0.0000001", never "1e-7"). */
const DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** Collects the text values by name, keeping every value of a repeated name. */
function collect(input: ParameterText): Map<string, string[]> | ReadonlyMap<string, string> {
  // A Map of strings (what a server that already read its parameters holds) names each once.
  if (input instanceof Map && isMapOfText(input)) return input;
  const byName = new Map<string, string[]>();
  const add = (name: string, value: string) => {
    const list = byName.get(name);
    if (list) list.push(value);
    else byName.set(name, [value]);
  };
  if (typeof input === "string") {
    for (const [name, value] of new URLSearchParams(input.startsWith("?") ? input.slice(1) : input))
      add(name, value);
  } else if (input instanceof URLSearchParams || Symbol.iterator in Object(input)) {
    for (const pair of input as Iterable<readonly [string, string]>) add(String(pair[0]), String(pair[1]));
  } else {
    for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) add(name, String(item));
    }
  }
  return byName;
}

function isMapOfText(input: Map<unknown, unknown>): input is Map<string, string> {
  for (const [name, value] of input) if (typeof name !== "string" || typeof value !== "string") return false;
  return true;
}

/** The compiled x-wire-pattern of each pattern text, compiled once. */
const wirePatterns = new Map<string, RegExp>();

function matchesWirePattern(pattern: string, text: string): boolean {
  let regex = wirePatterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, "u");
    wirePatterns.set(pattern, regex);
  }
  return regex.test(text);
}

/** What decodeValue gives for text that is not of its parameter's type (no value is this). */
const UNDECODABLE: unique symbol = Symbol("undecodable");

/** The value the text stands for, or UNDECODABLE (a sentinel, not a wrapper object per value). */
function decodeValue(info: ParameterInfo, text: string): unknown {
  if (info.wirePattern !== undefined && !matchesWirePattern(info.wirePattern, text)) return UNDECODABLE;
  switch (info.coding) {
    case "integer": {
      const value = Number(text);
      return INTEGER.test(text) && Number.isSafeInteger(value) ? value : UNDECODABLE;
    }
    case "number": {
      const value = Number(text);
      return DECIMAL.test(text) && Number.isFinite(value) ? value : UNDECODABLE;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : UNDECODABLE;
    case "integer-or-string": {
      // Integer text is the integer branch (epoch milliseconds of a date_time); the rest stays text.
      const value = Number(text);
      return INTEGER.test(text) && Number.isSafeInteger(value) ? value : text;
    }
    case "json":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return UNDECODABLE;
      }
    default:
      return text;
  }
}

function escapeToken(token: string): string {
  if (!token.includes("~") && !token.includes("/")) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Converts parameter text to the values the operation's schema describes: integers, plain
 * decimal numbers, booleans, JSON-encoded values (`symbols=["BTCUSDT"]`), integer-or-text unions
 * (a date_time: `1704067200000` or `2024-01-01T00:00:00Z`); other values stay text.
 * A name given more than once, or text that is not of its parameter's type, is an error and is
 * left out of `params`. Unknown names are kept as text, for validation to report.
 */
export function decodeParameters(operation: OperationValidators, input: ParameterText): Decoded {
  const infos = parameterInfos(operation);
  const params = new DecodedParams();
  const errors: ValidationError[] = [];
  for (const [name, texts] of collect(input)) {
    if (typeof texts === "string" || texts.length === 1) {
      const text = typeof texts === "string" ? texts : (texts[0] as string);
      const info = infos.get(name);
      if (!info) {
        params[name] = text;
        continue;
      }
      const decoded = decodeValue(info, text);
      // Keyed by the table's own name (equal text, but internalized): the store then skips
      // looking the request's copy of the name up in V8's string table.
      if (decoded !== UNDECODABLE) params[info.name] = decoded;
      else errors.push(typeError(info, `/${escapeToken(name)}`));
      continue;
    }
    const path = `/${escapeToken(name)}`;
    errors.push({
      path,
      rule: "duplicate",
      keyword: "duplicate",
      params: { count: texts.length },
      message: `${path} is given ${texts.length} times; give it once`,
    });
  }
  return { params, errors };
}

/**
 * What `params` is made from: an object with no inherited properties (a parameter named
 * "__proto__" or "constructor" is data, and an absent one reads undefined), as Object.create(null)
 * gives, but made by a constructor, so V8 keeps it a fast object with a shared shape; an object of
 * Object.create(null) is a dictionary from birth, and every read of it by the validators is a hash
 * lookup.
 */
const DecodedParams = function DecodedParams() {} as unknown as new () => Record<string, unknown>;
DecodedParams.prototype = Object.freeze(Object.create(null));

function typeError(info: ParameterInfo, path: string): ValidationError {
  return {
    path,
    rule: info.coding === "json" ? "json" : "type",
    keyword: info.coding === "json" ? "json" : "type",
    params: {},
    message: `${path} must be ${info.expect}`,
  };
}

/** Each operation's parameters by name, built once per operation (not once per request). */
const infosByOperation = new WeakMap<OperationValidators, Map<string, ParameterInfo>>();

function parameterInfos(operation: OperationValidators): Map<string, ParameterInfo> {
  let infos = infosByOperation.get(operation);
  if (infos === undefined) {
    infos = new Map(operation.parameters.map((p) => [p.name, p]));
    infosByOperation.set(operation, infos);
  }
  return infos;
}
