import { operationEntries } from "@marketapi/spec/model";
import { type LoadedSpec, loadSpec, located, SpecError } from "@marketapi/spec-loader";
import type { GeneratedFile, GeneratorContext } from "./generated-file.js";
import { checkStructure } from "./spec-input/check-structure.js";
import { withoutEmptyHints } from "./spec-input/empty-hints.js";
import { atOriginalPlace, hoistReferences } from "./spec-input/hoist-references.js";
import { selectOperations } from "./spec-input/select-operations.js";
import { buildModel, type SourcedSpecModel } from "./spec-input/spec-model.js";

export type GeneratorName = "client" | "validators";

export type Generator = (
  model: SourcedSpecModel,
  context: GeneratorContext,
) => Promise<GeneratedFile[]> | GeneratedFile[];

/**
 * The generators by name. Each loads its module on first use: the client generator brings
 * TypeScript and openapi-typescript (about half a second), which neither a validators-only run
 * nor a spec that fails its checks should wait for.
 */
export const GENERATORS: Record<GeneratorName, Generator> = {
  client: async (model, context) =>
    (await import("./client/generate-client.js")).generateClient(model, context),
  validators: async (model, context) =>
    (await import("./validators/generate-validators.js")).generateValidators(model, context),
};

export interface GenerateOptions {
  /** A YAML/JSON file path or a package exporting openapi.json; defaults to @marketapi/spec. */
  spec?: string;
  generators: GeneratorName[];
  /** Restrict output to these operationIds. */
  operations?: string[];
  /** Also the Endpoint record's validators (default: only for @marketapi/spec). */
  endpoint?: boolean;
  /** Our strict schema rules (default: only for @marketapi/spec); otherwise JSON Schema 2020-12 as written. */
  strictSchemas?: boolean;
  /** The regenerate command written into file headers. */
  command: string;
  /** The most bytes of spec read (default: MARKETAPI_MAX_INPUT_BYTES, else 16 MiB). */
  maxInputBytes?: number;
  /** The most operations generated in one run (default DEFAULT_MAX_OPERATIONS). */
  maxOperations?: number;
}

/**
 * The most operations one run generates. The validators' compiler (ajv) runs out of stack between
 * 4,000 and 9,000 operations, and memory grows by about 0.2 MB an operation (370 MB at 2,000):
 * a larger API is generated in parts with --operations.
 */
export const DEFAULT_MAX_OPERATIONS = 2000;

/** marketapi's own spec, the default: the only one whose output has our names, rules and Endpoint record. */
const OWN_SPEC = "@marketapi/spec";

/**
 * Loads the spec and checks it (OpenAPI 3.1 structure, then what the generators rely on), then
 * runs the chosen generators. Everything happens in memory: nothing is written. A SpecError from
 * any step carries the line and column of the faulty node when the spec was read from a file.
 */
export async function generate(options: GenerateOptions): Promise<GeneratedFile[]> {
  // The declared version is read from the text, so that a document codegen does not read is
  // refused before it is parsed; 3.0 is upgraded to 3.1 in memory.
  const loaded = loadSpec(options.spec, { maxBytes: options.maxInputBytes, openApi30: "upgrade" });
  const spec = { ...loaded, document: withoutEmptyHints(loaded.document) };
  let origins: ReadonlyMap<string, string> = new Map();
  try {
    // Counted before any check: the structure check alone takes seconds on an absurd spec.
    checkOperationCount(spec, options.operations, options.maxOperations ?? DEFAULT_MAX_OPERATIONS);
    await checkStructure(spec);
    const hoisted = hoistReferences(spec.document);
    origins = hoisted.origins;
    const model = selectOperations(buildModel({ ...spec, document: hoisted.document }), options.operations);
    const files: GeneratedFile[] = [];
    const ownSpec = options.spec === undefined || options.spec === OWN_SPEC;
    const context: GeneratorContext = {
      command: options.command,
      ownSpec,
      endpoint: options.endpoint ?? ownSpec,
      strictSchemas: options.strictSchemas ?? ownSpec,
    };
    for (const name of options.generators) files.push(...(await GENERATORS[name](model, context)));
    const paths = new Set<string>();
    for (const file of files) {
      if (paths.has(file.path)) throw new Error(`two generators emit the same file "${file.path}"`);
      paths.add(file.path);
    }
    // Code-unit order, not localeCompare: the same on every machine whatever its locale.
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } catch (error) {
    throw located(atOriginalPlace(stackOverflowAsSpecError(error, spec.source), origins), spec);
  }
}

function checkOperationCount(spec: LoadedSpec, selected: readonly string[] | undefined, max: number): void {
  const count = selected?.length ?? operationEntries(spec.document).length;
  if (count <= max) return;
  throw new SpecError(
    spec.source,
    "/paths",
    `at most ${max} operations in one run (generate the API in parts with --operations, or raise the limit with --max-operations)`,
    `${count}`,
  );
}

/**
 * A generator that ran out of call stack did so on the size of this spec (the nesting of its
 * documents is bounded by the loader): that is a spec the generators cannot use, exit 2, not a crash.
 */
function stackOverflowAsSpecError(error: unknown, source: string): unknown {
  if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) return error;
  return new SpecError(
    source,
    "",
    "a spec the generators can compile",
    "one too large for them (the call stack ran out); generate it in parts with --operations",
  );
}
