import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Json } from "./openapi.js";

/**
 * An Ajv 2020 instance in strict mode that knows the OpenAPI annotation keywords the spec uses,
 * with `#/components/schemas/X` reachable as `#/$defs/X` of every compiled schema.
 */
export function createSpecAjv(spec: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  ajv.addKeyword({
    keyword: "example",
    schemaType: ["string", "number", "integer", "boolean", "object", "array", "null"],
  });
  // A vendor extension of the spec (the wire text of decimal parameters): an annotation to JSON Schema.
  ajv.addKeyword({ keyword: "x-wire-pattern", schemaType: "string" });
  const defs = toJsonSchemaRefs(spec.components.schemas);
  let counter = 0;
  return {
    ajv,
    compile(schema: Json) {
      counter += 1;
      return ajv.compile({
        $id: `https://marketapi.dev/test/example-${counter}`,
        $defs: defs,
        ...toJsonSchemaRefs(schema),
      });
    },
  };
}

function toJsonSchemaRefs(node: Json): Json {
  return JSON.parse(JSON.stringify(node).replaceAll('"#/components/schemas/', '"#/$defs/'));
}
