// x-refusals in the docs: one table of the refusal rules the spec states, with their status and code.
import { REFUSAL_RULES, type SpecModel } from "@marketapi/spec/model";
import { code, table, text } from "../markdown.js";
import { source } from "./behaviour-words.js";

export const REFUSALS_SECTION_TITLE = "Refusals and their codes";

export function refusalsMarkdown(model: Pick<SpecModel, "refusals">): string | undefined {
  const refusals = model.refusals;
  if (refusals === undefined || refusals.rules.length === 0) return undefined;
  // A parameter with a code of its own gets a row of its own: one code per cell keeps the table
  // narrow enough for the documentation's middle column.
  const rows = refusals.rules.flatMap((r) => {
    const where = r.operations ? r.operations.map(code).join(", ") : "every operation";
    return [
      [text(REFUSAL_RULES[r.rule]), String(r.status), code(String(r.code)), where],
      ...Object.entries(r.byParameter).map(([name, c]) => [
        `${text(REFUSAL_RULES[r.rule])}, for ${code(name)}`,
        String(r.status),
        code(String(c)),
        where,
      ]),
    ];
  });
  return [
    `## ${REFUSALS_SECTION_TITLE}`,
    `What the spec says is refused, and how (${code("x-refusals")}).${source(refusals.filledFrom)} An unknown symbol or order, a time window too wide and a bad signature or timestamp have their codes beside their rules (${code("x-unknown-reference")}, ${code("x-time-window")}, ${code("x-signing")}).`,
    table(["A request with", "status", "code", "where"], rows),
  ].join("\n\n");
}
