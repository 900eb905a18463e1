import type { AuthClass, Operation, ResponseVariants } from "../spec-input/spec-model.js";
import type { ClientModel, ClientOperation } from "./client-operations.js";
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
export function renderOperationMethods(
  client: ClientModel,
  typesModule: string,
  readWriteMarkers: boolean,
): string {
  const signatures = client.operations.map((clientOperation) => {
    const op = clientOperation.operation;
    const doc = docComment(
      [
        `${op.summary ?? op.operationId}: \`${op.method.toUpperCase()} ${op.path}\`.`,
        authenticationLine(clientOperation),
      ],
      "  ",
    );
    const variants = op.responseVariants;
    const overloads = variants
      ? variantOverloads(clientOperation, variants)
      : [plainSignature(clientOperation)];
    return `${doc}\n${overloads.join("\n")}`;
  });
  const bindings = client.operations.map(({ operation: op, key, methodName, locations, body }) => {
    const id = stringLiteral(key);
    const name = propertyKey(methodName);
    if (op.responseVariants) {
      const inline = `    ${name}: overloaded(${id}) as Methods[${stringLiteral(methodName)}],`;
      return inline.length <= LINE_WIDTH
        ? inline
        : `    ${name}: overloaded(\n      ${id},\n    ) as Methods[${stringLiteral(methodName)}],`;
    }
    return locations.length > 0 || body
      ? arrowProperty("    ", name, "params, options", `call(${id}, params, options)`)
      : arrowProperty("    ", name, "_params, options", `call(${id}, undefined, options)`);
  });
  const anyVariants = client.operations.some((c) => c.operation.responseVariants !== undefined);
  const anyBody = client.operations.some((c) => c.body !== undefined);
  const anyParameters = client.operations.some((c) => c.locations.some((at) => at !== "query") || c.body);
  const readAs = client.operations.filter((c) => c.responseAs !== "json");
  const typeImports = [
    ...(anyVariants ? ["components"] : []),
    "operations",
    ...(readWriteMarkers ? ["Readable", "Writable"] : []),
  ];
  return [
    `import type { ${typeImports.join(", ")} } from ${stringLiteral(typesModule)};`,
    "",
    "/** The status keys openapi-fetch treats as success; every other one is an error. */",
    'type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206 | 207 | "2XX";',
    "",
    'type Responses<K extends keyof operations> = operations[K]["responses"];',
    "",
    ...(readWriteMarkers
      ? []
      : [
          "/** Without readOnly or writeOnly properties in the spec, bodies read and write alike. */",
          "type Readable<T> = T;",
          ...(anyBody ? ["type Writable<T> = T;"] : []),
          "",
        ]),
    "/** The media types whose bodies are read as JSON. */",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's template literal types
    'type JsonMedia = "application/json" | `application/${string}+json` | `${string}/json` | "*/*";',
    "",
    "/** How each operation whose success answers are not JSON reads them. */",
    readAs.length === 0
      ? "type ReadAs = {};"
      : [
          "type ReadAs = {",
          ...readAs.map((c) => `  ${propertyKey(c.key)}: ${stringLiteral(c.responseAs)};`),
          "};",
        ].join("\n"),
    "",
    'type ReadAsOf<K> = K extends keyof ReadAs ? ReadAs[K] : "json";',
    "",
    "/** A response's body as the client reads it: its JSON schema's type, text, a Blob, or nothing. */",
    "type BodyOf<R, As> = R extends { content: infer C }",
    '  ? As extends "text"',
    "    ? string",
    '    : As extends "blob"',
    "      ? Blob",
    '      : As extends "none"',
    "        ? undefined",
    "        : Readable<C[Extract<keyof C, JsonMedia>]>",
    "  : undefined;",
    "",
    "/** An error answer's body: its JSON schema's type, or its text. */",
    "type ErrorBodyOf<R> = R extends { content: infer C }",
    "  ? [Extract<keyof C, JsonMedia>] extends [never]",
    "    ? string",
    "    : Readable<C[Extract<keyof C, JsonMedia>]>",
    "  : undefined;",
    "",
    "/** The parsed body of an operation's 2xx answers. */",
    "export type OperationData<K extends keyof operations> = BodyOf<",
    "  Responses<K>[Extract<keyof Responses<K>, SuccessStatus>],",
    "  ReadAsOf<K>",
    ">;",
    "",
    "/** The parsed body of an operation's error answers. */",
    "export type OperationError<K extends keyof operations> = ErrorBodyOf<",
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
    ...(anyParameters ? PARAMETER_HELPERS : []),
    ...(anyBody ? BODY_HELPERS : []),
    ...(anyVariants ? VARIANT_HELPERS : []),
    "/** Sends one operation; `createOperationMethods` binds it to every operationId. */",
    'export type OperationCaller<Options, Mode extends ResultMode = "result"> = <K extends keyof operations>(',
    "  operationId: K,",
    "  params: unknown,",
    "  options: Options | undefined,",
    ") => Promise<ModeResult<K, Mode>>;",
    "",
    "/**",
    " * One method per operation of the spec, named after its operationId, taking the operation's",
    " * parameters by name (path, query, header and cookie alike) and its request body as `body`.",
    " */",
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

/** The types the methods of operations with path, header or cookie parameters are written in. */
const PARAMETER_HELPERS = [
  "/** An operation's parameters of one place (path, query, header or cookie), by name. */",
  'type In<K extends keyof operations, L extends "path" | "query" | "header" | "cookie"> = NonNullable<',
  '  operations[K]["parameters"][L]',
  ">;",
  "",
];

/** The type of request bodies. */
const BODY_HELPERS = [
  "/** An operation's request body of one media type, without its readOnly properties. */",
  'type Body<K extends keyof operations, M extends string> = operations[K]["requestBody"] extends infer B',
  "  ? B extends { content: infer C }",
  "    ? M extends keyof C",
  "      ? Writable<C[M]>",
  "      : never",
  "    : never",
  "  : never;",
  "",
];

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

function hasRequiredQuery(op: Operation): boolean {
  return op.parameters.some((p) => p.in === "query" && p.required);
}

/** The doc line on credentials: the x-auth-class's, or the security requirements it was derived from. */
function authenticationLine({ operation, security }: ClientOperation): string {
  if (operation.authClassFrom === "x-auth-class") return AUTHENTICATION[operation.authClass];
  if (security.length === 0) return "Sent without credentials.";
  const each = security.map((names) => (names.length === 0 ? "none" : names.join(" and ")));
  return `Credentials: ${each.join(", or ")} (security).`;
}

function resultType(key: string, data?: string): string {
  const args = [stringLiteral(key), "Mode", ...(data ? [data] : [])];
  return `Promise<ModeResult<${args.join(", ")}>>`;
}

function plainSignature(client: ClientOperation): string {
  return methodSignature(
    "  ",
    propertyKey(client.methodName),
    [paramsDeclaration(client), "options?: Options"],
    resultType(client.key),
  );
}

/**
 * One overload per variant, most specific request first, then the general signature (a value of
 * the parameter's whole type gives the union of the bodies).
 */
function variantOverloads(
  { operation: op, key: typesKey, methodName }: ClientOperation,
  variants: ResponseVariants,
): string[] {
  const name = propertyKey(methodName);
  const id = stringLiteral(typesKey);
  const query = `Query<${id}>`;
  const key = propertyKey(variants.parameter);
  const parameter = stringLiteral(variants.parameter);
  const body = (names: string[]) =>
    `Schema<${names.map((v) => stringLiteral(variants.components[v]!)).join(" | ")}>`;
  const optional = hasRequiredQuery(op) ? "" : "?";
  const overload = (params: string, data: string) =>
    methodSignature("  ", name, [params, "options?: Options"], resultType(typesKey, data));
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

/**
 * `params` holds the operation's parameters by name, and its request body as `body`; it is
 * required when a parameter or the body is. Operations without either take none.
 */
function paramsDeclaration({ operation: op, key, locations, body }: ClientOperation): string {
  const id = stringLiteral(key);
  const required = op.parameters.some((p) => p.required) || body?.required === true;
  let type: string;
  if (locations.length === 0 && !body) return "params?: NoParameters";
  if (locations.length === 1 && locations[0] === "query" && !body) {
    type = `operations[${id}]["parameters"]["query"]`;
  } else {
    const parts = locations.map((at) => `In<${id}, ${stringLiteral(at)}>`);
    if (body) {
      parts.push(`{ body${body.required ? "" : "?"}: Body<${id}, ${stringLiteral(body.mediaType)}> }`);
    }
    type = parts.join(" & ");
  }
  return required ? `params: ${type}` : `params?: ${type}`;
}
