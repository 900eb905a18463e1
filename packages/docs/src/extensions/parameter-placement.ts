// x-parameter-placement in the docs: where the parameters travel, in each operation's facts.
import type { Operation, ParameterPlacement } from "@marketapi/spec/model";
import { code } from "../markdown.js";

const PLACEMENTS: Record<ParameterPlacement, string | undefined> = {
  query: undefined,
  "query-or-form-body":
    "the query string or an `application/x-www-form-urlencoded` body, or split between them; a name sent in both takes the query value",
};

/** The line of the operation's facts for a placement other than the query string alone. */
export function parameterPlacementLine(operation: Operation): string | undefined {
  const words = PLACEMENTS[operation.parameterPlacement];
  return words && `- **Parameters sent in:** ${words} (${code(operation.parameterPlacement)})`;
}
