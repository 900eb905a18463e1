import type { SourcedSpecModel } from "../spec-input/spec-model.js";
import type { ClientModel, ClientOperation } from "./client-operations.js";
import { docComment, LINE_WIDTH, propertyKey, stringArray, stringLiteral } from "./typescript-source.js";

/**
 * The body of operations.gen.ts: the wire facts the client runtime needs at run time, one entry
 * per operation under the key its types have (the operationId, or the name the type generator
 * gives it, with the operationId beside it; see typesKeyOf) (HTTP method, path template, x-auth-class, query parameter names, which of them
 * travel JSON-encoded, and whether the parameters may travel in a form body instead).
 */
export function renderOperationTable(model: SourcedSpecModel, client: ClientModel): string {
  const entries = client.operations.map((clientOperation) => {
    const op = clientOperation.operation;
    const query = op.parameters.filter((p) => p.in === "query");
    return [
      `  ${propertyKey(clientOperation.key)}: {`,
      ...(clientOperation.key === op.operationId
        ? []
        : [`    operationId: ${stringLiteral(op.operationId)},`]),
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
      ...wireLines(clientOperation),
      "  },",
    ].join("\n");
  });
  return [
    ...renderAuthentication(model, client),
    docComment(
      [
        "How each operation travels on the wire, read by the client at run time: HTTP method, path,",
        "authentication class (x-auth-class), query parameter names in spec order, the parameters sent",
        "as one JSON-encoded query value, whether the parameters may be sent as a form body, the security",
        "requirements (scheme names), the parameters that are not plain query parameters, the request",
        "body's media type, and how a success answer is read when it is not JSON.",
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
function renderAuthentication(model: SourcedSpecModel, client: ClientModel): string[] {
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
        "envelope's parameters, the largest receive window, and the test vectors every signer reproduces;",
        "and the security schemes the operations' requirements name.",
      ],
      "",
    ),
    "export const authentication = {",
    `  apiKeyHeader: ${model.apiKeyHeader === undefined ? "null" : stringLiteral(model.apiKeyHeader)},`,
    `  signing: ${rule},`,
    ...renderSchemes(client),
    "} as const;",
    "",
  ];
}

/** `key: "value",` on one line, or the value on the next where the line would pass Biome's width. */
function field(key: string, value: string, indent: string): string {
  const line = `${indent}${key}: ${stringLiteral(value)},`;
  return line.length <= LINE_WIDTH ? line : `${indent}${key}:\n${indent}  ${stringLiteral(value)},`;
}

/** `schemes: { name: { type, ... } }`: one line per scheme the requirements name, in name order. */
function renderSchemes(client: ClientModel): string[] {
  const names = Object.keys(client.schemes).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) return ["  schemes: {},"];
  return [
    "  schemes: {",
    ...names.map((name) => `    ${propertyKey(name)}: ${objectLiteral(client.schemes[name]!)},`),
    "  },",
  ];
}

/** A small object as one line of TypeScript: `{ type: "apiKey", in: "header" }`. */
function objectLiteral(value: object): string {
  const entries = Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${literal(v)}`);
  return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
}

function literal(value: unknown): string {
  if (typeof value === "string") return stringLiteral(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (typeof value === "object" && value !== null) return objectLiteral(value);
  return "undefined";
}

/** The table lines that only some operations need: security, parameters, body, responseAs. */
function wireLines(client: ClientOperation): string[] {
  const lines = [`    security: ${literal(client.security)},`];
  // As Biome writes it: one object on the line when it fits, several objects one per line.
  const [only, ...more] = client.parameters;
  const oneLine = only && more.length === 0 ? `    parameters: [${objectLiteral(only)}],` : undefined;
  if (oneLine !== undefined && oneLine.length <= LINE_WIDTH) lines.push(oneLine);
  else if (client.parameters.length > 0) {
    lines.push("    parameters: [", ...client.parameters.map((p) => `      ${objectLiteral(p)},`), "    ],");
  }
  if (client.body) lines.push(`    body: ${objectLiteral(client.body)},`);
  if (client.responseAs !== "json") lines.push(`    responseAs: ${stringLiteral(client.responseAs)},`);
  if (client.accept) lines.push(`    accept: ${stringLiteral(client.accept)},`);
  return lines;
}
