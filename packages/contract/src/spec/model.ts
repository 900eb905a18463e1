/**
 * What the contract tester reads from the OpenAPI document: per operation its method, path,
 * authentication class (x-auth-class), parameters with their resolved schemas and examples,
 * declared responses (status → content types and headers) and the vendor extensions that
 * drive the checks (x-signing, x-parameter-placement, x-response-variant-by,
 * x-order-type-rules, x-weight). Nothing here is specific to one operation: the tester is
 * driven by the document it is given.
 */

export type AuthClass = "none" | "market_data" | "trade" | "user_data";

/** A JSON Schema node as far as the tester reads it ($ref already followed). */
export interface SchemaNode {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  pattern?: string;
  default?: unknown;
  example?: unknown;
  items?: SchemaNode;
  /** The alternatives of a `oneOf`/`anyOf` union (such as date_time: RFC 3339 text or epoch ms). */
  oneOf?: SchemaNode[];
  description?: string;
}

export interface ParameterModel {
  name: string;
  in: string;
  required: boolean;
  /** The value's schema (for a `content` parameter: the media type's schema). */
  schema: SchemaNode;
  /** Sent as one JSON-encoded value (`content: application/json`), like `symbols`. */
  json: boolean;
  /** The parameter's (or its media type's, or its schema's) example, if any. */
  example?: unknown;
  description: string;
}

export interface HeaderModel {
  name: string;
  schema: SchemaNode;
}

export interface ResponseModel {
  /** As the spec writes it: "200", "4XX", "default". */
  status: string;
  contentTypes: string[];
  headers: HeaderModel[];
}

export interface OrderTypeRule {
  required?: string[];
  atLeastOneOf?: string[][];
  exactlyOneOf?: string[][];
  forbidden?: string[];
}

export interface OperationModel {
  id: string;
  method: string;
  path: string;
  summary: string;
  authClass: AuthClass;
  /**
   * The API key, from the operation's `security`: "required" when every requirement names a key
   * scheme, "optional" when an empty requirement (`{}`) is one of them (market_data: accepted,
   * not required), "none" when there is no requirement.
   */
  apiKey: "required" | "optional" | "none";
  weight: number;
  parameters: ParameterModel[];
  responses: ResponseModel[];
  /** x-parameter-placement: parameters may travel in the query, a form body, or both. */
  formBody: boolean;
  /** x-response-variant-by: by the parameter's value, or by its presence ("present"/"absent"). */
  variantBy?: { parameter: string; variants: Record<string, string>; default?: string; byPresence?: boolean };
  orderTypeRules?: Record<string, OrderTypeRule>;
  /** Parameter pairs that must not be sent together (a description says "Cannot be combined with `x`"). */
  exclusive: Array<[string, string]>;
}

export interface SigningVector {
  secret: string;
  query: string;
  body: string;
  signature: string;
}

export interface SigningModel {
  apiKeyHeader: string;
  signatureParameter: string;
  timestampParameter: string;
  recvWindowParameter: string;
  recvWindowDefault: number;
  recvWindowMaximum: number;
  invalidSignatureCode?: number;
  invalidTimestampCode?: number;
  testVectors: SigningVector[];
}

export interface SpecModel {
  title: string;
  version: string;
  operations: OperationModel[];
  signing: SigningModel;
  operation(id: string): OperationModel | undefined;
}

type Json = Record<string, unknown>;

