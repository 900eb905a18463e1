import type { AuthClass, Operation, ResponseVariants } from "../spec-input/spec-model.js";
import type { ClientModel, ClientOperation } from "./client-operations.js";
import { docComment, LINE_WIDTH, methodSignature, propertyKey, stringLiteral } from "./typescript-source.js";

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
  factsModule: string,
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
    if (!isPaged(op)) return `${doc}\n${overloads.join("\n")}`;
    return `${doc}\n${pagedMember(clientOperation, overloads)}`;
  });
  const bindings = client.operations.map(methodBinding);
  const anyPaged = client.operations.some((c) => isPaged(c.operation));
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
    `import type { OperationCodes, operationFacts } from ${stringLiteral(factsModule)};`,
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
    "/** What the client knows of each operation beyond its wire (facts.gen.ts). */",
    "type Facts = typeof operationFacts;",
    "",
    "/**",
    " * The error codes the spec states for an operation (x-refusals, x-unknown-reference, x-time-window,",
    " * x-signing): a `switch` over them is checked for exhaustiveness.",
    " */",
    "export type OperationCode<K extends keyof operations> = K extends keyof OperationCodes",
    "  ? OperationCodes[K]",
    "  : never;",
    "",
    "/**",
    " * A code the spec does not state for the operation: the general case of its errors, what is left",
    " * in a `switch` once every stated code has its case. Compare it as a number (`Number(error.code)`).",
    " */",
    'export type UnlistedCode = number & { readonly "unlisted code": true };',
    "",
    "/** An error body whose `code` is one of the operation's stated codes or an unlisted one. */",
    "type Coded<K extends keyof operations, B> = [OperationCode<K>] extends [never]",
    "  ? B",
    "  : B extends { code: number }",
    '    ? Omit<B, "code"> & { code: OperationCode<K> | UnlistedCode }',
    "    : B;",
    "",
    "/** The parsed body of an operation's error answers, its `code` typed by the codes the spec states. */",
    "export type OperationError<K extends keyof operations> = Coded<",
    "  K,",
    "  ErrorBodyOf<Responses<K>[Exclude<keyof Responses<K>, SuccessStatus>]>",
    ">;",
    "",
    "/** The operation that looks up a request of `K` whose answer was lost (x-outcome-lookup). */",
    "type LookupOf<K extends keyof operations> = K extends keyof Facts",
    "  ? Facts[K] extends { lookup: { operation: infer L } }",
    "    ? L & keyof operations",
    "    : never",
    "  : never;",
    "",
    "/**",
    " * A request whose answer was lost (or was a 5xx) and that the lookup found: `lookedUp` holds the",
    " * lookup's answer (the order as it stands), and `data` is absent. Only for operations with",
    " * x-outcome-lookup.",
    " */",
    "export type LookedUp<K extends keyof operations> = [LookupOf<K>] extends [never]",
    "  ? never",
    "  : { data?: never; error?: never; lookedUp: OperationData<LookupOf<K>>; response: Response };",
    "",
    "/** One item of a paged operation's answer: what `iterate` yields. */",
    "export type Item<K extends keyof operations> =",
    "  OperationData<K> extends readonly (infer I)[] ? I : OperationData<K>;",
    "",
    "/**",
    " * What an operation's method resolves to: openapi-fetch's `{ data, error, response }`, with the",
    " * response bodies exactly as the spec types them (tuples stay tuples). `Data` narrows the success",
    " * body to the variant the request chose (x-response-variant-by).",
    " */",
    "export type OperationResult<K extends keyof operations, Data = OperationData<K>> =",
    "  | { data: Data; error?: never; lookedUp?: never; response: Response }",
    "  | { data?: never; error: OperationError<K>; lookedUp?: never; response: Response }",
    "  | LookedUp<K>;",
    "",
    '/** How a client reports non-2xx answers: as `{ error }` ("result") or by throwing ("throw"). */',
    'export type ResultMode = "result" | "throw";',
    "",
    '/** What a method resolves to in a mode: with "throw", only the success branch remains. */',
    "export type ModeResult<",
    "  K extends keyof operations,",
    "  Mode extends ResultMode,",
    "  Data = OperationData<K>,",
    '> = Mode extends "throw"',
    "  ? { data: Data; error?: never; lookedUp?: never; response: Response } | LookedUp<K>",
    "  : OperationResult<K, Data>;",
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
    ...(anyPaged
      ? [
          "/** Iterates over the items of a paged operation; `createOperationMethods` binds it to each. */",
          "export type OperationIterator<Options> = <K extends keyof operations>(",
          "  operationId: K,",
          "  params: unknown,",
          "  options: Options | undefined,",
          ") => AsyncIterableIterator<Item<K>>;",
          "",
        ]
      : []),
    "/**",
    " * One method per operation of the spec, named after its operationId, taking the operation's",
    " * parameters by name (path, query, header and cookie alike) and its request body as `body`.",
    " */",
    'export interface SpotApiMethods<Options, Mode extends ResultMode = "result"> {',
    signatures.join("\n\n"),
    "}",
    "",
    anyPaged
      ? "/** The methods of `SpotApiMethods`, each sending its operation through `call`; paged ones iterate through `iterate`. */"
      : "/** The methods of `SpotApiMethods`, each sending its operation through `call`. */",
    'export function createOperationMethods<Options, Mode extends ResultMode = "result">(',
    "  call: OperationCaller<Options, Mode>,",
    ...(anyPaged ? ["  iterate: OperationIterator<Options>,"] : []),
    "): SpotApiMethods<Options, Mode> {",
    "  type Methods = SpotApiMethods<Options, Mode>;",
    "  // One function serves all the overloads of an operation, whatever parameters it takes.",
    "  const bound = (id: keyof operations) => (params: never, options?: Options) => call(id, params, options);",
    ...(anyPaged
      ? [
          "  // A paged operation's method also iterates over its items. Its parameters are `unknown`: the",
          "  // cast to the method's type compares the intersection member by member, and `never` would",
          "  // not be comparable with the operation's parameters.",
          "  const paged = (id: keyof operations) =>",
          "    Object.assign((params: unknown, options?: Options) => call(id, params, options), {",
          "      iterate: (params: unknown, options?: Options) => iterate(id, params, options),",
          "    });",
        ]
      : []),
    "  return {",
    ...bindings,
    "  };",
    "}",
    "",
  ].join("\n");
}

