// What the code samples need from the OpenAPI document, read in this one module: the default
// base address, the API-key header, the signing rule (`x-signing`) and, per operation, its method,
// path, credentials, parameter placement and query parameters with their types and examples.
// Everything else in src/samples works on this model, never on the raw document.
import {
  isObject,
  type JsonObject,
  objectAt,
  operationsOf,
  stringAt,
  stringsAt,
} from "../openapi-document.js";

export class SampleSpecError extends Error {
  override name = "SampleSpecError";
}

/** What an operation sends to authenticate, from its security requirements, with what it needs to. */
export type Credentials =
  /** Nothing. */
  | { kind: "none" }
  /** The API key may be sent in `header` (an empty requirement beside the key alone). */
  | { kind: "key-accepted"; header: string }
  /** The API key in `header`, and a signature per `signing`. */
  | { kind: "signed"; header: string; signing: SigningRule };

/** The wire type of a query parameter's value. */
export type ParameterKind = "decimal" | "integer" | "string" | "json" | "other";

export interface SampleParameter {
  name: string;
  required: boolean;
  kind: ParameterKind;
  /** The parameter's own example, or its content's example (JSON parameters). */
  example?: unknown;
  /** Allowed values (schema `enum`). */
  enum?: string[];
  /** The text the value must match on the wire (`x-wire-pattern`). */
  wirePattern?: string;
}

/** One entry of `x-order-type-rules`. */
export interface OrderTypeRule {
  required: string[];
  forbidden: string[];
  exactlyOneOf: string[][];
  atLeastOneOf: string[][];
}

export interface SampleOperation {
  operationId: string;
  summary: string;
  method: string;
  path: string;
  /** `x-auth-class`, as the spec names the class. */
  authClass: string;
  credentials: Credentials;
  /** `x-parameter-placement: query-or-form-body`: the parameters may travel in a form body. */
  formBody: boolean;
  /** Query parameters, in the order the spec declares them. */
  parameters: SampleParameter[];
  /** `x-order-type-rules`, by order type, on the operation that places orders. */
  orderTypeRules?: Record<string, OrderTypeRule>;
  /** `x-mutually-exclusive`: groups of parameters of which at most one may be sent. */
  mutuallyExclusive: string[][];
}

/** The signing rule of the signed operations (`x-signing` of the signature scheme). */
export interface SigningRule {
  /** `HMAC-SHA256`. */
  algorithm: string;
  /** The parameter that carries the signature, appended last. */
  signatureParameter: string;
  /** The timestamp parameter and its unit. */
  timestampParameter: string;
  timestampUnit: string;
}

export interface SampleSpec {
  /** The first server's URL with its variables at their defaults. */
  baseUrl: string;
  operations: SampleOperation[];
}

/** The security schemes the samples can write: an API key in a header, and the signing scheme. */
interface KnownSchemes {
  apiKey?: { name: string; header: string };
  signing?: { name: string; rule: SigningRule };
}

export function readSampleSpec(document: JsonObject): SampleSpec {
  const schemes = Object.entries(objectAt(objectAt(document.components).securitySchemes));
  const signing = schemes.find(([, scheme]) => isObject(objectAt(scheme)["x-signing"]));
  const apiKey = schemes.find(
    ([, scheme]) =>
      objectAt(scheme).type === "apiKey" &&
      objectAt(scheme).in === "header" &&
      !isObject(objectAt(scheme)["x-signing"]),
  );
  const known: KnownSchemes = {
    ...(apiKey && {
      apiKey: {
        name: apiKey[0],
        header: requiredString(objectAt(apiKey[1]).name, `securitySchemes.${apiKey[0]}.name`),
      },
    }),
    ...(signing && { signing: { name: signing[0], rule: signingRule(signing[0], objectAt(signing[1])) } }),
  };
  return {
    baseUrl: defaultBaseUrl(document),
    operations: operationsOf(document).map(({ path, method, operation }) =>
      sampleOperation(document, path, method, operation, known),
    ),
  };
}

function requiredString(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") {
    throw new SampleSpecError(`${where}: expected a string, found ${JSON.stringify(value)}`);
  }
  return value;
}

function defaultBaseUrl(document: JsonObject): string {
  const server = objectAt(Array.isArray(document.servers) ? document.servers[0] : undefined);
  const url = requiredString(server.url, "servers[0].url");
  const variables = objectAt(server.variables);
  return url.replace(/\{([^}]+)\}/g, (_, name: string) =>
    requiredString(objectAt(variables[name]).default, `servers[0].variables.${name}.default`),
  );
}

function signingRule(schemeName: string, scheme: JsonObject): SigningRule {
  const signing = objectAt(scheme["x-signing"]);
  const where = `securitySchemes.${schemeName}.x-signing`;
  const timestamp = objectAt(signing.timestamp);
  return {
    algorithm: requiredString(signing.algorithm, `${where}.algorithm`),
    signatureParameter: requiredString(signing.parameter ?? scheme.name, `${where}.parameter`),
    timestampParameter: requiredString(timestamp.parameter, `${where}.timestamp.parameter`),
    timestampUnit: requiredString(timestamp.unit, `${where}.timestamp.unit`),
  };
}

