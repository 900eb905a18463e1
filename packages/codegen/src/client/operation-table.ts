import type { SpecModel } from "../spec-input/spec-model.js";
import { docComment, propertyKey, stringArray, stringLiteral } from "./typescript-source.js";

/**
 * The body of operations.gen.ts: the wire facts the client runtime needs at run time, one entry
 * per operationId (HTTP method, path template, x-auth-class, query parameter names, which of them
 * travel JSON-encoded, and whether the parameters may travel in a form body instead).
 */
export function renderOperationTable(model: SpecModel): string {
  const entries = model.operations.map((op) => {
    const query = op.parameters.filter((p) => p.in === "query");
    return [
      `  ${propertyKey(op.operationId)}: {`,
      `    method: ${stringLiteral(op.method.toUpperCase())},`,
      `    path: ${stringLiteral(op.path)},`,
      `    authClass: ${stringLiteral(op.authClass)},`,
      stringArray(
        query.map((p) => p.name),
        "    queryParameters: ",
        ",",
      ),
      stringArray(
        query.filter((p) => p.encoding === "json").map((p) => p.name),
        "    jsonEncoded: ",
        ",",
      ),
      `    acceptsFormBody: ${op.acceptsFormBody},`,
      "  },",
    ].join("\n");
  });
  return [
    docComment(
      [
        "How each operation travels on the wire, read by the client at run time: HTTP method, path,",
        "authentication class (x-auth-class), query parameter names in spec order, the parameters sent",
        "as one JSON-encoded query value, and whether the parameters may be sent as a form body.",
      ],
      "",
    ),
    "export const operationTable = {",
    ...entries,
    "} as const;",
    "",
    "/** An operationId of the spec. */",
    "export type OperationId = keyof typeof operationTable;",
    "",
  ].join("\n");
}
