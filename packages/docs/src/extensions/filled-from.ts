// x-filled-from in the docs: where the parts the source document left open were taken from.
import type { SpecModel } from "@marketapi/spec/model";
import { code, text } from "../markdown.js";

export const FILLED_FROM_SECTION_TITLE = "Filled from the live API";

export function filledFromMarkdown(model: Pick<SpecModel, "filledFrom">): string | undefined {
  const filledFrom = model.filledFrom;
  if (filledFrom === undefined || (filledFrom.source === "" && filledFrom.parts.length === 0))
    return undefined;
  return [
    `## ${FILLED_FROM_SECTION_TITLE}`,
    `${filledFrom.source ? `Source: ${text(filledFrom.source)}. ` : ""}These parts were filled from it (${code("x-filled-from")}):`,
    filledFrom.parts.map((part) => `- ${text(part)}`).join("\n"),
  ].join("\n\n");
}
