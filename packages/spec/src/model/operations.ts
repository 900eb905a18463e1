import { type Behaviour, readBehaviour } from "./behaviour.js";
import { type AuthClass, deriveAuthClass, isSignedClass, readAuthClass } from "./extensions/auth-class.js";
import { exclusivePairs, readMutuallyExclusive } from "./extensions/mutually-exclusive.js";
import { type OrderTypeRule, readOrderTypeRules } from "./extensions/order-type-rules.js";
import { type ParameterCondition, readParameterConditions } from "./extensions/parameter-conditions.js";
import { type ParameterPlacement, readParameterPlacement } from "./extensions/parameter-placement.js";
import { type ResponseVariants, readResponseVariants } from "./extensions/response-variant-by.js";
import type { SigningRule } from "./extensions/signing.js";
import { readWeight, type WeightRule } from "./extensions/weight.js";
import { readWirePattern } from "./extensions/wire-pattern.js";
import { HTTP_METHODS, type HttpMethod } from "./http-methods.js";
import { isObject, type JsonObject, type JsonSchema } from "./json.js";
import { pointerOf } from "./json-pointer.js";
import { resolveRef } from "./refs.js";
import { describeValue, SpecModelError, throwAll } from "./spec-model-error.js";

export type ParameterLocation = "query" | "header" | "path" | "cookie";
const LOCATIONS: readonly string[] = ["query", "header", "path", "cookie"];

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  /** The value's schema as written (a `$ref` stays a `$ref`); for a `content` parameter, its media type's schema. */
  schema: JsonSchema;
  /** "json" when the value is a JSON document inside one value (`content: application/json`). */
  encoding: "plain" | "json";
  description?: string;
  /** The parameter's own example, or its media type's. */
  example?: unknown;
  /** JSON Pointer of the declaration (path level or operation level). */
  pointer: string;
  /** JSON Pointer of the schema (`.../schema` or `.../content/application~1json/schema`). */
  schemaPointer: string;
  /** x-wire-pattern of the (resolved) schema: the regular expression the value's text must match. */
  wirePattern?: string;
  /** The declaration with its `$ref` followed, for the fields the model does not name. */
  declaration: JsonObject;
}

export interface MediaType {
  mediaType: string;
  schema?: JsonSchema;
}

export interface RequestBody {
  required: boolean;
  content: MediaType[];
  pointer: string;
}

export interface ResponseHeader {
  name: string;
  schema?: JsonSchema;
}

export interface Response {
  /** As the spec writes it: "200", "4XX", "default". */
  status: string;
  description: string;
  /** The application/json schema; absent for bodiless responses. */
  schema?: JsonSchema;
  contentTypes: string[];
  headers: ResponseHeader[];
  pointer: string;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** JSON Pointer of the operation object. */
  pointer: string;
  summary?: string;
  description?: string;
  /** x-auth-class, or when absent the class its security implies (deriveAuthClass). */
  authClass: AuthClass;
  /** Whether the operation states x-auth-class ("x-auth-class") or its class was derived ("security"). */
  authClassFrom: "x-auth-class" | "security";
  /** Whether the class is signed (`trade`, `user_data`). */
  signed: boolean;
  /** The signing rule of the scheme the operation's security names, if it names one with `x-signing`. */
  signing?: SigningRule;
  /** The effective security requirements (the operation's, else the document's). */
  security: SecurityRequirement[] | undefined;
  /**
   * The API key: "required" when every requirement names a scheme, "optional" when an empty
   * requirement (`{}`) is one of them, "none" when there is no requirement (`security: []`).
   */
  apiKey: "required" | "optional" | "none";
  /** x-weight in the common case (1 when absent). */
  weight: number;
  /** x-weight with how it varies with a parameter; `{ weight }` when it does not. */
  weightRule: WeightRule;
  /** Path-level and operation-level parameters merged; the operation's win on the same name and location. */
  parameters: Parameter[];
  requestBody?: RequestBody;
  responses: Response[];
  /** x-parameter-placement. */
  parameterPlacement: ParameterPlacement;
  /** Whether parameters may travel in an application/x-www-form-urlencoded body. */
  acceptsFormBody: boolean;
  /** x-order-type-rules, by order type value. */
  orderTypeRules?: Record<string, OrderTypeRule>;
  /** x-parameter-conditions. */
  parameterConditions: ParameterCondition[];
  /** x-mutually-exclusive: groups of which at most one name may be sent. */
  mutuallyExclusive: string[][];
  /** The same, as every pair of names that may not be sent together. */
  exclusivePairs: Array<[string, string]>;
  /** x-response-variant-by. */
  responseVariants?: ResponseVariants;
  /** The behaviour extensions (x-list-order, x-cursor-paging, x-time-window, x-result-filter, x-limit, …). */
  behaviour: Behaviour;
  /** The operation object as written. */
  raw: JsonObject;
}

