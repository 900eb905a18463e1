/**
 * The operations the server implements, read from the bundled spec (`@marketapi/spec`) through its
 * model, so the routes, authentication classes, weights and the signing envelope have one source
 * of truth: the API's 17 operations, and the sandbox's (its own document, `sandbox.openapi.json`:
 * account views and what else the server serves beyond the API's contract). The server keeps the
 * model's `Operation` as it is and adds what it needs beside it.
 */
import { loadOpenApi, loadSandboxOpenApi } from "@marketapi/spec";
import {
  type AuthClass,
  buildSpecModel,
  type EpochTime,
  type JsonObject,
  type Operation,
  type Parameter,
  resolveRef,
  type SigningRule,
  type SpecModel,
} from "@marketapi/spec/model";

export type { AuthClass, SigningRule };

/** A parameter of the spec model, with what the server adds: the facts of its resolved schema it quotes in -1100 answers. */
export interface ServerParameter extends Parameter {
  /** The `pattern` of the resolved schema, when it states one. */
  schemaPattern?: string;
  /** Whether the resolved schema is of type number: a decimal, written as plain decimal text. */
  decimal: boolean;
}

/** Which document describes an operation: the API's contract, or the sandbox's own. */
export type DocumentName = "api" | "sandbox";

/** An operation of the spec model, with what the server adds: its parameters' schema facts and a lookup by name. */
export interface ServerOperation extends Operation {
  /** The document that describes it (its request validators are that document's). */
  document: DocumentName;
  parameters: ServerParameter[];
  /** The declared parameters (path level and operation level) by name, for the per-request lookups. */
  parameterByName: ReadonlyMap<string, ServerParameter>;
}

export interface ApiDescription {
  readonly operations: readonly ServerOperation[];
  /** The signing rule of the `trade` and `user_data` classes (`x-signing`). */
  readonly signing: SigningRule;
  /** The header that carries the API key, lower-cased as Node gives request headers. */
  readonly apiKeyHeader: string;
  /**
   * The units of epoch time parameters (`x-epoch-time`); without it they are milliseconds only.
   * The API document's holds for the sandbox's operations too: they take its `Timestamp` schema.
   */
  readonly epochTime: EpochTime | undefined;
}

/**
 * The sandbox document's admin paths start with it: the admin surface serves them on a port of
 * its own (sandbox/admin-server.ts), never the API's.
 */
export const ADMIN_PATH_PREFIX = "/admin/";

/** Whether the operation is one of the admin surface's (served apart from the API). */
export function isAdminOperation(operation: Pick<Operation, "path">): boolean {
  return operation.path.startsWith(ADMIN_PATH_PREFIX);
}

/**
 * Reads the operations and the signing rule from the API's document (the bundled spec by default)
 * and the sandbox's (none with `sandbox: null`), its admin operations left to the admin surface.
 * Both must state the same signing rule, and no method and path may be in both.
 */
export function describeApi(
  document: JsonObject = loadOpenApi(),
  sandbox: JsonObject | null = loadSandboxOpenApi(),
): ApiDescription {
  const model = buildSpecModel(document);
  const signing = model.signing;
  if (!signing) throw new Error("Spec: no security scheme states the signing rule (x-signing)");
  if (!signing.apiKeyHeader) throw new Error(`Spec: no header API key scheme goes with ${signing.scheme}`);
  const operations = model.operations.map((operation) => serverOperation(model, operation, "api"));
  if (sandbox) {
    const sandboxModel = buildSpecModel(sandbox);
    if (sandboxModel.signing && JSON.stringify(sandboxModel.signing) !== JSON.stringify(signing)) {
      throw new Error("Sandbox document: its signing rule differs from the API's");
    }
    const taken = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const operation of sandboxModel.operations) {
      if (isAdminOperation(operation)) continue;
      const route = `${operation.method} ${operation.path}`;
      if (taken.has(route))
        throw new Error(`Sandbox document: ${route} is an operation of the API's document`);
      operations.push(serverOperation(sandboxModel, operation, "sandbox"));
    }
  }
  return {
    operations,
    signing,
    apiKeyHeader: signing.apiKeyHeader.toLowerCase(),
    epochTime: model.epochTime,
  };
}

function serverOperation(model: SpecModel, operation: Operation, document: DocumentName): ServerOperation {
  const parameters = operation.parameters.map((parameter) => serverParameter(model, parameter));
  return {
    ...operation,
    document,
    parameters,
    parameterByName: new Map(parameters.map((parameter) => [parameter.name, parameter])),
  };
}

function serverParameter(model: SpecModel, parameter: Parameter): ServerParameter {
  const schema =
    typeof parameter.schema === "object"
      ? resolveRef(model.document, parameter.schema, parameter.schemaPointer)
      : {};
  return {
    ...parameter,
    ...(typeof schema.pattern === "string" ? { schemaPattern: schema.pattern } : {}),
    decimal: schema.type === "number",
  };
}
