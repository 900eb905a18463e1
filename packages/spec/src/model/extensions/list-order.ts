// x-list-order: the order of every list in an answer (docs/extensions.md).

import {
  type FactSource,
  readBoolean,
  readFactSource,
  readList,
  readObject,
  readOneOf,
  readPointer,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

export type SortDirection = "ascending" | "descending";

export interface ListOrderEntry {
  /** JSON Pointer of the list in the answer ("" when the answer is the list). */
  list: string;
  /** JSON Pointer of the sort key inside each item ("/id", or "/0" for a `[price, qty]` level). */
  field: string;
  direction: SortDirection;
  /** No two neighbours share the key. */
  strict: boolean;
}

export interface ListOrder {
  lists: ListOrderEntry[];
  filledFrom: FactSource;
}

export const SORT_DIRECTIONS: readonly SortDirection[] = ["ascending", "descending"];

export function readListOrder(value: unknown, where: string): ListOrder | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-list-order`;
  const object = readObject(value, at, "an object with lists and filledFrom");
  return {
    lists: readList(object.lists, `${at}/lists`, (item, itemAt) => ({
      list: readPointer(item, "list", itemAt),
      field: readPointer(item, "field", itemAt),
      direction: readOneOf(item, "direction", itemAt, SORT_DIRECTIONS),
      strict: readBoolean(item, "strict", itemAt),
    })),
    filledFrom: readFactSource(object, at),
  };
}

export const listOrderExtension = {
  key: "x-list-order",
  name: "list-order",
  on: "operation",
  field: "Operation.behaviour.listOrder",
  constrains: ["behaviour"],
  summary: "the order of every list in the answer: field and direction",
  read: readListOrder,
} as const satisfies ExtensionDescriptor;
