import type { GeneratedFile, GeneratorContext } from "./generated-file.js";
import { checkStructure } from "./spec-input/check-structure.js";
import { type LoadedSpec, loadSpec } from "./spec-input/load-spec.js";
import { selectOperations } from "./spec-input/select-operations.js";
import { SpecError } from "./spec-input/spec-error.js";
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
  /** The regenerate command written into file headers. */
  command: string;
}

/**
 * Loads the spec and checks it (OpenAPI 3.1 structure, then what the generators rely on), then
 * runs the chosen generators. Everything happens in memory: nothing is written. A SpecError from
 * any step carries the line and column of the faulty node when the spec was read from a file.
 */
export async function generate(options: GenerateOptions): Promise<GeneratedFile[]> {
  const spec = await loadSpec(options.spec);
  try {
    await checkStructure(spec);
    const model = selectOperations(buildModel(spec), options.operations);
    const files: GeneratedFile[] = [];
    for (const name of options.generators) {
      files.push(...(await GENERATORS[name](model, { command: options.command })));
    }
    const paths = new Set<string>();
    for (const file of files) {
      if (paths.has(file.path)) throw new Error(`two generators emit the same file "${file.path}"`);
      paths.add(file.path);
    }
    // Code-unit order, not localeCompare: the same on every machine whatever its locale.
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } catch (error) {
    if (error instanceof SpecError) locateAll(error, spec);
    throw error;
  }
}

/** Adds line and column to a SpecError (and the faults it carries) that points into this spec. */
function locateAll(error: SpecError, spec: LoadedSpec): void {
  for (const fault of error.all()) {
    if (fault.source !== spec.source || fault.line !== undefined) continue;
    const position = spec.locate?.(fault.pointer);
    if (position) fault.locate(position.line, position.column);
  }
}
