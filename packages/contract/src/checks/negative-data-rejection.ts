/**
 * negative_data_rejection: a request that breaks the spec (a value outside its schema, a
 * missing required parameter, an `x-mutually-exclusive` pair, an `x-order-type-rules` violation)
 * must be refused with a 4xx. The cases come from values.ts; the order lifecycle sends the ones
 * that need an order.
 */
import { encodeParams } from "../http/request.js";
import type { ContractOperation } from "../operations.js";
import { negativeCases, requiredValues, type Values } from "../values.js";
import type { ContractCheck } from "./check.js";
import { enabled, expectRefusal, type RunContext, tolerated } from "./context.js";
import { truncatedBySpec } from "./limit-semantics.js";
import { negativeExpectation } from "./refusal-codes.js";

export const negativeDataRejection: ContractCheck = {
  name: "negative_data_rejection",
  // Each refusal with the code x-refusals names for the rule the case breaks.
  covers: ["x-mutually-exclusive", "x-order-type-rules", "x-refusals"],
};

/** The required parameters plus the known order, for operations that look an order up. */
export function targetValues(operation: ContractOperation, ctx: RunContext): Values {
  const values = requiredValues(operation, ctx.values);
  if (operation.parameters.some((p) => p.name === "orderId") && ctx.values.orderId !== undefined) {
    values.orderId = ctx.values.orderId;
  }
  return values;
}

export async function negativePass(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (!enabled(ctx, "negative_data_rejection")) return;
  const cases = negativeCases(operation, encodeParams(operation, targetValues(operation, ctx)));
  if (cases.length === 0) {
    ctx.session.recorder.skip("negative_data_rejection", operation.operationId, "no parameters to violate");
    return;
  }
  for (const c of cases) {
    if (truncatedBySpec(ctx, operation, c) || tolerated(ctx, operation, c)) continue;
    const exchange = await ctx.session.call({ op: operation, params: c.params }, c.label);
    expectRefusal(
      ctx,
      "negative_data_rejection",
      exchange,
      negativeExpectation(ctx, operation.operationId, c),
    );
  }
}
