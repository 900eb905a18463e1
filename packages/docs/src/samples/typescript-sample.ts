// The TypeScript sample of a request: one call through @marketapi/client, which encodes, signs and
// sends; a comment shows the bytes it sends. This repository's build calls the spot client the
// package ships (createSpotClient); any other spec's calls the client marketapi-codegen generates
// from it (createApiClient over the generated `spotApi`), whose methods take one object: the
// parameters by name, whatever their place, and the request body as `body`.
import { isIdentifier, methodNameOf } from "@marketapi/spec/model";
import { jsonText } from "./curl-sample.js";
import { multipartFields } from "./multipart.js";
import { encodedArguments, filledPath, type SampleArgument, type SampleRequest } from "./sample-requests.js";
import type { CredentialPart, SampleSpec, SigningRule } from "./sample-spec.js";
import { commentLines, ENV, openingLines } from "./sample-text.js";

function property(name: string): string {
  return isIdentifier(name) ? name : JSON.stringify(name);
}

/** A JSON value as a TypeScript literal. */
function jsonLiteral(value: unknown, indent = ""): string {
  return jsonText(value)
    .split("\n")
    .map((line, i) => (i === 0 ? line : `${indent}${line}`))
    .join("\n");
}

/** The argument as a TypeScript literal: decimals and integers as numbers, JSON values as arrays. */
function literal(arg: SampleArgument): string {
  switch (arg.parameter.kind) {
    case "decimal":
    case "integer":
      return arg.text;
    case "json":
      if (Array.isArray(arg.value) && arg.value.every((v) => typeof v === "string")) {
        return `[${arg.value.map((v) => JSON.stringify(v)).join(", ")}]`;
      }
      return jsonLiteral(arg.value, "  ");
    default:
      return jsonLiteral(arg.value, "  ");
  }
}

/** The request body as the generated method takes it. */
function bodyLiteral(request: SampleRequest): string | undefined {
  const body = request.body;
  if (!body) return undefined;
  switch (body.spec.kind) {
    case "multipart": {
      const fields = new Map<string, string[]>();
      for (const field of multipartFields(request)) {
        const value = field.file
          ? `new Blob([${JSON.stringify(field.text)}])`
          : field.contentType
            ? field.text
            : JSON.stringify(field.text);
        fields.set(field.name, [...(fields.get(field.name) ?? []), value]);
      }
      const entries = [...fields].map(([name, values]) => {
        const many = Array.isArray((body.value as Record<string, unknown>)[name]);
        return `${property(name)}: ${many ? `[${values.join(", ")}]` : values[0]}`;
      });
      return `{ ${entries.join(", ")} }`;
    }
    case "text":
    case "bytes":
      return JSON.stringify(typeof body.value === "string" ? body.value : JSON.stringify(body.value));
    default:
      return jsonLiteral(body.value, "  ");
  }
}

function callArguments(request: SampleRequest): string {
  const args = [...request.placed, ...request.arguments];
  const entries = args.map((arg) => `${property(arg.parameter.name)}: ${literal(arg)}`);
  const body = bodyLiteral(request);
  if (body !== undefined) entries.push(`body: ${body}`);
  if (entries.length === 0) return "";
  const oneLine = `{ ${entries.join(", ")} }`;
  return oneLine.length <= 70 && !oneLine.includes("\n")
    ? oneLine
    : `{\n${entries.map((e) => `  ${e},`).join("\n")}\n}`;
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
  const start = `${WIRE_COMMENT}${operation.method.toUpperCase()} ${filledPath(request)}`;
  if (all === "") return start;
  return request.placement === "body" ? `${start}${FORM_BODY_WORDS}${all}` : `${start}?${all}`;
}

/** The client options a requirement's credentials need, read from the environment. */
function credentialOptions(parts: readonly CredentialPart[]): string[] {
  const options: string[] = [];
  const auth: string[] = [];
  let apiKey = false;
  let bearer = false;
  for (const part of parts) {
    const env = (name: string) => `process.env.${name}`;
    switch (part.type) {
      case "apiKey":
        if (!apiKey) options.push(`  apiKey: ${env(part.env)},`);
        else auth.push(`${property(part.scheme)}: ${env(part.env)}`);
        apiKey = true;
        break;
      case "bearer":
        if (!bearer) options.push(`  bearerToken: ${env(part.env)},`);
        else auth.push(`${property(part.scheme)}: ${env(part.env)}`);
        bearer = true;
        break;
      case "basic":
        auth.push(
          `${property(part.scheme)}: { username: ${env(part.userEnv)} ?? "", password: ${env(part.passwordEnv)} ?? "" }`,
        );
        break;
      case "authorization":
        auth.push(`${property(part.scheme)}: ${env(part.env)}`);
        break;
    }
  }
  if (auth.length > 0) options.push(`  auth: { ${auth.join(", ")} },`);
  return options;
}

/** How the sample prints the answer: JSON indented, text as it is, bytes counted, else the status. */
function printLines(request: SampleRequest, call: string, ours: boolean): string[] {
  switch (ours ? "json" : request.operation.answer) {
    case "json":
      return [`const { data } = await ${call};`, "console.log(JSON.stringify(data, null, 2));"];
    case "text":
      return [`const { data } = await ${call};`, "console.log(data);"];
    case "blob":
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal
      return [`const { data } = await ${call};`, "console.log(`${data.size} bytes of ${data.type}`);"];
    default:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal
      return [`const { response } = await ${call};`, "console.log(`HTTP ${response.status}`);"];
  }
}

export interface TypeScriptClient {
  /** The module that exports the API generated by `marketapi-codegen --client` (`spotApi`), as the sample imports it. */
  module: string;
}

/**
 * The sample; `client` names the generated client of a spec other than this repository's (absent:
 * the spot client of @marketapi/client).
 */
export function typescriptSample(
  request: SampleRequest,
  spec: SampleSpec,
  client?: TypeScriptClient,
): string {
  const { operation } = request;
  const name = client ? methodNameOf(operation.operationId) : operation.operationId;
  const method = isIdentifier(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
  const { credentials } = operation;
  const baseUrl = `  baseUrl: process.env.${ENV.baseUrl} ?? ${JSON.stringify(spec.baseUrl)},`;
  const keyAndSecret = [`  apiKey: process.env.${ENV.apiKey},`, `  apiSecret: process.env.${ENV.apiSecret},`];
  const options = [
    baseUrl,
    ...(!client || credentials.kind === "signed"
      ? keyAndSecret
      : credentials.kind === "key-accepted"
        ? keyAndSecret.slice(0, 1)
        : credentials.kind === "schemes"
          ? credentialOptions(credentials.parts)
          : []),
    ...(request.placement === "body"
      ? ['  paramsIn: "body", // parameters, timestamp and signature in an x-www-form-urlencoded body']
      : []),
    "  throwOnError: true,",
  ];
  const imports = client
    ? [
        'import { createApiClient } from "@marketapi/client";',
        `import { spotApi } from ${JSON.stringify(client.module)};`,
      ]
    : ['import { createSpotClient } from "@marketapi/client";'];
  return `${[
    ...commentLines("//", openingLines(request)),
    ...imports,
    "",
    client ? "const client = createApiClient(spotApi, {" : "const client = createSpotClient({",
    ...options,
    "});",
    "",
    wireComment(request),
    ...printLines(request, `client${method}(${callArguments(request)})`, !client),
  ].join("\n")}\n`;
}