/** One operation object as written, with where it stands; see operationEntries. */
export interface OperationEntry {
  path: string;
  method: HttpMethod;
  /** JSON Pointer of the operation object. */
  pointer: string;
  /** The operation object itself (changes to it show in the document it came from). */
  operation: JsonObject;
  /** The path item that holds it (its `parameters` apply to every operation of the path). */
  pathItem: JsonObject;
}

/**
 * Every operation object of `paths`, as written, in path order and then method order
 * (HTTP_METHODS), without checking them: for tools that show a document whatever it holds, such
 * as the docs. buildSpecModel reads the same list and checks it.
 */
export function operationEntries(document: JsonObject): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, pathItem] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (isObject(operation))
        entries.push({ path, method, pointer: pointerOf("paths", path, method), operation, pathItem });
    }
  }
  return entries;
}

/** Every operation of `paths`, in path order, then method order (HTTP_METHODS), checked. */
export function readOperations(
  document: JsonObject,
  signingRules: ReadonlyMap<string, SigningRule>,
): Operation[] {
  if (!isObject(document.paths))
    throw new SpecModelError("/paths", "a paths object", describeValue(document.paths));
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item))
      throw new SpecModelError(pointerOf("paths", path), "a path item object", describeValue(item));
    for (const method of HTTP_METHODS) {
      if (item[method] !== undefined && !isObject(item[method])) {
        throw new SpecModelError(
          pointerOf("paths", path, method),
          "an operation object",
          describeValue(item[method]),
        );
      }
    }
  }
  const operations: Operation[] = [];
  const faults: SpecModelError[] = [];
  const seenIds = new Map<string, string>();
  // Every operation is read before anything is thrown, so that all faults are reported at once.
  for (const { path, method, pathItem: item } of operationEntries(document)) {
    let operation: Operation;
    try {
      operation = readOperation({ document, signingRules, path, method, item });
    } catch (error) {
      if (!(error instanceof SpecModelError)) throw error;
      faults.push(...error.all());
      continue;
    }
    const earlier = seenIds.get(operation.operationId);
    if (earlier) {
      faults.push(
        new SpecModelError(
          `${operation.pointer}/operationId`,
          `an operationId not used elsewhere (also at ${earlier})`,
          describeValue(operation.operationId),
        ),
      );
    }
    seenIds.set(operation.operationId, operation.pointer);
    operations.push(operation);
  }
  throwAll(faults);
  return operations;
}

interface OperationInput {
  document: JsonObject;
  signingRules: ReadonlyMap<string, SigningRule>;
  path: string;
  method: HttpMethod;
  item: JsonObject;
}

