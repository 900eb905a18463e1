import { stringLiteral } from "./typescript-source.js";

/**
 * The body of client.gen.ts: the generated API as one value for `createApiClient` of
 * @marketapi/client. `spotApi` holds what the runtime reads (the operation table, the
 * authentication facts, the method binder, and the facts it paces, retries and pages by); `SpotApiTypes` carries the types (the `paths` for openapi-fetch's path-based calls and
 * the methods for whatever per-call options type the runtime supplies). The file imports nothing
 * outside the generated folder, so the same output serves @marketapi/client itself and a
 * consumer's repository.
 */
export function renderApiDefinition(modules: {
  types: string;
  operations: string;
  methods: string;
  facts: string;
}): string {
  return [
    `import { apiFacts, operationFacts } from ${stringLiteral(modules.facts)};`,
    `import { createOperationMethods, type ResultMode, type SpotApiMethods } from ${stringLiteral(modules.methods)};`,
    `import { authentication, operationTable } from ${stringLiteral(modules.operations)};`,
    `import type { paths } from ${stringLiteral(modules.types)};`,
    "",
    "/**",
    " * The types of this API, for `createApiClient` of @marketapi/client: the paths, and the methods",
    " * for any type of per-call options and result mode (the runtime supplies its own as `options`",
    " * and `mode`). Types only.",
    " */",
    "export interface SpotApiTypes {",
    "  readonly paths: paths;",
    "  readonly options: unknown;",
    "  readonly mode: ResultMode;",
    '  readonly methods: SpotApiMethods<this["options"], this["mode"]>;',
    "}",
    "",
    "/**",
    " * This API as `createApiClient` of @marketapi/client takes it:",
    " * `createApiClient(spotApi, { baseUrl, apiKey, apiSecret })`.",
    " */",
    "export const spotApi: {",
    "  readonly operationTable: typeof operationTable;",
    "  readonly authentication: typeof authentication;",
    "  readonly createOperationMethods: typeof createOperationMethods;",
    "  readonly operationFacts: typeof operationFacts;",
    "  readonly apiFacts: typeof apiFacts;",
    "  /** Types only: never set at run time. */",
    "  readonly types?: SpotApiTypes;",
    "} = { operationTable, authentication, createOperationMethods, operationFacts, apiFacts };",
    "",
  ].join("\n");
}
