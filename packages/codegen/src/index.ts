/**
 * @marketapi/codegen: the generators behind @marketapi/client and @marketapi/validators, as a
 * library. Each generator is a plain function from a checked spec model to a list of files;
 * only `writeOutput` (and the marketapi-codegen command) touches the disk.
 */

export {
  DEFAULT_SPEC,
  type LoadedSpec,
  loadSpec,
  type OpenApiDocument,
  parseSpecText,
  SpecError,
  type TextPosition,
  upgradeOpenApi30,
} from "@marketapi/spec-loader";
export {
  DEFAULT_MAX_OPERATIONS,
  GENERATORS,
  type GenerateOptions,
  type Generator,
  type GeneratorName,
  generate,
} from "./generate.js";
export {
  CODEGEN_VERSION,
  fileHeader,
  GENERATED_MARKER,
  type GeneratedFile,
  type GeneratorContext,
} from "./generated-file.js";
export { checkStructure } from "./spec-input/check-structure.js";
export { selectOperations, subsetDocument, UnknownOperationError } from "./spec-input/select-operations.js";
export {
  AUTH_CLASSES,
  type AuthClass,
  buildModel,
  type HttpMethod,
  type JsonSchema,
  type Operation,
  type Parameter,
  type Response,
  resolveRef,
  type SourcedSpecModel,
} from "./spec-input/spec-model.js";
export { diffOutput, type OutputDifference, writeOutput } from "./write-files.js";
