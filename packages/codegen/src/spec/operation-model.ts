import type { LoadedSpec, OpenApiDocument } from "./load-spec.js";
import { checkVersion } from "./openapi-version.js";
import { describeValue, pointerOf, SpecError } from "./spec-error.js";

export const AUTH_CLASSES = ["none", "market_data", "trade", "user_data"] as const;
export type AuthClass = (typeof AUTH_CLASSES)[number];

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes are untyped spec input
export type JsonSchema = Record<string, any> | boolean;

export interface ParameterModel {
  name: string;
  in: "query" | "header" | "path" | "cookie";
  required: boolean;
  /** The parameter's schema, with `$ref`s left pointing into the spec. */
  schema: JsonSchema;
  /** "json" when the value is a JSON document inside one query value (`content: application/json`). */
  encoding: "plain" | "json";
  description?: string;
}

export interface ResponseModel {
  /** "200", "400", "5XX", "default". */
  status: string;
  description: string;
  /** The application/json schema, absent for bodiless responses. */
  schema?: JsonSchema;
  headers: string[];
}

export interface OperationModel {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** JSON Pointer of the operation object inside the spec. */
  pointer: string;
  authClass: AuthClass;
  summary?: string;
  parameters: ParameterModel[];
  /** Whether parameters may also travel in an application/x-www-form-urlencoded body. */
  acceptsFormBody: boolean;
  responses: ResponseModel[];
  /** The raw operation object, for generators that read further `x-` extensions. */
  raw: OpenApiDocument;
}

export interface SpecModel {
  source: string;
  document: OpenApiDocument;
  operations: OperationModel[];
}

/**
 * Checks the parts of an OpenAPI 3.1 document the generators rely on and returns one model per
 * operation, in document order. Every fault is a SpecError naming its JSON Pointer.
 */
export function buildModel(spec: LoadedSpec): SpecModel {
  const { source, document } = spec;
  checkVersion(source, document);
  if (!isObject(document.info) || typeof document.info.title !== "string") {
    throw new SpecError(source, "/info", "an info object with a title", describeValue(document.info));
  }
  if (!isObject(document.paths)) {
    throw new SpecError(source, "/paths", "a paths object", describeValue(document.paths));
  }
  const operations: OperationModel[] = [];
  const seenIds = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item))
      throw new SpecError(source, pointerOf("paths", path), "a path item object", describeValue(item));
    for (const method of HTTP_METHODS) {
      if (item[method] === undefined) continue;
      const operation = modelOperation(spec, path, method, item);
      const earlier = seenIds.get(operation.operationId);
      if (earlier) {
        throw new SpecError(
          source,
          `${operation.pointer}/operationId`,
          `an operationId not used elsewhere (also at ${earlier})`,
          describeValue(operation.operationId),
        );
      }
      seenIds.set(operation.operationId, operation.pointer);
      operations.push(operation);
    }
  }
  return { source, document, operations };
}

function modelOperation(
  spec: LoadedSpec,
  path: string,
  method: HttpMethod,
  item: OpenApiDocument,
): OperationModel {
  const { source } = spec;
  const pointer = pointerOf("paths", path, method);
  const raw = item[method];
  if (!isObject(raw)) throw new SpecError(source, pointer, "an operation object", describeValue(raw));
  const operationId = raw.operationId;
  if (typeof operationId !== "string" || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(operationId)) {
    throw new SpecError(
      source,
      `${pointer}/operationId`,
      "an operationId that is a valid identifier (letters, digits, _ or $)",
      describeValue(operationId),
    );
  }
  const authClass = raw["x-auth-class"];
  if (!AUTH_CLASSES.includes(authClass)) {
    throw new SpecError(
      source,
      `${pointer}/x-auth-class`,
      `one of ${AUTH_CLASSES.join(", ")}`,
      describeValue(authClass),
    );
  }
  checkSigningScheme(spec, raw, pointer, authClass);
  const declared = [...(item.parameters ?? []), ...(raw.parameters ?? [])];
  const parameters = declared.map((p, i) =>
    modelParameter(spec, resolveRef(spec, p, `${pointer}/parameters/${i}`), `${pointer}/parameters/${i}`),
  );
  return {
    operationId,
    method,
    path,
    pointer,
    authClass,
    summary: typeof raw.summary === "string" ? raw.summary : undefined,
    parameters: dedupeByLocation(parameters),
    acceptsFormBody: raw["x-parameter-placement"] === "query-or-form-body",
    responses: modelResponses(spec, raw.responses, `${pointer}/responses`),
    raw,
  };
}

