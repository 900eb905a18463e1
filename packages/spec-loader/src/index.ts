/**
 * `@marketapi/spec-loader`: the one reader of OpenAPI documents for marketapi's commands
 * (`marketapi-codegen`, `marketapi-diff`). `loadSpec(fileOrPackage)` reads YAML or JSON with a
 * size cap, strict UTF-8 and a nesting bound, and returns the raw document with a locator that
 * turns a JSON Pointer into a line and column. Faults are `SpecError`s:
 * `source#pointer (line L, column C): expected …, found …`.
 */
export {
  DEFAULT_MAX_INPUT_BYTES,
  InputError,
  type InputLimits,
  type InputPosition,
  MAX_INPUT_BYTES_ENV,
  MAX_NESTING_DEPTH,
  maxInputBytes,
} from "./input.js";
export { escapeSegment, pointerOf, segmentsOf, valueAt } from "./json-pointer.js";
export {
  DEFAULT_SPEC,
  type LoadedSpec,
  type LoadOptions,
  loadSpec,
  located,
  type OpenApiDocument,
  parseSpecText,
  specFromText,
  type TextPosition,
} from "./load-spec.js";
export {
  checkDeclaredVersion,
  isOpenApi30,
  OPENAPI_30_OR_31,
  SWAGGER_CONVERTER,
  versionFault,
} from "./openapi-version.js";
export { describeValue, SpecError } from "./spec-error.js";
export { type DeclaredVersion, declaredVersion, locateInJson } from "./text-scan.js";
export { upgradeOpenApi30 } from "./upgrade-3.0.js";
