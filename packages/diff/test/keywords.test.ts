// Every keyword of JSON Schema 2020-12 and of the Schema Object of OpenAPI 3.0 and 3.1 has a rule,
// and each rule is right in all four places a schema meets: a request body (the client sends it),
// a response (the client reads it), a webhook's payload (the API sends it, the subscriber reads it)
// and a webhook's answer (the subscriber sends it). Each case changes one keyword of one property
// in one place; the class wanted follows from the effect by the direction table (change.ts), or is
// given per place where the keyword itself depends on the message (readOnly, writeOnly).
import { describe, expect, it } from "vitest";
import {
  type ChangeClass,
  classify,
  diffDocuments,
  type Effect,
  type OpenApiDocument,
} from "../src/index.js";
import { schemaKeywordRule } from "../src/schema-diff.js";

/** The keywords, as the specifications list them (JSON Schema 2020-12 Core and Validation, by vocabulary). */
const JSON_SCHEMA_2020_12 = {
  core: [
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
  ],
  applicator: [
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
  ],
  unevaluated: ["unevaluatedItems", "unevaluatedProperties"],
  validation: [
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
  ],
  metaData: ["title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"],
  formatAnnotation: ["format"],
  content: ["contentEncoding", "contentMediaType", "contentSchema"],
};
/** What OpenAPI 3.1's Schema Object adds, and what 3.0's has (nullable: the loader upgrades it away). */
const OPENAPI_31_SCHEMA = ["discriminator", "xml", "externalDocs", "example"];
const OPENAPI_30_SCHEMA = [
  "nullable",
  "discriminator",
  "readOnly",
  "writeOnly",
  "xml",
  "externalDocs",
  "example",
  "deprecated",
];

type Place = "request body" | "response" | "webhook payload" | "webhook answer";
const PLACES: Place[] = ["request body", "response", "webhook payload", "webhook answer"];
/** Which side of the direction table each place's schema is judged on. */
const JUDGED_AS: Record<Place, "request" | "response"> = {
  "request body": "request",
  response: "response",
  "webhook payload": "response",
  "webhook answer": "request",
};

interface Case {
  keyword: string;
  old: unknown;
  new: unknown;
  /** The effect on what the property accepts, or a class wanted in every place, or one per place; [] for no change at all. */
  want: Effect | ChangeClass | Record<Place, ChangeClass> | [];
}

