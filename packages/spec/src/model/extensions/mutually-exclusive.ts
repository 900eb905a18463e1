// x-mutually-exclusive: groups of parameters of which at most one may be sent (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";
import { readGroups } from "./names.js";

export function readMutuallyExclusive(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): string[][] {
  if (value === undefined) return [];
  const at = `${where}/x-mutually-exclusive`;
  const groups = readGroups(value, at, declared);
  groups.forEach((group, i) => {
    if (group.length < 2)
      throw new SpecModelError(`${at}/${i}`, "a group of at least two parameter names", describeValue(group));
  });
  return groups;
}

/** Every pair of names that may not be sent together, in the order the groups list them. */
export function exclusivePairs(groups: readonly string[][]): Array<[string, string]> {
  return groups.flatMap((group) =>
    group.flatMap((a, i) => group.slice(i + 1).map((b): [string, string] => [a, b])),
  );
}

export const mutuallyExclusiveExtension = {
  key: "x-mutually-exclusive",
  name: "mutually-exclusive",
  on: "operation",
  field: "Operation.mutuallyExclusive (and Operation.exclusivePairs)",
  constrains: ["requests", "behaviour"],
  summary: "groups of parameters of which at most one may be sent",
  read: readMutuallyExclusive,
} as const satisfies ExtensionDescriptor;
