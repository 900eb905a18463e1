import type { ResultFilters } from "@marketapi/spec/model";
import { field, source, where } from "./behaviour-words.js";

export function resultFilterLine(r: ResultFilters): string {
  const parts = r.filters.map(
    (f) =>
      `\`${f.parameter}\` keeps exactly the ${f.takes === "list" ? "items it lists" : "item it names"} (${where(f.list)}, by ${field(f.field)})`,
  );
  return `**Filters** (\`x-result-filter\`): ${parts.join("; ")}; a value that names nothing is an error, never an empty answer.${source(r.filledFrom)}`;
}
