// The trading phase: the order lifecycle and the probes of the operations that create or cancel
// orders, when the target allows trading; and the lookup of an existing order for the user_data pass.
import { authCancelAllProbes, authCancelProbes, authOrderProbes } from "../checks/auth-enforcement.js";
import { judgeDefaultVariant, noDeclaredDefault } from "../checks/defaults-honoured.js";
import { CHECK_NAMES } from "../checks/index.js";
import {
  negativeCancelAllProbes,
  negativeCancelProbes,
  negativeOrderProbes,
} from "../checks/negative-data-rejection.js";
import {
  cancelAllLifecycle,
  cancelByClientOrderId,
  lifecycle,
  placements,
  skipLifecycle,
} from "../checks/order-lifecycle.js";
import { judgeCancelReports } from "../checks/order-views.js";
import { type ContractOperation, isTrading } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { markPass, type RunContext, reportPass } from "../kit/context.js";
import { OrderDesk, type Placed } from "../kit/order-desk.js";
import { PassStopped } from "../session/session.js";

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
  const desk = OrderDesk.open(ctx);
  const tradingOps = recorderOps.filter(isTrading);
  if ("reason" in desk) {
    for (const operation of tradingOps) {
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.operationId, desk.reason);
    }
    skipLifecycle({ ctx }, desk.reason);
    // With trading allowed, other checks (history, order arithmetic) may still place orders.
    const skipped = ctx.trading ? "order lifecycle skipped" : "trading operations skipped";
    ctx.progress({ type: "stage", message: `${skipped}: ${desk.reason}` });
    return { reason: desk.reason };
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
    if (await lifecycle(desk)) {
      const { open, withoutVariant } = await placements(desk);
      if (withoutVariant) judgeDefaultVariant(ctx, withoutVariant);
      await negativeOrderProbes(desk);
      await authOrderProbes(desk);
      await cancelProbes(desk, open[0], open[1]);
      await cancelAll(desk, open.slice(1));
      const resting = await desk.restingOrder();
      if (resting) {
        ctx.values.orderId = resting.orderId;
        ctx.values.clientOrderId = resting.clientOrderId;
        outcome.finish = () => desk.cancelResting(resting);
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

/** cancel_order's auth and negative probes on open orders, then its cancel by origClientOrderId. */
async function cancelProbes(desk: OrderDesk, target: Placed | undefined, spare: Placed | undefined) {
  await authCancelProbes(desk, target);
  if (target?.orderId === undefined) {
    await negativeCancelProbes(desk, undefined);
    return;
  }
  await negativeCancelProbes(desk, spare);
  await cancelByClientOrderId(desk, target);
}

/**
 * cancel_all_orders' probes and lifecycle, only when the account has no open order on the symbol
 * that this run did not create; otherwise its checks are skipped and the run's orders cancelled
 * one by one.
 */
async function cancelAll(desk: OrderDesk, remaining: Placed[]): Promise<void> {
  const operation = desk.ops.cancelAll;
  if (!operation) return;
  const forbidden = await desk.cancelAllForbidden();
  if (forbidden) {
    for (const check of ["auth_enforcement", "negative_data_rejection", "order_lifecycle"] as const)
      desk.session.recorder.skip(check, operation.operationId, forbidden);
    for (const p of remaining.filter((o) => desk.isOpen(o))) await desk.cancel(p, "clean-up: cancel_order");
    return;
  }
  await authCancelAllProbes(desk);
  await negativeCancelAllProbes(desk);
  const answer = await cancelAllLifecycle(desk, remaining);
  if (answer) await judgeCancelReports(desk.ctx, answer);
}
