import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS } from "../spec-input/document-places.js";
import type { JsonSchema } from "../spec-input/spec-model.js";
import { walkSchema } from "./openapi-keywords.js";
import type { SchemaHint as RuntimeSchemaHint } from "./validators-runtime.js";

/** What error messages know about one schema node: the runtime's SchemaHint, as generators build it. */
export type SchemaHint = { -readonly [K in keyof RuntimeSchemaHint]: RuntimeSchemaHint[K] };

export type HintTable = Record<string, SchemaHint>;

/** Patterns whose meaning reads better in words than as a regular expression. */
const PATTERN_WORDS: Record<string, string> = {
  "^[^\\s]+(?:\\s[^\\s]+)*$": "without leading, trailing or repeated whitespace",
  "^\\S+(?:\\s\\S+)*$": "without leading, trailing or repeated whitespace",
  "^\\S+$": "without whitespace",
};

/** Formats in words, with an example when the schema gives none. */
const FORMAT_WORDS: Record<string, { noun: string; example?: string }> = {
  "date-time": { noun: "an RFC 3339 date-time", example: "2024-01-01T00:00:00Z" },
  date: { noun: "an RFC 3339 date", example: "2024-01-01" },
  time: { noun: "an RFC 3339 time with a time zone", example: "12:00:00Z" },
  int32: { noun: "a 32-bit integer" },
  uuid: { noun: "a UUID" },
  byte: { noun: "base64 text" },
};

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/**
 * The schema path of a node as ajv writes it in errors: `base` (a `$ref` target such as
 * "#/$defs/Decimal", written as it is) followed by the node's segments. ajv escapes property
 * names (JSON Pointer, then percent-encoding) but writes keywords, indexes and `$ref`s as they
 * are; `$defs` names are only reached through `$ref`s, so they are written like one.
 */
export function schemaPathOf(base: string, segments: readonly (string | number)[]): string {
  let path = base;
  let next: "keyword" | "name" | "verbatim" = "keyword";
  for (const segment of segments) {
    const escaped = String(segment).replace(/~/g, "~0").replace(/\//g, "~1");
    path += `/${next === "name" ? encodeURIComponent(escaped) : escaped}`;
    if (next !== "keyword") next = "keyword";
    else if (segment === "$defs" || SCHEMA_ARRAY_KEYWORDS.includes(String(segment))) next = "verbatim";
    else if (SCHEMA_MAP_KEYWORDS.includes(String(segment))) next = "name";
  }
  return path;
}

function article(phrase: string): string {
  return /^[aeiou]/i.test(phrase) && !/^(URI|URL|UUID|uni|one|use|usu)/i.test(phrase)
    ? `an ${phrase}`
    : `a ${phrase}`;
}

/** "ClientOrderId" → "client order id", "dateTime" → "date time", "uri" → "URI". */
export function humanize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .toLowerCase()
    .split(" ")
    .map((word) => (["uri", "url", "uuid", "json"].includes(word) ? word.toUpperCase() : word))
    .join(" ");
}

/** The noun a description starts with ("A media type, for example ..." → "a media type"). */
function nounOfDescription(description: unknown): string | undefined {
  if (typeof description !== "string") return undefined;
  const match = /^(an? [^,.;:(`\n]+)/i.exec(description.trim());
  if (!match) return undefined;
  const noun = match[1]!.trim();
  return `${noun[0]!.toLowerCase()}${noun.slice(1)}`;
}

/**
 * The definition of a description written as "Label: definition. More text." (as the FHIR
 * datatypes are: "FHIR id: 1 to 64 characters from A-Z, ..."), or undefined.
 */
function definitionOfDescription(description: unknown): string | undefined {
  if (typeof description !== "string") return undefined;
  const match = /^[A-Z][A-Za-z0-9 ]*: (.+?)(?:\.(?:\s|$)|$)/s.exec(description.trim());
  return match ? match[1]!.replace(/\s+/g, " ") : undefined;
}

function exampleOf(node: Record<string, unknown>): unknown {
  if (node.example !== undefined) return node.example;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  return undefined;
}

/**
 * What a value described by `node` must be, in words, or undefined when the JSON Schema keyword
 * alone says it well enough. `name` is the node's name when it is a named definition.
 */
export function expectationOf(node: Record<string, unknown>, name?: string): string | undefined {
  const pattern = typeof node.pattern === "string" ? node.pattern : undefined;
  const format = typeof node.format === "string" ? FORMAT_WORDS[node.format] : undefined;
  const type = typeof node.type === "string" ? node.type : undefined;
  let example = exampleOf(node);
  if (example === undefined && format?.example !== undefined && type === "string") example = format.example;
  const describable = pattern !== undefined || format !== undefined;
  if (
    !describable &&
    (example === undefined || type === undefined || type === "object" || type === "array")
  ) {
    return undefined;
  }
  const definition = definitionOfDescription(node.description);
  if (definition)
    return example === undefined ? definition : `${definition}, such as ${JSON.stringify(example)}`;
  let noun = nounOfDescription(node.description);
  if (!noun && name) {
    const words = humanize(name);
    noun = article(
      type === "string" && !/\b(string|text|id|code|uri|url|name)$/i.test(words) ? `${words} string` : words,
    );
  }
  if (!noun && format) noun = format.noun;
  if (!noun) noun = (type && TYPE_WORDS[type]) ?? "a value";
  const parts = [noun];
  if (pattern !== undefined) {
    const words = PATTERN_WORDS[pattern];
    if (words) parts.push(words);
    else if (example === undefined) parts.push(`matching ${pattern}`);
  }
  if (example !== undefined) parts.push(`such as ${JSON.stringify(example)}`);
  return parts.join(" ");
}

/**
 * Hints for every node of `schema` whose errors read better with them: what a value must be
 * (patterns, formats, examples) and how closed objects name unknown properties. `base` is the
 * schema path of `schema` itself; `nameOf` names the nodes that are named definitions.
 */
export function hintsOf(
  schema: JsonSchema,
  base: string,
  nameOf: (segments: readonly (string | number)[]) => string | undefined,
): HintTable {
  const hints: HintTable = {};
  walkSchema(schema, (node, segments) => {
    const own = nameOf(segments);
    const hint: SchemaHint = {};
    const expect = expectationOf(node, own);
    if (expect) hint.expect = expect;
    if (node.additionalProperties === false || node.unevaluatedProperties === false) {
      const title = typeof node.title === "string" ? node.title : own;
      hint.unknown = title ? `is not a property of ${title}` : "is not an allowed property here";
    }
    if (Object.keys(hint).length > 0) hints[schemaPathOf(base, segments)] = hint;
  });
  return hints;
}
