// x-mutually-exclusive in the docs: "at most one of `symbol`, `symbols`".
import type { Operation } from "@marketapi/spec/model";
import { code } from "../markdown.js";

export function mutuallyExclusiveMarkdown(
  operation: Pick<Operation, "mutuallyExclusive">,
): string | undefined {
  if (operation.mutuallyExclusive.length === 0) return undefined;
  const lines = operation.mutuallyExclusive.map((group) => `- at most one of ${group.map(code).join(", ")}`);
  return `**Parameters that cannot be combined** (${code("x-mutually-exclusive")}):\n\n${lines.join("\n")}`;
}
