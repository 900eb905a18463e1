import { isObject, operationEntries, resolveRef } from "@marketapi/spec/model";
import type { OpenApiDocument } from "@marketapi/spec-loader";
import { PLAIN_DECIMAL } from "./operation-facts.js";

/**
 * Lets every parameter of type number take its value as decimal text too, in place: its schema
 * becomes `anyOf: [the number, a string of the parameter's x-wire-pattern]`, so that the types
 * accept `price: "29985.00"` (sent exactly as written; a JavaScript number cannot carry every
 * decimal). The client checks the text against the pattern before sending (facts.gen.ts). Use on
 * a copy of the spec, after `exposeJsonParameterSchemas`.
 */
export function acceptDecimalText(document: OpenApiDocument): void {
  const lists = operationEntries(document).flatMap(({ pathItem, operation }) => [
    pathItem.parameters,
    operation.parameters,
  ]);
  const declarations = [
    ...new Set(lists.flatMap((list) => (Array.isArray(list) ? list : []))),
    ...Object.values(isObject(document.components?.parameters) ? document.components.parameters : {}),
  ];
  for (const parameter of declarations) {
    if (!isObject(parameter) || parameter.schema === undefined || parameter.in === "cookie") continue;
    let schema: Record<string, unknown>;
    try {
      schema = resolveRef(document, parameter.schema, "");
    } catch {
      continue;
    }
    if (schema.type !== "number") continue;
    const pattern = typeof schema["x-wire-pattern"] === "string" ? schema["x-wire-pattern"] : PLAIN_DECIMAL;
    parameter.schema = { anyOf: [parameter.schema, { type: "string", pattern }] };
  }
}
