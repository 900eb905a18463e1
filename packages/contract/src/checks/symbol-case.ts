/**
 * symbol_case: symbols are upper case (the Symbol schema's pattern); a symbol the target lists,
 * written in lower or mixed case, is refused, not matched without regard to case. Run on every
 * operation whose symbol x-unknown-reference covers.
 */

import { type ContractOperation, isTrading } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { unreachable, valuesFor } from "../kit/behaviour-support.js";
import { expectRefusal, type RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "symbol_case";

export const symbolCase: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "case",
  description: "a listed symbol in lower or mixed case is refused, not matched regardless of case",
  covers: ["x-unknown-reference"],
  hooks: [{ phase: "behaviour", run: symbolCaseCheck, needsHistory: false }],
  appliesTo: (operation) => operation.behaviour.unknownReferences?.symbol !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["case-insensitive-depth"],
};

export function caseVariants(symbol: string): string[] {
  const lower = symbol.toLowerCase();
  const mixed = symbol.charAt(0) + lower.slice(1);
  return [...new Set([lower, mixed])].filter((s) => s !== symbol);
}

export async function symbolCaseCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const rule = operation.behaviour.unknownReferences?.symbol;
  if (!rule || isTrading(operation)) return;
  const lacking = unreachable(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  for (const name of rule.parameters) {
    for (const variant of caseVariants(ctx.values.symbol)) {
      const values = valuesFor(ctx, operation, { [name]: variant });
      const exchange = await ctx.session.call(
        { op: operation, params: encodeParams(operation, values) },
        `symbol case: ${name}=${variant}`,
      );
      expectRefusal(ctx, CHECK, exchange, {
        what: `${name}=${variant} (the listed symbol is ${ctx.values.symbol})`,
      });
    }
  }
}
