// x-order-type-rules in the docs: a table, one row per order type.
import type { Operation, OrderTypeRule } from "@marketapi/spec/model";
import { code, table, text } from "../markdown.js";

/**
 * One row per order type: what is required (names, and the groups to choose from: exactly / at
 * least one of), then what is forbidden. Plain text in three columns, so that Redoc's narrow
 * middle column wraps it well.
 */
export function orderTypeRulesMarkdown(operation: Pick<Operation, "orderTypeRules">): string | undefined {
  const rules = operation.orderTypeRules;
  if (rules === undefined || Object.keys(rules).length === 0) return undefined;
  const rows = Object.entries(rules).map(([type, rule]) => [
    text(type),
    requiredText(rule),
    namesText(rule.forbidden),
  ]);
  return `**Parameters per order type** (${code("x-order-type-rules")}):\n\n${table(
    ["Order type", "Required", "Forbidden"],
    rows,
  )}`;
}

function namesText(names: string[] | undefined): string {
  return names === undefined || names.length === 0 ? "–" : text(names.join(", "));
}

/** `timeInForce, quantity, price; at least one of stopPrice, trailingDelta`. */
function requiredText(rule: OrderTypeRule): string {
  const parts = rule.required && rule.required.length > 0 ? [namesText(rule.required)] : [];
  for (const group of rule.exactlyOneOf ?? []) parts.push(`exactly one of ${text(group.join(", "))}`);
  for (const group of rule.atLeastOneOf ?? []) parts.push(`at least one of ${text(group.join(", "))}`);
  return parts.length === 0 ? "–" : parts.join("; ");
}
