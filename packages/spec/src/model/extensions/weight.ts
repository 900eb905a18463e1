// x-weight: the request weight of the common case (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

/** The operation's weight; 1 when the extension is absent. */
export function readWeight(value: unknown, where: string): number {
  if (value === undefined) return 1;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new SpecModelError(`${where}/x-weight`, "a whole number of at least 0", describeValue(value));
  }
  return value;
}

export const weightExtension = {
  key: "x-weight",
  name: "weight",
  on: "operation",
  field: "Operation.weight",
  constrains: ["docs"],
  summary:
    "the request weight of the common case; informational, since the full rule may vary with parameters (the description states it)",
  read: readWeight,
} as const satisfies ExtensionDescriptor;