const S = { type: "string" };
const A = { type: "array" };
const O = { type: "object" };
/** A JSON Schema condition with its `then` (a key biome takes for a thenable; these objects are never awaited). */
const IF_THEN = JSON.parse(
  '{ "type": "object", "if": { "required": ["a"] }, "then": { "required": ["b"] } }',
);
const CASES: Case[] = [
  {
    keyword: "$schema",
    old: S,
    new: { ...S, $schema: "https://json-schema.org/draft/2020-12/schema" },
    want: "informational",
  },
  { keyword: "$id", old: S, new: { ...S, $id: "https://example.com/v" }, want: "informational" },
  { keyword: "$ref", old: S, new: { $ref: "#/components/schemas/NonEmpty" }, want: "narrower" },
  { keyword: "$anchor", old: S, new: { ...S, $anchor: "v" }, want: "informational" },
  { keyword: "$dynamicRef", old: S, new: { ...S, $dynamicRef: "#node" }, want: "undecided" },
  { keyword: "$dynamicAnchor", old: S, new: { ...S, $dynamicAnchor: "node" }, want: "informational" },
  {
    keyword: "$vocabulary",
    old: S,
    new: { ...S, $vocabulary: { "https://example.com/v": true } },
    want: "informational",
  },
  { keyword: "$comment", old: S, new: { ...S, $comment: "why" }, want: "informational" },
  { keyword: "$defs", old: S, new: { ...S, $defs: { n: { type: "integer" } } }, want: [] },
  {
    keyword: "prefixItems",
    old: { ...A, prefixItems: [S] },
    new: { ...A, prefixItems: [{ ...S, maxLength: 3 }] },
    want: "narrower",
  },
  { keyword: "items", old: A, new: { ...A, items: S }, want: "narrower" },
  { keyword: "contains", old: A, new: { ...A, contains: S }, want: "narrower" },
  { keyword: "additionalProperties", old: O, new: { ...O, additionalProperties: false }, want: "narrower" },
  {
    keyword: "properties",
    old: { ...O, properties: { a: S } },
    new: { ...O, properties: { a: { ...S, minLength: 2 } } },
    want: "narrower",
  },
  { keyword: "patternProperties", old: O, new: { ...O, patternProperties: { "^x-": S } }, want: "narrower" },
  {
    keyword: "dependentSchemas",
    old: O,
    new: { ...O, dependentSchemas: { a: { required: ["b"] } } },
    want: "narrower",
  },
  { keyword: "propertyNames", old: O, new: { ...O, propertyNames: { maxLength: 3 } }, want: "narrower" },
  { keyword: "if", old: O, new: IF_THEN, want: "narrower" },
  {
    keyword: "then",
    old: IF_THEN,
    new: { ...O, if: { required: ["a"] } },
    want: "wider",
  },
  {
    keyword: "else",
    old: { ...O, if: { required: ["a"] } },
    new: { ...O, if: { required: ["a"] }, else: { required: ["b"] } },
    want: "narrower",
  },
  { keyword: "allOf", old: S, new: { allOf: [S, { minLength: 1 }] }, want: "narrower" },
  { keyword: "anyOf", old: S, new: { anyOf: [S, { type: "integer" }] }, want: "wider" },
  { keyword: "oneOf", old: S, new: { oneOf: [S, { type: "integer" }] }, want: "wider" },
  { keyword: "not", old: S, new: { ...S, not: { const: "" } }, want: "narrower" },
  {
    keyword: "unevaluatedItems",
    old: { ...A, prefixItems: [S] },
    new: { ...A, prefixItems: [S], unevaluatedItems: false },
    want: "narrower",
  },
  { keyword: "unevaluatedProperties", old: O, new: { ...O, unevaluatedProperties: false }, want: "narrower" },
  { keyword: "type", old: { type: "number" }, new: { type: "integer" }, want: "narrower" },
  { keyword: "enum", old: { enum: ["a"] }, new: { enum: ["a", "b"] }, want: "wider" },
  { keyword: "const", old: S, new: { ...S, const: "a" }, want: "narrower" },
  {
    keyword: "multipleOf",
    old: { type: "number" },
    new: { type: "number", multipleOf: 2 },
    want: "narrower",
  },
  {
    keyword: "maximum",
    old: { type: "number", maximum: 5 },
    new: { type: "number", maximum: 9 },
    want: "wider",
  },
  {
    keyword: "exclusiveMaximum",
    old: { type: "number" },
    new: { type: "number", exclusiveMaximum: 9 },
    want: "narrower",
  },
  {
    keyword: "minimum",
    old: { type: "number", minimum: 1 },
    new: { type: "number", minimum: 0 },
    want: "wider",
  },
  {
    keyword: "exclusiveMinimum",
    old: { type: "number" },
    new: { type: "number", exclusiveMinimum: 0 },
    want: "narrower",
  },
  { keyword: "maxLength", old: S, new: { ...S, maxLength: 9 }, want: "narrower" },
  { keyword: "minLength", old: { ...S, minLength: 2 }, new: S, want: "wider" },
  { keyword: "pattern", old: S, new: { ...S, pattern: "^a" }, want: "narrower" },
  { keyword: "maxItems", old: A, new: { ...A, maxItems: 9 }, want: "narrower" },
  { keyword: "minItems", old: A, new: { ...A, minItems: 1 }, want: "narrower" },
  { keyword: "uniqueItems", old: A, new: { ...A, uniqueItems: true }, want: "narrower" },
  {
    keyword: "maxContains",
    old: { ...A, contains: S },
    new: { ...A, contains: S, maxContains: 2 },
    want: "narrower",
  },
  {
    keyword: "minContains",
    old: { ...A, contains: S, minContains: 2 },
    new: { ...A, contains: S },
    want: "wider",
  },
  { keyword: "maxProperties", old: O, new: { ...O, maxProperties: 3 }, want: "narrower" },
  { keyword: "minProperties", old: O, new: { ...O, minProperties: 1 }, want: "narrower" },
  {
    keyword: "required",
    old: { ...O, properties: { a: S } },
    new: { ...O, properties: { a: S }, required: ["a"] },
    want: "narrower",
  },
  { keyword: "dependentRequired", old: O, new: { ...O, dependentRequired: { a: ["b"] } }, want: "narrower" },
  { keyword: "title", old: S, new: { ...S, title: "V" }, want: "informational" },
  { keyword: "description", old: S, new: { ...S, description: "v" }, want: "informational" },
  { keyword: "default", old: S, new: { ...S, default: "a" }, want: "informational" },
  { keyword: "deprecated", old: S, new: { ...S, deprecated: true }, want: "informational" },
  {
    keyword: "readOnly",
    old: S,
    new: { ...S, readOnly: true },
    // Not sent in requests: in a request (the API's webhook payload is one) the value leaves it.
    want: {
      "request body": "breaking",
      response: "informational",
      "webhook payload": "breaking",
      "webhook answer": "informational",
    },
  },
  {
    keyword: "writeOnly",
    old: S,
    new: { ...S, writeOnly: true },
    // Not sent in responses: in a response (a subscriber's answer is one) the value leaves it.
    want: {
      "request body": "informational",
      response: "breaking",
      "webhook payload": "informational",
      "webhook answer": "breaking",
    },
  },
  { keyword: "examples", old: S, new: { ...S, examples: ["a"] }, want: "informational" },
  { keyword: "format", old: S, new: { ...S, format: "date-time" }, want: "narrower" },
  { keyword: "contentEncoding", old: S, new: { ...S, contentEncoding: "base64" }, want: "different" },
  {
    keyword: "contentMediaType",
    old: S,
    new: { ...S, contentMediaType: "application/json" },
    want: "different",
  },
  {
    keyword: "contentSchema",
    old: { ...S, contentMediaType: "application/json" },
    new: { ...S, contentMediaType: "application/json", contentSchema: O },
    want: "narrower",
  },
  {
    keyword: "discriminator",
    old: { oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }] },
    new: {
      oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }],
      discriminator: { propertyName: "kind" },
    },
    want: "informational",
  },
  { keyword: "xml", old: S, new: { ...S, xml: { name: "value" } }, want: "informational" },
  {
    keyword: "externalDocs",
    old: S,
    new: { ...S, externalDocs: { url: "https://example.com" } },
    want: "informational",
  },
  { keyword: "example", old: S, new: { ...S, example: "a" }, want: "informational" },
  { keyword: "nullable", old: S, new: { ...S, nullable: true }, want: "informational" },
];

