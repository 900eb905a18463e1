import type { OpenApiDocument } from "../spec/load-spec.js";

/**
 * Rewrites every parameter described with `content: application/json` (a JSON document inside one
 * query value, such as `symbols=["BTCUSDT","ETHUSDT"]`) to carry that schema as its plain `schema`,
 * in place. The client takes the decoded value (`string[]`) and JSON-encodes it on the wire, so the
 * types must describe the value, not the encoded text (openapi-typescript types `content`
 * parameters as `string`). Use on a copy of the spec: the wire format is recorded separately, in
 * the operation table.
 */
export function exposeJsonParameterSchemas(document: OpenApiDocument): void {
  const parameterLists: unknown[] = [];
  for (const item of Object.values<OpenApiDocument>(document.paths ?? {})) {
    parameterLists.push(item.parameters);
    for (const value of Object.values(item)) {
      if (isObject(value)) parameterLists.push(value.parameters);
    }
  }
  const parameters = [
    ...parameterLists.flatMap((list) => (Array.isArray(list) ? list : [])),
    ...Object.values(document.components?.parameters ?? {}),
  ];
  for (const parameter of parameters) {
    if (!isObject(parameter) || !isObject(parameter.content)) continue;
    const json = parameter.content["application/json"];
    if (!isObject(json) || json.schema === undefined) continue;
    parameter.schema = json.schema;
    delete parameter.content;
  }
}

function isObject(value: unknown): value is OpenApiDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