/** The property of `createOperationMethods`' object that sends one operation through `call`. */
function methodBinding({ operation: op, key, methodName }: ClientOperation): string {
  const binder = isPaged(op) ? "paged" : "bound";
  const name = propertyKey(methodName);
  const id = stringLiteral(key);
  const inline = `    ${name}: ${binder}(${id}) as Methods[${stringLiteral(methodName)}],`;
  return inline.length <= LINE_WIDTH
    ? inline
    : `    ${name}: ${binder}(\n      ${id},\n    ) as Methods[${stringLiteral(methodName)}],`;
}

/** Whether the operation pages (x-cursor-paging or x-time-window): its method has `iterate`. */
function isPaged(op: Operation): boolean {
  return op.behaviour.cursorPaging !== undefined || op.behaviour.timeWindow !== undefined;
}

/**
 * A paged operation's member: its call signatures, and `iterate`, an async iterator over every
 * item from the request's cursor or over its time range, whatever its length.
 */
function pagedMember(client: ClientOperation, overloads: string[]): string {
  const op = client.operation;
  const { cursorPaging, timeWindow } = op.behaviour;
  const how = [
    ...(cursorPaging ? [`from \`${cursorPaging.parameter}\` (or the first page) on, page after page`] : []),
    ...(timeWindow
      ? [
          `over \`${timeWindow.start}\`..\`${timeWindow.end}\` of any length${timeWindow.maxSpanMs ? `, in windows of at most ${timeWindow.maxSpanMs} ms` : ""}`,
        ]
      : []),
  ].join("; or ");
  const callSignatures = overloads.map((line) =>
    line.replace(/^ {2}[^(]+\(/, "    (").replace(/\n {2}/g, "\n    "),
  );
  return [
    `  ${propertyKey(client.methodName)}: {`,
    ...callSignatures,
    docComment([`Every item, ${how}; paced like every call. Stops where the data ends.`], "    "),
    methodSignature(
      "    ",
      "iterate",
      [paramsDeclaration(client), "options?: Options"],
      `AsyncIterableIterator<Item<${stringLiteral(client.key)}>>`,
    ),
    "  };",
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

function hasRequiredParameter(op: Operation): boolean {
  return op.parameters.some((p) => p.required);
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
  { operation: op, key: typesKey, methodName, locations }: ClientOperation,
  variants: ResponseVariants,
): string[] {
  const name = propertyKey(methodName);
  const id = stringLiteral(typesKey);
  // The variant is chosen by a query parameter; the parameters of other places go alongside.
  const beside = locations
    .filter((at) => at !== "query")
    .map((at) => ` & In<${id}, ${stringLiteral(at)}>`)
    .join("");
  const query = `Query<${id}>${beside}`;
  const key = propertyKey(variants.parameter);
  const parameter = stringLiteral(variants.parameter);
  const body = (names: string[]) =>
    `Schema<${names.map((v) => stringLiteral(variants.components[v]!)).join(" | ")}>`;
  const optional = hasRequiredParameter(op) ? "" : "?";
  const overload = (params: string, data: string) =>
    methodSignature("  ", name, [params, "options?: Options"], resultType(typesKey, data));
  const lines: string[] = [];
  if (variants.by === "presence") {
    lines.push(overload(`params: Sent<${id}, ${parameter}>${beside}`, body(["present"])));
    lines.push(overload(`params${optional}: Unsent<${id}, ${parameter}>${beside}`, body(["absent"])));
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
