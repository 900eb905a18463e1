// OpenAPI 3.0 to 3.1, by the mechanical rules of the OpenAPI Initiative's migration notes: the
// schema keywords that changed meaning are rewritten, nothing else is touched. Why not a package:
// the maintained upgrader (@scalar/openapi-upgrader) declares Node >= 22 (we support 20.19), and
// the rules a 3.0 document needs to be read as 3.1 are these few; the README lists them.
import type { OpenApiDocument } from "./load-spec.js";

// What these fields hold is data, and what an x- extension holds is its reader's business.
const DATA_FIELDS = new Set(["example", "examples", "default", "const", "enum"]);

/**
 * A 3.1 copy of a 3.0 document: `openapi` becomes "3.1.0"; `nullable: true` becomes a "null" in
 * `type` (and in `enum`), or an `anyOf` with `{ type: "null" }` beside a `$ref` or `allOf` without
 * a type; boolean `exclusiveMinimum`/`exclusiveMaximum` become the numbers they qualified. The
 * JSON Pointers of every other node stay as they were, so faults are still located in the source.
 */
export function upgradeOpenApi30(document: OpenApiDocument): OpenApiDocument {
  const upgraded = upgradeNode(document) as OpenApiDocument;
  upgraded.openapi = "3.1.0";
  return upgraded;
}

function upgradeNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(upgradeNode);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = DATA_FIELDS.has(key) || key.startsWith("x-") ? value : upgradeNode(value);
  }
  return upgradeSchemaKeywords(out);
}

function upgradeSchemaKeywords(schema: Record<string, unknown>): Record<string, unknown> {
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (schema[exclusive] === true && typeof schema[bound] === "number") {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else if (typeof schema[exclusive] === "boolean") delete schema[exclusive];
  }
  if (typeof schema.nullable !== "boolean") return schema;
  const nullable = schema.nullable;
  delete schema.nullable;
  if (!nullable) return schema;
  if (typeof schema.type === "string") schema.type = [schema.type, "null"];
  else if (Array.isArray(schema.type)) {
    if (!schema.type.includes("null")) schema.type = [...schema.type, "null"];
  } else if (typeof schema.$ref === "string" || Array.isArray(schema.allOf)) {
    const { $ref, allOf, description, title, ...rest } = schema;
    const base = typeof $ref === "string" ? { $ref } : { allOf };
    return {
      ...(description === undefined ? {} : { description }),
      ...(title === undefined ? {} : { title }),
      anyOf: [base, { type: "null" }],
      ...rest,
    };
  } else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const key = Array.isArray(schema.oneOf) ? "oneOf" : "anyOf";
    schema[key] = [...(schema[key] as unknown[]), { type: "null" }];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  return schema;
}
