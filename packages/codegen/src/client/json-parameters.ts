import { isObject, operationEntries } from "@marketapi/spec/model";
import type { OpenApiDocument } from "@marketapi/spec-loader";

/**
 * Rewrites every parameter described with `content: application/json` (a JSON document inside one
 * query value, such as `symbols=["BTCUSDT","ETHUSDT"]`) to carry that schema as its plain `schema`,
 * in place. The client takes the decoded value (`string[]`) and JSON-encodes it on the wire, so the
 * types must describe the value, not the encoded text (openapi-typescript types `content`
 * parameters as `string`). Use on a copy of the spec: the wire format is recorded separately, in
 * the operation table.
 */
export function exposeJsonParameterSchemas(document: OpenApiDocument): void {
  // Declared in place (path level or operation level), or as components that `$ref`s reach.
  const lists = operationEntries(document).flatMap(({ pathItem, operation }) => [
    pathItem.parameters,
    operation.parameters,
  ]);
  const declarations = [
    ...new Set(lists.flatMap((list) => (Array.isArray(list) ? list : []))),
    ...Object.values(isObject(document.components?.parameters) ? document.components.parameters : {}),
  ];
  for (const parameter of declarations) {
    if (!isObject(parameter) || !isObject(parameter.content)) continue;
    const json = parameter.content["application/json"];
    if (!isObject(json) || json.schema === undefined) continue;
    parameter.schema = json.schema;
    delete parameter.content;
  }
}
