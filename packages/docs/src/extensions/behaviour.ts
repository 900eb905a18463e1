// The behaviour extensions of an operation as one "Behaviour" list under its description: each
// line from the renderer of its extension (beside this file), reading the typed model.
import { BEHAVIOUR_EXTENSIONS, type Behaviour, type Operation } from "@marketapi/spec/model";
import { cursorPagingLine } from "./cursor-paging.js";
import { limitLine } from "./limit.js";
import { listOrderLine } from "./list-order.js";
import { orderArithmeticLines } from "./order-arithmetic.js";
import { outcomeLookupLine } from "./outcome-lookup.js";
import { resultFilterLine } from "./result-filter.js";
import { serverTimeLine } from "./server-time.js";
import { timeWindowLine } from "./time-window.js";
import { unknownReferenceLine } from "./unknown-reference.js";

/**
 * The renderer of each behaviour extension, by its field on `Operation.behaviour`. The fields come
 * from the model's registry: a behaviour extension added there without its renderer here is a type
 * error that names the field.
 */
const RENDERERS: {
  [Field in keyof Behaviour]-?: (value: NonNullable<Behaviour[Field]>) => string | string[];
} = {
  listOrder: listOrderLine,
  cursorPaging: cursorPagingLine,
  timeWindow: timeWindowLine,
  resultFilters: resultFilterLine,
  limit: limitLine,
  unknownReferences: unknownReferenceLine,
  orderArithmetic: orderArithmeticLines,
  outcomeLookup: outcomeLookupLine,
  serverTime: serverTimeLine,
};

/** Markdown of the operation's behaviour extensions, in the registry's order, or undefined when it states none. */
export function behaviourMarkdown(operation: Operation): string | undefined {
  const lines = Object.values(BEHAVIOUR_EXTENSIONS).flatMap((field) => {
    const value = operation.behaviour[field];
    if (value === undefined) return [];
    const render = RENDERERS[field] as (value: unknown) => string | string[];
    return [render(value)].flat();
  });
  if (lines.length === 0) return undefined;
  return [
    "**Behaviour** (machine-readable in the spec's behaviour extensions):",
    "",
    ...lines.map((l) => `- ${l}`),
  ].join("\n");
}
