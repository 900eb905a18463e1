// What the code samples need from the OpenAPI document, read in this one module: the default
// base address, the security schemes (API keys, HTTP bearer and basic, OAuth 2 and OpenID Connect
// tokens, the signing rule of `x-signing`) and, per operation, its method, path, credentials,
// parameters in every place (path, query, header, cookie) with their styles, types and examples,
// its request body and how its answer is read. Everything else in src/samples works on this
// model, never on the raw document. Operations, their merged parameters, the extensions and the
// media types a client uses come from @marketapi/spec/model.
import type { BodyKind } from "@marketapi/client/wire";
import { bodyKind } from "@marketapi/client/wire";
import {
  acceptedMediaType,
  buildSpecModel,
  type Operation,
  type Parameter,
  preferredMediaType,
  type ResponseAs,
  resolveRef,
  responseAsOf,
  type SigningRule,
  type SpecModel,
  SpecModelError,
} from "@marketapi/spec/model";
import { isObject, type JsonObject, objectAt, stringsAt } from "../json.js";

/** A fault that keeps the samples from being written; `pointer` says where in the spec, when known. */
/** A value the samples' scenario or a spec gives that the samples cannot send. */
export class SampleScenarioError extends Error {
  override name = "SampleScenarioError";
}

/**
 * An operation the samples cannot write, as the page lists it: in a spec other than this
 * repository's, any fault of one operation (even one no rule here foresaw) leaves that operation
 * without samples, said why, and never ends the build; this repository's own build stops on it.
 */
export function skippedFor(
  error: unknown,
  operation: { operationId: string; pointer: string },
  strict: boolean,
): SkippedOperation {
  if (strict || !(error instanceof Error)) throw error;
  const foreseen = error instanceof SampleSpecError || error instanceof SampleScenarioError;
  const message = error.message.replace(new RegExp(`^${escapeRegExp(operation.operationId)}: `), "");
  return {
    operationId: operation.operationId,
    reason: foreseen ? message : `the samples cannot write it (${error.name}: ${message})`,
    pointer: (error instanceof SampleSpecError ? error.pointer : undefined) ?? operation.pointer,
  };
}

export class SampleSpecError extends Error {
  override name = "SampleSpecError";
  constructor(
    message: string,
    readonly pointer?: string,
  ) {
    super(message);
  }
}

/** The environment variables the samples read their target and credentials from. */
export const ENV = {
  baseUrl: "BASE_URL",
  apiKey: "API_KEY",
  apiSecret: "API_SECRET",
  token: "ACCESS_TOKEN",
  username: "API_USERNAME",
  password: "API_PASSWORD",
  credential: "API_CREDENTIAL",
} as const;

/** One scheme of the security requirement a sample meets, with the variable its credential comes from. */
export type CredentialPart =
  | { type: "apiKey"; scheme: string; in: "header" | "query" | "cookie"; name: string; env: string }
  /** HTTP bearer, OAuth 2 and OpenID Connect: an access token in `Authorization: Bearer`. */
  | { type: "bearer"; scheme: string; env: string; what: string }
  | { type: "basic"; scheme: string; userEnv: string; passwordEnv: string }
  /** Another HTTP scheme (`Token`): `Authorization: <authScheme> <credential>`. */
  | { type: "authorization"; scheme: string; authScheme: string; env: string };

/** What an operation sends to authenticate, from its security requirements, with what it needs to. */
export type Credentials =
  /** Nothing. */
  | { kind: "none" }
  /** The API key may be sent in `header` (an empty requirement beside the key alone). */
  | { kind: "key-accepted"; header: string }
  /** The API key in `header`, and a signature per `signing`. */
  | { kind: "signed"; header: string; signing: SigningRule }
  /** Any other requirement the samples meet: each scheme's credential; `optional` when `{}` is an alternative. */
  | { kind: "schemes"; parts: CredentialPart[]; optional: boolean };

