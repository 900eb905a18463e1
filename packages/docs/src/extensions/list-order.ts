import type { ListOrder } from "@marketapi/spec/model";
import { field, source, where } from "./behaviour-words.js";

export function listOrderLine(order: ListOrder): string {
  const parts = order.lists.map(
    (l) => `${where(l.list)} by ${field(l.field)}, ${l.direction}${l.strict ? " (no ties)" : ""}`,
  );
  return `**Order** (\`x-list-order\`): ${parts.join("; ")}.${source(order.filledFrom)}`;
}
