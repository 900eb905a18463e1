// What the code samples need from the OpenAPI document, read in this one module: the default
// base address, the API-key header, the signing rule (`x-signing`) and, per operation, its method,
// path, credentials, parameter placement and query parameters with their types and examples.
// Everything else in src/samples works on this model, never on the raw document. Operations,
// their merged parameters and the extensions come from @marketapi/spec/model.
import {
  buildSpecModel,
  type Operation,
  type Parameter,
  resolveRef,
  type SigningRule,
  type SpecModel,
  SpecModelError,
} from "@marketapi/spec/model";
import { isObject, type JsonObject, objectAt, stringsAt } from "../json.js";

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

export type { SigningRule };

/** A query parameter of the spec model, with what the samples add: its wire type and allowed values. */
export interface SampleParameter extends Parameter {
  kind: ParameterKind;
  /** Allowed values (schema `enum`). */
  enum?: string[];
}

/** An operation of the spec model, with what the samples add: its credentials and query parameters. */
export interface SampleOperation extends Operation {
  credentials: Credentials;
  /** Query parameters, in the order the spec declares them. */
  queryParameters: SampleParameter[];
}

export interface SampleSpec {
  /** The first server's URL with its variables at their defaults. */
  baseUrl: string;
  operations: SampleOperation[];
  /** Operations the samples cannot write, with why (only when read with `strict: false`). */
  skipped: { operationId: string; reason: string }[];
}

/** The security schemes the samples can write: an API key in a header, and the signing scheme. */
interface KnownSchemes {
  apiKey?: { name: string; header: string };
  signing?: { name: string; rule: SigningRule };
}

/**
 * What the samples need of `document`. Strict (this repository's build): an operation the samples
 * cannot write is an error. Otherwise (any other spec) it is listed in `skipped`, with the reason.
 */
export function readSampleSpec(document: JsonObject, { strict = true } = {}): SampleSpec {
  const model = modelOf(document);
  const schemes = Object.entries(objectAt(objectAt(document.components).securitySchemes));
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
  const apiKey = schemes.find(
    ([name, scheme]) =>
      objectAt(scheme).type === "apiKey" && objectAt(scheme).in === "header" && !model.signingRules.has(name),
  );
  const known: KnownSchemes = {
    ...(apiKey && {
      apiKey: {
        name: apiKey[0],
        header: requiredString(objectAt(apiKey[1]).name, `securitySchemes.${apiKey[0]}.name`),
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
      if (strict || !(error instanceof SampleSpecError)) throw error;
      const reason = error.message.replace(new RegExp(`^${operation.operationId}: `), "");
      skipped.push({
        operationId: operation.operationId,
        reason: signingFault ? `${reason} (${signingFault})` : reason,
      });
    }
  }
  return { baseUrl: defaultBaseUrl(document, strict), operations, skipped };
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
    if (error instanceof SpecModelError) throw new SampleSpecError(error.message);
    throw error;
  }
}

/**
 * The credentials an operation's security requirements ask for, among those the samples write:
 * none; an optional API key (an empty requirement beside the key alone); or the key and the
 * signature. Any other requirement is an error naming the operation.
 */
function credentialsOf(operation: Operation, where: string, known: KnownSchemes): Credentials {
  const security = operation.security;
  const requirements = (security ?? []).map((r) => Object.keys(r));
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

function sampleOperation(model: SpecModel, operation: Operation, known: KnownSchemes): SampleOperation {
  return {
    ...operation,
    credentials: credentialsOf(operation, operation.operationId, known),
    queryParameters: queryParameters(model, operation),
  };
}

/**
 * The operation's query parameters (path level and operation level). The samples write query
 * strings and form bodies only, so a required parameter anywhere else (path, header, cookie) is an
 * error rather than a silent gap.
 */
function queryParameters(model: SpecModel, operation: Operation): SampleParameter[] {
  // A body the samples would not send: they write parameters as a form body, nothing else.
  if (operation.requestBody?.required && !operation.acceptsFormBody) {
    throw new SampleSpecError(
      `${operation.operationId}: the code samples send query and form parameters only; a required request body (${operation.requestBody.content.map((m) => m.mediaType).join(", ")}) is not written`,
    );
  }
  const elsewhere = operation.parameters.filter((p) => p.in !== "query" && p.required);
  if (elsewhere.length > 0) {
    const names = elsewhere.map((p) => `${p.name} (in ${p.in})`).join(", ");
    throw new SampleSpecError(
      `${operation.operationId}: the code samples send query and form parameters only; required elsewhere: ${names}`,
    );
  }
  return operation.parameters.filter((p) => p.in === "query").map((p) => sampleParameter(model, p));
}

function sampleParameter(model: SpecModel, parameter: Parameter): SampleParameter {
  const schema = isObject(parameter.schema) ? resolved(model, parameter) : {};
  const enumValues = stringsAt(schema.enum);
  return {
    ...parameter,
    kind: parameter.encoding === "json" ? "json" : kindOf(schema),
    ...(enumValues.length > 0 ? { enum: enumValues } : {}),
  };
}

function resolved(model: SpecModel, parameter: Parameter): JsonObject {
  try {
    return resolveRef(model.document, parameter.schema, parameter.schemaPointer);
  } catch (error) {
    if (error instanceof SpecModelError) throw new SampleSpecError(error.message);
    throw error;
  }
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
