import { generateClient } from "./client/generate-client.js";
import type { GeneratedFile, GeneratorContext } from "./generated-file.js";
import { loadSpec } from "./spec/load-spec.js";
import { buildModel, type SpecModel, selectOperations } from "./spec/operation-model.js";
import { generateValidators } from "./validators/generate-validators.js";

export type GeneratorName = "client" | "validators";

export type Generator = (
  model: SpecModel,
  context: GeneratorContext,
) => Promise<GeneratedFile[]> | GeneratedFile[];

export const GENERATORS: Record<GeneratorName, Generator> = {
  client: generateClient,
  validators: generateValidators,
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

/** Loads and checks the spec, then runs the chosen generators. Writes nothing. */
export async function generate(options: GenerateOptions): Promise<GeneratedFile[]> {
  const model = selectOperations(buildModel(await loadSpec(options.spec)), options.operations);
  const files: GeneratedFile[] = [];
  for (const name of options.generators) {
    files.push(...(await GENERATORS[name](model, { command: options.command })));
  }
  const paths = new Set<string>();
  for (const file of files) {
    if (paths.has(file.path)) throw new Error(`two generators emit the same file "${file.path}"`);
    paths.add(file.path);
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
