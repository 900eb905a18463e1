/**
 * The generation phase: fast-check values for the operations that do not change state, with
 * the budget --max-requests leaves after the deterministic phases, spread evenly. Answers go
 * through the response-level checks only. It stops early when the used request weight reaches
 * 60 % of the server's per-minute limit, so a run never gets the tester's IP banned.
 */

import { RESPONSE_CHECKS } from "../checks/index.js";
import { type ContractOperation, isSigned, isTrading, methodOf, requiresApiKey } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { enabled, markPass, type RunContext, reportPass } from "../kit/context.js";
import { generatedCases } from "../kit/values.js";
import { BudgetExhausted, PassStopped } from "../session/session.js";

const WEIGHT_SHARE = 0.6;

export function generatable(ctx: RunContext, operation: ContractOperation): boolean {
  if (isTrading(operation) || methodOf(operation) !== "GET") return false;
  if (requiresApiKey(operation) && !ctx.session.credentials) return false;
  return !isSigned(operation) || ctx.session.canSign;
}

export async function generatedPhase(ctx: RunContext, operations: ContractOperation[]): Promise<void> {
  if (!RESPONSE_CHECKS.some((check) => enabled(ctx, check))) return;
  const { session } = ctx;
  const targets = operations.filter((o) => generatable(ctx, o));
  if (targets.length === 0) return;
  const share = Math.floor(session.remaining() / targets.length);
  let stoppedForWeight = false;
  for (const [index, operation] of targets.entries()) {
    const mark = markPass(ctx, operation.operationId);
    let note: string | undefined;
    let budgetUsed = false;
    try {
      for (const c of generatedCases(operation, ctx.values, ctx.seed + index, share)) {
        if (!session.weightBelow(WEIGHT_SHARE)) {
          stoppedForWeight = true;
          break;
        }
        await session.call({ op: operation, params: encodeParams(operation, c.values) }, c.label);
      }
    } catch (error) {
      if (!(error instanceof PassStopped)) throw error;
      note = error.message;
      budgetUsed = error instanceof BudgetExhausted;
    }
    if (stoppedForWeight) note = "stopped generating: request weight near the server's per-minute limit";
    reportPass(ctx, mark, "generated", note);
    if (budgetUsed || stoppedForWeight) break;
  }
}
