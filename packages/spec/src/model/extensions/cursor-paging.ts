// x-cursor-paging: a parameter that starts a page at an item's id (docs/extensions.md).

import {
  type FactSource,
  readBoolean,
  readFactSource,
  readObject,
  readParameterName,
  readPointer,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

export interface CursorPaging {
  /** The cursor parameter (`fromId`). */
  parameter: string;
  /** JSON Pointer of the id inside each item of the answer. */
  field: string;
  /** The item whose id equals the cursor is the first of the page. */
  inclusive: boolean;
  /** Ids run without gaps: the page holds cursor, cursor + 1, … while items exist. */
  contiguous: boolean;
  filledFrom: FactSource;
}

export function readCursorPaging(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): CursorPaging | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-cursor-paging`;
  const object = readObject(
    value,
    at,
    "an object with parameter, field, inclusive, contiguous and filledFrom",
  );
  return {
    parameter: readParameterName(object, "parameter", at, declared),
    field: readPointer(object, "field", at),
    inclusive: readBoolean(object, "inclusive", at),
    contiguous: readBoolean(object, "contiguous", at),
    filledFrom: readFactSource(object, at),
  };
}

export const cursorPagingExtension = {
  key: "x-cursor-paging",
  name: "cursor-paging",
  on: "operation",
  field: "Operation.behaviour.cursorPaging",
  constrains: ["behaviour"],
  summary: "the paging cursor (fromId): inclusive, contiguous ids",
  read: readCursorPaging,
} as const satisfies ExtensionDescriptor;
