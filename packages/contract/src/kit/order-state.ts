/**
 * What an answer says about whether an order is still open. Only a clear answer decides: a
 * cancel or a query that succeeded, or a refusal with exactly the status and code the spec names
 * for an unknown order (x-unknown-reference). Anything else (a 404 without the code, a 5xx, a
 * timeout, a body that is not the documented error) leaves the order's state unknown: the
 * clean-up lists it and the run exits 2, instead of calling it closed.
 */

import { tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import type { RoundTrip } from "../session/round-trip.js";
import { bodyObject, describeAnswer, ok } from "./answers.js";

/** Statuses of an order that can still trade (PENDING_CANCEL is unused, so not yet closed). */
const OPEN = new Set(["NEW", "PENDING_NEW", "PARTIALLY_FILLED", "PENDING_CANCEL"]);
/** Final statuses. */
const CLOSED = new Set(["FILLED", "CANCELED", "REJECTED", "EXPIRED", "EXPIRED_IN_MATCH"]);

export type OrderState = { state: "open" | "closed"; why: string } | { state: "unknown"; why: string };

/** Whether the answer is the refusal the spec names for an unknown order on this operation. */
export function unknownOrderRefusal(operation: ContractOperation, exchange: RoundTrip): boolean {
  const rule = operation.behaviour.unknownReferences?.order;
  const code = bodyObject(exchange)?.code;
  return rule !== undefined && exchange.response?.status === rule.status && code === rule.code;
}

/** The state of an order after a cancel: closed when it was cancelled or is unknown to the server. */
export function afterCancel(cancel: ContractOperation, exchange: RoundTrip): OrderState {
  if (ok(exchange)) return { state: "closed", why: "cancelled" };
  if (unknownOrderRefusal(cancel, exchange))
    return { state: "closed", why: `cancel_order: unknown order (${describeAnswer(exchange)})` };
  return { state: "unknown", why: `cancel_order answered ${describeAnswer(exchange)}` };
}

/** The state of an order as query_order reports it. */
export function afterQuery(query: ContractOperation, exchange: RoundTrip): OrderState {
  if (unknownOrderRefusal(query, exchange))
    return { state: "closed", why: `query_order: unknown order (${describeAnswer(exchange)})` };
  const status = ok(exchange) ? bodyObject(exchange)?.status : undefined;
  if (typeof status === "string" && CLOSED.has(status)) return { state: "closed", why: `status ${status}` };
  if (typeof status === "string" && OPEN.has(status))
    return { state: "open", why: `query_order says ${status}` };
  return { state: "unknown", why: `query_order answered ${describeAnswer(exchange)}` };
}

/** Whether a refused new_order created nothing: a 4xx says the request was not carried out. */
export function refusedNewOrder(exchange: RoundTrip): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 400 && status < 500 && status !== 408;
}

/**
 * What an order's view shows wrong between its two marks of working: `workingTime` is "-1 while it
 * is not working" and set once it works, so `isWorking` is true exactly when `workingTime` is
 * set (a closed order that worked keeps both). Undefined when they agree or one is not shown. Pure.
 */
export function workingFlagProblem(order: Record<string, unknown>): string | undefined {
  const { isWorking, workingTime } = order;
  if (typeof isWorking !== "boolean" || typeof workingTime !== "number") return undefined;
  if (isWorking === (workingTime !== -1)) return undefined;
  return `order ${String(order.orderId)} (${String(order.status)}) shows isWorking ${isWorking} with workingTime ${workingTime}: workingTime is -1 while an order is not working and set once it works`;
}

/**
 * What an order's view shows wrong of self-trade prevention: `preventedMatchId` and
 * `preventedQuantity` are "present only when self-trade prevention acted on the order", which the
 * mode NONE never does, and when present they name a match (an id from 0) and a quantity (above
 * zero). Undefined when right. Pure.
 */
export function preventionFieldsProblem(order: Record<string, unknown>): string | undefined {
  const { preventedMatchId: id, preventedQuantity: quantity, selfTradePreventionMode: mode } = order;
  if (id === undefined && quantity === undefined) return undefined;
  const shown = `preventedMatchId ${JSON.stringify(id)}, preventedQuantity ${JSON.stringify(quantity)}`;
  const where = `order ${String(order.orderId)} (${String(order.status)})`;
  if (mode === "NONE")
    return `${where} shows ${shown} under selfTradePreventionMode NONE, which never prevents a match: they are present only when self-trade prevention acted on the order`;
  const amount = tryParseDec(quantity);
  if (typeof id !== "number" || id < 0 || amount === undefined || amount <= ZERO)
    return `${where} shows ${shown}: when present they name the match prevented (an id from 0) and the quantity kept from trading (above zero)`;
  return undefined;
}

/** Every order an answer shows: the object, or each item of a list (a cancel-all's order-list reports too). */
export function ordersIn(exchange: RoundTrip): Record<string, unknown>[] {
  const json = exchange.response?.json;
  const items = (Array.isArray(json) ? json : [json]).filter(
    (o): o is Record<string, unknown> => typeof o === "object" && o !== null,
  );
  return items.flatMap((o) => [o, ...((o.orderReports as Record<string, unknown>[] | undefined) ?? [])]);
}

/**
 * `problemOf` over every order the served answers of `operations` in `timeline` show, in the order
 * sent: the first problem, with its exchange, or the last exchange that showed an order (nothing
 * judged: undefined). Pure.
 */
export function firstOrderProblem(
  timeline: ReadonlyArray<{ exchange: RoundTrip }>,
  operations: ReadonlySet<string>,
  problemOf: (order: Record<string, unknown>) => string | undefined,
): { exchange: RoundTrip; problem?: string } | undefined {
  let last: RoundTrip | undefined;
  for (const { exchange } of timeline) {
    if (!operations.has(exchange.op.operationId) || !ok(exchange)) continue;
    const orders = ordersIn(exchange);
    const problem = orders.map(problemOf).find((p) => p !== undefined);
    if (problem) return { exchange, problem: `${exchange.op.operationId}: ${problem}` };
    if (orders.length > 0) last = exchange;
  }
  return last ? { exchange: last } : undefined;
}