/**
 * The client signs `trade` and `user_data` requests; the validators accept the signing envelope
 * (timestamp, signature) only on operations whose security names a scheme with `x-signing`. When
 * the spec has such a scheme, a signed operation must use it, or its signed requests would be
 * refused as carrying unknown parameters.
 */
function checkSigningScheme(spec: LoadedSpec, raw: OpenApiDocument, pointer: string, authClass: AuthClass) {
  if (authClass !== "trade" && authClass !== "user_data") return;
  const schemes: OpenApiDocument = isObject(spec.document.components?.securitySchemes)
    ? spec.document.components.securitySchemes
    : {};
  const signing = Object.keys(schemes).filter((name) => isObject(schemes[name]?.["x-signing"]));
  if (signing.length === 0) return;
  const requirements = raw.security ?? spec.document.security;
  const named = Array.isArray(requirements)
    ? requirements.flatMap((r: unknown) => (isObject(r) ? Object.keys(r) : []))
    : [];
  if (named.some((name: string) => signing.includes(name))) return;
  throw new SpecError(
    spec.source,
    `${pointer}/security`,
    `a security requirement naming the signing scheme (${signing.join(" or ")}), as x-auth-class ${authClass} requests are signed`,
    describeValue(requirements),
  );
}

function modelParameter(spec: LoadedSpec, p: OpenApiDocument, pointer: string): ParameterModel {
  const { source } = spec;
  if (typeof p.name !== "string")
    throw new SpecError(source, `${pointer}/name`, "a parameter name", describeValue(p.name));
  if (!["query", "header", "path", "cookie"].includes(p.in)) {
    throw new SpecError(source, `${pointer}/in`, "one of query, header, path, cookie", describeValue(p.in));
  }
  const json = p.content?.["application/json"];
  const schema = json ? json.schema : p.schema;
  if (schema === undefined) {
    throw new SpecError(source, pointer, "a schema, or content with an application/json schema", "neither");
  }
  return {
    name: p.name,
    in: p.in,
    required: p.required === true,
    schema,
    encoding: json ? "json" : "plain",
    description: typeof p.description === "string" ? p.description : undefined,
  };
}

function modelResponses(spec: LoadedSpec, responses: unknown, pointer: string): ResponseModel[] {
  if (!isObject(responses) || Object.keys(responses).length === 0) {
    throw new SpecError(
      spec.source,
      pointer,
      "a responses object with at least one response",
      describeValue(responses),
    );
  }
  return Object.entries(responses).map(([status, ref]) => {
    const where = `${pointer}/${status}`;
    if (!/^([1-5][0-9X]{2}|default)$/.test(status)) {
      throw new SpecError(
        spec.source,
        where,
        'a status code such as "200", "4XX" or "default"',
        describeValue(status),
      );
    }
    const response = resolveRef(spec, ref, where);
    return {
      status,
      description: typeof response.description === "string" ? response.description : "",
      schema: response.content?.["application/json"]?.schema,
      headers: Object.keys(response.headers ?? {}),
    };
  });
}

/** Follows local `$ref`s; throws SpecError when one does not resolve. */
export function resolveRef(spec: LoadedSpec, node: unknown, pointer: string): OpenApiDocument {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    const ref = current.$ref;
    if (hops > 32 || !ref.startsWith("#/")) {
      throw new SpecError(spec.source, pointer, "a local $ref (#/...) that resolves", describeValue(ref));
    }
    current = ref
      .slice(2)
      .split("/")
      .map((part: string) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>(
        (value, key) =>
          isObject(value) || Array.isArray(value) ? (value as OpenApiDocument)[key] : undefined,
        spec.document,
      );
    if (current === undefined)
      throw new SpecError(spec.source, pointer, "a $ref that resolves", describeValue(ref));
  }
  if (!isObject(current)) throw new SpecError(spec.source, pointer, "an object", describeValue(current));
  return current;
}

function dedupeByLocation(parameters: ParameterModel[]): ParameterModel[] {
  const byKey = new Map<string, ParameterModel>();
  for (const p of parameters) byKey.set(`${p.in}:${p.name}`, p); // operation-level overrides path-level
  return [...byKey.values()];
}

function isObject(value: unknown): value is OpenApiDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
