// x-result-filter: parameters that restrict the answer to exactly the items they name (docs/extensions.md).

import {
  type FactSource,
  readFactSource,
  readList,
  readObject,
  readOneOf,
  readParameterName,
  readPointer,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

export interface ResultFilter {
  /** The parameter (`symbol`, or `symbols`, a JSON array of names). */
  parameter: string;
  /** "one": a single value; "list": a JSON array of values. */
  takes: "one" | "list";
  /** JSON Pointer of the list in the answer ("" when the answer is the list or, with one value, the item). */
  list: string;
  /** JSON Pointer of the filtered field inside each item. */
  field: string;
}

export interface ResultFilters {
  filters: ResultFilter[];
  /** A value that names nothing is refused (never answered with an empty result). */
  unknown: "error";
  filledFrom: FactSource;
}

export function readResultFilters(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): ResultFilters | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-result-filter`;
  const object = readObject(value, at, "an object with filters, unknown and filledFrom");
  return {
    filters: readList(object.filters, `${at}/filters`, (item, itemAt) => ({
      parameter: readParameterName(item, "parameter", itemAt, declared),
      takes: readOneOf(item, "takes", itemAt, ["one", "list"] as const),
      list: readPointer(item, "list", itemAt),
      field: readPointer(item, "field", itemAt),
    })),
    unknown: readOneOf(object, "unknown", at, ["error"] as const),
    filledFrom: readFactSource(object, at),
  };
}

export const resultFiltersExtension = {
  key: "x-result-filter",
  name: "result-filter",
  on: "operation",
  field: "Operation.behaviour.resultFilters",
  constrains: ["behaviour"],
  summary: "symbol/symbols restrict the answer to exactly those, or else an error",
  read: readResultFilters,
} as const satisfies ExtensionDescriptor;
