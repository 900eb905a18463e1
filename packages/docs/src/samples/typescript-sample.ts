// The TypeScript sample of a request: one call through @marketapi/client, which encodes, signs and
// sends; a comment shows the bytes it sends.
import { encodedArguments, type SampleArgument, type SampleRequest } from "./sample-requests.js";
import type { SampleSpec, SigningRule } from "./sample-spec.js";
import { commentLines, ENV, openingLines } from "./sample-text.js";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function property(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** The argument as a TypeScript literal: decimals and integers as numbers, JSON values as arrays. */
function literal(arg: SampleArgument): string {
  switch (arg.parameter.kind) {
    case "decimal":
    case "integer":
      return arg.text;
    case "json":
      return `[${(arg.value as readonly string[]).map((v) => JSON.stringify(v)).join(", ")}]`;
    default:
      return JSON.stringify(arg.value);
  }
}

function callArguments(request: SampleRequest): string {
  if (request.arguments.length === 0) return "";
  const entries = request.arguments.map((arg) => `${property(arg.parameter.name)}: ${literal(arg)}`);
  const oneLine = `{ ${entries.join(", ")} }`;
  return oneLine.length <= 70 ? oneLine : `{\n${entries.map((e) => `  ${e},`).join("\n")}\n}`;
}

/** The stand-ins for the signing envelope's values in the comment that shows what is sent. */
export function envelopePlaceholders(signing: SigningRule): { timestamp: string; signature: string } {
  return { timestamp: "<now>", signature: `<${signing.algorithm}>` };
}

/** The comment's opening words; tests read the wire the sample claims after them. */
export const WIRE_COMMENT = "// Sends ";
export const FORM_BODY_WORDS = " with the form body ";

/** What the client sends, with the signing envelope's values as placeholders. */
function wireComment(request: SampleRequest): string {
  const { operation } = request;
  const { credentials } = operation;
  const params = encodedArguments(request);
  let signed = "";
  if (credentials.kind === "signed") {
    const { signing } = credentials;
    const placeholder = envelopePlaceholders(signing);
    signed = `${signing.timestampParameter}=${placeholder.timestamp}&${signing.signatureParameter}=${placeholder.signature}`;
  }
  const all = [params, signed].filter((part) => part !== "").join("&");
  const start = `${WIRE_COMMENT}${operation.method.toUpperCase()} ${operation.path}`;
  if (all === "") return start;
  return request.placement === "body" ? `${start}${FORM_BODY_WORDS}${all}` : `${start}?${all}`;
}

export function typescriptSample(request: SampleRequest, spec: SampleSpec): string {
  const { operation } = request;
  const method = IDENTIFIER.test(operation.operationId)
    ? `.${operation.operationId}`
    : `[${JSON.stringify(operation.operationId)}]`;
  const options = [
    `  baseUrl: process.env.${ENV.baseUrl} ?? ${JSON.stringify(spec.baseUrl)},`,
    `  apiKey: process.env.${ENV.apiKey},`,
    `  apiSecret: process.env.${ENV.apiSecret},`,
    ...(request.placement === "body"
      ? ['  paramsIn: "body", // parameters, timestamp and signature in an x-www-form-urlencoded body']
      : []),
    "  throwOnError: true,",
  ];
  return `${[
    ...commentLines("//", openingLines(request)),
    'import { createSpotClient } from "@marketapi/client";',
    "",
    "const client = createSpotClient({",
    ...options,
    "});",
    "",
    wireComment(request),
    `const { data } = await client${method}(${callArguments(request)});`,
    "console.log(JSON.stringify(data, null, 2));",
  ].join("\n")}\n`;
}
