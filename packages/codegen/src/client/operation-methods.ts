import type { AuthClass, OperationModel, SpecModel } from "../spec/operation-model.js";
import {
  arrowProperty,
  docComment,
  methodSignature,
  propertyKey,
  stringLiteral,
} from "./typescript-source.js";

const AUTHENTICATION: Record<AuthClass, string> = {
  none: "Authentication class `none`: sent without credentials.",
  market_data:
    "Authentication class `market_data`: sends the API key (`X-MBX-APIKEY`) when the client has one; it is not required.",
  trade: "Authentication class `trade`: sends the API key and signs the request (`timestamp`, `signature`).",
  user_data:
    "Authentication class `user_data`: sends the API key and signs the request (`timestamp`, `signature`).",
};

/**
 * The body of methods.gen.ts: the `SpotApiMethods` interface (one method per operationId, typed
 * from openapi-typescript's `operations`, resolving to openapi-fetch's result shape) and
 * `createOperationMethods`, which binds each method to one generic caller supplied by the runtime.
 */
export function renderOperationMethods(model: SpecModel, typesModule: string): string {
  const signatures = model.operations.map((op) => {
    const doc = docComment(
      [
        `${op.summary ?? op.operationId}: \`${op.method.toUpperCase()} ${op.path}\`.`,
        AUTHENTICATION[op.authClass],
      ],
      "  ",
    );
    const returns = `Promise<OperationResult<${stringLiteral(op.operationId)}>>`;
    return `${doc}\n${methodSignature("  ", propertyKey(op.operationId), [paramsDeclaration(op), "options?: Options"], returns)}`;
  });
  const bindings = model.operations.map((op) => {
    const id = stringLiteral(op.operationId);
    const name = propertyKey(op.operationId);
    return hasQuery(op)
      ? arrowProperty("    ", name, "params, options", `call(${id}, params, options)`)
      : arrowProperty("    ", name, "_params, options", `call(${id}, undefined, options)`);
  });
  return [
    `import type { operations } from ${stringLiteral(typesModule)};`,
    "",
    "/** The status keys openapi-fetch treats as success; every other one is an error. */",
    'type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | 207 | "2XX";',
    "",
    'type Responses<K extends keyof operations> = operations[K]["responses"];',
    "",
    'type JsonBody<R> = R extends { content: { "application/json": infer B } } ? B : undefined;',
    "",
    "/** The parsed body of an operation's 2xx answers. */",
    "export type OperationData<K extends keyof operations> = JsonBody<",
    "  Responses<K>[Extract<keyof Responses<K>, SuccessStatus>]",
    ">;",
    "",
    "/** The parsed body of an operation's error answers. */",
    "export type OperationError<K extends keyof operations> = JsonBody<",
    "  Responses<K>[Exclude<keyof Responses<K>, SuccessStatus>]",
    ">;",
    "",
    "/**",
    " * What an operation's method resolves to: openapi-fetch's `{ data, error, response }`, with the",
    " * response bodies exactly as the spec types them (tuples stay tuples).",
    " */",
    "export type OperationResult<K extends keyof operations> =",
    "  | { data: OperationData<K>; error?: never; response: Response }",
    "  | { data?: never; error: OperationError<K>; response: Response };",
    "",
    "/** The parameters of an operation that declares none. */",
    "export type NoParameters = Record<string, never>;",
    "",
    "/** Sends one operation; `createOperationMethods` binds it to every operationId. */",
    "export type OperationCaller<Options> = <K extends keyof operations>(",
    "  operationId: K,",
    '  params: operations[K]["parameters"]["query"],',
    "  options: Options | undefined,",
    ") => Promise<OperationResult<K>>;",
    "",
    "/** One method per operationId of the spec, taking the operation's query parameters. */",
    "export interface SpotApiMethods<Options> {",
    signatures.join("\n\n"),
    "}",
    "",
    "/** The methods of `SpotApiMethods`, each sending its operation through `call`. */",
    "export function createOperationMethods<Options>(call: OperationCaller<Options>): SpotApiMethods<Options> {",
    "  return {",
    ...bindings,
    "  };",
    "}",
    "",
  ].join("\n");
}

function hasQuery(op: OperationModel): boolean {
  return op.parameters.some((p) => p.in === "query");
}

/** `params` is required when a query parameter is; operations without parameters take none. */
function paramsDeclaration(op: OperationModel): string {
  if (!hasQuery(op)) return "params?: NoParameters";
  const type = `operations[${stringLiteral(op.operationId)}]["parameters"]["query"]`;
  const required = op.parameters.some((p) => p.in === "query" && p.required);
  return required ? `params: ${type}` : `params?: ${type}`;
}
