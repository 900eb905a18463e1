import type { UnknownReferences } from "@marketapi/spec/model";
import { source } from "./behaviour-words.js";

export function unknownReferenceLine(u: UnknownReferences): string {
  const parts = (["symbol", "order"] as const).flatMap((kind) => {
    const rule = u[kind];
    return rule ? [`an unknown ${kind} gives ${rule.status} with code ${rule.code}`] : [];
  });
  return `**Unknown references** (\`x-unknown-reference\`): ${parts.join("; ")}.${source(u.filledFrom)}`;
}
