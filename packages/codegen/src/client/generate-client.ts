import { fileHeader, type GeneratedFile, type GeneratorContext } from "../generated-file.js";
import { insideExtension } from "../spec-input/check-structure.js";
import { subsetDocument } from "../spec-input/select-operations.js";
import type { SourcedSpecModel } from "../spec-input/spec-model.js";
import { renderApiDefinition } from "./api-definition.js";
import { readClientModel } from "./client-operations.js";
import { acceptDecimalText } from "./decimal-parameters.js";
import { exposeJsonParameterSchemas } from "./json-parameters.js";
import { renderTypes } from "./openapi-typescript-adapter.js";
import { renderOperationFacts } from "./operation-facts.js";
import { renderOperationMethods } from "./operation-methods.js";
import { renderOperationTable } from "./operation-table.js";

/** The files of the typed client, relative to the output folder. */
export const CLIENT_FILES = {
  types: "spot-api.gen.ts",
  operations: "operations.gen.ts",
  methods: "methods.gen.ts",
  facts: "facts.gen.ts",
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
  // Every refusal of the spec is thrown here, together, before any file is made.
  const client = readClientModel(model);
  const header = fileHeader("client", model.source, context);
  const document = subsetDocument(model);
  exposeJsonParameterSchemas(document);
  acceptDecimalText(document);
  // An operation without an operationId has the one the model derived ("get /pets/{id}"): the
  // types name it so (openapi-typescript types only operations with an id in \`operations\`).
  for (const op of model.operations) document.paths[op.path][op.method].operationId ??= op.operationId;
  const readWriteMarkers = usesReadOrWriteOnly(document);
  const modules = {
    types: moduleSpecifier(CLIENT_FILES.types),
    operations: moduleSpecifier(CLIENT_FILES.operations),
    methods: moduleSpecifier(CLIENT_FILES.methods),
    facts: moduleSpecifier(CLIENT_FILES.facts),
  };
  return [
    {
      path: CLIENT_FILES.types,
      contents: `${header}\n${await renderTypes(withoutExtensions(document) as typeof document, { readWriteMarkers })}`,
    },
    { path: CLIENT_FILES.operations, contents: `${header}\n${renderOperationTable(model, client)}` },
    {
      path: CLIENT_FILES.methods,
      contents: `${header}\n${renderOperationMethods(client, modules.types, readWriteMarkers, modules.facts)}`,
    },
    { path: CLIENT_FILES.facts, contents: `${header}\n${renderOperationFacts(model, client)}` },
    { path: CLIENT_FILES.api, contents: `${header}\n${renderApiDefinition(modules)}` },
  ];
}

/** How one generated file imports another: "./spot-api.gen.js" (NodeNext resolution). */
function moduleSpecifier(file: string): string {
  return `./${file.replace(/\.ts$/, ".js")}`;
}

/**
 * Whether a schema of the document marks a property readOnly or writeOnly: then the types carry
 * openapi-typescript's markers, so that request bodies leave out readOnly properties and
 * response bodies writeOnly ones (their helper types are written into the types file).
 */
function usesReadOrWriteOnly(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(usesReadOrWriteOnly);
  if (typeof node !== "object" || node === null) return false;
  for (const [key, value] of Object.entries(node)) {
    if ((key === "readOnly" || key === "writeOnly") && value === true) return true;
    if (key.startsWith("x-") || key === "example" || key === "examples" || key === "default") continue;
    if (usesReadOrWriteOnly(value)) return true;
  }
  return false;
}

/**
 * The document without its `x-` extensions, for openapi-typescript: no type comes from them, and
 * it would follow a `$ref` inside one (an extension of another tool may hold anything).
 */
function withoutExtensions(node: unknown, parentKey = ""): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutExtensions(item));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (insideExtension([parentKey, key])) continue;
    out[key] =
      key === "example" || key === "examples" || key === "default" ? value : withoutExtensions(value, key);
  }
  return out;
}
