import type { SourcedSpecModel } from "../spec-input/spec-model.js";
import { docComment, LINE_WIDTH, propertyKey, stringArray, stringLiteral } from "./typescript-source.js";

/**
 * The body of operations.gen.ts: the wire facts the client runtime needs at run time, one entry
 * per operationId (HTTP method, path template, x-auth-class, query parameter names, which of them
 * travel JSON-encoded, and whether the parameters may travel in a form body instead).
 */
export function renderOperationTable(model: SourcedSpecModel): string {
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
    ...renderAuthentication(model),
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

/**
 * The `authentication` constant: the header of the API key and the signing rule (x-signing) with
 * its envelope's names, its receive-window limit and its test vectors, so that the client signs as
 * the spec says, whatever names a fork of the spec chooses. `null` where the spec states none.
 */
function renderAuthentication(model: SourcedSpecModel): string[] {
  const signing = model.signing;
  const rule = signing
    ? [
        "{",
        `    signatureParameter: ${stringLiteral(signing.signatureParameter)},`,
        `    timestampParameter: ${stringLiteral(signing.timestampParameter)},`,
        `    recvWindowParameter: ${stringLiteral(signing.recvWindowParameter)},`,
        `    recvWindowMaximum: ${signing.recvWindowMaximum},`,
        "    testVectors: [",
        ...signing.testVectors.map((vector) =>
          [
            "      {",
            ...(["secret", "query", "body", "signature"] as const).map((key) =>
              field(key, vector[key], "        "),
            ),
            "      },",
          ].join("\n"),
        ),
        "    ],",
        "  }",
      ].join("\n")
    : "null";
  return [
    docComment(
      [
        "How requests authenticate, read by the client at run time: the header that carries the API key,",
        "and the signing rule of the `trade` and `user_data` classes (x-signing): the names of its",
        "envelope's parameters, the largest receive window, and the test vectors every signer reproduces.",
      ],
      "",
    ),
    "export const authentication = {",
    `  apiKeyHeader: ${model.apiKeyHeader === undefined ? "null" : stringLiteral(model.apiKeyHeader)},`,
    `  signing: ${rule},`,
    "} as const;",
    "",
  ];
}

/** `key: "value",` on one line, or the value on the next where the line would pass Biome's width. */
function field(key: string, value: string, indent: string): string {
  const line = `${indent}${key}: ${stringLiteral(value)},`;
  return line.length <= LINE_WIDTH ? line : `${indent}${key}:\n${indent}  ${stringLiteral(value)},`;
}
