// x-parameter-conditions in the docs: "when `a` is sent, `b` must be `X`".
import type { Operation } from "@marketapi/spec/model";
import { code } from "../markdown.js";

export function parameterConditionsMarkdown(
  operation: Pick<Operation, "parameterConditions">,
): string | undefined {
  if (operation.parameterConditions.length === 0) return undefined;
  const lines = operation.parameterConditions.map(({ when, require }) => {
    const demands = Object.entries(require).map(
      ([name, value]) =>
        `${code(name)} must be ${code(typeof value === "string" ? value : JSON.stringify(value))}`,
    );
    return `- When ${code(when)} is sent, ${demands.join(" and ")}.`;
  });
  return `**Conditions between parameters** (${code("x-parameter-conditions")}):\n\n${lines.join("\n")}`;
}
