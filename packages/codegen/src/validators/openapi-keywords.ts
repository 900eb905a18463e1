import { describeValue, pointerOf, SpecError } from "@marketapi/spec-loader";
import {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
} from "../spec-input/document-places.js";
import type { JsonSchema } from "../spec-input/spec-model.js";

/**
 * How every keyword of an OpenAPI 3.1 Schema Object reaches ajv, decided keyword by keyword rather
 * than by switching ajv's strict mode off:
 *
 * - JSON Schema 2020-12 validation keywords are kept as they are.
 * - Annotations (`description`, `example`, `deprecated`, ...) change no verdict, so they are left
 *   out of the compiled copy; the generated code stays small and free of prose. `example` and
 *   `description` still feed the error messages (see message-hints.ts), read from the original.
 * - `x-*` vendor extensions belong to tools, not to validation: left out.
 * - `discriminator` is, in OpenAPI 3.1, a hint on top of `oneOf`/`anyOf`, which already decide
 *   validity; ajv's own support rejects `mapping`, so it is left out and the union keeps its meaning.
 * - `nullable` (OpenAPI 3.0) has no meaning in 3.1 and is reported: `type: [T, "null"]` says it.
 * - `format` is kept when the run-time module checks it (FORMATS); any other format (`email`,
 *   `uri`, a vendor's own) is an annotation, as JSON Schema 2020-12 makes every format by
 *   default: left out, the value's type still checked.
 * - Any other unknown keyword is reported with its JSON Pointer.
 */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "example",
  "$comment",
  "externalDocs",
  "xml",
  "discriminator",
]);

/** Formats the generated code checks, with the same meaning as ajv-formats' "full" mode. */
export const FORMATS: readonly string[] = [
  "binary",
  "byte",
  "date",
  "date-time",
  "double",
  "float",
  "int32",
  "int64",
  "password",
  "time",
  "uuid",
];

const VALUE_KEYWORDS = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "format",
  "contentEncoding",
  "contentMediaType",
]);

/** The JSON Schema dialects a schema may declare with `$schema`; all mean 2020-12 here. */
const DIALECTS = new Set([
  "https://json-schema.org/draft/2020-12/schema",
  "https://spec.openapis.org/oas/3.1/dialect/base",
]);

export interface CleanOptions {
  /** Names the input in SpecErrors. */
  source: string;
  /** JSON Pointer of `schema` inside the input, for SpecErrors. */
  pointer: string;
  /** Rewrites a `$ref`; `pointer` is where it stands in the input. */
  rewriteRef: (ref: string, pointer: string) => string;
  /** Keep `$id` and `$schema` on this node (the root of a standalone JSON Schema document). */
  root?: boolean;
  /**
   * JSON Schema 2020-12 as written, for a spec that is not ours: a keyword it does not know is an
   * annotation (left out, as the specification says), and so are `nullable` and another `$schema`.
   */
  lenient?: boolean;
}

/**
 * A copy of `schema` that ajv compiles: annotations and extensions left out, `$ref`s rewritten,
 * everything else checked against the keywords ajv knows (left out too with `lenient`).
 */
export function cleanSchema(schema: JsonSchema, options: CleanOptions): JsonSchema {
  if (typeof schema === "boolean") return schema;
  const { source, pointer } = options;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new SpecError(source, pointer, "a schema (an object or a boolean)", describeValue(schema));
  }
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${pointer}${pointerOf(keyword)}`;
    if (ANNOTATION_KEYWORDS.has(keyword) || keyword.startsWith("x-")) continue;
    const child = (subschema: JsonSchema, where: string) =>
      cleanSchema(subschema, { ...options, pointer: where, root: false });
    if (keyword === "$ref") {
      if (typeof value !== "string") throw new SpecError(source, at, "a $ref string", describeValue(value));
      out.$ref = options.rewriteRef(value, at);
    } else if (keyword === "$schema") {
      if (options.lenient) continue;
      if (!DIALECTS.has(value)) {
        throw new SpecError(
          source,
          at,
          `one of the dialects ${[...DIALECTS].join(", ")}`,
          describeValue(value),
        );
      }
      if (options.root) out.$schema = value;
    } else if (keyword === "$id" || keyword === "$anchor" || keyword === "$dynamicAnchor") {
      if (!options.root || keyword !== "$id") {
        throw new SpecError(
          source,
          at,
          `no ${keyword} here (references resolve against the document)`,
          describeValue(value),
        );
      }
      out.$id = value;
    } else if (keyword === "nullable") {
      if (options.lenient) continue;
      throw new SpecError(
        source,
        at,
        'no "nullable" (an OpenAPI 3.0 keyword; OpenAPI 3.1 writes type: [T, "null"])',
        describeValue(value),
      );
    } else if (keyword === "format") {
      if (FORMATS.includes(value)) out.format = value;
    } else if (SCHEMA_KEYWORDS.includes(keyword)) {
      out[keyword] = child(value, at);
    } else if (SCHEMA_ARRAY_KEYWORDS.includes(keyword)) {
      if (!Array.isArray(value)) throw new SpecError(source, at, "an array of schemas", describeValue(value));
      out[keyword] = value.map((item: JsonSchema, i: number) => child(item, `${at}/${i}`));
    } else if (SCHEMA_MAP_KEYWORDS.includes(keyword)) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new SpecError(source, at, "an object of schemas", describeValue(value));
      }
      out[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          child(item as JsonSchema, `${at}${pointerOf(name)}`),
        ]),
      );
    } else if (VALUE_KEYWORDS.has(keyword)) {
      out[keyword] = value;
    } else if (!options.lenient) {
      throw new SpecError(source, at, "a JSON Schema 2020-12 or OpenAPI 3.1 keyword", describeValue(keyword));
    }
  }
  return out;
}

/** Calls `visit` on every schema node below `schema` (itself included), with the node's path segments. */
export function walkSchema(
  schema: JsonSchema,
  visit: (node: Record<string, unknown>, segments: readonly (string | number)[]) => void,
  segments: readonly (string | number)[] = [],
): void {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return;
  visit(schema, segments);
  for (const keyword of SCHEMA_KEYWORDS) {
    if (schema[keyword] !== undefined) walkSchema(schema[keyword], visit, [...segments, keyword]);
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const items = schema[keyword];
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) walkSchema(items[i], visit, [...segments, keyword, i]);
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (map && typeof map === "object") {
      for (const [name, item] of Object.entries(map))
        walkSchema(item as JsonSchema, visit, [...segments, keyword, name]);
    }
  }
}
