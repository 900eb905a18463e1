// x-order-type-rules in the validators generator: one `if`/`then` rule per order type.

import { SpecError } from "../../spec-input/spec-error.js";
import type { JsonSchema, Operation, SourcedSpecModel } from "../../spec-input/spec-model.js";
import { type HintTable, schemaPathOf } from "../message-hints.js";
import { conditional, declared, exclusionOf, pairsOf, resolveSchema } from "./schema-rules.js";

export function orderTypeRules(
  model: SourcedSpecModel,
  operation: Operation,
  base: string,
  hints: HintTable,
): Record<string, unknown>[] {
  const table = operation.orderTypeRules;
  if (table === undefined) return [];
  const where = `${operation.pointer}/x-order-type-rules`;
  const selector = selectorParameter(model, operation, Object.keys(table), where);
  return Object.entries(table).map(([value, rule], index) => {
    const when = `when ${selector} is ${value}`;
    const then: Record<string, unknown> = {};
    const thenProperties: Record<string, JsonSchema> = {};
    const allOf: Record<string, unknown>[] = [];
    const thenSegments = ["allOf", index, "then"] as const;
    hints[schemaPathOf(base, thenSegments)] = { when, rule: "x-order-type-rules" };
    if (rule.required !== undefined) {
      then.required = rule.required;
      Object.assign(thenProperties, declared(rule.required));
    }
    for (const name of rule.forbidden ?? []) thenProperties[name] = false;
    const groups = [
      ...(rule.atLeastOneOf ?? []).map((names) => ({ names, exact: false })),
      ...(rule.exactlyOneOf ?? []).map((names) => ({ names, exact: true })),
    ];
    for (const { names, exact } of groups) {
      hints[schemaPathOf(base, [...thenSegments, "allOf", allOf.length])] = {
        when,
        rule: "x-order-type-rules",
        oneOfNames: names,
      };
      allOf.push({ anyOf: names.map((name) => ({ required: [name], properties: declared([name]) })) });
      if (!exact) continue;
      for (const pair of pairsOf(names)) {
        hints[schemaPathOf(base, [...thenSegments, "allOf", allOf.length])] = {
          when,
          rule: "x-order-type-rules",
          exclusive: pair,
        };
        allOf.push(exclusionOf(pair));
      }
    }
    if (Object.keys(thenProperties).length > 0) then.properties = thenProperties;
    if (allOf.length > 0) then.allOf = allOf;
    return conditional({ properties: { [selector]: { const: value } }, required: [selector] }, then);
  });
}

/** The parameter whose allowed values are the rule table's keys (`type` for order types). */
function selectorParameter(
  model: SourcedSpecModel,
  operation: Operation,
  keys: string[],
  where: string,
): string {
  const candidates = operation.parameters.filter((p) => {
    const values = resolveSchema(model, p.schema, operation.pointer).enum;
    return Array.isArray(values) && keys.every((key) => values.includes(key));
  });
  if (candidates.length !== 1) {
    throw new SpecError(
      model.source,
      where,
      "rule keys that are the allowed values of exactly one parameter",
      candidates.length === 0 ? "no such parameter" : candidates.map((p) => p.name).join(", "),
    );
  }
  return candidates[0]!.name;
}
