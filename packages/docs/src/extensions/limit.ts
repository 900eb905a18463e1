import type { LimitRule } from "@marketapi/spec/model";
import { source, where } from "./behaviour-words.js";

export function limitLine(l: LimitRule): string {
  const above = l.aboveMaximum === "truncate" ? `truncated to ${l.maximum}` : "refused (4xx)";
  return `**Limit** (\`x-limit\`): \`${l.parameter}\` default ${l.default}, maximum ${l.maximum}; above the maximum the request is ${above}. Counts ${l.counts.map(where).join(" and ")}.${source(l.filledFrom)}`;
}
