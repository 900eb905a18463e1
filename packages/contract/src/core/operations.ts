/**
 * The contract tester reads the OpenAPI document through `@marketapi/spec/model` and uses its
 * Operation as it is, field for field; it adds only what the value generators need, the parameter
 * and header schemas flattened ($ref followed by the model's resolver, allOf merged), and the
 * signing names it assumes when a document states no signing rule. Nothing here is specific to
 * one operation: the tester is driven by the document it is given. It keeps its own request builder and signer (http/), so that it
 * does not trust the client it tests; only the reading of the document is shared.
 */
import {
  type AuthClass,
  buildSpecModel,
  isObject,
  type JsonObject,
  type Operation,
  type OrderTypeRule,
  type Parameter,
  type Response,
  type ResponseHeader,
  resolveRef,
  responseFor,
  type SigningRule,
  type SpecModel,
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

/** A parameter of the spec model, with its schema flattened for the value generators. */
export interface ContractParameter extends Parameter {
  /** `schema` with its $ref followed, `allOf` merged, `items` and union branches flattened. */
  resolvedSchema: SchemaNode;
}

/** A response header of the spec model, with its schema flattened. */
export interface ContractHeader extends ResponseHeader {
  resolvedSchema: SchemaNode;
}

export interface ContractResponse extends Response {
  headers: ContractHeader[];
}

/** An operation of the spec model, with what the tester adds: flattened parameter and header schemas. */
export interface ContractOperation extends Operation {
  parameters: ContractParameter[];
  responses: ContractResponse[];
}

/** The signing rule (x-signing) as the tester reads it, with the API key's header beside it. */
export interface ContractSigning extends Omit<SigningRule, "apiKeyHeader"> {
  apiKeyHeader: string;
}

/** The spec model with the tester's operations, its signing defaults and a lookup by operationId. */
export interface ContractModel extends Omit<SpecModel, "operations" | "signing"> {
  operations: ContractOperation[];
  signing: ContractSigning;
  operation(operationId: string): ContractOperation | undefined;
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

function contractOperation(model: SpecModel, op: Operation): ContractOperation {
  const resolve: Resolve = (node, where) => resolveRef(model.document, node, where);
  return {
    ...op,
    parameters: op.parameters.map((p) => ({
      ...p,
      resolvedSchema: schemaOf(resolve, p.schema, p.schemaPointer),
    })),
    responses: op.responses.map((r) => ({
      ...r,
      headers: r.headers.map((h) => ({
        ...h,
        resolvedSchema: schemaOf(resolve, h.schema, `${r.pointer}/headers`),
      })),
    })),
  };
}

/**
 * What the tester assumes of a document that states no signing rule (a spec of public operations
 * only): the live API's names, so that the negative checks still have a header to leave out.
 */
const UNSTATED_SIGNING: ContractSigning = {
  scheme: "",
  pointer: "",
  algorithm: "HMAC-SHA256",
  apiKeyHeader: "X-MBX-APIKEY",
  signatureParameter: "signature",
  timestampParameter: "timestamp",
  recvWindowParameter: "recvWindow",
  recvWindowDefault: 5000,
  recvWindowMaximum: 60000,
  aheadAllowedMs: undefined,
  invalidSignatureCode: undefined,
  invalidTimestampCode: undefined,
  testVectors: [],
  words: {},
};

function signingOf(model: SpecModel): ContractSigning {
  const signing = model.signing;
  if (!signing) return UNSTATED_SIGNING;
  return { ...signing, apiKeyHeader: signing.apiKeyHeader ?? UNSTATED_SIGNING.apiKeyHeader };
}

/** Reads an OpenAPI 3.1 document through the spec model, for the tester. */
export function buildContractModel(doc: JsonObject): ContractModel {
  const model = buildSpecModel(doc);
  const operations = model.operations.map((op) => contractOperation(model, op));
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  return { ...model, operations, signing: signingOf(model), operation: (id) => byId.get(id) };
}

/** The declared response a status falls under: exact code, then "4XX" range, then default. */
export function declaredResponse(op: ContractOperation, status: number): ContractResponse | undefined {
  return responseFor(op, status);
}

/** The parameter's example (its own or its media type's), else its schema's. */
export function exampleOf(parameter: ContractParameter): unknown {
  return parameter.example ?? parameter.resolvedSchema.example;
}

/** "GET", as requests and messages write the method. */
export function methodOf(op: Pick<Operation, "method">): string {
  return op.method.toUpperCase();
}

/**
 * The API key, as the tester sends it: the model's `apiKey`, except that with no security stated
 * at all the key is sent to every class but none.
 */
export function apiKeyOf(op: ContractOperation): Operation["apiKey"] {
  return op.security === undefined && op.authClass !== "none" ? "required" : op.apiKey;
}

export function isSigned(op: ContractOperation): boolean {
  return op.signed;
}

/** Whether requests carry the API key: where it is required, or accepted and not required. */
export function needsApiKey(op: ContractOperation): boolean {
  return apiKeyOf(op) !== "none" && op.authClass !== "none";
}

/** Whether the operation cannot be called without an API key. */
export function requiresApiKey(op: ContractOperation): boolean {
  return apiKeyOf(op) === "required" && op.authClass !== "none";
}

/** Operations that change account state (create or cancel orders). */
export function isTrading(op: ContractOperation): boolean {
  return op.authClass === "trade";
}
