import { fileHeader, type GeneratedFile, type GeneratorContext } from "../generated-file.js";
import { subsetDocument } from "../spec-input/select-operations.js";
import { describeValue, SpecError } from "../spec-input/spec-error.js";
import type { SourcedSpecModel } from "../spec-input/spec-model.js";
import { renderApiDefinition } from "./api-definition.js";
import { exposeJsonParameterSchemas } from "./json-parameters.js";
import { renderTypes } from "./openapi-typescript-adapter.js";
import { renderOperationMethods } from "./operation-methods.js";
import { renderOperationTable } from "./operation-table.js";

/** The files of the typed client, relative to the output folder. */
export const CLIENT_FILES = {
  types: "spot-api.gen.ts",
  operations: "operations.gen.ts",
  methods: "methods.gen.ts",
  api: "client.gen.ts",
} as const;

/**
 * Generates the typed client from a checked spec model: the openapi-typescript types
 * (`spot-api.gen.ts`), the run-time operation table (`operations.gen.ts`) and one typed method
 * per operationId (`methods.gen.ts`), and the three bound into one value for the client runtime
 * (`client.gen.ts`, which `createApiClient` of @marketapi/client takes). Only the model's
 * operations are emitted. Pure: reads and writes nothing, and the same model always gives the
 * same bytes.
 */
export async function generateClient(
  model: SourcedSpecModel,
  context: GeneratorContext,
): Promise<GeneratedFile[]> {
  checkMethodNames(model);
  const header = fileHeader("client", model.source, context);
  const document = subsetDocument(model);
  exposeJsonParameterSchemas(document);
  const modules = {
    types: moduleSpecifier(CLIENT_FILES.types),
    operations: moduleSpecifier(CLIENT_FILES.operations),
    methods: moduleSpecifier(CLIENT_FILES.methods),
  };
  return [
    { path: CLIENT_FILES.types, contents: `${header}\n${await renderTypes(document)}` },
    { path: CLIENT_FILES.operations, contents: `${header}\n${renderOperationTable(model)}` },
    { path: CLIENT_FILES.methods, contents: `${header}\n${renderOperationMethods(model, modules.types)}` },
    { path: CLIENT_FILES.api, contents: `${header}\n${renderApiDefinition(modules)}` },
  ];
}

/** How one generated file imports another: "./spot-api.gen.js" (NodeNext resolution). */
function moduleSpecifier(file: string): string {
  return `./${file.replace(/\.ts$/, ".js")}`;
}

// The per-operation methods sit next to openapi-fetch's own members on the client object.
const CLIENT_MEMBERS = [
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
  "request",
  "use",
  "eject",
];

function checkMethodNames(model: SourcedSpecModel): void {
  for (const op of model.operations) {
    if (CLIENT_MEMBERS.includes(op.operationId)) {
      throw new SpecError(
        model.source,
        `${op.pointer}/operationId`,
        `an operationId that is not a member of the openapi-fetch client (${CLIENT_MEMBERS.join(", ")})`,
        describeValue(op.operationId),
      );
    }
  }
}