/** A document whose four places each hold `{ properties: { v: <schema of that place> } }`. */
function documentWith(schemas: Record<Place, unknown>): OpenApiDocument {
  const body = (place: Place) => ({
    content: { "application/json": { schema: { type: "object", properties: { v: schemas[place] } } } },
  });
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1.0.0" },
    paths: {
      "/o": {
        post: {
          operationId: "op",
          requestBody: body("request body"),
          responses: { "200": { description: "ok", ...body("response") } },
        },
      },
    },
    webhooks: {
      hook: {
        post: {
          requestBody: body("webhook payload"),
          responses: { "200": { description: "ok", ...body("webhook answer") } },
        },
      },
    },
    components: {
      schemas: {
        NonEmpty: { type: "string", minLength: 1 },
        Cat: { type: "object", properties: { kind: { const: "cat" } } },
        Dog: { type: "object", properties: { kind: { const: "dog" } } },
      },
    },
  };
}

function wanted(want: Case["want"], place: Place): ChangeClass[] {
  if (Array.isArray(want)) return [];
  if (typeof want === "object") return [want[place]];
  if (want === "informational" || want === "breaking" || want === "compatible") return [want];
  return [classify(JUDGED_AS[place], want).class];
}

describe("every schema keyword has a rule", () => {
  const specified = [
    ...Object.values(JSON_SCHEMA_2020_12).flat(),
    ...OPENAPI_31_SCHEMA,
    ...OPENAPI_30_SCHEMA,
  ];

  it("is known to the diff: a rule of its own, documentation or an identifier (3.0's nullable is upgraded first)", () => {
    const unknown = [...new Set(specified)].filter(
      (key) => key !== "nullable" && schemaKeywordRule(key) === undefined,
    );
    expect(unknown).toEqual([]);
  });

  it("has a case below for each keyword of the specifications", () => {
    expect(new Set(CASES.map((c) => c.keyword))).toEqual(new Set(specified));
  });

  const rows = CASES.flatMap((given) => PLACES.map((place) => ({ ...given, place })));
  it.each(rows)("$keyword in a $place", ({ old, new: after, want, place }) => {
    const untouched = { type: "string" };
    const schemas = (value: unknown) =>
      Object.fromEntries(PLACES.map((p) => [p, p === place ? value : untouched])) as Record<Place, unknown>;
    const changes = diffDocuments(documentWith(schemas(old)), documentWith(schemas(after)));
    const classes = [...new Set(changes.map((c) => c.class))];
    expect(classes, changes.map((c) => `${c.class} ${c.kind} ${c.pointer}: ${c.message}`).join("\n")).toEqual(
      wanted(want, place),
    );
  });
});
