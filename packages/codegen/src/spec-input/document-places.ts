// What a place of an OpenAPI document holds, read from the keys that lead to it: data (an example,
// a default), an extension's content, or spec structure; and for a node that a `$ref` names, the
// `components` section it would stand in. The structure check, the moving of references and the
// empty hints walk the document by these rules alike.

// Values of these fields are data, not spec structure: a "$ref" key inside an example is not a reference.
const DATA_FIELDS: ReadonlySet<string> = new Set(["example", "examples", "default", "const", "enum"]);

/** Whether the value of `key` (inside the value of `parentKey`) is data; `responses.default` is a response. */
export function isDataField(key: string, parentKey: string | undefined): boolean {
  return DATA_FIELDS.has(key) && !(key === "default" && parentKey === "responses");
}

// Maps whose keys are names a document chooses: an `x-` key there is a name, not an extension.
const NAME_MAPS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "schemas",
  "parameters",
  "responses",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "callbacks",
  "pathItems",
  "paths",
  "webhooks",
  "encoding",
  "variables",
]);

/** Whether the value of `key` maps names a document chooses to nodes (`properties`, `schemas`…), rather than being a node itself. */
export function holdsNames(key: string | undefined): boolean {
  return key !== undefined && NAME_MAPS.has(key);
}

/**
 * Whether a path of keys runs through an `x-` extension. What an extension holds is the business
 * of the tool that reads it: a `$ref` in there is neither followed nor checked here.
 */
export function insideExtension(segments: readonly string[]): boolean {
  return segments.some((segment, i) => segment.startsWith("x-") && !holdsNames(segments[i - 1]));
}

/** Whether the value of `key` (inside the value of `parentKey`) is spec structure: neither data nor an extension's. */
export function isStructure(key: string, parentKey: string | undefined): boolean {
  return !isDataField(key, parentKey) && !insideExtension([parentKey ?? "", key]);
}

/** JSON Schema 2020-12's keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS: readonly string[] = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
/** Keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY_KEYWORDS: readonly string[] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP_KEYWORDS: readonly string[] = [
  "properties",
  "patternProperties",
  "dependentSchemas",
  "$defs",
];

// Where a referenced node is a schema: below those keywords, at OpenAPI's `schema`, and below the
// keywords of earlier drafts that 3.0 documents still write.
const SCHEMA_SLOTS: ReadonlySet<string> = new Set(["schema", "additionalItems", ...SCHEMA_KEYWORDS]);
const SCHEMA_LISTS: ReadonlySet<string> = new Set(SCHEMA_ARRAY_KEYWORDS);
const SCHEMA_MAPS: ReadonlySet<string> = new Set(["definitions", ...SCHEMA_MAP_KEYWORDS]);
const OBJECT_MAPS: Readonly<Record<string, string>> = {
  parameters: "parameters",
  responses: "responses",
  headers: "headers",
  examples: "examples",
  links: "links",
  callbacks: "callbacks",
};

/** The `components` section a node at `segments` belongs in, or undefined (a path item, the root…). */
export function componentKindAt(segments: readonly string[]): string | undefined {
  const last = segments.at(-1);
  const parent = segments.at(-2);
  if (segments[0] === "components" && segments.length === 3) return segments[1];
  if (parent !== undefined && SCHEMA_MAPS.has(parent)) return "schemas";
  if (last !== undefined && SCHEMA_SLOTS.has(last)) return "schemas";
  if (parent !== undefined && SCHEMA_LISTS.has(parent)) return "schemas";
  if (last === "requestBody") return "requestBodies";
  return parent === undefined ? undefined : OBJECT_MAPS[parent];
}
