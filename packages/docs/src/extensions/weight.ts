// x-weight in the docs: the request weight in each operation's facts, with how it varies.
import type { Operation, WeightRule } from "@marketapi/spec/model";

export function weightLine(operation: Operation): string {
  return `- **Request weight:** ${weightWords(operation.weightRule)}`;
}

function weightWords(rule: WeightRule): string {
  if (rule.parameter === undefined) return String(rule.weight);
  const name = `\`${rule.parameter}\``;
  const parts: string[] = [];
  if (rule.tiers) {
    let from = 1;
    for (const tier of rule.tiers) {
      parts.push(`${tier.weight} for ${name} ${from}–${tier.upTo}`);
      from = tier.upTo + 1;
    }
  } else parts.push(`${rule.weight} with ${name}`);
  if (rule.absent !== undefined) parts.push(`${rule.absent} without it`);
  return parts.join(", ");
}
