import type { AuthClass, Operation, ResponseVariants, SourcedSpecModel } from "../spec-input/spec-model.js";
import {
  arrowProperty,
  docComment,
  LINE_WIDTH,
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
 * An operation with `x-response-variant-by` gets one overload per variant, so its result follows
 * the request: `newOrderRespType: "ACK"` gives the ACK body (no respType gives the declared
 * default), and a ticker called with `symbol` gives one object, without it an array.
 */
export function renderOperationMethods(model: SourcedSpecModel, typesModule: string): string {
  const signatures = model.operations.map((op) => {
    const doc = docComment(
      [
        `${op.summary ?? op.operationId}: \`${op.method.toUpperCase()} ${op.path}\`.`,
        AUTHENTICATION[op.authClass],
      ],
      "  ",
    );
    const variants = op.responseVariants;
    const overloads = variants ? variantOverloads(op, variants) : [plainSignature(op)];
    return `${doc}\n${overloads.join("\n")}`;
  });
  const bindings = model.operations.map((op) => {
    const id = stringLiteral(op.operationId);
    const name = propertyKey(op.operationId);
    if (op.responseVariants) {
      const inline = `    ${name}: overloaded(${id}) as Methods[${id}],`;
      return inline.length <= LINE_WIDTH
        ? inline
        : `    ${name}: overloaded(\n      ${id},\n    ) as Methods[${id}],`;
    }
    return hasQuery(op)
      ? arrowProperty("    ", name, "params, options", `call(${id}, params, options)`)
      : arrowProperty("    ", name, "_params, options", `call(${id}, undefined, options)`);
  });
  const anyVariants = model.operations.some((op) => op.responseVariants !== undefined);
  return [
    `import type { ${anyVariants ? "components, " : ""}operations } from ${stringLiteral(typesModule)};`,
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
    " * response bodies exactly as the spec types them (tuples stay tuples). `Data` narrows the success",
    " * body to the variant the request chose (x-response-variant-by).",
    " */",
    "export type OperationResult<K extends keyof operations, Data = OperationData<K>> =",
    "  | { data: Data; error?: never; response: Response }",
    "  | { data?: never; error: OperationError<K>; response: Response };",
    "",
    '/** How a client reports non-2xx answers: as `{ error }` ("result") or by throwing ("throw"). */',
    'export type ResultMode = "result" | "throw";',
    "",
    '/** What a method resolves to in a mode: with "throw", only the success branch remains. */',
    "export type ModeResult<",
    "  K extends keyof operations,",
    "  Mode extends ResultMode,",
    "  Data = OperationData<K>,",
    '> = Mode extends "throw" ? { data: Data; error?: never; response: Response } : OperationResult<K, Data>;',
    "",
    "/** The parameters of an operation that declares none. */",
    "export type NoParameters = Record<string, never>;",
    "",
    ...(anyVariants ? VARIANT_HELPERS : []),
    "/** Sends one operation; `createOperationMethods` binds it to every operationId. */",
    'export type OperationCaller<Options, Mode extends ResultMode = "result"> = <K extends keyof operations>(',
    "  operationId: K,",
    '  params: operations[K]["parameters"]["query"],',
    "  options: Options | undefined,",
    ") => Promise<ModeResult<K, Mode>>;",
    "",
    "/** One method per operationId of the spec, taking the operation's query parameters. */",
    'export interface SpotApiMethods<Options, Mode extends ResultMode = "result"> {',
    signatures.join("\n\n"),
    "}",
    "",
    "/** The methods of `SpotApiMethods`, each sending its operation through `call`. */",
    'export function createOperationMethods<Options, Mode extends ResultMode = "result">(',
    "  call: OperationCaller<Options, Mode>,",
    "): SpotApiMethods<Options, Mode> {",
    ...(anyVariants
      ? [
          "  type Methods = SpotApiMethods<Options, Mode>;",
          "  // One function serves all the overloads of an operation with response variants.",
          "  const overloaded = (id: keyof operations) => (params: never, options?: Options) =>",
          "    call(id, params, options);",
        ]
      : []),
    "  return {",
    ...bindings,
    "  };",
    "}",
    "",
  ].join("\n");
}

/** The types the overloads of operations with response variants are written in. */
const VARIANT_HELPERS = [
  "/** An operation's query parameters. */",
  'type Query<K extends keyof operations> = operations[K]["parameters"]["query"];',
  "",
  "/** An operation's query parameters with `P` sent. */",
  "type Sent<K extends keyof operations, P extends keyof NonNullable<Query<K>>> = Query<K> &",
  "  Required<Pick<NonNullable<Query<K>>, P>>;",
  "",
  "/** An operation's query parameters without `P`. */",
  "type Unsent<K extends keyof operations, P extends string> = Query<K> & { [N in P]?: undefined };",
  "",
  "/** Named schemas (components.schemas), as response bodies. */",
  'type Schema<N extends keyof components["schemas"]> = components["schemas"][N];',
  "",
];

function hasQuery(op: Operation): boolean {
  return op.parameters.some((p) => p.in === "query");
}

function hasRequiredQuery(op: Operation): boolean {
  return op.parameters.some((p) => p.in === "query" && p.required);
}

function resultType(op: Operation, data?: string): string {
  const args = [stringLiteral(op.operationId), "Mode", ...(data ? [data] : [])];
  return `Promise<ModeResult<${args.join(", ")}>>`;
}

function plainSignature(op: Operation): string {
  return methodSignature(
    "  ",
    propertyKey(op.operationId),
    [paramsDeclaration(op), "options?: Options"],
    resultType(op),
  );
}

/**
 * One overload per variant, most specific request first, then the general signature (a value of
 * the parameter's whole type gives the union of the bodies).
 */
function variantOverloads(op: Operation, variants: ResponseVariants): string[] {
  const name = propertyKey(op.operationId);
  const id = stringLiteral(op.operationId);
  const query = `Query<${id}>`;
  const key = propertyKey(variants.parameter);
  const parameter = stringLiteral(variants.parameter);
  const body = (names: string[]) =>
    `Schema<${names.map((v) => stringLiteral(variants.components[v]!)).join(" | ")}>`;
  const optional = hasRequiredQuery(op) ? "" : "?";
  const overload = (params: string, data: string) =>
    methodSignature("  ", name, [params, "options?: Options"], resultType(op, data));
  const lines: string[] = [];
  if (variants.by === "presence") {
    lines.push(overload(`params: Sent<${id}, ${parameter}>`, body(["present"])));
    lines.push(overload(`params${optional}: Unsent<${id}, ${parameter}>`, body(["absent"])));
  } else {
    for (const variant of Object.keys(variants.components)) {
      const isDefault = variant === variants.default;
      const pick = isDefault
        ? `{ ${key}?: ${stringLiteral(variant)} | undefined }`
        : `{ ${key}: ${stringLiteral(variant)} }`;
      lines.push(overload(`params${isDefault ? optional : ""}: ${query} & ${pick}`, body([variant])));
    }
  }
  lines.push(overload(`params${optional}: ${query}`, body(Object.keys(variants.components))));
  return lines;
}

/** `params` is required when a query parameter is; operations without parameters take none. */
function paramsDeclaration(op: Operation): string {
  if (!hasQuery(op)) return "params?: NoParameters";
  const type = `operations[${stringLiteral(op.operationId)}]["parameters"]["query"]`;
  const required = op.parameters.some((p) => p.in === "query" && p.required);
  return required ? `params: ${type}` : `params?: ${type}`;
}
