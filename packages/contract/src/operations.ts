/**
 * What the contract tester reads from the OpenAPI document, as a view of `@marketapi/spec/model`:
 * per operation its method, path, authentication class (x-auth-class), parameters with their
 * schemas flattened ($ref followed by the model's resolver, allOf merged) and examples, declared
 * responses (status, content types and headers) and the vendor extensions that drive the checks
 * (x-signing, x-parameter-placement, x-response-variant-by, x-order-type-rules,
 * x-mutually-exclusive, x-weight). Nothing here is specific to one operation: the tester is driven
 * by the document it is given. It keeps its own request builder and signer (http/), so that it
 * does not trust the client it tests; only the reading of the document is shared.
 */
import {
  type AuthClass,
  type Behaviour,
  buildSpecModel as buildModelOfSpec,
  isObject,
  type JsonObject,
  type SpecModel as ModelOfSpec,
  type Operation,
  type OrderTypeRule,
  type Parameter,
  resolveRef,
  responseFor,
  type SigningRule,
} from "@marketapi/spec/model";

export type { AuthClass, OrderTypeRule };

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
  /** Parameter pairs that must not be sent together (x-mutually-exclusive). */
  exclusive: Array<[string, string]>;
  /** The behaviour extensions (x-list-order, x-limit, …), as the spec model reads them. */
  behaviour: Behaviour;
}

/** The signing rule (x-signing) as the tester reads it, with the API key's header beside it. */
export interface SigningModel extends Omit<SigningRule, "apiKeyHeader"> {
  apiKeyHeader: string;
}

export interface SpecModel {
  title: string;
  version: string;
  operations: OperationModel[];
  signing: SigningModel;
  operation(id: string): OperationModel | undefined;
}

type Resolve = (node: unknown, where: string) => JsonObject;

/** A schema with its $ref followed, its `allOf` members merged and its `items` and union branches flattened. */
function schemaOf(resolve: Resolve, node: unknown, where: string): SchemaNode {
  if (!isObject(node)) return {};
  const resolved = resolve(node, where);
  let out: JsonObject = { ...resolved };
  if (Array.isArray(resolved.allOf)) {
    for (const member of resolved.allOf) out = { ...schemaOf(resolve, member, where), ...out };
    delete out.allOf;
  }
  if (out.items !== undefined) out.items = schemaOf(resolve, out.items, where);
  const union = out.oneOf ?? out.anyOf;
  delete out.anyOf;
  if (Array.isArray(union)) out.oneOf = union.map((branch) => schemaOf(resolve, branch, where));
  return out as SchemaNode;
}

function parameterOf(resolve: Resolve, p: Parameter): ParameterModel {
  const schema = schemaOf(resolve, p.schema, p.schemaPointer);
  const example = p.example ?? schema.example;
  return {
    name: p.name,
    in: p.in,
    required: p.required,
    schema,
    json: p.encoding === "json",
    ...(example === undefined ? {} : { example }),
    description: p.description ?? "",
  };
}

function variantByOf(op: Operation): OperationModel["variantBy"] {
  const variants = op.responseVariants;
  if (!variants) return undefined;
  if (variants.by === "presence") {
    // By presence: the variant is "present" when the parameter is sent, "absent" when not.
    return { parameter: variants.parameter, variants: { ...variants.refs }, byPresence: true };
  }
  return {
    parameter: variants.parameter,
    variants: { ...variants.refs },
    ...(variants.default === undefined ? {} : { default: variants.default }),
  };
}

function operationOf(model: ModelOfSpec, op: Operation): OperationModel {
  const resolve: Resolve = (node, where) => resolveRef(model.document, node, where);
  const parameters = op.parameters.map((p) => parameterOf(resolve, p));
  const variantBy = variantByOf(op);
  return {
    id: op.operationId,
    method: op.method.toUpperCase(),
    path: op.path,
    summary: op.summary ?? op.operationId,
    authClass: op.authClass,
    // No security at all: the tester sends the key to every class but none.
    apiKey: op.security === undefined && op.authClass !== "none" ? "required" : op.apiKey,
    weight: op.weight,
    parameters,
    responses: op.responses.map((r) => ({
      status: r.status,
      contentTypes: r.contentTypes,
      headers: r.headers.map((h) => ({
        name: h.name,
        schema: schemaOf(resolve, h.schema, `${r.pointer}/headers`),
      })),
    })),
    formBody: op.acceptsFormBody,
    ...(variantBy ? { variantBy } : {}),
    ...(op.orderTypeRules ? { orderTypeRules: op.orderTypeRules } : {}),
    exclusive: op.exclusivePairs,
    behaviour: op.behaviour,
  };
}

/**
 * What the tester assumes of a document that states no signing rule (a spec of public operations
 * only): the live API's names, so that the negative checks still have a header to leave out.
 */
const UNSTATED_SIGNING: SigningModel = {
  scheme: "",
  pointer: "",
  algorithm: "HMAC-SHA256",
  apiKeyHeader: "X-MBX-APIKEY",
  signatureParameter: "signature",
  timestampParameter: "timestamp",
  recvWindowParameter: "recvWindow",
  recvWindowDefault: 5000,
  recvWindowMaximum: 60000,
  invalidSignatureCode: undefined,
  invalidTimestampCode: undefined,
  testVectors: [],
  words: {},
};

function signingOf(model: ModelOfSpec): SigningModel {
  const signing = model.signing;
  if (!signing) return UNSTATED_SIGNING;
  return { ...signing, apiKeyHeader: signing.apiKeyHeader ?? UNSTATED_SIGNING.apiKeyHeader };
}

/** Reads the operations and extensions of an OpenAPI 3.1 document through the spec model. */
export function buildSpecModel(doc: JsonObject): SpecModel {
  const model = buildModelOfSpec(doc);
  const operations = model.operations.map((op) => operationOf(model, op));
  const byId = new Map(operations.map((op) => [op.id, op]));
  return {
    title: model.title,
    version: model.version,
    operations,
    signing: signingOf(model),
    operation: (id) => byId.get(id),
  };
}

/** The declared response a status falls under: exact code, then "4XX" range, then default. */
export function declaredResponse(op: OperationModel, status: number): ResponseModel | undefined {
  return responseFor(op, status);
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
