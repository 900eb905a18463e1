// A value for a parameter or body the spec gives no example for, made from its schema: what the
// schema states first (const, example, examples, default, enum) where it meets the schema's own
// constraints, else a value of its type within them (pattern, format, enum, length and numeric
// bounds). Only for specs other than this repository's (strict builds take every value from the
// spec or the scenario): a reader of a fork's docs still gets a sample that runs, and a server
// that validates requests by the spec (Prism) accepts it.
import { isObject, type JsonObject, resolveRef } from "@marketapi/spec/model";
import { stringMatching } from "./pattern-values.js";
import { SampleSpecError } from "./sample-spec.js";

/** Values made for string formats, each one valid for its format. */
const FORMAT_VALUES: Record<string, string> = {
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  time: "12:00:00Z",
  duration: "P1D",
  uuid: "7b8f0a3e-6f1d-4c1e-9a2b-3c4d5e6f7a8b",
  email: "user@example.com",
  "idn-email": "user@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  url: "https://example.com/",
  byte: "ZXhhbXBsZQ==",
  binary: "example",
  password: "example-password",
};

/** How deep a made value nests before it stops (a recursive schema would not end). */
const MAX_DEPTH = 6;

/** The first of the schema's own stated values that meets the schema, if it states one. */
function statedValue(schema: JsonObject): { value: unknown } | undefined {
  if (schema.const !== undefined) return { value: schema.const };
  const enumValue = Array.isArray(schema.enum)
    ? (schema.enum.find((v) => v !== null) ?? schema.enum[0])
    : undefined;
  const candidates = [
    schema.example,
    ...(Array.isArray(schema.examples) ? schema.examples : []),
    schema.default,
    enumValue,
  ];
  for (const value of candidates) {
    if (value !== undefined && meetsSchema(schema, value)) return { value };
  }
  return undefined;
}

/** Formats a made value must have, as JSON Schema's format vocabulary defines them (the common ones). */
const FORMAT_CHECKS: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i,
  date: /^\d{4}-\d\d-\d\d$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  email: /^[^@\s]+@[^@\s]+$/,
  ipv4: /^(\d{1,3}\.){3}\d{1,3}$/,
  uri: /^[a-z][a-z0-9+.-]*:/i,
};

/**
 * Whether a value the spec states meets the schema's scalar constraints: const and enum, type,
 * pattern, format (those FORMAT_CHECKS knows), length and numeric bounds. Objects and arrays are
 * taken as the spec gives them.
 */
export function meetsSchema(schema: JsonObject, value: unknown): boolean {
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
    return false;
  }
  const type = typeOf(schema);
  if (typeof value === "string") {
    if (type !== undefined && type !== "string") return false;
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) return false;
    if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
    if (typeof schema.pattern === "string" && !matches(schema.pattern, value)) return false;
    const format = typeof schema.format === "string" ? FORMAT_CHECKS[schema.format] : undefined;
    return format === undefined || format.test(value);
  }
  if (typeof value === "number") {
    if (type === "integer" && !Number.isInteger(value)) return false;
    if (type !== undefined && type !== "integer" && type !== "number") return false;
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return false;
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return false;
    const step = schema.multipleOf;
    return typeof step !== "number" || step <= 0 || Number.isInteger(Number((value / step).toPrecision(12)));
  }
  if (typeof value === "boolean") return type === undefined || type === "boolean";
  return true;
}

function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    return true; // a pattern JavaScript cannot read is not held against the spec's own value
  }
}

function typeOf(schema: JsonObject): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null") as string | undefined;
  if (typeof schema.type === "string") return schema.type;
  if (isObject(schema.properties) || Array.isArray(schema.required)) return "object";
  if (schema.items !== undefined || schema.prefixItems !== undefined) return "array";
  return undefined;
}

function numberWithin(schema: JsonObject, integer: boolean): number {
  const min =
    typeof schema.minimum === "number"
      ? schema.minimum
      : typeof schema.exclusiveMinimum === "number"
        ? schema.exclusiveMinimum + (integer ? 1 : 0.5)
        : undefined;
  const max =
    typeof schema.maximum === "number"
      ? schema.maximum
      : typeof schema.exclusiveMaximum === "number"
        ? schema.exclusiveMaximum - (integer ? 1 : 0.5)
        : undefined;
  let value = min ?? (max !== undefined ? Math.min(1, max) : 1);
  if (integer) value = Math.ceil(value);
  const step = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (step !== undefined) value = Math.ceil(value / step) * step;
  return value;
}

