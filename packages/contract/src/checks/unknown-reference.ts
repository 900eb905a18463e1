/**
 * unknown_reference (x-unknown-reference): a well-formed symbol the target does not list, or an
 * order id it never issued, is refused with the stated status and code, never answered with an
 * empty result.
 */

import { type ContractOperation, isTrading, methodOf } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { unreachable, valuesFor } from "../kit/behaviour-support.js";
import { expectRefusal, type RunContext } from "../kit/context.js";
import { unknownSymbol } from "../kit/market.js";
import type { ContractCheck } from "./check.js";

const CHECK = "unknown_reference";

export const unknownReference: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "unknown",
  description: "an unknown symbol or order is refused with the code x-unknown-reference names",
  covers: ["x-unknown-reference"],
  hooks: [{ phase: "behaviour", run: unknownReferenceCheck, needsHistory: false }],
  appliesTo: (operation) => operation.behaviour.unknownReferences !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: ["unknown-symbol-empty-trades", "unknown-order-query-wrong-code"],
};

export async function unknownReferenceCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const rules = operation.behaviour.unknownReferences;
  if (!rules) return;
  const lacking = unreachable(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  // Orders are never placed by this check (an accepted order would have to be cleaned up), and
  // a target that may not trade gets no cancel either.
  if (methodOf(operation) === "POST" || (isTrading(operation) && !ctx.trading)) {
    ctx.session.recorder.skip(
      CHECK,
      operation.operationId,
      methodOf(operation) === "POST" ? "places orders: not probed" : "trading not allowed (--allow-trading)",
    );
    return;
  }
  const base = valuesFor(ctx, operation, orderReference(ctx, operation));
  if (rules.symbol) {
    const symbol = unknownSymbol(ctx.values.symbols);
    for (const name of rules.symbol.parameters) {
      const values = { ...base, [name]: symbol };
      const exchange = await ctx.session.call(
        { op: operation, params: encodeParams(operation, values) },
        `unknown symbol ${name}=${symbol}`,
      );
      expectRefusal(ctx, CHECK, exchange, {
        code: rules.symbol.code,
        what: `unknown symbol ${name}=${symbol}`,
      });
    }
  }
  if (rules.order) {
    const name = rules.order.parameters[0]!;
    const values = {
      ...valuesFor(ctx, operation),
      [name]: name === "orderId" ? 987_654_321_987 : "never-issued-by-this-run",
    };
    const exchange = await ctx.session.call(
      { op: operation, params: encodeParams(operation, values) },
      `unknown order ${name}`,
    );
    expectRefusal(ctx, CHECK, exchange, {
      code: rules.order.code,
      what: `an unknown order (${name}=${String(values[name])})`,
    });
  }
}

/** Operations that look an order up need one of its references for the symbol case to reach the symbol check. */
function orderReference(ctx: RunContext, operation: ContractOperation): Record<string, unknown> {
  const rules = operation.behaviour.unknownReferences;
  if (!rules?.order) return {};
  return { [rules.order.parameters[0]!]: ctx.values.orderId ?? 1 };
}