/** The wire type of a parameter's value. */
export type ParameterKind = "decimal" | "integer" | "string" | "json" | "other";

export type { SigningRule };

/** A parameter of the spec model, with what the samples add: its wire type, allowed values and style. */
export interface SampleParameter extends Parameter {
  kind: ParameterKind;
  /** Allowed values (schema `enum`). */
  enum?: string[];
  /** OpenAPI's style and explode as declared (the place's defaults when absent). */
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  /** The value's schema, `$ref` followed. */
  valueSchema: JsonObject;
}

/** The request body a sample sends (not the form body of x-parameter-placement, which carries the parameters). */
export interface SampleBody {
  mediaType: string;
  kind: BodyKind;
  required: boolean;
  /** The media type's schema, `$ref` followed (empty when there is none). */
  schema: JsonObject;
  /** The media type's example (`example`, else the first of `examples`), when the spec gives one. */
  example?: unknown;
  /** Multipart properties sent as files: binary ones (`format: binary`, `contentMediaType`), or arrays of them. */
  fileFields?: string[];
  /** The properties' encodings (form and multipart bodies). */
  encoding?: Record<
    string,
    { style?: string; explode?: boolean; allowReserved?: boolean; contentType?: string }
  >;
  pointer: string;
}

/** An operation of the spec model, with what the samples add. */
export interface SampleOperation extends Operation {
  credentials: Credentials;
  /** Query parameters, in the order the spec declares them. */
  queryParameters: SampleParameter[];
  /** Path, header and cookie parameters, in the order the spec declares them. */
  placedParameters: SampleParameter[];
  body?: SampleBody;
  /** How the answer is read (the generated client's rule), and the Accept header sent when several media types may come. */
  answer: ResponseAs;
  accept?: string;
}

/** An operation the samples cannot write, with why and where in the spec. */
export interface SkippedOperation {
  operationId: string;
  reason: string;
  pointer: string;
}

export interface SampleSpec {
  /** The first server's URL with its variables at their defaults. */
  baseUrl: string;
  operations: SampleOperation[];
  /** Operations the samples cannot write, with why (only when read with `strict: false`). */
  skipped: SkippedOperation[];
  /** This repository's build: a fault is an error, and every value comes from the spec or the scenario. */
  strict: boolean;
  /** The document read (values are made from its schemas, whose `$ref`s point into it). */
  document: JsonObject;
}

/** The security schemes of the spec, as the samples read them. */
interface KnownSchemes {
  /** The API key header that signed and key-accepted operations send (an apiKey scheme in a header). */
  apiKey?: { name: string; header: string };
  signing?: { name: string; rule: SigningRule };
  /** Every declared scheme, `$ref` followed. */
  declared: Record<string, JsonObject>;
}

/**
 * What the samples need of `document`. Strict (this repository's build): an operation the samples
 * cannot write is an error. Otherwise (any other spec) it is listed in `skipped`, with the reason.
 */
export function readSampleSpec(document: JsonObject, { strict = true } = {}): SampleSpec {
  const model = modelOf(document);
  const declared = Object.fromEntries(
    Object.entries(objectAt(objectAt(document.components).securitySchemes)).map(([name, scheme]) => [
      name,
      resolvedObject(model, scheme, `/components/securitySchemes/${name}`),
    ]),
  );
  const signing = [...model.signingRules][0];
  let signingFault: string | undefined;
  if (signing && !strict) {
    try {
      signingRule(signing[1]);
    } catch (error) {
      if (!(error instanceof SampleSpecError)) throw error;
      signingFault = error.message;
    }
  }
  const apiKey = Object.entries(declared).find(
    ([name, scheme]) => scheme.type === "apiKey" && scheme.in === "header" && !model.signingRules.has(name),
  );
  const known: KnownSchemes = {
    declared,
    ...(apiKey && {
      apiKey: {
        name: apiKey[0],
        header: requiredString(apiKey[1].name, `securitySchemes.${apiKey[0]}.name`),
      },
    }),
    ...(signing &&
      signingFault === undefined && { signing: { name: signing[0], rule: signingRule(signing[1]) } }),
  };
  const operations: SampleOperation[] = [];
  const skipped: SampleSpec["skipped"] = [];
  for (const operation of model.operations) {
    try {
      operations.push(sampleOperation(model, operation, known));
    } catch (error) {
      const skip = skippedFor(error, operation, strict);
      skipped.push(signingFault ? { ...skip, reason: `${skip.reason} (${signingFault})` } : skip);
    }
  }
  return { baseUrl: defaultBaseUrl(document, strict), operations, skipped, strict, document };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function requiredString(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") {
    throw new SampleSpecError(`${where}: expected a string, found ${JSON.stringify(value)}`);
  }
  return value;
}