/** Follows local `$ref`s (`#/components/...`) until a value without one. */
function resolve(document: JsonObject, value: unknown, seen = new Set<string>()): JsonObject {
  const object = objectAt(value);
  const ref = stringAt(object.$ref);
  if (ref === undefined) return object;
  if (!ref.startsWith("#/") || seen.has(ref)) throw new SampleSpecError(`cannot resolve $ref ${ref}`);
  seen.add(ref);
  let target: unknown = document;
  for (const segment of ref.slice(2).split("/")) {
    target = objectAt(target)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  if (!isObject(target)) throw new SampleSpecError(`$ref ${ref} points to nothing`);
  return resolve(document, target, seen);
}

/**
 * The credentials an operation's security requirements ask for, among those the samples write:
 * none; an optional API key (an empty requirement beside the key alone); or the key and the
 * signature. Any other requirement is an error naming the operation.
 */
function credentialsOf(
  operation: JsonObject,
  document: JsonObject,
  where: string,
  known: KnownSchemes,
): Credentials {
  const security = operation.security ?? document.security;
  const requirements = Array.isArray(security) ? security.filter(isObject).map((r) => Object.keys(r)) : [];
  const exactly = (requirement: string[], names: string[]) =>
    requirement.length === names.length && names.every((name) => requirement.includes(name));
  const { apiKey, signing } = known;
  if (requirements.every((r) => r.length === 0)) return { kind: "none" };
  if (apiKey && signing && requirements.some((r) => exactly(r, [apiKey.name, signing.name]))) {
    return { kind: "signed", header: apiKey.header, signing: signing.rule };
  }
  if (
    apiKey &&
    requirements.some((r) => r.length === 0) &&
    requirements.every((r) => r.length === 0 || exactly(r, [apiKey.name]))
  ) {
    return { kind: "key-accepted", header: apiKey.header };
  }
  throw new SampleSpecError(
    `${where}: security ${JSON.stringify(security)} is not one the code samples write (none; an optional API key in a header; an API key and a signature per x-signing)`,
  );
}

function sampleOperation(
  document: JsonObject,
  path: string,
  method: string,
  operation: JsonObject,
  known: KnownSchemes,
): SampleOperation {
  const operationId = requiredString(operation.operationId, `${method.toUpperCase()} ${path}: operationId`);
  const rules = operation["x-order-type-rules"];
  return {
    operationId,
    summary: stringAt(operation.summary) ?? operationId,
    method,
    path,
    authClass: stringAt(operation["x-auth-class"]) ?? "",
    credentials: credentialsOf(operation, document, operationId, known),
    formBody: operation["x-parameter-placement"] === "query-or-form-body",
    parameters: queryParameters(document, operation, operationId),
    ...(isObject(rules) ? { orderTypeRules: orderTypeRules(rules) } : {}),
    mutuallyExclusive: (Array.isArray(operation["x-mutually-exclusive"])
      ? operation["x-mutually-exclusive"]
      : []
    ).map(stringsAt),
  };
}

/**
 * The operation's query parameters. The samples write query strings and form bodies only, so a
 * required parameter anywhere else (path, header, cookie) is an error rather than a silent gap.
 */
function queryParameters(
  document: JsonObject,
  operation: JsonObject,
  operationId: string,
): SampleParameter[] {
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((parameter) =>
    resolve(document, parameter),
  );
  const elsewhere = parameters.filter((p) => p.in !== "query" && p.required === true);
  if (elsewhere.length > 0) {
    const names = elsewhere.map((p) => `${String(p.name)} (in ${String(p.in)})`).join(", ");
    throw new SampleSpecError(
      `${operationId}: the code samples send query and form parameters only; required elsewhere: ${names}`,
    );
  }
  return parameters.filter((p) => p.in === "query").map((p) => sampleParameter(document, p));
}

function sampleParameter(document: JsonObject, parameter: JsonObject): SampleParameter {
  const name = requiredString(parameter.name, "parameter name");
  const json = objectAt(objectAt(parameter.content)["application/json"]);
  const schema = resolve(document, isObject(parameter.schema) ? parameter.schema : json.schema);
  const example = parameter.example ?? json.example;
  const enumValues = stringsAt(schema.enum);
  return {
    name,
    required: parameter.required === true,
    kind: isObject(parameter.content) ? "json" : kindOf(schema),
    ...(example !== undefined ? { example } : {}),
    ...(enumValues.length > 0 ? { enum: enumValues } : {}),
    ...(typeof schema["x-wire-pattern"] === "string" ? { wirePattern: schema["x-wire-pattern"] } : {}),
  };
}

function kindOf(schema: JsonObject): ParameterKind {
  switch (schema.type) {
    case "number":
      return "decimal";
    case "integer":
      return "integer";
    case "string":
      return "string";
    default:
      return "other";
  }
}

function orderTypeRules(rules: JsonObject): Record<string, OrderTypeRule> {
  const groups = (value: unknown) => (Array.isArray(value) ? value.map(stringsAt) : []);
  return Object.fromEntries(
    Object.entries(rules).map(([type, rule]) => {
      const r = objectAt(rule);
      return [
        type,
        {
          required: stringsAt(r.required),
          forbidden: stringsAt(r.forbidden),
          exactlyOneOf: groups(r.exactlyOneOf),
          atLeastOneOf: groups(r.atLeastOneOf),
        },
      ];
    }),
  );
}
