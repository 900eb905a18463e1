// A value for a parameter or body the spec gives no example for, made from its schema: what the
// schema states first (const, example, examples, default, enum), else a value of its type within
// its bounds. Only for specs other than this repository's (strict builds take every value from the
// spec or the scenario): a reader of a fork's docs still gets a sample that runs.
import { isObject, type JsonObject, resolveRef } from "@marketapi/spec/model";

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

/** The first of the schema's own stated values, if it states one. */
function statedValue(schema: JsonObject): { value: unknown } | undefined {
  if (schema.const !== undefined) return { value: schema.const };
  if (schema.example !== undefined) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if (schema.default !== undefined) return { value: schema.default };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return { value: schema.enum.find((v) => v !== null) ?? schema.enum[0] };
  }
  return undefined;
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
  return text;
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
