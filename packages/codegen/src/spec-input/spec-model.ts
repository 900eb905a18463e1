// The generators read the spec through @marketapi/spec's model; this module adds the spec's source
// (for SpecError messages with line and column) and turns the model's faults into SpecErrors.
import {
  buildSpecModel,
  resolveRef as resolveModelRef,
  type SpecModel,
  SpecModelError,
} from "@marketapi/spec/model";
import type { LoadedSpec } from "./load-spec.js";
import { checkVersion } from "./openapi-version.js";
import { SpecError } from "./spec-error.js";

export {
  AUTH_CLASSES,
  type AuthClass,
  type HttpMethod,
  type JsonSchema,
  type Operation,
  type Parameter,
  type Response,
  type ResponseVariants,
  type SpecModel,
  type VariantShape,
} from "@marketapi/spec/model";

/** The spec model of @marketapi/spec, with the name of the file or package it came from. */
export interface SourcedSpecModel extends SpecModel {
  source: string;
}

/**
 * Checks the parts of an OpenAPI 3.1 document the generators rely on and returns its model, one
 * operation per operation object in document order. Every fault is a SpecError naming its JSON Pointer.
 */
export function buildModel(spec: LoadedSpec): SourcedSpecModel {
  checkVersion(spec.source, spec.document);
  return { ...asSpecError(spec.source, () => buildSpecModel(spec.document)), source: spec.source };
}

/** Follows local `$ref`s with the model's resolver; throws SpecError when one does not resolve. */
export function resolveRef(
  model: Pick<SourcedSpecModel, "source" | "document">,
  node: unknown,
  pointer: string,
) {
  return asSpecError(model.source, () => resolveModelRef(model.document, node, pointer));
}

/** Runs `read`, turning a SpecModelError into a SpecError of `source`. */
export function asSpecError<T>(source: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SpecModelError)
      throw new SpecError(source, error.pointer, error.expected, error.found);
    throw error;
  }
}
