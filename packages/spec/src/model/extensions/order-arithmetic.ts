// x-order-arithmetic: how the numbers and status of an order answer relate (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import { type FactSource, readFactSource, readObject, readString, readStrings } from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

export interface OrderArithmetic {
  /** The answer's executed quantity field; the fills' quantities sum to it. */
  executedQty: string;
  /** The answer's quote quantity field; it equals Σ price × qty over the fills. */
  quoteQty: string;
  /** The list of fills in a FULL answer and its price and quantity fields. */
  fills: { list: string; price: string; qty: string };
  /** timeInForce values whose orders never rest on the book (an unfilled rest expires). */
  neverRest: string[];
  /** timeInForce values that fill completely or not at all. */
  allOrNothing: string[];
  /** Status by executed quantity: none, part, all of origQty. */
  status: { none: string[]; part: string[]; all: string[] };
  filledFrom: FactSource;
}

export function readOrderArithmetic(value: unknown, where: string): OrderArithmetic | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-order-arithmetic`;
  const object = readObject(
    value,
    at,
    "an object with executedQty, quoteQty, fills, neverRest, allOrNothing, status and filledFrom",
  );
  const fills = readObject(object.fills, `${at}/fills`, "an object with list, price and qty");
  const status = readObject(object.status, `${at}/status`, "an object with none, part and all");
  const statusOf = (key: "none" | "part" | "all") => {
    const list = readStrings(status, key, `${at}/status`);
    if (list.length === 0)
      throw new SpecModelError(`${at}/status/${key}`, "at least one status", describeValue(list));
    return list;
  };
  return {
    executedQty: readString(object, "executedQty", at),
    quoteQty: readString(object, "quoteQty", at),
    fills: {
      list: readString(fills, "list", `${at}/fills`),
      price: readString(fills, "price", `${at}/fills`),
      qty: readString(fills, "qty", `${at}/fills`),
    },
    neverRest: readStrings(object, "neverRest", at),
    allOrNothing: readStrings(object, "allOrNothing", at),
    status: { none: statusOf("none"), part: statusOf("part"), all: statusOf("all") },
    filledFrom: readFactSource(object, at),
  };
}

export const orderArithmeticExtension = {
  key: "x-order-arithmetic",
  name: "order-arithmetic",
  on: "operation",
  field: "Operation.behaviour.orderArithmetic",
  constrains: ["behaviour"],
  summary:
    "fills sum to executedQty, quote = Σ price × qty, IOC/FOK never rest, status follows the executed quantity",
  read: readOrderArithmetic,
} as const satisfies ExtensionDescriptor;
