import { stringLiteral } from "./typescript-source.js";

/** The names client.gen.ts exports: the API as a value, and its types. */
export interface ApiNames {
  readonly value: string;
  readonly types: string;
  /** The options of the doc comment's example call. */
  readonly exampleOptions: string;
  /** Names the same exports had in earlier output, kept as deprecated aliases. */
  readonly formerly?: { readonly value: string; readonly types: string };
}

/**
 * The body of client.gen.ts: the generated API as one value for `createApiClient` of
 * @marketapi/client. The value (`api`; `spotApi` for marketapi's own spec) holds what the runtime
 * reads (the operation table, the authentication facts, the method binder, and the facts it paces,
 * retries and pages by); the types (`ApiTypes`; `SpotApiTypes`) carry the `paths` for
 * openapi-fetch's path-based calls and the methods for whatever per-call options type the runtime
 * supplies. The file imports nothing outside the generated folder, so the same output serves
 * @marketapi/client itself and a consumer's repository.
 */
export function renderApiDefinition(
  modules: { types: string; operations: string; methods: string; facts: string },
  names: ApiNames,
): string {
  const formerly = names.formerly;
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
    `export interface ${names.types} {`,
    "  readonly paths: paths;",
    "  readonly options: unknown;",
    "  readonly mode: ResultMode;",
    '  readonly methods: SpotApiMethods<this["options"], this["mode"]>;',
    "}",
    "",
    "/**",
    " * This API as `createApiClient` of @marketapi/client takes it:",
    ` * \`createApiClient(${names.value}, ${names.exampleOptions})\`.`,
    " */",
    `export const ${names.value}: {`,
    "  readonly operationTable: typeof operationTable;",
    "  readonly authentication: typeof authentication;",
    "  readonly createOperationMethods: typeof createOperationMethods;",
    "  readonly operationFacts: typeof operationFacts;",
    "  readonly apiFacts: typeof apiFacts;",
    "  /** Types only: never set at run time. */",
    `  readonly types?: ${names.types};`,
    "} = { operationTable, authentication, createOperationMethods, operationFacts, apiFacts };",
    "",
    ...(formerly
      ? [
          `/** @deprecated The name of earlier versions of this file: use \`${names.types}\`. */`,
          `export type ${formerly.types} = ${names.types};`,
          `/** @deprecated The name of earlier versions of this file: use \`${names.value}\`. */`,
          `export const ${formerly.value}: typeof ${names.value} = ${names.value};`,
          "",
        ]
      : []),
  ].join("\n");
}