function defaultBaseUrl(document: JsonObject, strict: boolean): string {
  const server = objectAt(Array.isArray(document.servers) ? document.servers[0] : undefined);
  // A spec without servers means the document's own host; the samples need an address to print.
  if (!strict && server.url === undefined) return "http://localhost";
  const url = requiredString(server.url, "servers[0].url");
  const variables = objectAt(server.variables);
  return url.replace(/\{([^}]+)\}/g, (_, name: string) =>
    requiredString(objectAt(variables[name]).default, `servers[0].variables.${name}.default`),
  );
}

/** The signing rule, with the timestamp unit the samples need stated. */
function signingRule(rule: SigningRule): SigningRule {
  requiredString(rule.words.timestampUnit, `securitySchemes.${rule.scheme}.x-signing.timestamp.unit`);
  return rule;
}

function modelOf(document: JsonObject): SpecModel {
  try {
    return buildSpecModel(document);
  } catch (error) {
    if (error instanceof SpecModelError) throw new SampleSpecError(error.message, error.pointer);
    throw error;
  }
}

function resolvedObject(model: SpecModel, node: unknown, where: string): JsonObject {
  try {
    return resolveRef(model.document, node, where);
  } catch (error) {
    if (error instanceof SpecModelError) throw new SampleSpecError(error.message, error.pointer);
    throw error;
  }
}

/** Where an operation's security is written: its own `security`, else the document's. */
function securityPointer(operation: Operation): string {
  return isObject(operation.raw) && operation.raw.security !== undefined
    ? `${operation.pointer}/security`
    : "/security";
}

/** HTTP schemes that answer a challenge: nothing can be sent up front. */
const CHALLENGE_SCHEMES = new Set(["digest", "negotiate", "hoba", "mutual", "vapid", "scram-sha-256"]);

/** The scheme as a sample sends it, or why it cannot. */
function credentialPart(name: string, known: KnownSchemes): CredentialPart | { unwritable: string } {
  const scheme = known.declared[name];
  if (scheme === undefined) return { unwritable: `${name}: not declared in components.securitySchemes` };
  switch (scheme.type) {
    case "apiKey": {
      const place = scheme.in;
      if (place !== "header" && place !== "query" && place !== "cookie") {
        return { unwritable: `${name}: an API key in ${JSON.stringify(place)}` };
      }
      if (typeof scheme.name !== "string" || scheme.name === "") {
        return { unwritable: `${name}: an API key without a name` };
      }
      return { type: "apiKey", scheme: name, in: place, name: scheme.name, env: ENV.apiKey };
    }
    case "http": {
      const authScheme = String(scheme.scheme ?? "");
      const lower = authScheme.toLowerCase();
      if (lower === "bearer") return { type: "bearer", scheme: name, env: ENV.token, what: "HTTP bearer" };
      if (lower === "basic")
        return { type: "basic", scheme: name, userEnv: ENV.username, passwordEnv: ENV.password };
      if (CHALLENGE_SCHEMES.has(lower) || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(authScheme)) {
        return {
          unwritable: `${name}: HTTP ${authScheme} answers a challenge of the server, which a sample cannot send up front`,
        };
      }
      return { type: "authorization", scheme: name, authScheme, env: ENV.credential };
    }
    case "oauth2":
      return { type: "bearer", scheme: name, env: ENV.token, what: "OAuth 2" };
    case "openIdConnect":
      return { type: "bearer", scheme: name, env: ENV.token, what: "OpenID Connect" };
    case "mutualTLS":
      return {
        unwritable: `${name}: mutual TLS, whose client certificate belongs to the TLS connection (curl --cert, Python's ssl context), which the samples do not set up`,
      };
    default:
      return { unwritable: `${name}: a security scheme of type ${JSON.stringify(scheme.type)}` };
  }
}

