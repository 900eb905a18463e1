/**
 * The behaviour an operation promises beyond the shape of its answers, read from the behaviour
 * extensions (one module each under extensions/). The reference server honours it, the contract
 * tester checks it, the docs render it and the diff classifies changes to it.
 */
import { type CursorPaging, readCursorPaging } from "./extensions/cursor-paging.js";
import { type LimitRule, readLimit } from "./extensions/limit.js";
import { type ListOrder, readListOrder } from "./extensions/list-order.js";
import { type OrderArithmetic, readOrderArithmetic } from "./extensions/order-arithmetic.js";
import { type ResultFilters, readResultFilters } from "./extensions/result-filter.js";
import { readTimeWindow, type TimeWindow } from "./extensions/time-window.js";
import { readUnknownReferences, type UnknownReferences } from "./extensions/unknown-reference.js";
import type { JsonObject } from "./json.js";

export interface Behaviour {
  /** x-list-order. */
  listOrder?: ListOrder;
  /** x-cursor-paging. */
  cursorPaging?: CursorPaging;
  /** x-time-window. */
  timeWindow?: TimeWindow;
  /** x-result-filter. */
  resultFilters?: ResultFilters;
  /** x-limit. */
  limit?: LimitRule;
  /** x-unknown-reference. */
  unknownReferences?: UnknownReferences;
  /** x-order-arithmetic. */
  orderArithmetic?: OrderArithmetic;
}

/** The behaviour extensions, by key: what each reads into. */
export const BEHAVIOUR_EXTENSIONS = {
  "x-list-order": "listOrder",
  "x-cursor-paging": "cursorPaging",
  "x-time-window": "timeWindow",
  "x-result-filter": "resultFilters",
  "x-limit": "limit",
  "x-unknown-reference": "unknownReferences",
  "x-order-arithmetic": "orderArithmetic",
} as const satisfies Record<string, keyof Behaviour>;

export function readBehaviour(raw: JsonObject, pointer: string, declared: ReadonlySet<string>): Behaviour {
  const parts: Behaviour = {
    listOrder: readListOrder(raw["x-list-order"], pointer),
    cursorPaging: readCursorPaging(raw["x-cursor-paging"], pointer, declared),
    timeWindow: readTimeWindow(raw["x-time-window"], pointer, declared),
    resultFilters: readResultFilters(raw["x-result-filter"], pointer, declared),
    limit: readLimit(raw["x-limit"], pointer, declared),
    unknownReferences: readUnknownReferences(raw["x-unknown-reference"], pointer, declared),
    orderArithmetic: readOrderArithmetic(raw["x-order-arithmetic"], pointer),
  };
  return Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)) as Behaviour;
}
