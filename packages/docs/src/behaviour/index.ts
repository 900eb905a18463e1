// The behaviour extensions on the docs page: one renderer per extension (beside this file), each
// reading the typed value of @marketapi/spec/model. Shown under "Behaviour" in every operation.
import { type JsonObject, readBehaviour, resolveRef } from "@marketapi/spec/model";
import { cursorPagingLine } from "./cursor-paging.js";
import { limitLine } from "./limit.js";
import { listOrderLine } from "./list-order.js";
import { orderArithmeticLines } from "./order-arithmetic.js";
import { resultFilterLine } from "./result-filter.js";
import { timeWindowLine } from "./time-window.js";
import { unknownReferenceLine } from "./unknown-reference.js";

/** Markdown of the operation's behaviour extensions, or undefined when it states none. */
export function behaviourMarkdown(
  operation: JsonObject,
  pointer: string,
  document: JsonObject,
): string | undefined {
  const parameters: unknown[] = Array.isArray(operation.parameters) ? operation.parameters : [];
  const declared = new Set(
    parameters.map((p, i) => resolveRef(document, p, `${pointer}/parameters/${i}`).name as string),
  );
  const b = readBehaviour(operation, pointer, declared);
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

export function source(filledFrom: string): string {
  return filledFrom === "live-api" ? " *(filled from the live API)*" : "";
}

export function where(list: string): string {
  return list === "" ? "the answer" : `\`${list.slice(1)}\``;
}

export function field(pointer: string): string {
  return pointer === "/0" ? "price" : `\`${pointer.slice(1)}\``;
}