/** Two credentials of one requirement never read the same variable: the later ones are named after their scheme. */
function distinctVariables(parts: CredentialPart[]): CredentialPart[] {
  const used = new Set<string>();
  const own = (env: string, scheme: string) => {
    const name = used.has(env) ? `${env}_${scheme.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}` : env;
    used.add(name);
    return name;
  };
  return parts.map((part) =>
    part.type === "basic"
      ? { ...part, userEnv: own(part.userEnv, part.scheme), passwordEnv: own(part.passwordEnv, part.scheme) }
      : { ...part, env: own(part.env, part.scheme) },
  );
}

/**
 * The credentials an operation's security requirements ask for: none; an optional API key (an
 * empty requirement beside the key alone); the key and the signature; or the first requirement
 * whose every scheme the samples can send. An operation none of whose requirements the samples
 * can send is an error naming the operation and where its security is written.
 */
function credentialsOf(operation: Operation, known: KnownSchemes): Credentials {
  const where = operation.operationId;
  const security = operation.security;
  const requirements = (security ?? []).map((r) => Object.keys(r));
  const exactly = (requirement: string[], names: string[]) =>
    requirement.length === names.length && names.every((name) => requirement.includes(name));
  const { apiKey, signing } = known;
  if (requirements.every((r) => r.length === 0)) return { kind: "none" };
  if (apiKey && signing && requirements.some((r) => exactly(r, [apiKey.name, signing.name]))) {
    return { kind: "signed", header: apiKey.header, signing: signing.rule };
  }
  if (operation.signed && !operation.signing) {
    throw new SampleSpecError(
      `${where}: security ${JSON.stringify(security)} is not one the code samples write: x-auth-class ${operation.authClass} is signed, and none of its schemes states the signing rule (x-signing)`,
      securityPointer(operation),
    );
  }
  if (
    apiKey &&
    requirements.some((r) => r.length === 0) &&
    requirements.every((r) => r.length === 0 || exactly(r, [apiKey.name]))
  ) {
    return { kind: "key-accepted", header: apiKey.header };
  }
  const reasons: string[] = [];
  for (const requirement of requirements.filter((r) => r.length > 0)) {
    if (signing && requirement.includes(signing.name)) {
      reasons.push(`${requirement.join(" + ")}: signed requests are written with the API key header alone`);
      continue;
    }
    const parts = requirement.map((name) => credentialPart(name, known));
    const unwritable = parts.filter((p): p is { unwritable: string } => "unwritable" in p);
    if (unwritable.length === 0) {
      return {
        kind: "schemes",
        parts: distinctVariables(parts as CredentialPart[]),
        optional: requirements.some((r) => r.length === 0),
      };
    }
    reasons.push(...unwritable.map((u) => u.unwritable));
  }
  throw new SampleSpecError(
    `${where}: security ${JSON.stringify(security)} is not one the code samples write (${reasons.join("; ")})`,
    securityPointer(operation),
  );
}

