// x-weight: the request weight, and how it varies with a parameter (docs/extensions.md).
import { isObject } from "../json.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

/** One step of a weight that grows with a parameter's value: values up to `upTo` weigh `weight`. */
export interface WeightTier {
  upTo: number;
  weight: number;
}

/**
 * An operation's request weight: `weight` in the common case; where it depends on one parameter,
 * `parameter` names it, `absent` is the weight without it, and `tiers` give it by the parameter's
 * value (a number, or the count of a list): the first tier whose `upTo` is at least the value, the
 * last one above them all. `@marketapi/pacer`'s `requestWeight` computes a request's weight from it.
 */
export interface WeightRule {
  weight: number;
  parameter?: string;
  absent?: number;
  tiers?: WeightTier[];
}

function readWhole(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
    throw new SpecModelError(where, "a whole number of at least 0", describeValue(value));
  return value;
}

/**
 * The operation's weight rule: `x-weight: 5`, or `{ weight, parameter, absent?, tiers? }`;
 * `{ weight: 1 }` when the extension is absent. `declared`: the operation's parameter names.
 */
export function readWeight(value: unknown, where: string, declared?: ReadonlySet<string>): WeightRule {
  const at = `${where}/x-weight`;
  if (value === undefined) return { weight: 1 };
  if (!isObject(value)) return { weight: readWhole(value, at) };
  const allowed = ["weight", "parameter", "absent", "tiers"];
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined)
    throw new SpecModelError(`${at}/${unknown}`, `one of ${allowed.join(", ")}`, describeValue(unknown));
  const rule: WeightRule = { weight: readWhole(value.weight, `${at}/weight`) };
  const parameter = value.parameter;
  if (typeof parameter !== "string" || (declared !== undefined && !declared.has(parameter)))
    throw new SpecModelError(
      `${at}/parameter`,
      "the name of a parameter of the operation",
      describeValue(parameter),
    );
  rule.parameter = parameter;
  if (value.absent !== undefined) rule.absent = readWhole(value.absent, `${at}/absent`);
  if (value.tiers !== undefined) rule.tiers = readTiers(value.tiers, `${at}/tiers`);
  if (rule.absent === undefined && rule.tiers === undefined)
    throw new SpecModelError(
      at,
      "absent or tiers (how the weight varies with the parameter)",
      describeValue(value),
    );
  return rule;
}

function readTiers(value: unknown, at: string): WeightTier[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new SpecModelError(at, "a non-empty list of { upTo, weight }", describeValue(value));
  let previous = Number.NEGATIVE_INFINITY;
  return value.map((tier, i) => {
    if (!isObject(tier))
      throw new SpecModelError(`${at}/${i}`, "an object { upTo, weight }", describeValue(tier));
    const upTo = readWhole(tier.upTo, `${at}/${i}/upTo`);
    if (upTo <= previous)
      throw new SpecModelError(
        `${at}/${i}/upTo`,
        `a value above the previous tier's (${previous})`,
        describeValue(upTo),
      );
    previous = upTo;
    return { upTo, weight: readWhole(tier.weight, `${at}/${i}/weight`) };
  });
}

export const weightExtension = {
  key: "x-weight",
  name: "weight",
  on: "operation",
  field: "Operation.weightRule",
  constrains: ["docs"],
  summary:
    "the request weight counted against the rate limit, and how it varies with a parameter (by tiers of its value, or without it)",
  read: readWeight,
} as const satisfies ExtensionDescriptor;
