import type { OrderArithmetic } from "@marketapi/spec/model";
import { source } from "./behaviour-words.js";

export function orderArithmeticLines(a: OrderArithmetic): string[] {
  return [
    `**Order arithmetic** (\`x-order-arithmetic\`): the \`${a.fills.qty}\` of \`${a.fills.list}\` sum to \`${a.executedQty}\`; \`${a.quoteQty}\` is the sum of \`${a.fills.price}\` × \`${a.fills.qty}\`.${source(a.filledFrom)}`,
    `**Never rest:** ${a.neverRest.map((t) => `\`${t}\``).join(", ")} (an unfilled remainder expires); all or nothing: ${a.allOrNothing.map((t) => `\`${t}\``).join(", ")}.`,
    `**Status by executed quantity:** none ${a.status.none.join("/")}, part ${a.status.part.join("/")}, all ${a.status.all.join("/")}.`,
  ];
}