const METHODS = ["get", "post", "put", "delete", "patch"] as const;
const AUTH_CLASSES: readonly AuthClass[] = ["none", "market_data", "trade", "user_data"];

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` chain ("#/components/..."). */
function deref(doc: Json, node: unknown, depth = 0): unknown {
  if (!isObject(node) || typeof node.$ref !== "string" || depth > 20) return node;
  const ref = node.$ref;
  if (!ref.startsWith("#/")) throw new Error(`only local $ref are supported, found ${ref}`);
  let target: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    target = isObject(target) ? target[key] : undefined;
  }
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  // Sibling keywords next to $ref (OpenAPI 3.1 allows description/example) override the target's.
  const { $ref: _ref, ...siblings } = node;
  const resolved = deref(doc, target, depth + 1);
  return isObject(resolved) ? { ...resolved, ...siblings } : resolved;
}

/** A schema with its $ref followed, its `allOf` members merged and its `items` resolved. */
function schemaOf(doc: Json, node: unknown): SchemaNode {
  const resolved = deref(doc, node);
  if (!isObject(resolved)) return {};
  let out: Json = { ...resolved };
  if (Array.isArray(resolved.allOf)) {
    for (const member of resolved.allOf) out = { ...schemaOf(doc, member), ...out };
    delete out.allOf;
  }
  if (out.items !== undefined) out.items = schemaOf(doc, out.items);
  const union = out.oneOf ?? out.anyOf;
  delete out.anyOf;
  if (Array.isArray(union)) out.oneOf = union.map((branch) => schemaOf(doc, branch));
  return out as SchemaNode;
}

function parameterOf(doc: Json, raw: unknown): ParameterModel {
  const p = deref(doc, raw) as Json;
  const name = String(p.name);
  let schema: SchemaNode = {};
  let json = false;
  let example: unknown = p.example;
  if (p.schema !== undefined) {
    schema = schemaOf(doc, p.schema);
  } else if (isObject(p.content)) {
    const [mediaType, media] = Object.entries(p.content)[0] ?? [];
    json = mediaType !== undefined && /json/i.test(mediaType);
    if (isObject(media)) {
      schema = schemaOf(doc, media.schema);
      if (example === undefined) example = media.example;
    }
  }
  if (example === undefined) example = schema.example;
  return {
    name,
    in: String(p.in ?? "query"),
    required: p.required === true,
    schema,
    json,
    ...(example === undefined ? {} : { example }),
    description: typeof p.description === "string" ? p.description : "",
  };
}

function responsesOf(doc: Json, raw: unknown): ResponseModel[] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([status, value]) => {
    const response = deref(doc, value) as Json;
    const headers = isObject(response.headers)
      ? Object.entries(response.headers).map(([name, header]) => ({
          name,
          schema: schemaOf(doc, (deref(doc, header) as Json).schema),
        }))
      : [];
    return {
      status: status.toUpperCase() === "DEFAULT" ? "default" : status.toUpperCase(),
      contentTypes: isObject(response.content) ? Object.keys(response.content) : [],
      headers,
    };
  });
}

const EXCLUSIVE = /cannot\s+be\s+combined\s+with\s+`([A-Za-z0-9_]+)`/i;

function exclusivePairs(parameters: ParameterModel[]): Array<[string, string]> {
  const names = new Set(parameters.map((p) => p.name));
  const pairs: Array<[string, string]> = [];
  for (const p of parameters) {
    const other = EXCLUSIVE.exec(p.description)?.[1];
    if (other === undefined || !names.has(other)) continue;
    if (!pairs.some(([a, b]) => (a === other && b === p.name) || (a === p.name && b === other))) {
      pairs.push([other, p.name]);
    }
  }
  return pairs;
}

function variantByOf(op: Json, parameters: ParameterModel[]): OperationModel["variantBy"] {
  const raw = op["x-response-variant-by"];
  if (!isObject(raw) || typeof raw.parameter !== "string") return undefined;
  const parameter = raw.parameter;
  if (typeof raw.whenPresent === "string" && typeof raw.whenAbsent === "string") {
    // By presence: the variant is "present" when the parameter is sent, "absent" when not.
    return { parameter, variants: { present: raw.whenPresent, absent: raw.whenAbsent }, byPresence: true };
  }
  if (!isObject(raw.variants)) return undefined;
  const variants = Object.fromEntries(Object.entries(raw.variants).map(([k, v]) => [k, String(v)]));
  const fallback = parameters.find((p) => p.name === parameter)?.schema.default;
  return { parameter, variants, ...(typeof fallback === "string" ? { default: fallback } : {}) };
}

function operationOf(doc: Json, path: string, method: string, raw: Json, shared: unknown[]): OperationModel {
  const id = String(raw.operationId ?? `${method} ${path}`);
  const authClass = String(raw["x-auth-class"] ?? "none") as AuthClass;
  if (!AUTH_CLASSES.includes(authClass)) throw new Error(`${id}: unknown x-auth-class ${authClass}`);
  const parameters = [...shared, ...(Array.isArray(raw.parameters) ? raw.parameters : [])].map((p) =>
    parameterOf(doc, p),
  );
  const rules = raw["x-order-type-rules"];
  const variantBy = variantByOf(raw, parameters);
  return {
    id,
    method: method.toUpperCase(),
    path,
    summary: typeof raw.summary === "string" ? raw.summary : id,
    authClass,
    apiKey: apiKeyOf(raw.security ?? doc.security, authClass),
    weight: typeof raw["x-weight"] === "number" ? raw["x-weight"] : 1,
    parameters,
    responses: responsesOf(doc, raw.responses),
    formBody: raw["x-parameter-placement"] === "query-or-form-body",
    ...(variantBy ? { variantBy } : {}),
    ...(isObject(rules) ? { orderTypeRules: rules as Record<string, OrderTypeRule> } : {}),
    exclusive: exclusivePairs(parameters),
  };
}

function apiKeyOf(security: unknown, authClass: AuthClass): OperationModel["apiKey"] {
  if (!Array.isArray(security)) return authClass === "none" ? "none" : "required";
  if (security.length === 0) return "none";
  const anonymous = security.some(
    (requirement) => isObject(requirement) && Object.keys(requirement).length === 0,
  );
  return anonymous ? "optional" : "required";
}

function signingOf(doc: Json): SigningModel {
  const schemes =
    isObject(doc.components) && isObject(doc.components.securitySchemes)
      ? doc.components.securitySchemes
      : {};
  let apiKeyHeader = "X-MBX-APIKEY";
  let signing: Json = {};
  let signatureParameter = "signature";
  for (const scheme of Object.values(schemes)) {
    if (!isObject(scheme)) continue;
    if (isObject(scheme["x-signing"])) {
      signing = scheme["x-signing"];
      if (typeof scheme.name === "string") signatureParameter = scheme.name;
    } else if (scheme.type === "apiKey" && scheme.in === "header" && typeof scheme.name === "string") {
      apiKeyHeader = scheme.name;
    }
  }
  const timestamp = isObject(signing.timestamp) ? signing.timestamp : {};
  const recvWindow = isObject(signing.recvWindow) ? signing.recvWindow : {};
  const errors = isObject(signing.errors) ? signing.errors : {};
  const vectors = Array.isArray(signing.testVectors) ? signing.testVectors : [];
  return {
    apiKeyHeader,
    signatureParameter: typeof signing.parameter === "string" ? signing.parameter : signatureParameter,
    timestampParameter: typeof timestamp.parameter === "string" ? timestamp.parameter : "timestamp",
    recvWindowParameter: typeof recvWindow.parameter === "string" ? recvWindow.parameter : "recvWindow",
    recvWindowDefault: typeof recvWindow.default === "number" ? recvWindow.default : 5000,
    recvWindowMaximum: typeof recvWindow.maximum === "number" ? recvWindow.maximum : 60000,
    ...(typeof errors.invalidSignature === "number" ? { invalidSignatureCode: errors.invalidSignature } : {}),
    ...(typeof errors.invalidTimestamp === "number" ? { invalidTimestampCode: errors.invalidTimestamp } : {}),
    testVectors: vectors.filter(isObject).map((v) => ({
      secret: String(v.secret),
      query: String(v.query ?? ""),
      body: String(v.body ?? ""),
      signature: String(v.signature),
    })),
  };
}

/** Reads the operations and extensions of an OpenAPI 3.1 document. */
export function buildSpecModel(doc: Json): SpecModel {
  const operations: OperationModel[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op)) operations.push(operationOf(doc, path, method, op, shared));
    }
  }
  const byId = new Map(operations.map((op) => [op.id, op]));
  const info = isObject(doc.info) ? doc.info : {};
  return {
    title: String(info.title ?? "API"),
    version: String(info.version ?? ""),
    operations,
    signing: signingOf(doc),
    operation: (id) => byId.get(id),
  };
}

/** The declared response a status falls under: exact code, then "4XX" range, then default. */
export function declaredResponse(op: OperationModel, status: number): ResponseModel | undefined {
  const code = String(status);
  return (
    op.responses.find((r) => r.status === code) ??
    op.responses.find((r) => r.status === `${code[0]}XX`) ??
    op.responses.find((r) => r.status === "default")
  );
}

export function isSigned(op: OperationModel): boolean {
  return op.authClass === "trade" || op.authClass === "user_data";
}

/** Whether requests carry the API key: where it is required, or accepted and not required. */
export function needsApiKey(op: OperationModel): boolean {
  return op.apiKey !== "none" && op.authClass !== "none";
}

/** Whether the operation cannot be called without an API key. */
export function requiresApiKey(op: OperationModel): boolean {
  return op.apiKey === "required" && op.authClass !== "none";
}

/** Operations that change account state (create or cancel orders). */
export function isTrading(op: OperationModel): boolean {
  return op.authClass === "trade";
}
