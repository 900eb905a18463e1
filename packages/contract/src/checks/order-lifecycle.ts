/**
 * order_lifecycle: new_order → query_order (by id and by client id) → open_orders contains it →
 * cancel_order → query_order shows CANCELED → gone from open_orders → all_orders contains it → a
 * second cancel is refused; new_order with its parameters in the query, in a form body and split
 * between them (x-parameter-placement); a cancel by origClientOrderId; cancel_all_orders reports
 * every open order of the run. The orders come from the order desk (order-desk.ts): LIMIT BUYs
 * far below the market, cancelled afterwards.
 */

import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import { expectRefusal, type RunContext } from "../kit/context.js";
import { listOf, type OrderDesk, type Placed, type Resting, sameDecimal } from "../kit/order-desk.js";
import { refusalOf } from "../kit/refusal-codes.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "order_lifecycle";

/** The operations whose answers the lifecycle compares. */
const LIFECYCLE_OPERATIONS: readonly string[] = [
  "new_order",
  "query_order",
  "open_orders",
  "cancel_order",
  "all_orders",
  "cancel_all_orders",
];

export const orderLifecycle: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "lifecycle",
  description: "new → query → open list → cancel → CANCELED → gone from open list → in all orders",
  // new_order is sent with its parameters in the query, in a form body, and split between them.
  covers: ["x-parameter-placement"],
  hooks: [
    {
      phase: "trading",
      run: {
        opening: lifecycle,
        resting: judgeResting,
        cancel: (desk, target) => cancelByClientOrderId(desk, target),
        cancelledAll: judgeCancelAll,
        unavailable: (ctx, reason) => skipLifecycle(ctx, reason),
      },
    },
  ],
  appliesTo: (operation) => LIFECYCLE_OPERATIONS.includes(operation.operationId),
  notApplicable: "not part of the order lifecycle",
  seenToCatch: [
    "cancelled-still-open",
    "query-new-after-cancel",
    "cancelled-missing-from-all-orders",
    "cancel-all-of-nothing-answered-empty",
  ],
};

/** Skips the lifecycle on every operation it judges, saying why. */
function skipLifecycle(ctx: RunContext, reason: string): void {
  for (const id of LIFECYCLE_OPERATIONS) ctx.session.recorder.skip(CHECK, id, reason);
}

const check = (desk: OrderDesk, exchange: RoundTrip, holds: boolean, message: string) =>
  desk.holds(CHECK, exchange, holds, message);
const succeeded = (desk: OrderDesk, exchange: RoundTrip, what: string) =>
  desk.succeeded(CHECK, exchange, what);

/** The lifecycle of one order. Returns false when the first order could not be placed. */
async function lifecycle(desk: OrderDesk): Promise<boolean> {
  const { session } = desk;
  const symbol = desk.symbol;
  const placed = await desk.place("lifecycle: new_order (LIMIT BUY far below the market, RESULT)", {
    newOrderRespType: "RESULT",
  });
  const created = placed.exchange;
  if (!ok(created)) {
    const reason = `new_order refused the far-from-market LIMIT order (${describeAnswer(created)})`;
    if (created.response && created.response.status >= 500) session.fail(CHECK, created, reason);
    skipLifecycle(desk.ctx, reason);
    return false;
  }
  const body = bodyObject(created) ?? {};
  check(
    desk,
    created,
    placed.orderId !== undefined && body.clientOrderId === placed.clientOrderId && body.status === "NEW",
    `new_order answered ${JSON.stringify({ orderId: body.orderId, clientOrderId: body.clientOrderId, status: body.status })}; expected an orderId, clientOrderId ${placed.clientOrderId} and status NEW (the order is far from the market)`,
  );
  if (placed.orderId === undefined) return true;
  const orderId = placed.orderId;

  const q1 = await desk.query({ orderId }, "lifecycle: query_order by orderId");
  if (succeeded(desk, q1, "query_order of the new order")) {
    const o = bodyObject(q1) ?? {};
    const mismatches = [
      o.orderId !== orderId && `orderId ${o.orderId}`,
      o.symbol !== symbol && `symbol ${o.symbol}`,
      o.status !== "NEW" && `status ${o.status} (expected NEW)`,
      o.side !== "BUY" && `side ${o.side}`,
      o.type !== "LIMIT" && `type ${o.type}`,
      !sameDecimal(o.price, desk.far.price) && `price ${o.price} (sent ${desk.far.price})`,
      !sameDecimal(o.origQty, desk.far.quantity) && `origQty ${o.origQty} (sent ${desk.far.quantity})`,
    ].filter(Boolean);
    check(desk, q1, mismatches.length === 0, `query_order shows ${mismatches.join(", ")}`);
  }
  const q2 = await desk.query(
    { origClientOrderId: placed.clientOrderId },
    "lifecycle: query_order by origClientOrderId",
  );
  if (succeeded(desk, q2, "query_order by origClientOrderId")) {
    check(
      desk,
      q2,
      bodyObject(q2)?.orderId === orderId,
      `query_order by origClientOrderId found orderId ${bodyObject(q2)?.orderId}, not ${orderId}`,
    );
  }
  const open1 = await desk.openList("lifecycle: open_orders contains the order");
  if (succeeded(desk, open1, "open_orders")) {
    check(
      desk,
      open1,
      listOf(open1).some((o) => o.orderId === orderId),
      `open_orders(${symbol}) does not list the new order ${orderId}`,
    );
  }
  const openAll = await desk.openList("lifecycle: open_orders without symbol contains the order", false);
  if (succeeded(desk, openAll, "open_orders without symbol")) {
    check(
      desk,
      openAll,
      listOf(openAll).some((o) => o.orderId === orderId),
      `open_orders (all symbols) does not list the new order ${orderId}`,
    );
  }

  const cancelled = await desk.cancel(placed, "lifecycle: cancel_order by orderId");
  if (succeeded(desk, cancelled, "cancel_order of the open order")) {
    const c = bodyObject(cancelled) ?? {};
    check(
      desk,
      cancelled,
      c.orderId === orderId && c.status === "CANCELED" && c.origClientOrderId === placed.clientOrderId,
      `cancel_order answered ${JSON.stringify({ orderId: c.orderId, status: c.status, origClientOrderId: c.origClientOrderId })}; expected orderId ${orderId}, status CANCELED, origClientOrderId ${placed.clientOrderId}`,
    );
  }
  const q3 = await desk.query({ orderId }, "lifecycle: query_order after cancel");
  if (succeeded(desk, q3, "query_order after cancel")) {
    check(
      desk,
      q3,
      bodyObject(q3)?.status === "CANCELED",
      `query_order after cancel_order shows status ${bodyObject(q3)?.status}, expected CANCELED`,
    );
  }
  const open2 = await desk.openList("lifecycle: open_orders no longer contains the order");
  if (succeeded(desk, open2, "open_orders after cancel")) {
    check(
      desk,
      open2,
      !listOf(open2).some((o) => o.orderId === orderId),
      `open_orders still lists order ${orderId} after it was cancelled`,
    );
  }
  const all = await desk.allOrders({ orderId }, "lifecycle: all_orders contains the cancelled order");
  if (succeeded(desk, all, "all_orders")) {
    const found = listOf(all).find((o) => o.orderId === orderId);
    check(
      desk,
      all,
      found !== undefined && found.status === "CANCELED",
      found
        ? `all_orders shows order ${orderId} with status ${found.status}, expected CANCELED`
        : `all_orders does not list order ${orderId}`,
    );
  }
  const again = await desk.cancel(placed, "lifecycle: cancelling the cancelled order again");
  if (isRateLimited(again)) session.recorder.skip(CHECK, desk.ops.cancelOrder.operationId, "rate limited");
  else {
    const status = again.response?.status ?? 0;
    check(
      desk,
      again,
      status >= 400 && status < 500,
      `cancelling an already cancelled order got ${describeAnswer(again)}; expected a 4xx refusal`,
    );
  }
  return true;
}