function stringWithin(schema: JsonObject): string {
  const format = typeof schema.format === "string" ? FORMAT_VALUES[schema.format] : undefined;
  let text = format ?? "example";
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  if (text.length < min) text = text.padEnd(min, "x");
  if (max !== undefined && text.length > max) text = text.slice(0, Math.max(max, min));
  if (typeof schema.pattern !== "string" || meetsSchema(schema, text)) return text;
  const matching = stringMatching(schema.pattern, min, max);
  if (matching === undefined) {
    throw new SampleSpecError(
      `no sample value: the samples cannot write a string that matches the pattern ${JSON.stringify(schema.pattern)}${min > 0 || max !== undefined ? ` and has ${min} to ${max ?? "any number of"} characters` : ""} (give it an example in the spec)`,
    );
  }
  return matching;
}

/**
 * A value valid for `schema` as far as the schema says without a pattern: its stated value, else
 * one made from its type (objects with their required properties, read-only ones left out;
 * arrays with as many items as they must have; the first alternative of oneOf/anyOf that is not null).
 */
export function sampleValueOf(document: JsonObject, node: unknown, depth = 0): unknown {
  if (!isObject(node) || depth > MAX_DEPTH) return "example";
  const schema = resolved(document, node);
  const stated = statedValue(schema);
  if (stated) return stated.value;
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((part) => sampleValueOf(document, part, depth + 1));
    const rest = withoutKeyword(schema, "allOf");
    if (parts.every(isObject)) {
      const own = typeOf(rest) === "object" ? sampleValueOf(document, rest, depth + 1) : {};
      return Object.assign({}, ...parts, isObject(own) ? own : {});
    }
    return parts[0];
  }
  for (const key of ["oneOf", "anyOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const chosen = options.find((o) => !(isObject(o) && o.type === "null")) ?? options[0];
      const value = sampleValueOf(document, chosen, depth + 1);
      const rest = withoutKeyword(schema, key);
      if (isObject(value) && typeOf(rest) === "object") {
        const own = sampleValueOf(document, rest, depth + 1);
        return { ...(isObject(own) ? own : {}), ...value };
      }
      return value;
    }
  }
  switch (typeOf(schema)) {
    case "integer":
      return numberWithin(schema, true);
    case "number":
      return numberWithin(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const count = Math.max(1, typeof schema.minItems === "number" ? schema.minItems : 1);
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      return Array.from({ length: Math.max(count, prefix.length) }, (_, i) =>
        sampleValueOf(document, prefix[i] ?? schema.items ?? {}, depth + 1),
      );
    }
    case "object": {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
      const out: Record<string, unknown> = {};
      for (const name of required) {
        const property = properties[name];
        if (resolved(document, property).readOnly === true) continue;
        out[name] = sampleValueOf(document, property ?? {}, depth + 1);
      }
      return out;
    }
    default:
      return stringWithin(schema);
  }
}

/**
 * The spec's example with the object properties its schema does not declare left out, where the
 * schema declares its properties and says nothing of others (no additionalProperties,
 * patternProperties or alternatives): JSON Schema allows them, but the client generated from the
 * spec has no field for them (TypeScript refuses them in a literal), and the API may not read them.
 * All languages send the same value.
 */
export function declaredPartOf(document: JsonObject, node: unknown, value: unknown, depth = 0): unknown {
  if (!isObject(node) || depth > MAX_DEPTH) return value;
  const schema = resolved(document, node);
  if (Array.isArray(value)) {
    return schema.items === undefined
      ? value
      : value.map((item) => declaredPartOf(document, schema.items, item, depth + 1));
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const open = [
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$dynamicRef",
  ].some((key) => schema[key] !== undefined);
  const properties = schema.properties;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (name in properties) out[name] = declaredPartOf(document, properties[name], inner, depth + 1);
    else if (open) out[name] = inner;
  }
  return out;
}

/** meetsSchema of a schema as written (its `$ref`s followed). */
export function meetsSchemaOf(document: JsonObject, node: unknown, value: unknown): boolean {
  return !isObject(node) || meetsSchema(resolved(document, node), value);
}

/** The schema with its `$ref`s followed (siblings kept); an empty schema where one does not resolve. */
function resolved(document: JsonObject, node: unknown): JsonObject {
  try {
    return resolveRef(document, node, "");
  } catch {
    return {};
  }
}

function withoutKeyword(schema: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}
