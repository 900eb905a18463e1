import { subsetDocument as subsetOf } from "@marketapi/spec/model";
import type { OpenApiDocument } from "./load-spec.js";
import { SpecError } from "./spec-error.js";
import { buildModel, type SourcedSpecModel } from "./spec-model.js";

/**
 * Keeps only the named operations (`--operations`), in document order, and a document pruned to
 * them (see `subsetDocument`), so that every generator leaves out what only the others used.
 * Throws SpecError naming any unknown name.
 */
export function selectOperations(
  model: SourcedSpecModel,
  names: readonly string[] | undefined,
): SourcedSpecModel {
  if (!names) return model;
  const known = new Set(model.operations.map((o) => o.operationId));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new SpecError(
      model.source,
      "/paths",
      `operationIds among ${[...known].join(", ")}`,
      unknown.join(", "),
    );
  }
  const subset = { ...model, operations: model.operations.filter((o) => names.includes(o.operationId)) };
  return buildModel({ source: model.source, document: subsetDocument(subset) });
}

/**
 * A deep copy of the spec that holds only the model's operations, and only the components they
 * reach (see `subsetDocument` of @marketapi/spec/model). The input document is never modified.
 */
export function subsetDocument(model: Pick<SourcedSpecModel, "document" | "operations">): OpenApiDocument {
  return subsetOf(model.document, new Set(model.operations.map((o) => `${o.method} ${o.path}`)));
}
