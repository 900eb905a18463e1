// x-parameter-placement: where the parameters may travel (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

export type ParameterPlacement = "query" | "query-or-form-body";

/** "query" when the extension is absent (the parameters travel as the spec declares them). */
export function readParameterPlacement(value: unknown, where: string): ParameterPlacement {
  if (value === undefined) return "query";
  if (value !== "query-or-form-body") {
    throw new SpecModelError(`${where}/x-parameter-placement`, '"query-or-form-body"', describeValue(value));
  }
  return value;
}

export const parameterPlacementExtension = {
  key: "x-parameter-placement",
  name: "parameter-placement",
  on: "operation",
  field: "Operation.parameterPlacement (and Operation.acceptsFormBody)",
  constrains: ["behaviour"],
  summary: "where parameters may travel: the query string, or also a form body",
  read: readParameterPlacement,
} as const satisfies ExtensionDescriptor;
