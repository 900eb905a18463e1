/**
 * negative_data_rejection: a request that breaks the spec (a value outside its schema, a
 * missing required parameter, an `x-mutually-exclusive` pair, an `x-order-type-rules` violation,
 * an `x-parameter-conditions` condition not met, a decimal off its `x-wire-pattern`) must be
 * refused with a 4xx. The cases come from values.ts. The pass over each operation sends
 * them; the trading phase sends the ones aimed at new_order, cancel_order and cancel_all_orders,
 * built on the order desk's orders.
 */

import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { bodyObject } from "../kit/answers.js";
import { cannotCall, enabled, expectRefusal, type RunContext, targetValues } from "../kit/context.js";
import type { OrderDesk, Placed } from "../kit/order-desk.js";
import { negativeExpectation } from "../kit/refusal-codes.js";
import { negativeCases, type TextCase } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "negative_data_rejection";

export const negativeDataRejection: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "negative",
  description:
    "schema-invalid input (missing, wrong type, out of range, unknown enum, excluded pairs) gets 4xx + Error",
  // Each refusal with the code x-refusals names for the rule the case breaks.
  covers: [
    "x-mutually-exclusive",
    "x-order-type-rules",
    "x-parameter-conditions",
    "x-wire-pattern",
    "x-refusals",
  ],
  hooks: [
    { phase: "operation", run: negativePass },
    {
      phase: "trading",
      run: {
        newOrder: negativeOrderProbes,
        cancel: (desk, _target, spare) => negativeCancelProbes(desk, spare),
        cancelAll: negativeCancelAllProbes,
      },
    },
  ],
  seenToCatch: [
    "symbol-and-symbols-accepted",
    "out-of-range-limit-clamped",
    "missing-parameter-generic-code",
    "unknown-side-generic-code",
    "iceberg-not-gtc-accepted",
    "decimal-exponent-notation-accepted",
  ],
};

async function negativePass(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (!enabled(ctx, CHECK)) return;
  const lacking = cannotCall(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  const cases = negativeCases(operation, encodeParams(operation, targetValues(operation, ctx)));
  if (cases.length === 0) {
    ctx.session.recorder.skip(CHECK, operation.operationId, "no parameters to violate");
    return;
  }
  for (const c of cases) {
    if (truncatedBySpec(ctx, operation, c) || tolerated(ctx, operation, c)) continue;
    const exchange = await ctx.session.call({ op: operation, params: c.params }, c.label);
    expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, operation.operationId, c));
  }
}

/** new_order's negative cases, each under a fresh client order id (one accepted by mistake rests). */
async function negativeOrderProbes(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const { newOrder } = desk.ops;
  if (!enabled(ctx, CHECK)) return;
  const baseId = "mct-negative-base";
  const base = encodeParams(newOrder, desk.orderValues(baseId));

  for (const c of negativeCases(newOrder, base)) {
    if (tolerated(ctx, newOrder, c)) continue;
    const params = c.params.map(([n, v]): [string, string] => {
      if (n !== "newClientOrderId" || v !== baseId) return [n, v];
      const fresh = ctx.ledger.nextClientOrderId();
      ctx.ledger.sent(desk.symbol, fresh);
      return [n, fresh];
    });
    const exchange = await ctx.session.call({ op: newOrder, params }, c.label);
    expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, exchange.op.operationId, c));
    desk.settle(exchange);
  }
}

/** cancel_order's negative cases, built on an open order (one accepted by mistake cancels it). */
async function negativeCancelProbes(desk: OrderDesk, spare: Placed | undefined): Promise<void> {
  const { ctx } = desk;
  const { cancelOrder } = desk.ops;
  if (!enabled(ctx, CHECK)) return;
  if (spare?.orderId === undefined) {
    ctx.session.recorder.skip(CHECK, cancelOrder.operationId, "no open order to aim the probes at");
    return;
  }
  const spareId = spare.orderId;
  const base = encodeParams(cancelOrder, { symbol: desk.symbol, orderId: spareId });
  for (const c of negativeCases(cancelOrder, base)) {
    if (tolerated(ctx, cancelOrder, c)) continue;
    const exchange = await ctx.session.call({ op: cancelOrder, params: c.params }, c.label);
    const accepted = expectRefusal(
      ctx,
      CHECK,
      exchange,
      negativeExpectation(ctx, exchange.op.operationId, c),
    );
    if (accepted && bodyObject(exchange)?.orderId === spareId) ctx.ledger.closed(spare.clientOrderId);
  }
}

/**
 * cancel_all_orders' negative cases on the desk's symbol; the case without a symbol only when
 * the account has no open order elsewhere that it could cancel.
 */
async function negativeCancelAllProbes(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const cancelAll = desk.ops.cancelAll;
  if (!cancelAll || !enabled(ctx, CHECK)) return;
  const elsewhere = await desk.foreignOrders(false);
  const base = desk.symbolParams(cancelAll);
  for (const c of negativeCases(cancelAll, base)) {
    if (tolerated(ctx, cancelAll, c)) continue;
    const dropsSymbol = !c.params.some(([n]) => n === "symbol");
    if (dropsSymbol && elsewhere !== 0) {
      ctx.session.recorder.note(
        CHECK,
        cancelAll.operationId,
        "the 'symbol missing' case was not sent: the account has open orders elsewhere that it could cancel",
      );
      continue;
    }
    const exchange: RoundTrip = await ctx.session.call({ op: cancelAll, params: c.params }, c.label);
    if (expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, exchange.op.operationId, c)))
      desk.closeListed(exchange);
  }
}

/** Whether the target accepts a negative case on purpose (see RunContext.tolerates); notes it if so. */
export function tolerated(ctx: RunContext, operation: ContractOperation, c: TextCase): boolean {
  if (c.parameter === undefined || c.text === undefined || !ctx.tolerates) return false;
  const reason = ctx.tolerates(operation.operationId, c.parameter, c.text);
  if (reason === undefined) return false;
  ctx.session.recorder.note(CHECK, operation.operationId, `${c.label}: not sent; ${reason}`);
  return true;
}

/**
 * Whether a negative case is a limit above the maximum that x-limit says is truncated, not
 * refused: it is then not negative data (limit_semantics checks the truncation); noted, not sent.
 */
export function truncatedBySpec(ctx: RunContext, operation: ContractOperation, c: TextCase): boolean {
  const rule = operation.behaviour.limit;
  if (rule?.aboveMaximum !== "truncate" || c.parameter !== rule.parameter) return false;
  if (c.text === undefined || !/^[0-9]+$/.test(c.text) || Number(c.text) <= rule.maximum) return false;
  ctx.session.recorder.note(
    CHECK,
    operation.operationId,
    `${c.label}: not sent; x-limit says a ${rule.parameter} above ${rule.maximum} is truncated (limit_semantics checks it)`,
  );
  return true;
}
