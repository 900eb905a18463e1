// What the client generator makes of each operation, and what it refuses. Every construct of an
// OpenAPI 3.1 operation either becomes a wire fact the client runtime reads (operations.gen.ts) and
// a type the method takes, or a located SpecError; all refusals of a spec are collected and thrown
// together, before anything is generated. The table of constructs is in the package README
// ("What the client generates, and what it refuses").

import {
  acceptedMediaType,
  isIdentifier,
  isObject,
  methodNameOf,
  preferredMediaType,
  type ResponseAs,
  resolveRef,
  responseAsOf,
} from "@marketapi/spec/model";
import { describeValue, SpecError } from "@marketapi/spec-loader";
import type { Operation, Parameter, SourcedSpecModel } from "../spec-input/spec-model.js";
import { typesKeyOf } from "./openapi-typescript-adapter.js";

export type ParameterLocation = "path" | "query" | "header" | "cookie";

/** How one parameter travels (the runtime's ParameterWire); defaults are left out. */
export interface ParameterWire {
  name: string;
  in: ParameterLocation;
  style?: string;
  explode?: boolean;
  json?: true;
  allowReserved?: true;
}

export interface BodyWire {
  mediaType: string;
  required: boolean;
  encoding?: Record<
    string,
    { style?: string; explode?: boolean; allowReserved?: boolean; contentType?: string }
  >;
}

export type SchemeWire =
  | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string }
  | { type: "http"; scheme: string }
  | { type: "oauth2" | "openIdConnect" }
  | { type: "mutualTLS" }
  | { type: "signing" };

export type { ResponseAs };

export interface ClientOperation {
  operation: Operation;
  /** The operation's key in the types and the operation table: its operationId, or typesKeyOf's name for it. */
  key: string;
  /** The method's name: the operationId, or the camel-case name derived from it. */
  methodName: string;
  /** The places its parameters take, in the order path, query, header, cookie. */
  locations: ParameterLocation[];
  /** Every parameter the runtime cannot treat as a plain query parameter. */
  parameters: ParameterWire[];
  /** The request body the method takes (`body`); absent for x-parameter-placement form bodies. */
  body?: BodyWire;
  responseAs: ResponseAs;
  /** The Accept header, where a success answer may come in other media types than the one read. */
  accept?: string;
  /** The security requirements the client can meet, as lists of scheme names. */
  security: string[][];
}

export interface ClientModel {
  operations: ClientOperation[];
  /** The schemes the requirements name, by name. */
  schemes: Record<string, SchemeWire>;
}

// The per-operation methods sit next to openapi-fetch's own members on the client object.
export const CLIENT_MEMBERS = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
  "request",
  "use",
  "eject",
  "__proto__",
];

const STYLES: Record<ParameterLocation, string[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};
const DEFAULT_STYLE: Record<ParameterLocation, string> = {
  path: "simple",
  query: "form",
  header: "simple",
  cookie: "form",
};
const LOCATION_ORDER: ParameterLocation[] = ["path", "query", "header", "cookie"];

/** HTTP schemes that answer a challenge: the client cannot send them up front. */
const CHALLENGE_SCHEMES = new Set(["digest", "negotiate", "hoba", "mutual", "vapid"]);

/**
 * Reads every operation of the model for the client generator. Throws one SpecError carrying
 * every refusal (see the README's table) when there is any.
 */
export function readClientModel(model: SourcedSpecModel): ClientModel {
  const faults: SpecError[] = [];
  const refuse = (pointer: string, expected: string, found: string) =>
    faults.push(new SpecError(model.source, pointer, expected, found));
  const schemes: Record<string, SchemeWire> = {};
  const operations = model.operations.map((operation) => {
    const parameters = parameterWires(operation, refuse);
    checkPathTemplate(operation, refuse);
    const body = bodyOf(operation, refuse);
    if (body && operation.parameters.some((p) => p.name === "body")) {
      const clash = operation.parameters.find((p) => p.name === "body")!;
      refuse(
        `${clash.pointer}/name`,
        'a parameter name other than "body" on an operation with a request body (the method takes the body as `body`, beside the parameters)',
        describeValue(clash.name),
      );
    }
    if (operation.responseVariants && body) {
      refuse(
        `${operation.pointer}/x-response-variant-by`,
        "x-response-variant-by on an operation that takes no request body",
        "a request body",
      );
    }
    const security = securityOf(model, operation, schemes, refuse);
    if (operation.signed && !operation.signing) {
      refuse(
        `${operation.pointer}/${operation.authClassFrom === "x-auth-class" ? "x-auth-class" : "security"}`,
        `a security requirement naming a scheme with x-signing, as x-auth-class ${operation.authClass} requests are signed`,
        model.signingRules.size === 0 ? "a spec without x-signing" : describeValue(operation.security),
      );
    }
    if (operation.signed && body && !/json|x-www-form-urlencoded|^text\//i.test(body.mediaType)) {
      refuse(
        `${operation.requestBody!.pointer}/content`,
        "a signed operation's body as JSON, form or text (the signature covers the body's bytes as sent)",
        describeValue(body.mediaType),
      );
    }
    return {
      operation,
      key: typesKeyOf(operation.operationId),
      methodName: methodNameOf(operation.operationId),
      locations: LOCATION_ORDER.filter((at) => operation.parameters.some((p) => p.in === at)),
      parameters,
      ...(body ? { body } : {}),
      responseAs: responseAsOf(operation),
      ...acceptOf(operation),
      security,
    };
  });
  checkMethodNames(model.source, operations, refuse);
  checkKeys(operations, refuse);
  const [first, ...rest] = faults;
  if (first) {
    first.others.push(...rest);
    throw first;
  }
  return { operations, schemes };
}

