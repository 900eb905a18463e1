import type { GeneratedFile, GeneratorContext } from "../generated-file.js";
import type { SpecModel } from "../spec/operation-model.js";

// Placeholder until the client generator lands (issue 3); it fails loudly rather than emit nothing.
export function generateClient(_model: SpecModel, _context: GeneratorContext): GeneratedFile[] {
  throw new Error("the client generator is not written yet");
}
