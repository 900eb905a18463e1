/**
 * The pass over one operation that does not change state: its examples and boundary values
 * (judged by the checks run on every answer), then every check whose hook is "operation"
 * (negative data, auth probes, declared defaults), in the order of CHECKS.
 */

import { checksAt } from "../checks/index.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { cannotCall, enabled, type RunContext } from "../kit/context.js";
import { boundaryCases, exampleCases } from "../kit/values.js";

export async function readOnlyPass(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const { session } = ctx;
  const answerChecks = checksAt("answer");
  const lacking = cannotCall(ctx, operation);
  if (lacking) {
    for (const check of answerChecks) session.recorder.skip(check.name, operation.operationId, lacking);
  } else if (answerChecks.some((check) => enabled(ctx, check.name))) {
    for (const c of [...exampleCases(operation, ctx.values), ...boundaryCases(operation, ctx.values)]) {
      await session.call({ op: operation, params: encodeParams(operation, c.values) }, c.label);
    }
  }
  for (const check of checksAt("operation")) await check.hook.run(ctx, operation);
}
