// x-order-type-rules: which parameters each order type needs (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";
import { readGroups, readNames, requireObject } from "./names.js";

export interface OrderTypeRule {
  required?: string[];
  atLeastOneOf?: string[][];
  exactlyOneOf?: string[][];
  forbidden?: string[];
}

const LIST_KEYS = ["required", "forbidden"] as const;
const GROUP_KEYS = ["atLeastOneOf", "exactlyOneOf"] as const;

/** The rules by order type value, in the order the spec writes them; undefined when absent. */
export function readOrderTypeRules(
  value: unknown,
  where: string,
  declared: ReadonlySet<string>,
): Record<string, OrderTypeRule> | undefined {
  if (value === undefined) return undefined;
  const at = `${where}/x-order-type-rules`;
  const rules = requireObject(value, at, "an object of rules by order type");
  const out: Record<string, OrderTypeRule> = {};
  for (const [type, raw] of Object.entries(rules)) {
    const here = `${at}/${type}`;
    const rule = requireObject(raw, here, "a rule { required, atLeastOneOf, exactlyOneOf, forbidden }");
    const read: OrderTypeRule = {};
    for (const [key, entry] of Object.entries(rule)) {
      if ((LIST_KEYS as readonly string[]).includes(key)) {
        read[key as (typeof LIST_KEYS)[number]] = readNames(entry, `${here}/${key}`, declared);
      } else if ((GROUP_KEYS as readonly string[]).includes(key)) {
        read[key as (typeof GROUP_KEYS)[number]] = readGroups(entry, `${here}/${key}`, declared);
      } else {
        throw new SpecModelError(
          `${here}/${key}`,
          "one of required, atLeastOneOf, exactlyOneOf, forbidden",
          describeValue(key),
        );
      }
    }
    out[type] = read;
  }
  return out;
}

export const orderTypeRulesExtension = {
  key: "x-order-type-rules",
  name: "order-type-rules",
  on: "operation",
  field: "Operation.orderTypeRules",
  constrains: ["requests", "behaviour"],
  summary: "which parameters each order type requires, requires one of, or forbids",
  read: readOrderTypeRules,
} as const satisfies ExtensionDescriptor;
