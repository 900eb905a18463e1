import type { GeneratedFile, GeneratorContext } from "../generated-file.js";
import type { SpecModel } from "../spec/operation-model.js";

// Placeholder until the validators generator lands (issue 4); it fails loudly rather than emit nothing.
export function generateValidators(_model: SpecModel, _context: GeneratorContext): GeneratedFile[] {
  throw new Error("the validators generator is not written yet");
}
