import { closest } from "@marketapi/command";
import { subsetDocument as subsetOf } from "@marketapi/spec/model";
import type { OpenApiDocument } from "@marketapi/spec-loader";
import { buildModel, type SourcedSpecModel } from "./spec-model.js";

/**
 * Keeps only the named operations (`--operations`), in document order, and a document pruned to
 * them (see `subsetDocument`), so that every generator leaves out what only the others used.
 * Throws UnknownOperationError naming any unknown name: the fault is in the selection, not the spec.
 */
export function selectOperations(
  model: SourcedSpecModel,
  names: readonly string[] | undefined,
): SourcedSpecModel {
  if (!names) return model;
  const known = new Set(model.operations.map((o) => o.operationId));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) throw new UnknownOperationError(model.source, unknown, [...known]);
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

/** `--operations` names an operationId the spec does not have. */
export class UnknownOperationError extends Error {
  override name = "UnknownOperationError";

  constructor(
    readonly source: string,
    readonly unknown: readonly string[],
    readonly known: readonly string[],
  ) {
    const each = unknown.map((name) => {
      const match = closest(name, known);
      return `no operation "${name}"${match === undefined ? "" : ` (did you mean "${match}"?)`}`;
    });
    super(`--operations: ${source} has ${each.join(", ")}; its operationIds: ${known.join(", ")}`);
  }
}
