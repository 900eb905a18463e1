// The trading phase: orders far from the market through their lifecycle, orders left resting in
// each placement and variant, probes of the operations that create or cancel orders aimed at
// them, cancels one by one and all at once. The phase does the trading; at each stage it calls
// the checks hooked on it ("trading", TradingStages), in the order of CHECKS. It names no check.
// Also the lookup of an existing order for the user_data pass.
import type { Hooked } from "../checks/index.js";
import { CHECK_NAMES, checksAt } from "../checks/index.js";
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

type Stages = readonly Hooked<"trading">[];

export async function tradingPhase(
  ctx: RunContext,
  operations: ContractOperation[],
): Promise<TradingOutcome> {
  const { session } = ctx;
  const stages = checksAt("trading");
  const desk = OrderDesk.open(ctx);
  const tradingOps = operations.filter(isTrading);
  if ("reason" in desk) {
    for (const operation of tradingOps)
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.operationId, desk.reason);
    for (const check of stages) check.hook.run.unavailable?.(ctx, desk.reason);
    // With trading allowed, other checks (history, order arithmetic) may still place orders.
    const skipped = ctx.trading ? "order lifecycle skipped" : "trading operations skipped";
    ctx.progress({ type: "stage", message: `${skipped}: ${desk.reason}` });
    return { reason: desk.reason };
  }
  ctx.progress({
    type: "stage",
    message: `order lifecycle on ${desk.symbol}: LIMIT BUY ${desk.far.quantity} @ ${desk.far.price} (far below the market; cancelled afterwards)`,
  });
  const marks = tradingOps.map((o) => markPass(ctx, o.operationId));
  let note: string | undefined;
  const outcome: TradingOutcome = {};
  try {
    if (await opening(desk, stages)) {
      const resting = await desk.placeResting();
      for (const check of stages) check.hook.run.resting?.(desk, resting);
      for (const check of stages) await check.hook.run.newOrder?.(desk);
      const open = resting.orders.map((o) => o.placed).filter((p) => p.orderId !== undefined);
      for (const check of stages) await check.hook.run.cancel?.(desk, open[0], open[1]);
      await cancelAll(desk, stages, open.slice(1));
      const kept = await desk.restingOrder();
      if (kept) {
        ctx.values.orderId = kept.orderId;
        ctx.values.clientOrderId = kept.clientOrderId;
        // Spent budget leaves the order to the clean-up, which cancels every open order of the run.
        outcome.finish = () =>
          desk.cancelResting(kept).catch((error: unknown) => {
            if (!(error instanceof PassStopped)) throw error;
          });
      }
    }
  } catch (error) {
    if (!(error instanceof PassStopped)) throw error;
    note = `${error.message}; the rest of the trading checks was not sent`;
    for (const operation of tradingOps)
      for (const check of CHECK_NAMES) session.recorder.skip(check, operation.operationId, note);
  }
  for (const operation of tradingOps) for (const check of stages) check.hook.run.finish?.(ctx, operation);
  for (const mark of marks) reportPass(ctx, mark, "trading", note);
  return outcome;
}

/** The run's first order through its lifecycle; false when a check saw that it could not be placed. */
async function opening(desk: OrderDesk, stages: Stages): Promise<boolean> {
  let open = true;
  for (const check of stages)
    if (check.hook.run.opening && !(await check.hook.run.opening(desk))) open = false;
  return open;
}

/**
 * cancel_all_orders' probes, then the cancel itself, only when the account has no open order on
 * the symbol that this run did not create; otherwise the checks that judge it are told why, and
 * the run's orders are cancelled one by one.
 */
async function cancelAll(desk: OrderDesk, stages: Stages, remaining: Placed[]): Promise<void> {
  const operation = desk.ops.cancelAll;
  if (!operation) return;
  const forbidden = await desk.cancelAllForbidden();
  if (forbidden) {
    for (const check of stages)
      if (check.hook.run.cancelAll || check.hook.run.cancelledAll)
        desk.session.recorder.skip(check.name, operation.operationId, forbidden);
    for (const p of remaining.filter((o) => desk.isOpen(o))) await desk.cancel(p, "clean-up: cancel_order");
    return;
  }
  for (const check of stages) await check.hook.run.cancelAll?.(desk);
  const expected = remaining.filter((p) => desk.isOpen(p));
  if (expected.length === 0) {
    for (const check of stages)
      if (check.hook.run.cancelledAll)
        desk.session.recorder.skip(check.name, operation.operationId, "no open order left to cancel");
    return;
  }
  const answer = await desk.cancelAll("lifecycle: cancel_all_orders");
  if (answer) for (const check of stages) await check.hook.run.cancelledAll?.(desk, answer, expected);
}
