/**
 * --include and --exclude: the operations a run judges, named by operationId or by tag. Setup
 * (the probe, the order lifecycle's own calls) still uses whatever it needs; only the selected
 * operations get passes and cells.
 */
import { UsageError } from "../core/errors.js";
import type { ContractOperation } from "../core/operations.js";

const tagsOf = (operation: ContractOperation): string[] =>
  Array.isArray(operation.raw.tags)
    ? operation.raw.tags.filter((t): t is string => typeof t === "string")
    : [];

function matches(operation: ContractOperation, names: readonly string[]): boolean {
  return names.includes(operation.operationId) || tagsOf(operation).some((tag) => names.includes(tag));
}

/** The selected operations; a name that is neither an operationId nor a tag is a usage error. */
export function selectOperations(
  operations: readonly ContractOperation[],
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): ContractOperation[] {
  const known = new Set(operations.flatMap((o) => [o.operationId, ...tagsOf(o)]));
  for (const [flag, names] of [
    ["--include", include],
    ["--exclude", exclude],
  ] as const) {
    const unknown = (names ?? []).filter((name) => !known.has(name));
    if (unknown.length > 0)
      throw new UsageError(
        `${flag}: ${unknown.join(", ")} is neither an operationId nor a tag of the spec; known: ${[...known].join(", ")}`,
      );
  }
  const selected = operations.filter(
    (o) => (!include || include.length === 0 || matches(o, include)) && !(exclude && matches(o, exclude)),
  );
  if (selected.length === 0) throw new UsageError("--include/--exclude leave no operation to test");
  return selected;
}
