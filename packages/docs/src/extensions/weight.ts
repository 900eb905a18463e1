// x-weight in the docs: the request weight in each operation's facts.
import type { Operation } from "@marketapi/spec/model";

export function weightLine(operation: Operation): string {
  return `- **Request weight:** ${operation.weight}`;
}
