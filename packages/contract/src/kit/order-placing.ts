/**
 * Placing real orders for the behaviour checks: each under a client order id written to the
 * ledger before it is sent (clean-up cancels what stays open), sized at the smallest quantity the
 * symbol's filters allow, priced from the target's own best prices.
 */
import { type Dec, tryParseDec } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { type Credentials, encodeParams } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { CallOptions } from "../session/session.js";
import { bodyObject, ok } from "./answers.js";
import { op, type RunContext } from "./context.js";
import { ORDER_OPERATIONS } from "./order-operations.js";
import { afterCancel, refusedNewOrder } from "./order-state.js";
import type { Values } from "./values.js";

export interface BestPrices {
  bid: Dec;
  ask: Dec;
}

/** The best bid and ask of `symbol` (the run's first), from order_book; undefined when a side is empty. */
export async function bestPrices(
  ctx: RunContext,
  label: string,
  symbol = ctx.values.symbol,
): Promise<BestPrices | undefined> {
  const book = op(ctx, "order_book");
  if (!book) return undefined;
  const exchange = await ctx.session.call(
    { op: book, params: encodeParams(book, { symbol, limit: 5 }) },
    label,
  );
  const body = bodyObject(exchange);
  const first = (side: unknown) =>
    Array.isArray(side) && Array.isArray(side[0]) ? tryParseDec(side[0][0]) : undefined;
  const bid = first(body?.bids);
  const ask = first(body?.asks);
  return bid !== undefined && ask !== undefined ? { bid, ask } : undefined;
}

export interface PlacedOrder {
  exchange: RoundTrip;
  body: Record<string, unknown> | undefined;
  clientOrderId: string;
}

/** What an order is for, from its label ("history: a resting BUY" → "history"). */
function purposeOf(label: string): string {
  const colon = label.indexOf(":");
  return colon > 0 ? label.slice(0, colon) : label;
}

/**
 * Records an order-creating request in the ledger before it is sent, under the check that sends it
 * (the report counts orders by it); every check that trades says so when it starts on a symbol:
 * the progress never hides an order.
 */
export function recordSent(
  ctx: RunContext,
  symbol: string,
  clientOrderId: string,
  purpose: string,
  as?: Credentials,
): void {
  if (!ctx.ledger.hasPurposeOn(purpose, symbol)) {
    ctx.progress({
      type: "stage",
      message: `${purpose}: placing orders on ${symbol} (the smallest quantity; cancelled or offset afterwards)`,
    });
  }
  ctx.ledger.sent(symbol, clientOrderId, purpose, as);
}

/**
 * Sends new_order with `values` (FULL answer), recorded in the ledger first; `options` as the
 * session's call takes them (the load phase's orders go past the pacer). The order's client id is
 * a fresh one of the run unless `values` names one (another account's, to show ids are per account).
 */
export async function placeOrder(
  ctx: RunContext,
  newOrder: ContractOperation,
  values: Values,
  label: string,
  as?: Credentials,
  options?: CallOptions,
): Promise<PlacedOrder> {
  const chosen = values.newClientOrderId;
  const clientOrderId = typeof chosen === "string" ? chosen : ctx.ledger.nextClientOrderId();
  const symbol = String(values.symbol ?? ctx.values.symbol);
  recordSent(ctx, symbol, clientOrderId, purposeOf(label), as);
  const exchange = await ctx.session.call(
    {
      op: newOrder,
      params: encodeParams(newOrder, {
        newOrderRespType: "FULL",
        ...values,
        newClientOrderId: clientOrderId,
      }),
      ...(as ? { as } : {}),
    },
    label,
    options,
  );
  const body = bodyObject(exchange);
  const placed = { exchange, body, clientOrderId };
  if (ok(exchange)) {
    const orderId = typeof body?.orderId === "number" ? body.orderId : undefined;
    ctx.ledger.opened(clientOrderId, orderId, as);
    const status = body?.status;
    if (status === "FILLED" || status === "EXPIRED" || status === "CANCELED" || status === "REJECTED")
      ctx.ledger.closed(clientOrderId, as);
    if (status === "NEW" && !ctx.ledger.proven) return proveControl(ctx, newOrder, values, label, placed, as);
  } else if (refusedNewOrder(exchange)) {
    ctx.ledger.closed(clientOrderId, as);
  }
  return placed;
}

/**
 * The run's first resting order while the target has not yet shown it can query and cancel an
 * order of the run (the order lifecycle did not run, or has not yet): it is queried and cancelled
 * at once, before anything else is placed. A target that does both is released from the hold
 * (ledger.held) and the order is placed again, as it was, for the check that asked for it; on a
 * target that cannot, this order stays the only one the run places, and the hold says why.
 * Only an order with nothing executed (NEW) is used, so that placing it again changes nothing.
 */
async function proveControl(
  ctx: RunContext,
  newOrder: ContractOperation,
  values: Values,
  label: string,
  placed: PlacedOrder,
  as?: Credentials,
): Promise<PlacedOrder> {
  const query = op(ctx, ORDER_OPERATIONS.queryOrder);
  const cancel = op(ctx, ORDER_OPERATIONS.cancelOrder);
  if (!query || !cancel) return placed;
  const symbol = String(values.symbol ?? ctx.values.symbol);
  const which = { symbol, origClientOrderId: placed.clientOrderId };
  await ctx.session.call(
    { op: query, params: encodeParams(query, which), ...(as ? { as } : {}) },
    "safety: query the run's first resting order at once",
  );
  const cancelled = await ctx.session.call(
    { op: cancel, params: encodeParams(cancel, which), ...(as ? { as } : {}) },
    "safety: cancel the run's first resting order at once",
  );
  if (afterCancel(cancel, cancelled).state === "closed") ctx.ledger.closed(placed.clientOrderId, as);
  const held = ctx.ledger.held();
  ctx.progress({
    type: "stage",
    message: held
      ? `safety: ${held}`
      : `safety: the target found and cancelled ${placed.clientOrderId} at once, so the run may place more orders; placing it again for ${purposeOf(label)}`,
  });
  if (!ctx.ledger.proven || ctx.ledger.get(placed.clientOrderId, as)?.state !== "closed") return placed;
  return placeOrder(ctx, newOrder, values, label, as);
}

/**
 * Cancels the orders of the run's symbol among `ids` that the ledger holds open, one by one, each
 * closed in the ledger once the target says so; returns the last cancel's answer.
 */
export async function cancelOpen(
  ctx: RunContext,
  ids: readonly string[],
  label: string,
): Promise<RoundTrip | undefined> {
  const cancel = op(ctx, ORDER_OPERATIONS.cancelOrder);
  if (!cancel) return undefined;
  let last: RoundTrip | undefined;
  for (const id of ids) {
    if (ctx.ledger.get(id)?.state !== "open") continue;
    last = await ctx.session.call(
      { op: cancel, params: encodeParams(cancel, { symbol: ctx.values.symbol, origClientOrderId: id }) },
      label,
    );
    if (afterCancel(cancel, last).state === "closed") ctx.ledger.closed(id);
  }
  return last;
}