function readOperation({ document, signingRules, path, method, item }: OperationInput): Operation {
  const pointer = pointerOf("paths", path, method);
  const raw = item[method];
  if (!isObject(raw)) throw new SpecModelError(pointer, "an operation object", describeValue(raw));
  // Each part is read on its own, so that one operation's faults are all reported together.
  const faults: SpecModelError[] = [];
  const read = <T>(reader: () => T, fallback: T): T => {
    try {
      return reader();
    } catch (error) {
      if (!(error instanceof SpecModelError)) throw error;
      faults.push(...error.all());
      return fallback;
    }
  };
  // Without an operationId, the operation is named by its method and path ("get /pets/{id}"), as
  // other generators name it (the client's method becomes getPetsId).
  const operationId = raw.operationId === undefined ? `${method} ${path}` : raw.operationId;
  if (typeof operationId !== "string" || operationId.trim() === "") {
    faults.push(
      new SpecModelError(
        `${pointer}/operationId`,
        "an operationId (the name of the operation in generated code, samples and reports)",
        describeValue(operationId),
      ),
    );
  }
  const security = securityOf(raw.security ?? document.security);
  const authClass = read(
    () => readAuthClass(raw["x-auth-class"], pointer, () => deriveAuthClass(security, signingRules, method)),
    "none" as AuthClass,
  );
  const signing = read(
    () => signingOf(security, signingRules, authClass, pointer, raw.security ?? document.security),
    undefined,
  );
  const parameters = read(() => mergedParameters(document, path, item, pointer, raw), []);
  const declared = new Set(parameters.map((p) => p.name));
  const byName = new Map(parameters.map((p) => [p.name, p]));
  const responses = read(() => readResponses(document, raw.responses, `${pointer}/responses`), []);
  const orderTypeRules = read(
    () => readOrderTypeRules(raw["x-order-type-rules"], pointer, declared),
    undefined,
  );
  const mutuallyExclusive = read(
    () => readMutuallyExclusive(raw["x-mutually-exclusive"], pointer, declared),
    [],
  );
  const responseVariants = read(
    () =>
      readResponseVariants({
        document,
        value: raw["x-response-variant-by"],
        where: pointer,
        parameters: byName,
        statuses: responses.map((r) => r.status),
      }),
    undefined,
  );
  const parameterPlacement = read(
    () => readParameterPlacement(raw["x-parameter-placement"], pointer),
    "query" as ParameterPlacement,
  );
  const requestBody = read(
    () => readRequestBody(document, raw.requestBody, `${pointer}/requestBody`),
    undefined,
  );
  const weightRule = read(() => readWeight(raw["x-weight"], pointer, declared), { weight: 1 });
  const parameterConditions = read(
    () => readParameterConditions(raw["x-parameter-conditions"], pointer, declared),
    [],
  );
  const behaviour = read(() => readBehaviour(raw, pointer, declared), undefined);
  throwAll(faults);
  return {
    operationId: operationId as string,
    method,
    path,
    pointer,
    ...(typeof raw.summary === "string" ? { summary: raw.summary } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    authClass,
    authClassFrom: raw["x-auth-class"] === undefined ? "security" : "x-auth-class",
    signed: isSignedClass(authClass),
    ...(signing ? { signing } : {}),
    security,
    apiKey: apiKeyOf(security),
    weight: weightRule.weight,
    weightRule,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
    parameterPlacement,
    acceptsFormBody: parameterPlacement === "query-or-form-body",
    ...(orderTypeRules ? { orderTypeRules } : {}),
    parameterConditions,
    mutuallyExclusive,
    exclusivePairs: exclusivePairs(mutuallyExclusive),
    ...(responseVariants ? { responseVariants } : {}),
    behaviour: behaviour as Behaviour,
    raw,
  };
}

function securityOf(value: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(isObject)
    .map((requirement) =>
      Object.fromEntries(
        Object.entries(requirement).map(([name, scopes]) => [
          name,
          Array.isArray(scopes) ? scopes.map(String) : [],
        ]),
      ),
    );
}

function apiKeyOf(security: SecurityRequirement[] | undefined): Operation["apiKey"] {
  if (security === undefined) return "none";
  if (security.length === 0) return "none";
  return security.some((requirement) => Object.keys(requirement).length === 0) ? "optional" : "required";
}

/**
 * The signing rule an operation's security names. The client signs `trade` and `user_data`
 * requests, and the validators accept the signing envelope only where a requirement names a
 * scheme with `x-signing`; so when the spec has such a scheme, a signed class must name it.
 */
function signingOf(
  security: SecurityRequirement[] | undefined,
  rules: ReadonlyMap<string, SigningRule>,
  authClass: AuthClass,
  pointer: string,
  written: unknown,
): SigningRule | undefined {
  const named = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  const rule = named.map((name) => rules.get(name)).find((r) => r !== undefined);
  if (rule || !isSignedClass(authClass) || rules.size === 0) return rule;
  throw new SpecModelError(
    `${pointer}/security`,
    `a security requirement naming the signing scheme (${[...rules.keys()].join(" or ")}), as x-auth-class ${authClass} requests are signed`,
    describeValue(written),
  );
}

function mergedParameters(
  document: JsonObject,
  path: string,
  item: JsonObject,
  pointer: string,
  raw: JsonObject,
): Parameter[] {
  const declared = [
    ...listAt(item.parameters).map((p, i) => ({ p, at: pointerOf("paths", path, "parameters", i) })),
    ...listAt(raw.parameters).map((p, i) => ({ p, at: `${pointer}/parameters/${i}` })),
  ];
  const byKey = new Map<string, Parameter>();
  const faults: SpecModelError[] = [];
  for (const { p, at } of declared) {
    try {
      const parameter = readParameter(document, resolveRef(document, p, at), at);
      byKey.set(`${parameter.in}:${parameter.name}`, parameter); // operation level overrides path level
    } catch (error) {
      if (!(error instanceof SpecModelError)) throw error;
      faults.push(error);
    }
  }
  throwAll(faults);
  return [...byKey.values()];
}

function listAt(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function readParameter(document: JsonObject, p: JsonObject, pointer: string): Parameter {
  if (typeof p.name !== "string")
    throw new SpecModelError(`${pointer}/name`, "a parameter name", describeValue(p.name));
  if (!LOCATIONS.includes(p.in)) {
    throw new SpecModelError(`${pointer}/in`, "one of query, header, path, cookie", describeValue(p.in));
  }
  const json = isObject(p.content) ? p.content["application/json"] : undefined;
  const schema = isObject(json) ? json.schema : p.schema;
  if (schema === undefined) {
    throw new SpecModelError(pointer, "a schema, or content with an application/json schema", "neither");
  }
  const example = p.example ?? (isObject(json) ? json.example : undefined);
  const schemaPointer = `${pointer}${isObject(json) ? "/content/application~1json/schema" : "/schema"}`;
  const wirePattern = isObject(schema)
    ? readWirePattern(resolveRef(document, schema, pointer), schemaPointer)
    : undefined;
  return {
    name: p.name,
    in: p.in,
    required: p.required === true,
    schema,
    encoding: isObject(json) ? "json" : "plain",
    ...(typeof p.description === "string" ? { description: p.description } : {}),
    ...(example === undefined ? {} : { example }),
    pointer,
    schemaPointer,
    ...(wirePattern === undefined ? {} : { wirePattern }),
    declaration: p,
  };
}

function readRequestBody(document: JsonObject, value: unknown, pointer: string): RequestBody | undefined {
  if (value === undefined) return undefined;
  const body = resolveRef(document, value, pointer);
  const content = isObject(body.content) ? body.content : {};
  return {
    required: body.required === true,
    content: Object.entries(content).map(([mediaType, media]) => ({
      mediaType,
      ...(isObject(media) && media.schema !== undefined ? { schema: media.schema } : {}),
    })),
    pointer,
  };
}

function readResponses(document: JsonObject, responses: unknown, pointer: string): Response[] {
  // OpenAPI 3.1 no longer requires responses: an operation may declare none.
  if (responses === undefined) return [];
  if (!isObject(responses)) {
    throw new SpecModelError(pointer, "a responses object", describeValue(responses));
  }
  return Object.entries(responses).map(([status, ref]) => {
    const where = `${pointer}/${status}`;
    if (!/^([1-5][0-9X]{2}|default)$/.test(status)) {
      throw new SpecModelError(
        where,
        'a status code such as "200", "4XX" or "default"',
        describeValue(status),
      );
    }
    const response = resolveRef(document, ref, where);
    const content = isObject(response.content) ? response.content : {};
    const json = content["application/json"];
    const headers = isObject(response.headers) ? response.headers : {};
    return {
      status,
      description: typeof response.description === "string" ? response.description : "",
      ...(isObject(json) && json.schema !== undefined ? { schema: json.schema } : {}),
      contentTypes: Object.keys(content),
      headers: Object.entries(headers).map(([name, header]) => {
        const resolved = resolveRef(document, header, `${where}/headers/${pointerOf(name).slice(1)}`);
        return { name, ...(resolved.schema !== undefined ? { schema: resolved.schema } : {}) };
      }),
      pointer: where,
    };
  });
}

/** The declared response a status falls under: the exact code, then its range ("4XX"), then "default". */
export function responseFor<R extends { status: string }>(
  operation: { responses: readonly R[] },
  status: number | string,
): R | undefined {
  const code = String(status);
  return (
    operation.responses.find((r) => r.status === code) ??
    operation.responses.find((r) => r.status.toUpperCase() === `${code[0]}XX`) ??
    operation.responses.find((r) => r.status === "default")
  );
}
