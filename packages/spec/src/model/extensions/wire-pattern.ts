// x-wire-pattern: the text a parameter's value must match on the wire (docs/extensions.md).
import { isObject } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

/**
 * A (resolved) parameter schema's `x-wire-pattern`, checked to be a regular expression JavaScript
 * compiles in unicode mode; `where` is the schema's pointer.
 */
export function readWirePattern(schema: unknown, where: string): string | undefined {
  if (!isObject(schema)) return undefined;
  const pattern = schema["x-wire-pattern"];
  if (pattern === undefined) return undefined;
  let valid = typeof pattern === "string";
  try {
    if (valid) new RegExp(pattern as string, "u");
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new SpecModelError(
      `${where}/x-wire-pattern`,
      "a regular expression (ECMA-262, unicode mode) that the parameter's text must match",
      describeValue(pattern),
    );
  }
  return pattern as string;
}

export const wirePatternExtension = {
  key: "x-wire-pattern",
  name: "wire-pattern",
  on: "schema",
  field: "Parameter.wirePattern",
  constrains: ["requests"],
  summary: "the regular expression a parameter's text must match on the wire",
  read: readWirePattern,
} as const satisfies ExtensionDescriptor;
