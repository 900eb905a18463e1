// The trading phase: the order lifecycle and the probes of the operations that create or cancel
// orders, when the target allows trading; and the lookup of an existing order for the user_data pass.
import { markPass, type RunContext, reportPass } from "../checks/context.js";
import { noDeclaredDefault } from "../checks/defaults-honoured.js";
import { LIFECYCLE_OPERATIONS, TradingSection } from "../checks/order-lifecycle.js";
import { encodeParams } from "../http/request.js";
import { type ContractOperation, isTrading } from "../operations.js";
import { CHECK_NAMES } from "../results.js";
import { PassStopped } from "../session.js";

export async function findExistingOrder(ctx: RunContext): Promise<void> {
  const all = ctx.session.model.operation("all_orders");
  if (!all || !ctx.session.canSign || ctx.values.orderId !== undefined) return;
  const exchange = await ctx.session.call(
    { op: all, params: encodeParams(all, { symbol: ctx.values.symbol }) },
    "setup: an existing order of the account",
  );
  const orders = Array.isArray(exchange.response?.json)
    ? (exchange.response?.json as Record<string, unknown>[])
    : [];
  const last = orders.at(-1);
  if (last && typeof last.orderId === "number") {
    ctx.values.orderId = last.orderId;
    if (typeof last.clientOrderId === "string") ctx.values.clientOrderId = last.clientOrderId;
  }
}

export interface TradingOutcome {
  /** Why trading operations were not exercised. */
  reason?: string;
  /** Cancels the order kept open for the user_data pass. */
  finish?: () => Promise<void>;
}

export async function tradingPhase(
  ctx: RunContext,
  recorderOps: ContractOperation[],
): Promise<TradingOutcome> {
  const { session } = ctx;
  const section = TradingSection.create(ctx);
  const tradingOps = recorderOps.filter(isTrading);
  if ("reason" in section) {
    for (const operation of tradingOps) {
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.operationId, section.reason);
    }
    for (const id of LIFECYCLE_OPERATIONS) session.recorder.skip("order_lifecycle", id, section.reason);
    // With trading allowed, other checks (history, order arithmetic) may still place orders.
    const skipped = ctx.trading ? "order lifecycle skipped" : "trading operations skipped";
    ctx.progress({ type: "stage", message: `${skipped}: ${section.reason}` });
    return { reason: section.reason };
  }
  const far = ctx.farBuy as { price: string; quantity: string };
  ctx.progress({
    type: "stage",
    message: `order lifecycle on ${ctx.values.symbol}: LIMIT BUY ${far.quantity} @ ${far.price} (far below the market; cancelled afterwards)`,
  });
  const marks = tradingOps.map((o) => markPass(ctx, o.operationId));
  let note: string | undefined;
  const outcome: TradingOutcome = {};
  try {
    if (await section.lifecycle()) {
      const open = await section.variants();
      await section.newOrderProbes();
      await section.cancelOrderProbes(open[0], open[1]);
      await section.cancelAll(open.slice(1));
      const resting = await section.restingOrder();
      if (resting) {
        ctx.values.orderId = resting.orderId;
        ctx.values.clientOrderId = resting.clientOrderId;
        outcome.finish = () => section.cancelResting(resting);
      }
    }
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    note = `${error.message}; the rest of the trading checks was not sent`;
    for (const operation of tradingOps)
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.operationId, note);
  }
  for (const operation of tradingOps) if (!operation.responseVariants) noDeclaredDefault(ctx, operation);
  for (const mark of marks) reportPass(ctx, mark, "trading", note);
  return outcome;
}
