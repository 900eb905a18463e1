// x-parameter-conditions: when one parameter is present, others must hold given values (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";
import { requireObject } from "./names.js";

export interface ParameterCondition {
  /** The parameter whose presence triggers the condition. */
  when: string;
  /** The values other parameters must then have, by name. */
  require: Record<string, unknown>;
}

export function readParameterConditions(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): ParameterCondition[] {
  if (value === undefined) return [];
  const at = `${where}/x-parameter-conditions`;
  if (!Array.isArray(value))
    throw new SpecModelError(at, "a list of { when, require }", describeValue(value));
  return value.map((raw, i) => {
    const here = `${at}/${i}`;
    const condition = requireObject(raw, here, "a condition { when, require }");
    if (typeof condition.when !== "string" || !declared.has(condition.when)) {
      throw new SpecModelError(
        `${here}/when`,
        "the name of a parameter of the operation",
        describeValue(condition.when),
      );
    }
    const require = requireObject(
      condition.require,
      `${here}/require`,
      "an object of required values by parameter name",
    );
    for (const name of Object.keys(require)) {
      if (!declared.has(name)) {
        throw new SpecModelError(
          `${here}/require`,
          "names of parameters of the operation",
          describeValue(name),
        );
      }
    }
    return { when: condition.when, require: { ...require } };
  });
}

export const parameterConditionsExtension = {
  key: "x-parameter-conditions",
  name: "parameter-conditions",
  on: "operation",
  field: "Operation.parameterConditions",
  constrains: ["requests"],
  summary: "when one parameter is sent, the values others must have",
  read: readParameterConditions,
} as const satisfies ExtensionDescriptor;
