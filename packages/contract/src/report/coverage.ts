/**
 * The coverage report as text (printed by default after the table) and as a JUnit test suite:
 * per operation, exercised / declared for each dimension, then what was not exercised, grouped
 * by why. `--json` carries the whole report (ContractResult.coverage), item by item.
 */

import type { ContractResult } from "../result.js";
import {
  COVERAGE_DIMENSIONS,
  type CoverageDimension,
  type CoverageItem,
  type OperationCoverage,
} from "../session/coverage.js";

const HEADINGS: Record<CoverageDimension, string> = {
  parameters: "params",
  values: "values",
  variants: "variants",
  statuses: "statuses",
  relations: "relations",
};
/** Items listed per reason before "+N more" (the JSON lists them all). */
const LISTED = 8;

function fraction(items: readonly CoverageItem[]): string {
  return items.length === 0 ? "–" : `${items.filter((i) => i.exercised).length}/${items.length}`;
}

/** The not-exercised items of one dimension, grouped by reason: "a, b, c (why)". */
export function missing(items: readonly CoverageItem[]): string[] {
  const byWhy = new Map<string, string[]>();
  for (const item of items) {
    if (item.exercised) continue;
    const why = item.why ?? "not exercised";
    byWhy.set(why, [...(byWhy.get(why) ?? []), item.item]);
  }
  return [...byWhy.entries()].map(([why, names]) => {
    const shown = names.slice(0, LISTED).join(", ");
    const more = names.length > LISTED ? ` +${names.length - LISTED} more` : "";
    return `${shown}${more} (${why})`;
  });
}

/** Every not-exercised item of the operation, one line per dimension. */
export function missingLines(operation: OperationCoverage): string[] {
  const lines: string[] = [];
  for (const dimension of COVERAGE_DIMENSIONS) {
    const groups = missing(operation[dimension]);
    if (groups.length > 0) lines.push(`${HEADINGS[dimension]}: ${groups.join("; ")}`);
  }
  if (operation.undocumentedStatuses.length > 0) {
    lines.push(
      `undocumented statuses answered: ${operation.undocumentedStatuses.map((s) => `${s.status} (×${s.count})`).join(", ")}`,
    );
  }
  return lines;
}

export function coverageText(result: ContractResult, bold: (text: string) => string): string {
  const coverage = result.coverage;
  if (!coverage || coverage.operations.length === 0) return "";
  const width = Math.max(9, ...coverage.operations.map((o) => o.operationId.length)) + 2;
  const column = (text: string) => text.padEnd(11);
  const lines = [
    bold(
      "COVERAGE (exercised/declared per operation; what was not, and why, below; --json lists every item)",
    ),
    bold(
      `${"operation".padEnd(width)}${COVERAGE_DIMENSIONS.map((d) => column(HEADINGS[d])).join("")}`.trimEnd(),
    ),
  ];
  for (const operation of coverage.operations) {
    lines.push(
      `${operation.operationId.padEnd(width)}${COVERAGE_DIMENSIONS.map((d) => column(fraction(operation[d]))).join("")}`.trimEnd(),
    );
  }
  // The same gap on many operations (a status no answer had) is printed once, with their names.
  const where = new Map<string, string[]>();
  for (const operation of coverage.operations) {
    for (const line of missingLines(operation))
      where.set(line, [...(where.get(line) ?? []), operation.operationId]);
  }
  if (where.size > 0) lines.push("not exercised:");
  const all = coverage.operations.length;
  for (const [line, ids] of [...where.entries()].sort((a, b) => b[1].length - a[1].length)) {
    const others = coverage.operations.map((o) => o.operationId).filter((id) => !ids.includes(id));
    const label =
      ids.length === all && all > 1
        ? "every operation"
        : ids.length > 3 && others.length <= 3
          ? `every operation but ${others.join(", ")}`
          : ids.length > 3
            ? `${ids.length} operations (${ids.join(", ")})`
            : ids.join(", ");
    if (label.length < width) lines.push(`  ${label.padEnd(width)}${line}`);
    else lines.push(`  ${label}`, `  ${" ".repeat(width)}${line}`);
  }
  return lines.join("\n");
}

/** Per dimension, the names of the exercised items (for JUnit properties). */
export function exercisedNames(operation: OperationCoverage, dimension: CoverageDimension): string {
  return operation[dimension]
    .filter((i) => i.exercised)
    .map((i) => i.item)
    .join(", ");
}
