// x-response-variant-by in the docs: a table from the parameter's value (or presence) to the schema.
import type { Operation } from "@marketapi/spec/model";
import { code, table, text } from "../markdown.js";

/** Variant names of a by-presence rule, in words. */
const PRESENCE: Record<string, string> = { present: "sent", absent: "not sent" };

export function responseVariantsMarkdown(operation: Pick<Operation, "responseVariants">): string | undefined {
  const variants = operation.responseVariants;
  if (variants === undefined || Object.keys(variants.components).length === 0) return undefined;
  const byPresence = variants.by === "presence";
  const rows = Object.entries(variants.components).map(([variant, schema]) => [
    byPresence ? text(PRESENCE[variant] ?? variant) : code(variant),
    code(schema),
  ]);
  const parameter = code(variants.parameter);
  return `**Response shape by ${parameter}** (${code("x-response-variant-by")}):\n\n${table(
    [parameter, "Response schema"],
    rows,
  )}`;
}
