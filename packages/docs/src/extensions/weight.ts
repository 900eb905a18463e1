// x-weight in the docs: the request weight in each operation's facts, where the spec states one
// (the model reads an absent x-weight as 1, a fact only of APIs that count weights).
import type { Operation } from "@marketapi/spec/model";

export function weightLine(operation: Operation): string | undefined {
  if (operation.weightFrom !== "x-weight") return undefined;
  return `- **Request weight:** ${operation.weight}`;
}