type Refuse = (pointer: string, expected: string, found: string) => void;

function parameterWires(operation: Operation, refuse: Refuse): ParameterWire[] {
  const wires: ParameterWire[] = [];
  const byName = new Map<string, Parameter>();
  for (const parameter of operation.parameters) {
    const earlier = byName.get(parameter.name);
    if (earlier) {
      refuse(
        `${parameter.pointer}/name`,
        `a parameter name the operation's other parameters do not use (the method takes them in one object by name; also ${earlier.in} parameter at #${earlier.pointer})`,
        describeValue(parameter.name),
      );
    }
    byName.set(parameter.name, parameter);
    const declaration = parameter.declaration;
    const style = declaration.style ?? DEFAULT_STYLE[parameter.in];
    if (typeof style !== "string" || !STYLES[parameter.in].includes(style)) {
      refuse(
        `${parameter.pointer}/style`,
        `a style OpenAPI defines for ${parameter.in} parameters (${STYLES[parameter.in].join(", ")})`,
        describeValue(declaration.style),
      );
      continue;
    }
    const explode = typeof declaration.explode === "boolean" ? declaration.explode : style === "form";
    const plainQuery =
      parameter.in === "query" &&
      style === "form" &&
      explode &&
      declaration.allowReserved !== true &&
      parameter.encoding === "plain";
    if (plainQuery || (parameter.in === "query" && parameter.encoding === "json")) continue;
    wires.push({
      name: parameter.name,
      in: parameter.in,
      ...(style !== DEFAULT_STYLE[parameter.in] ? { style } : {}),
      ...(explode !== (style === "form") ? { explode } : {}),
      ...(parameter.encoding === "json" ? { json: true as const } : {}),
      ...(declaration.allowReserved === true ? { allowReserved: true as const } : {}),
    });
  }
  return wires;
}