/** Each order the phase left resting (one per placement and variant) was accepted with an orderId. */
function judgeResting(desk: OrderDesk, resting: Resting): void {
  for (const { label, placed } of resting.orders) {
    if (succeeded(desk, placed.exchange, label))
      check(desk, placed.exchange, placed.orderId !== undefined, `${label}: the answer has no orderId`);
  }
}

/** cancel_order by origClientOrderId, on an order still open. */
async function cancelByClientOrderId(desk: OrderDesk, target: Placed | undefined): Promise<void> {
  if (target?.orderId === undefined || !desk.isOpen(target)) return;
  const exchange = await desk.cancel(
    target,
    "lifecycle: cancel_order by origClientOrderId",
    "origClientOrderId",
  );
  if (succeeded(desk, exchange, "cancel_order by origClientOrderId")) {
    const c = bodyObject(exchange) ?? {};
    check(
      desk,
      exchange,
      c.orderId === target.orderId && c.status === "CANCELED",
      `cancel_order by origClientOrderId answered orderId ${c.orderId}, status ${c.status}`,
    );
  }
}

/**
 * cancel_all_orders on the symbol reports every open order of the run as CANCELED, and
 * open_orders lists none of them afterwards (the phase sends it only when no other order rests there).
 */
async function judgeCancelAll(
  desk: OrderDesk,
  exchange: RoundTrip,
  expected: readonly Placed[],
): Promise<void> {
  if (!succeeded(desk, exchange, "cancel_all_orders")) return;
  const reports = listOf(exchange);
  const missing = expected.filter(
    (p) => !reports.some((r) => r.orderId === p.orderId && r.status === "CANCELED"),
  );
  check(
    desk,
    exchange,
    missing.length === 0,
    `cancel_all_orders did not report ${missing.map((p) => p.orderId).join(", ")} as CANCELED`,
  );
  const after = await desk.openList("lifecycle: open_orders after cancel_all_orders");
  if (succeeded(desk, after, "open_orders after cancel_all_orders")) {
    const left = listOf(after).filter((o) => expected.some((p) => p.orderId === o.orderId));
    check(
      desk,
      after,
      left.length === 0,
      `open_orders still lists ${left.map((o) => o.orderId).join(", ")} after cancel_all_orders`,
    );
    if (listOf(after).length === 0) await cancelAllOfNothing(desk);
  }
}

/**
 * cancel_all_orders on a symbol where the account has no open order (just read so): refused with
 * the spec's nothing-to-cancel refusal (x-refusals), not answered with an empty list.
 */
async function cancelAllOfNothing(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const again = await desk.cancelAll("lifecycle: cancel_all_orders with nothing open");
  if (!again) return;
  expectRefusal(ctx, CHECK, again, {
    what: `cancel_all_orders on ${desk.symbol}, where the account has no open order`,
    ...refusalOf(ctx, "nothing-to-cancel", again.op.operationId),
  });
}
