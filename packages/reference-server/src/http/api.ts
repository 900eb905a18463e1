/**
 * The operations the server implements, read from the bundled spec (`@marketapi/spec`) through its
 * model, so the routes, authentication classes, weights and the signing envelope have one source
 * of truth.
 */
import { loadOpenApi } from "@marketapi/spec";
import {
  type AuthClass,
  buildSpecModel,
  type JsonObject,
  type Operation,
  resolveRef,
  type SigningRule,
  type SpecModel,
} from "@marketapi/spec/model";

export type { AuthClass, SigningRule };

export interface OperationSpec {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly authClass: AuthClass;
  /** Request weight of the common case (`x-weight`). */
  readonly weight: number;
  /** Parameters may also travel in an `application/x-www-form-urlencoded` body. */
  readonly acceptsFormBody: boolean;
  /** Names of the declared parameters (path level and operation level). */
  readonly parameters: ReadonlySet<string>;
  /** The `pattern` of each declared string parameter, quoted in -1100 answers. */
  readonly patterns: ReadonlyMap<string, string>;
  /** Declared parameters of type number: decimals, written as plain decimal text. */
  readonly decimals: ReadonlySet<string>;
  readonly signed: boolean;
}

export interface ApiDescription {
  readonly operations: readonly OperationSpec[];
  /** The signing rule of the `trade` and `user_data` classes (`x-signing`). */
  readonly signing: SigningRule;
  /** The header that carries the API key, lower-cased as Node gives request headers. */
  readonly apiKeyHeader: string;
}

/** Reads the operations and the signing rule from an OpenAPI document (the bundled spec by default). */
export function describeApi(document: JsonObject = loadOpenApi()): ApiDescription {
  const model = buildSpecModel(document);
  const signing = model.signing;
  if (!signing) throw new Error("Spec: no security scheme states the signing rule (x-signing)");
  if (!signing.apiKeyHeader) throw new Error(`Spec: no header API key scheme goes with ${signing.scheme}`);
  return {
    operations: model.operations.map((operation) => operationOf(model, operation)),
    signing,
    apiKeyHeader: signing.apiKeyHeader.toLowerCase(),
  };
}

function operationOf(model: SpecModel, operation: Operation): OperationSpec {
  const schemas = operation.parameters.map((p) => ({
    name: p.name,
    schema: typeof p.schema === "object" ? resolveRef(model.document, p.schema, p.schemaPointer) : {},
  }));
  return {
    id: operation.operationId,
    method: operation.method.toUpperCase(),
    path: operation.path,
    authClass: operation.authClass,
    weight: operation.weight,
    acceptsFormBody: operation.acceptsFormBody,
    parameters: new Set(operation.parameters.map((p) => p.name)),
    patterns: new Map(
      schemas.flatMap(({ name, schema }) =>
        typeof schema.pattern === "string" ? [[name, schema.pattern]] : [],
      ),
    ),
    decimals: new Set(schemas.filter(({ schema }) => schema.type === "number").map(({ name }) => name)),
    signed: operation.signed,
  };
}