/** Every `{name}` of the path has a path parameter, and every path parameter a `{name}`. */
function checkPathTemplate(operation: Operation, refuse: Refuse): void {
  const named = [...operation.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
  const declared = operation.parameters.filter((p) => p.in === "path");
  for (const name of named) {
    if (!declared.some((p) => p.name === name)) {
      refuse(
        `${operation.pointer}/parameters`,
        `a path parameter "${name}" (in: path, required: true) for the template ${operation.path}`,
        "none",
      );
    }
  }
  for (const parameter of declared) {
    if (!named.includes(parameter.name)) {
      refuse(
        `${parameter.pointer}/name`,
        `the name of a {…} segment of the path ${operation.path}`,
        describeValue(parameter.name),
      );
    }
  }
}

/** The media type the method sends (the model's rule, shared with the docs' code samples). */
export { preferredMediaType };

function bodyOf(operation: Operation, refuse: Refuse): BodyWire | undefined {
  const requestBody = operation.requestBody;
  if (!requestBody || operation.acceptsFormBody) return undefined;
  const mediaType = preferredMediaType(requestBody.content.map((c) => c.mediaType));
  if (mediaType === undefined) return undefined;
  const raw = isObject(operation.raw.requestBody) ? operation.raw.requestBody : {};
  const encoding = encodingOf(raw, mediaType, requestBody.pointer, refuse);
  return { mediaType, required: requestBody.required, ...(encoding ? { encoding } : {}) };
}

function encodingOf(
  raw: Record<string, unknown>,
  mediaType: string,
  pointer: string,
  refuse: Refuse,
): BodyWire["encoding"] {
  const media = isObject(raw.content) ? raw.content[mediaType] : undefined;
  const encoding = isObject(media) && isObject(media.encoding) ? media.encoding : undefined;
  if (!encoding) return undefined;
  const out: NonNullable<BodyWire["encoding"]> = {};
  for (const [name, value] of Object.entries(encoding)) {
    if (!isObject(value)) continue;
    const style = value.style;
    if (style !== undefined && !STYLES.query.includes(style)) {
      refuse(
        `${pointer}/content/${mediaType.replace(/~/g, "~0").replace(/\//g, "~1")}/encoding/${name}/style`,
        `a style OpenAPI defines for form fields (${STYLES.query.join(", ")})`,
        describeValue(style),
      );
    }
    out[name] = {
      ...(typeof style === "string" ? { style } : {}),
      ...(typeof value.explode === "boolean" ? { explode: value.explode } : {}),
      ...(value.allowReserved === true ? { allowReserved: true } : {}),
      ...(typeof value.contentType === "string" ? { contentType: value.contentType } : {}),
    };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `{ accept }` when the success answers declare several media types: the one the client reads. */
function acceptOf(operation: Operation): { accept?: string } {
  const accept = acceptedMediaType(operation);
  return accept === undefined ? {} : { accept };
}

function schemeWire(
  model: SourcedSpecModel,
  name: string,
): { wire: SchemeWire } | { unsupported: string } | undefined {
  if (model.signingRules.has(name)) return { wire: { type: "signing" } };
  const schemes = model.document.components?.securitySchemes;
  const declared = isObject(schemes) ? schemes[name] : undefined;
  if (declared === undefined) return undefined;
  const scheme = resolveRef(model.document, declared, `/components/securitySchemes/${name}`);
  switch (scheme.type) {
    case "apiKey":
      return { wire: { type: "apiKey", in: scheme.in, name: scheme.name } };
    case "http": {
      const kind = String(scheme.scheme ?? "").toLowerCase();
      if (CHALLENGE_SCHEMES.has(kind)) return { unsupported: `HTTP ${kind} (answers a challenge)` };
      return { wire: { type: "http", scheme: kind } };
    }
    case "oauth2":
    case "openIdConnect":
    case "mutualTLS":
      return { wire: { type: scheme.type } };
    default:
      return { unsupported: describeValue(scheme.type) };
  }
}

/** The requirements the client can meet; an operation whose every requirement it cannot is refused. */
function securityOf(
  model: SourcedSpecModel,
  operation: Operation,
  schemes: Record<string, SchemeWire>,
  refuse: Refuse,
): string[][] {
  const requirements = operation.security ?? [];
  const pointer =
    isObject(operation.raw) && operation.raw.security !== undefined
      ? `${operation.pointer}/security`
      : "/security";
  const met: string[][] = [];
  const unsupported: string[] = [];
  for (const requirement of requirements) {
    const names = Object.keys(requirement);
    let usable = true;
    for (const name of names) {
      const read = schemeWire(model, name);
      if (read === undefined) {
        refuse(pointer, `security schemes declared in components.securitySchemes`, describeValue(name));
        usable = false;
      } else if ("unsupported" in read) {
        unsupported.push(`${name}: ${read.unsupported}`);
        usable = false;
      } else schemes[name] = read.wire;
    }
    if (usable) met.push(names);
  }
  if (requirements.length > 0 && met.length === 0 && unsupported.length > 0) {
    refuse(
      pointer,
      "a security requirement the client can send (API key, HTTP bearer or basic, OAuth 2 or OpenID Connect token, x-signing)",
      unsupported.join("; "),
    );
  }
  return met;
}

function checkMethodNames(source: string, operations: ClientOperation[], refuse: Refuse): void {
  const byName = new Map<string, ClientOperation>();
  for (const client of operations) {
    const { operation, methodName } = client;
    const at = `${operation.pointer}/operationId`;
    if (methodName === "" || !isIdentifier(methodName)) {
      refuse(
        at,
        "an operationId with a letter or digit (the method's name is made of them)",
        describeValue(operation.operationId),
      );
      continue;
    }
    if (CLIENT_MEMBERS.includes(methodName)) {
      refuse(
        at,
        `an operationId whose method is not a member of the openapi-fetch client (${CLIENT_MEMBERS.join(", ")})`,
        describeValue(operation.operationId),
      );
    }
    const earlier = byName.get(methodName);
    if (earlier) {
      refuse(
        at,
        `an operationId whose method name (${methodName}) no other operation's has (also ${describeValue(earlier.operation.operationId)} at #${earlier.operation.pointer})`,
        describeValue(operation.operationId),
      );
    }
    byName.set(methodName, client);
  }
  void source;
}

/** Two operationIds that the types would name alike (`a#b` and `a/b`) cannot both be typed. */
function checkKeys(operations: ClientOperation[], refuse: Refuse): void {
  const byKey = new Map<string, ClientOperation>();
  for (const client of operations) {
    const earlier = byKey.get(client.key);
    if (earlier) {
      refuse(
        `${client.operation.pointer}/operationId`,
        `an operationId the types can name apart from ${describeValue(earlier.operation.operationId)} at #${earlier.operation.pointer} (both are typed as ${describeValue(client.key)}: '#' is written as '/', '%' as '_')`,
        describeValue(client.operation.operationId),
      );
    }
    byKey.set(client.key, client);
  }
}
