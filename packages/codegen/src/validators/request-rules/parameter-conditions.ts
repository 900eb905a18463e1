// x-parameter-conditions in the validators generator.
import type { Operation } from "../../spec-input/spec-model.js";
import { type HintTable, schemaPathOf } from "../message-hints.js";
import { conditional, declared } from "./schema-rules.js";

/** `x-parameter-conditions`: when the trigger is given, the named parameters must have the given values. */
export function parameterConditions(
  operation: Operation,
  base: string,
  hints: HintTable,
  offset: number,
): Record<string, unknown>[] {
  return operation.parameterConditions.map(({ when: trigger, require }, i) => {
    const names = Object.keys(require);
    hints[schemaPathOf(base, ["allOf", offset + i, "then"])] = {
      when: `when ${trigger} is given`,
      rule: "x-parameter-conditions",
    };
    return conditional(
      { required: [trigger], properties: declared([trigger]) },
      {
        required: names,
        properties: Object.fromEntries(names.map((name) => [name, { const: require[name] }])),
      },
    );
  });
}