function sampleOperation(model: SpecModel, operation: Operation, known: KnownSchemes): SampleOperation {
  const parameters = operation.parameters.map((p) => sampleParameter(model, p));
  const accept = acceptedMediaType(operation);
  const body = bodyOf(model, operation);
  return {
    ...operation,
    credentials: credentialsOf(operation, known),
    queryParameters: parameters.filter((p) => p.in === "query"),
    placedParameters: parameters.filter((p) => p.in !== "query"),
    ...(body ? { body } : {}),
    answer: responseAsOf(operation),
    ...(accept !== undefined ? { accept } : {}),
  };
}

/** The request body a sample sends: the media type the generated client sends (the model's rule). */
function bodyOf(model: SpecModel, operation: Operation): SampleBody | undefined {
  const requestBody = operation.requestBody;
  // x-parameter-placement's form body carries the parameters; it is not a body of its own.
  if (!requestBody || operation.acceptsFormBody) return undefined;
  const mediaType = preferredMediaType(requestBody.content.map((c) => c.mediaType));
  if (mediaType === undefined) return undefined;
  const written = resolvedObject(model, operation.raw.requestBody, requestBody.pointer);
  const media = objectAt(objectAt(written.content)[mediaType]);
  const pointer = `${requestBody.pointer}/content/${mediaType.replace(/~/g, "~0").replace(/\//g, "~1")}`;
  const schema = isObject(media.schema) ? resolvedObject(model, media.schema, `${pointer}/schema`) : {};
  const examples = Object.values(objectAt(media.examples)).map((e) => objectAt(e));
  const example =
    media.example !== undefined ? media.example : examples.find((e) => e.value !== undefined)?.value;
  const encoding = Object.fromEntries(
    Object.entries(objectAt(media.encoding)).map(([name, value]) => {
      const e = objectAt(value);
      return [
        name,
        {
          ...(typeof e.style === "string" ? { style: e.style } : {}),
          ...(typeof e.explode === "boolean" ? { explode: e.explode } : {}),
          ...(e.allowReserved === true ? { allowReserved: true } : {}),
          ...(typeof e.contentType === "string" ? { contentType: e.contentType } : {}),
        },
      ];
    }),
  );
  const kind = bodyKind(mediaType);
  const fileFields = kind === "multipart" ? binaryProperties(model, schema) : [];
  return {
    mediaType,
    kind,
    ...(fileFields.length > 0 ? { fileFields } : {}),
    required: requestBody.required,
    schema,
    ...(example !== undefined ? { example } : {}),
    ...(Object.keys(encoding).length > 0 ? { encoding } : {}),
    pointer,
  };
}

/** The properties of a multipart body's schema that hold files. */
function binaryProperties(model: SpecModel, schema: JsonObject): string[] {
  const binary = (node: unknown): boolean => {
    let property: JsonObject;
    try {
      property = resolveRef(model.document, node, "");
    } catch {
      return false;
    }
    if (property.type === "array" && property.items !== undefined) return binary(property.items);
    return property.format === "binary" || typeof property.contentMediaType === "string";
  };
  return Object.entries(objectAt(schema.properties))
    .filter(([, property]) => binary(property))
    .map(([name]) => name);
}

function sampleParameter(model: SpecModel, parameter: Parameter): SampleParameter {
  const schema = isObject(parameter.schema)
    ? resolvedObject(model, parameter.schema, parameter.schemaPointer)
    : {};
  const enumValues = stringsAt(schema.enum);
  const { declaration } = parameter;
  return {
    ...parameter,
    kind: parameter.encoding === "json" ? "json" : kindOf(schema),
    ...(enumValues.length > 0 && enumValues.length === (schema.enum as unknown[]).length
      ? { enum: enumValues }
      : {}),
    ...(typeof declaration.style === "string" ? { style: declaration.style } : {}),
    ...(typeof declaration.explode === "boolean" ? { explode: declaration.explode } : {}),
    ...(declaration.allowReserved === true ? { allowReserved: true } : {}),
    valueSchema: schema,
  };
}

function kindOf(schema: JsonObject): ParameterKind {
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
  switch (types.length === 1 ? types[0] : undefined) {
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
