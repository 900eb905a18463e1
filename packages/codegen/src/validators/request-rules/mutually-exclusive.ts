// x-mutually-exclusive in the validators generator.
import type { Operation } from "../../spec-input/spec-model.js";
import { type HintTable, schemaPathOf } from "../message-hints.js";
import { exclusionOf } from "./schema-rules.js";

/** `x-mutually-exclusive: [[symbol, symbols]]`: at most one name of each group may be given. */
export function mutuallyExclusive(
  operation: Operation,
  base: string,
  hints: HintTable,
  offset: number,
): Record<string, unknown>[] {
  return operation.exclusivePairs.map((pair, i) => {
    hints[schemaPathOf(base, ["allOf", offset + i])] = { rule: "x-mutually-exclusive", exclusive: pair };
    return exclusionOf(pair);
  });
}
