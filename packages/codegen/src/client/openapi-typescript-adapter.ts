// The only module that knows openapi-typescript (7.13, frozen upstream, needs TypeScript 5 to
// run). Swapping the type generator means rewriting this file and nothing else.

import type { OpenApiDocument } from "@marketapi/spec-loader";
import openapiTS, { astToString, type OpenAPI3, type TransformNodeOptions } from "openapi-typescript";
import ts from "typescript";
import { holdsNames, isStructure } from "../spec-input/document-places.js";

/**
 * The key under which the types name an operation in `operations`: its operationId, but for the
 * characters openapi-typescript would rewrite in one place and not in the other (it writes `#` as
 * `/`, and decodes `%XX` in the reference from `paths` but not in the key itself).
 */
export function typesKeyOf(operationId: string): string {
  return operationId.replace(/#/g, "/").replace(/%/g, "_");
}

/**
 * Prints the `paths`, `components` and `operations` types of a document, plus a `Schema<Name>`,
 * `Response<Name>`, `Parameter<Name>`… alias for each component. Arrays whose `minItems` and
 * `maxItems` allow a few lengths only are typed as tuples. Parameter schemas with
 * `format: date-time` accept a `Date` as well as an RFC 3339 string (the client formats it); so do
 * component schemas that only parameters use (such as a date_time `oneOf` of text and epoch
 * milliseconds). A property with a default is optional unless required. A property that `required`
 * names and `properties` does not declare is a property all the same (see
 * `declareRequiredProperties`). The document is not modified.
 */
export async function renderTypes(
  document: OpenApiDocument,
  options: { readWriteMarkers?: boolean } = {},
): Promise<string> {
  const parameterOnly = parameterOnlySchemas(document);
  const copy = structuredClone(document);
  declareRequiredProperties(copy);
  const nodes = await openapiTS(copy as OpenAPI3, {
    silent: true,
    rootTypes: true,
    // Small fixed-length arrays become tuples: a PriceLevel (`minItems: 2, maxItems: 2`) is [string, string].
    arrayLength: true,
    // A property with a `default` is as optional as `required` says: JSON Schema's default is an
    // annotation, and a request body may leave the property out (openapi-typescript 7 would
    // make it required everywhere, so a call without it did not type-check).
    defaultNonNullable: false,
    readWriteMarkers: options.readWriteMarkers === true,
    // `type: object` alone is any object (Directus's `filter`), not openapi-typescript's default
    // `Record<string, never>`, which no value but {} meets; `additionalProperties: false` keeps it.
    emptyObjectsUnknown: true,
    transform: (schema, transformOptions) =>
      binaryAsBlob(schema) ??
      closedEmptyObject(schema) ??
      acceptDatesForDateTimeParameters(schema, transformOptions, parameterOnly),
  });
  return astToString(nodes);
}

/**
 * Declares, as `{}` (any value), each property that a schema's `required` names and its
 * `properties` leaves out (Directus's `POST /fields/{collection}` requires `datatype` and `length`
 * and declares neither). openapi-typescript types only declared properties, so a call that sent
 * what the schema requires did not compile (an excess property); what else the schema says of the
 * name (`additionalProperties`, `patternProperties`, an `allOf` sibling that declares it) still
 * narrows it, as the types intersect. Only schemas with `properties` are touched: one without is
 * typed as a record or left open already.
 */
function declareRequiredProperties(node: unknown, parentKey?: string): void {
  if (Array.isArray(node)) {
    for (const item of node) declareRequiredProperties(item, parentKey);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const fields = node as Record<string, unknown>;
  const { properties, required } = fields;
  if (isPlainObject(properties) && Array.isArray(required) && !holdsNames(parentKey)) {
    for (const name of required) {
      if (typeof name === "string" && !Object.hasOwn(properties, name)) properties[name] = {};
    }
  }
  for (const [key, value] of Object.entries(fields)) {
    if (isStructure(key, parentKey)) declareRequiredProperties(value, key);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Bytes (`format: binary`, or a `contentMediaType` without a `contentEncoding`) are a Blob: what a
 * multipart file part or a bytes body takes (the client reads bytes answers as Blobs too).
 */
function binaryAsBlob(schema: {
  type?: unknown;
  format?: unknown;
  contentMediaType?: unknown;
  contentEncoding?: unknown;
}): ts.TypeNode | undefined {
  const stringOrUntyped = schema.type === undefined || schema.type === "string";
  const bytes =
    schema.format === "binary" ||
    (typeof schema.contentMediaType === "string" && schema.contentEncoding === undefined);
  if (!stringOrUntyped || !bytes) return undefined;
  return ts.factory.createTypeReferenceNode("Blob");
}

/** `{ type: object, additionalProperties: false }` and nothing else that adds properties: no property at all. */
function closedEmptyObject(schema: object): ts.TypeNode | undefined {
  const fields = schema as Record<string, unknown>;
  if (fields.additionalProperties !== false || fields.type !== "object") return undefined;
  const adds = [
    "properties",
    "patternProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "unevaluatedProperties",
  ];
  if (adds.some((key) => fields[key] !== undefined)) return undefined;
  return ts.factory.createTypeReferenceNode("Record", [
    ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword),
    ts.factory.createKeywordTypeNode(ts.SyntaxKind.NeverKeyword),
  ]);
}

// A parameter schema's location: #/paths/<path>[/<method>]/parameters/… or #/components/parameters/….
const PARAMETER_LOCATION = /^#\/(?:paths\/[^/]+(?:\/[a-z]+)?|components)\/parameters\//;
const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/**
 * Names of the component schemas that every `$ref` reaches from a parameter, never from a body,
 * a response or another schema: their values are written by the client, never read back.
 */
function parameterOnlySchemas(document: OpenApiDocument): ReadonlySet<string> {
  const fromParameters = new Set<string>();
  const elsewhere = new Set<string>();
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${pointer}/${index}`);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const name = key === "$ref" && typeof value === "string" ? SCHEMA_REF.exec(value)?.[1] : undefined;
      if (name !== undefined) (PARAMETER_LOCATION.test(`${pointer}/`) ? fromParameters : elsewhere).add(name);
      else walk(value, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
  };
  walk(document, "#");
  return new Set([...fromParameters].filter((name) => !elsewhere.has(name)));
}

function acceptDatesForDateTimeParameters(
  schema: { type?: unknown; format?: unknown },
  options: TransformNodeOptions,
  parameterOnly: ReadonlySet<string>,
): ts.TypeNode | undefined {
  if (schema.type !== "string" || schema.format !== "date-time") return undefined;
  const path = options.path ?? "";
  const component = /^#\/components\/schemas\/([^/]+)/.exec(path)?.[1];
  const inParameter =
    PARAMETER_LOCATION.test(path) || (component !== undefined && parameterOnly.has(component));
  if (!inParameter) return undefined;
  return ts.factory.createUnionTypeNode([
    ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword),
    ts.factory.createTypeReferenceNode("Date"),
  ]);
}
