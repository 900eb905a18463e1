import { isObject, isStringList } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";

/** A list of parameter names, each declared by the operation. */
export function readNames(value: unknown, where: string, declared: ReadonlySet<string>): string[] {
  if (!isStringList(value) || value.length === 0) {
    throw new SpecModelError(where, "a non-empty list of parameter names", describeValue(value));
  }
  value.forEach((name, i) => {
    if (!declared.has(name)) {
      throw new SpecModelError(
        `${where}/${i}`,
        "the name of a parameter of the operation",
        describeValue(name),
      );
    }
  });
  return [...value];
}

/** A list of groups of parameter names. */
export function readGroups(value: unknown, where: string, declared: ReadonlySet<string>): string[][] {
  if (!Array.isArray(value))
    throw new SpecModelError(where, "a list of groups of parameter names", describeValue(value));
  return value.map((group, i) => readNames(group, `${where}/${i}`, declared));
}

export function requireObject(value: unknown, where: string, expected: string): Record<string, unknown> {
  if (!isObject(value)) throw new SpecModelError(where, expected, describeValue(value));
  return value;
}
