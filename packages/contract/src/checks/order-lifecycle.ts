/**
 * order_lifecycle: new_order → query_order (by id and by client id) → open_orders contains it →
 * cancel_order → query_order shows CANCELED → gone from open_orders → all_orders contains it → a
 * second cancel is refused; new_order with its parameters in the query, in a form body and split
 * between them (x-parameter-placement); a cancel by origClientOrderId; cancel_all_orders reports
 * every open order of the run. The orders come from the order desk (order-desk.ts): LIMIT BUYs
 * far below the market, cancelled afterwards.
 */
import type { Placement } from "../http/request.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/context.js";
import { listOf, type OrderDesk, type Placed, sameDecimal } from "../kit/order-desk.js";
import type { Values } from "../kit/values.js";
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
  hook: { phase: "trading" },
  appliesTo: (operation) => LIFECYCLE_OPERATIONS.includes(operation.operationId),
  notApplicable: "not part of the order lifecycle",
  seenToCatch: ["cancelled-still-open", "query-new-after-cancel", "cancelled-missing-from-all-orders"],
};

/** Skips the lifecycle on every operation it judges, saying why. */
export function skipLifecycle(desk: Pick<OrderDesk, "ctx">, reason: string): void {
  for (const id of LIFECYCLE_OPERATIONS) desk.ctx.session.recorder.skip(CHECK, id, reason);
}

const check = (desk: OrderDesk, exchange: RoundTrip, holds: boolean, message: string) =>
  desk.holds(CHECK, exchange, holds, message);
const succeeded = (desk: OrderDesk, exchange: RoundTrip, what: string) =>
  desk.succeeded(CHECK, exchange, what);

/** The lifecycle of one order. Returns false when the first order could not be placed. */
export async function lifecycle(desk: OrderDesk): Promise<boolean> {
  const { session } = desk;
  const symbol = desk.symbol;
  const placed = await desk.place("lifecycle: new_order (LIMIT BUY far below the market, RESULT)", {
    newOrderRespType: "RESULT",
  });
  const created = placed.exchange;
  if (!ok(created)) {
    const reason = `new_order refused the far-from-market LIMIT order (${describeAnswer(created)})`;
    if (created.response && created.response.status >= 500) session.fail(CHECK, created, reason);
    skipLifecycle(desk, reason);
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

export interface Placements {
  /** The orders placed and left open. */
  open: Placed[];
  /** The answer to the order sent without the response-variant parameter, when one was sent. */
  withoutVariant?: RoundTrip;
}

/** new_order's parameter placements and response variants; the orders are left open. */
export async function placements(desk: OrderDesk): Promise<Placements> {
  const { newOrder } = desk.ops;
  const result: Placements = { open: [] };
  const cases: Array<{ label: string; extra: Values; placement: Placement }> = [
    {
      label: "new_order: parameters in the form body, ACK",
      extra: { newOrderRespType: "ACK" },
      placement: "body",
    },
    {
      label: "new_order: parameters split between query and body, FULL",
      extra: { newOrderRespType: "FULL" },
      placement: "split",
    },
    { label: "new_order: no newOrderRespType (declared default)", extra: {}, placement: "query" },
  ];
  for (const c of cases) {
    if (!newOrder.acceptsFormBody && c.placement !== "query") continue;
    const placed = await desk.place(c.label, c.extra, c.placement);
    if (succeeded(desk, placed.exchange, c.label)) {
      check(desk, placed.exchange, placed.orderId !== undefined, `${c.label}: the answer has no orderId`);
      if (placed.orderId !== undefined) result.open.push(placed);
    }
    if (c.extra.newOrderRespType === undefined) result.withoutVariant = placed.exchange;
  }
  return result;
}

/** cancel_order by origClientOrderId, on an order still open. */
export async function cancelByClientOrderId(desk: OrderDesk, target: Placed): Promise<void> {
  if (!desk.isOpen(target)) return;
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
 * open_orders lists none of them afterwards. Only called when no other order rests there. Returns
 * its answer (order_views compares the reports with query_order).
 */
export async function cancelAllLifecycle(
  desk: OrderDesk,
  remaining: Placed[],
): Promise<RoundTrip | undefined> {
  const cancelAll = desk.ops.cancelAll;
  if (!cancelAll) return undefined;
  const expected = remaining.filter((p) => desk.isOpen(p));
  if (expected.length === 0) {
    desk.session.recorder.skip(CHECK, cancelAll.operationId, "no open order left to cancel");
    return undefined;
  }
  const exchange = await desk.session.call(
    { op: cancelAll, params: desk.symbolParams(cancelAll) },
    "lifecycle: cancel_all_orders",
  );
  if (!succeeded(desk, exchange, "cancel_all_orders")) return exchange;
  desk.closeListed(exchange);
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
  }
  return exchange;
}
