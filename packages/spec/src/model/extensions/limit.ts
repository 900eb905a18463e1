// x-limit: what the `limit` parameter does: default, maximum, and above the maximum (docs/extensions.md).

import { describeValue, SpecModelError } from "../spec-model-error.js";
import {
  type FactSource,
  readFactSource,
  readInteger,
  readObject,
  readOneOf,
  readParameterName,
  readPointer,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/** Above the maximum the server answers `maximum` items ("truncate") or refuses the request ("refuse"). */
export type AboveMaximum = "truncate" | "refuse";

export interface LimitRule {
  parameter: string;
  /** Items answered when the parameter is absent. */
  default: number;
  maximum: number;
  aboveMaximum: AboveMaximum;
  /** JSON Pointers of the lists the limit counts ("" is the answer itself; `/bids`, `/asks` per side). */
  counts: string[];
  filledFrom: FactSource;
}

export function readLimit(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): LimitRule | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-limit`;
  const object = readObject(
    value,
    at,
    "an object with parameter, default, maximum, aboveMaximum, counts and filledFrom",
  );
  const rule: LimitRule = {
    parameter: readParameterName(object, "parameter", at, declared),
    default: readInteger(object, "default", at),
    maximum: readInteger(object, "maximum", at),
    aboveMaximum: readOneOf(object, "aboveMaximum", at, ["truncate", "refuse"] as const),
    counts: [],
    filledFrom: readFactSource(object, at),
  };
  if (rule.default < 1 || rule.default > rule.maximum)
    throw new SpecModelError(
      `${at}/default`,
      `a number in 1..maximum (${rule.maximum})`,
      describeValue(rule.default),
    );
  const counts = object.counts;
  if (!Array.isArray(counts) || counts.length === 0)
    throw new SpecModelError(`${at}/counts`, "a non-empty list of JSON Pointers", describeValue(counts));
  rule.counts = counts.map((_, i) =>
    readPointer(counts as unknown as Record<string, unknown>, String(i), `${at}/counts`),
  );
  return rule;
}

export const limitExtension = {
  key: "x-limit",
  name: "limit",
  on: "operation",
  field: "Operation.behaviour.limit",
  constrains: ["behaviour"],
  summary: "limit: default, maximum, and truncation or refusal above the maximum",
  read: readLimit,
} as const satisfies ExtensionDescriptor;
