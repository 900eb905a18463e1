import type { CursorPaging } from "@marketapi/spec/model";
import { field, source } from "./behaviour-words.js";

export function cursorPagingLine(p: CursorPaging): string {
  const start = p.inclusive ? "the item whose id equals it, then later ones" : "items after it";
  const gaps = p.contiguous ? "; ids run without gaps, so the next page starts at the last id + 1" : "";
  return `**Paging** (\`x-cursor-paging\`): \`${p.parameter}\` starts the page at ${start} (id ${field(p.field)})${gaps}.${source(p.filledFrom)}`;
}
