// The behaviour extensions of an operation as one "Behaviour" list under its description: each
// line from the renderer of its extension (beside this file), reading the typed model.
import type { Operation } from "@marketapi/spec/model";
import { cursorPagingLine } from "./cursor-paging.js";
import { limitLine } from "./limit.js";
import { listOrderLine } from "./list-order.js";
import { orderArithmeticLines } from "./order-arithmetic.js";
import { resultFilterLine } from "./result-filter.js";
import { timeWindowLine } from "./time-window.js";
import { unknownReferenceLine } from "./unknown-reference.js";

/** Markdown of the operation's behaviour extensions, or undefined when it states none. */
export function behaviourMarkdown(operation: Operation): string | undefined {
  const b = operation.behaviour;
  const lines = [
    b.listOrder && listOrderLine(b.listOrder),
    b.cursorPaging && cursorPagingLine(b.cursorPaging),
    b.timeWindow && timeWindowLine(b.timeWindow),
    b.resultFilters && resultFilterLine(b.resultFilters),
    b.limit && limitLine(b.limit),
    b.unknownReferences && unknownReferenceLine(b.unknownReferences),
    ...(b.orderArithmetic ? orderArithmeticLines(b.orderArithmetic) : []),
  ].filter((line): line is string => typeof line === "string");
  if (lines.length === 0) return undefined;
  return [
    "**Behaviour** (machine-readable in the spec's behaviour extensions):",
    "",
    ...lines.map((l) => `- ${l}`),
  ].join("\n");
}
