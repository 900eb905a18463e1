/**
 * The operations the server implements, read from the bundled spec (`@marketapi/spec`), so the
 * routes, authentication classes, weights and the signing envelope have one source of truth.
 */
import { loadOpenApi } from "@marketapi/spec";

export type AuthClass = "none" | "market_data" | "trade" | "user_data";

export interface OperationSpec {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly authClass: AuthClass;
  /** Request weight of the common case (`x-weight`). */
  readonly weight: number;
  /** Parameters may also travel in an `application/x-www-form-urlencoded` body. */
  readonly acceptsFormBody: boolean;
  /** Names of the declared parameters (query and form). */
  readonly parameters: ReadonlySet<string>;
  /** The `pattern` of each declared string parameter, quoted in -1100 answers. */
  readonly patterns: ReadonlyMap<string, string>;
  /** Declared parameters of type number: decimals, written as plain decimal text. */
  readonly decimals: ReadonlySet<string>;
  readonly signed: boolean;
}

/** The signing envelope of the `trade` and `user_data` classes (`x-signing`). */
export interface SigningRule {
  readonly signatureParam: string;
  readonly timestampParam: string;
  readonly recvWindowParam: string;
  readonly defaultRecvWindow: number;
  readonly maxRecvWindow: number;
}

export interface ApiDescription {
  readonly operations: readonly OperationSpec[];
  readonly signing: SigningRule;
}

const METHODS = ["get", "post", "put", "delete", "patch", "head", "options"] as const;
const AUTH_CLASSES: readonly string[] = ["none", "market_data", "trade", "user_data"];

type Json = Record<string, unknown>;

/** Reads the operations and the signing rule from an OpenAPI document (the bundled spec by default). */
export function describeApi(document: Json = loadOpenApi()): ApiDescription {
  const paths = asObject(document.paths, "paths");
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = asObject(item, path)[method];
      if (operation !== undefined)
        operations.push(operationOf(document, path, method, asObject(operation, path)));
    }
  }
  return { operations, signing: signingRule(document) };
}

function operationOf(document: Json, path: string, method: string, operation: Json): OperationSpec {
  const id = String(operation.operationId);
  const authClass = String(operation["x-auth-class"]);
  if (!AUTH_CLASSES.includes(authClass)) throw new Error(`${id}: unknown x-auth-class "${authClass}"`);
  const parameters = declaredParameters(document, operation);
  return {
    id,
    method: method.toUpperCase(),
    path,
    authClass: authClass as AuthClass,
    weight: Number(operation["x-weight"] ?? 1),
    acceptsFormBody: operation["x-parameter-placement"] === "query-or-form-body",
    parameters: new Set(parameters.map((p) => String(p.name))),
    patterns: new Map(parameters.flatMap((p) => patternOf(document, p))),
    decimals: new Set(parameters.filter((p) => isNumber(document, p)).map((p) => String(p.name))),
    signed: authClass === "trade" || authClass === "user_data",
  };
}

function declaredParameters(document: Json, operation: Json): Json[] {
  const list = Array.isArray(operation.parameters) ? operation.parameters : [];
  return list.map((parameter) => resolve(document, asObject(parameter, "parameter")));
}

function patternOf(document: Json, parameter: Json): [string, string][] {
  if (parameter.schema === undefined) return [];
  const pattern = resolve(document, asObject(parameter.schema, String(parameter.name))).pattern;
  return typeof pattern === "string" ? [[String(parameter.name), pattern]] : [];
}

function isNumber(document: Json, parameter: Json): boolean {
  if (parameter.schema === undefined) return false;
  return resolve(document, asObject(parameter.schema, String(parameter.name))).type === "number";
}

function signingRule(document: Json): SigningRule {
  const schemes = asObject(asObject(document.components, "components").securitySchemes, "securitySchemes");
  const signing = asObject(asObject(schemes.signature, "signature")["x-signing"], "x-signing");
  const recvWindow = asObject(signing.recvWindow, "x-signing.recvWindow");
  return {
    signatureParam: String(signing.parameter),
    timestampParam: String(asObject(signing.timestamp, "x-signing.timestamp").parameter),
    recvWindowParam: String(recvWindow.parameter),
    defaultRecvWindow: Number(recvWindow.default),
    maxRecvWindow: Number(recvWindow.maximum),
  };
}

function resolve(document: Json, node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  let target: unknown = document;
  for (const key of ref.replace(/^#\//, "").split("/")) target = asObject(target, ref)[key];
  return resolve(document, asObject(target, ref));
}

function asObject(value: unknown, where: string): Json {
  if (typeof value !== "object" || value === null) throw new Error(`Spec: ${where} is not an object`);
  return value as Json;
}
