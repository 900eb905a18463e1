/**
 * The run's own orders on any symbol, for the checks that place and read them: a far order on a
 * symbol's plan, the reads of one order (query_order) and of the lists (open_orders, all_orders,
 * the book), and the cancel, each as the run's account or, with `as`, as another account. Orders
 * go through the ledger (order-placing.ts), so the clean-up finds whatever is left.
 */
import { type Dec, formatDec, tryParseDec } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { type Credentials, encodeParams } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";
import { bodyObject, ok } from "./answers.js";
import { op, type RunContext } from "./context.js";
import { type FarBuy, farBuyOrder, type SymbolRules } from "./market.js";
import { levelsOf } from "./market-view.js";
import type { Level } from "./matching-model.js";
import { type PlacedOrder, placeOrder, recordSent } from "./order-placing.js";
import { afterCancel } from "./order-state.js";
import type { Values } from "./values.js";

/** An order of the run: where it is and how the target knows it. */
export interface OwnOrder {
  symbol: string;
  clientOrderId: string;
  orderId: number | undefined;
  placed: PlacedOrder;
}

/** The items of a list answer (objects only). */
export function itemsOf(exchange: RoundTrip): Record<string, unknown>[] {
  const json = exchange.response?.json;
  return Array.isArray(json)
    ? (json.filter((x) => typeof x === "object" && x !== null) as Record<string, unknown>[])
    : [];
}

function newOrderOp(ctx: RunContext): ContractOperation {
  const operation = op(ctx, "new_order");
  if (!operation) throw new Error("internal: the spec has no new_order");
  return operation;
}

/** Places `values` (FULL answer) under a client order id of the run. */
export async function placeOwn(
  ctx: RunContext,
  values: Values,
  label: string,
  as?: Credentials,
): Promise<OwnOrder> {
  const placed = await placeOrder(ctx, newOrderOp(ctx), values, label, as);
  const orderId = ok(placed.exchange) ? placed.body?.orderId : undefined;
  return {
    symbol: String(values.symbol),
    clientOrderId: placed.clientOrderId,
    orderId: typeof orderId === "number" ? orderId : undefined,
    placed,
  };
}

/**
 * A far LIMIT GTC BUY sent without newClientOrderId, so the target generates its client order id.
 * Only on a sandbox (where the run may move prices): an order whose answer never came has no id
 * the clean-up knows. In the ledger it is recorded under a placeholder until the answer names the
 * generated id.
 */
export async function placeFarGenerated(ctx: RunContext, far: FarBuy, label: string): Promise<OwnOrder> {
  const placeholder = ctx.ledger.nextClientOrderId();
  recordSent(ctx, far.symbol, placeholder, label.split(":")[0] ?? label);
  const operation = newOrderOp(ctx);
  const exchange = await ctx.session.call(
    { op: operation, params: encodeParams(operation, { newOrderRespType: "FULL", ...farBuyOrder(far) }) },
    label,
  );
  const body = bodyObject(exchange);
  const orderId = ok(exchange) && typeof body?.orderId === "number" ? body.orderId : undefined;
  const generated = ok(exchange) && typeof body?.clientOrderId === "string" ? body.clientOrderId : undefined;
  if (generated !== undefined) ctx.ledger.renamed(placeholder, generated, orderId);
  else ctx.ledger.closed(placeholder);
  const clientOrderId = generated ?? placeholder;
  return { symbol: far.symbol, clientOrderId, orderId, placed: { exchange, body, clientOrderId } };
}

/** A LIMIT GTC BUY at the plan's far price and quantity: it rests without trading. */
export function placeFar(
  ctx: RunContext,
  far: FarBuy,
  label: string,
  extra: Values = {},
  as?: Credentials,
): Promise<OwnOrder> {
  return placeOwn(ctx, { ...farBuyOrder(far), ...extra }, label, as);
}

async function read(
  ctx: RunContext,
  id: string,
  values: Values,
  label: string,
  as?: Credentials,
): Promise<RoundTrip | undefined> {
  const operation = op(ctx, id);
  if (!operation) return undefined;
  return ctx.session.call(
    { op: operation, params: encodeParams(operation, values), ...(as ? { as } : {}) },
    label,
  );
}

/** query_order of `order` (by orderId when known), on `symbol` (its own by default). */
export function queryOwn(
  ctx: RunContext,
  order: OwnOrder,
  label: string,
  options: { symbol?: string; as?: Credentials } = {},
): Promise<RoundTrip | undefined> {
  const lookup =
    order.orderId !== undefined ? { orderId: order.orderId } : { origClientOrderId: order.clientOrderId };
  return read(ctx, "query_order", { symbol: options.symbol ?? order.symbol, ...lookup }, label, options.as);
}

/** open_orders on `symbol`, or on every symbol without it. */
export function openOrders(
  ctx: RunContext,
  symbol: string | undefined,
  label: string,
  as?: Credentials,
): Promise<RoundTrip | undefined> {
  return read(ctx, "open_orders", symbol === undefined ? {} : { symbol }, label, as);
}

/** all_orders on `symbol`, with more values (orderId, limit, a window). */
export function allOrders(
  ctx: RunContext,
  symbol: string,
  label: string,
  extra: Values = {},
  as?: Credentials,
): Promise<RoundTrip | undefined> {
  return read(ctx, "all_orders", { symbol, ...extra }, label, as);
}

/** cancel_order of `order` by orderId (or client id), on `symbol` (its own by default); closes it in the ledger when it did. */
export async function cancelOwn(
  ctx: RunContext,
  order: OwnOrder,
  label: string,
  options: { symbol?: string; as?: Credentials } = {},
): Promise<RoundTrip | undefined> {
  const lookup =
    order.orderId !== undefined ? { orderId: order.orderId } : { origClientOrderId: order.clientOrderId };
  const exchange = await read(
    ctx,
    "cancel_order",
    { symbol: options.symbol ?? order.symbol, ...lookup },
    label,
    options.as,
  );
  if (exchange && ok(exchange) && bodyObject(exchange)?.origClientOrderId === order.clientOrderId)
    ctx.ledger.closed(order.clientOrderId, options.as);
  return exchange;
}

/**
 * The best bid and ask of `rules`' symbol when at least `ticks` ticks lie between them: room for
 * orders of the run's own inside the spread, where they meet nobody else's. Undefined otherwise
 * (a side empty, the book unread, or too little room).
 */
export async function spreadWithRoom(
  ctx: RunContext,
  rules: Pick<SymbolRules, "symbol" | "tick">,
  ticks: bigint,
  label: string,
): Promise<{ bid: Dec; ask: Dec } | undefined> {
  const book = await readBook(ctx, rules.symbol, 5, label);
  const bid = book?.bids[0]?.price;
  const ask = book?.asks[0]?.price;
  return bid !== undefined && ask !== undefined && ask - bid >= rules.tick * ticks ? { bid, ask } : undefined;
}

/**
 * Cancels `order` on its own symbol unless the ledger knows it closed (the clean-up's way, by
 * client id); true when the target cancelled it (it was still open).
 */
export async function cancelIfOpen(ctx: RunContext, order: OwnOrder, label: string): Promise<boolean> {
  const owner = order.placed.exchange.plan.as;
  const entry = ctx.ledger.get(order.clientOrderId, owner);
  if (entry?.state === "closed") return false;
  const cancel = op(ctx, "cancel_order");
  if (!cancel) return false;
  const exchange = await ctx.session.call(
    {
      op: cancel,
      params: encodeParams(cancel, { symbol: order.symbol, origClientOrderId: order.clientOrderId }),
      ...(entry?.as ? { as: entry.as } : {}),
    },
    label,
  );
  // Refused as unknown (an order that filled, a stop that fired and sold): closed, as the clean-up rules.
  if (afterCancel(cancel, exchange).state === "closed") ctx.ledger.closed(order.clientOrderId, owner);
  return ok(exchange);
}

/** The book as one order_book answer shows it. */
export interface BookView {
  exchange: RoundTrip;
  lastUpdateId: number | undefined;
  bids: Level[];
  asks: Level[];
}

/** order_book of `symbol` with `limit` levels a side; undefined when it was not served. */
export async function readBook(
  ctx: RunContext,
  symbol: string,
  limit: number,
  label: string,
): Promise<BookView | undefined> {
  const exchange = await read(ctx, "order_book", { symbol, limit }, label);
  if (!exchange || !ok(exchange)) return undefined;
  const body = bodyObject(exchange) ?? {};
  return {
    exchange,
    lastUpdateId: typeof body.lastUpdateId === "number" ? body.lastUpdateId : undefined,
    bids: levelsOf(body.bids),
    asks: levelsOf(body.asks),
  };
}

/** The quantity a book side shows at `price` (zero when no level is there). */
export function quantityAt(levels: readonly Level[], price: Dec): Dec {
  return levels.find((level) => level.price === price)?.qty ?? 0n;
}

/** A decimal field of an answer's body. */
export function decimalField(body: Record<string, unknown> | undefined, field: string): Dec | undefined {
  return tryParseDec(body?.[field]);
}

/**
 * A trade between orders of the run at `price`: `makers` LIMIT GTC SELLs of `quantity` rest
 * there, then one LIMIT IOC BUY of them all takes them (the account trades with itself, where
 * self-trade prevention allows it), so the last price becomes `price`, the taker's trades with
 * them make one aggregate trade, and the account's holdings do not change. Returns the first
 * maker and the BUY (FULL: its fills), or undefined when a SELL did not rest (the market moved
 * into it). `untaken` says what went wrong when the BUY expired short while a maker it reached
 * still rested: an IOC takes every order its price reaches before it expires.
 */
export async function tradeBetweenOwn(
  ctx: RunContext,
  symbol: string,
  price: string,
  quantity: string,
  purpose: string,
  makers = 1,
): Promise<{ maker: OwnOrder; taker: OwnOrder; untaken?: string } | undefined> {
  const resting: OwnOrder[] = [];
  const cancelAll = async (what: string) => {
    for (const order of resting) await cancelIfOpen(ctx, order, `${purpose}: ${what}`);
  };
  for (let n = 0; n < makers; n++) {
    const maker = await placeOwn(
      ctx,
      {
        symbol,
        side: "SELL",
        type: "LIMIT",
        timeInForce: "GTC",
        price,
        quantity,
        newOrderRespType: "RESULT",
      },
      `${purpose}: a LIMIT SELL of the run at ${price}`,
    );
    resting.push(maker);
    if (!ok(maker.placed.exchange) || bodyObject(maker.placed.exchange)?.status !== "NEW") {
      await cancelAll("cancel");
      return undefined;
    }
  }
  const total = (tryParseDec(quantity) ?? 0n) * BigInt(makers);
  const taker = await placeOwn(
    ctx,
    {
      symbol,
      side: "BUY",
      type: "LIMIT",
      timeInForce: "IOC",
      price,
      quantity: formatDec(total),
      newOrderRespType: "FULL",
    },
    `${purpose}: a LIMIT IOC BUY of the run taking ${makers === 1 ? "it" : `its ${makers}`} at ${price}`,
  );
  const executed = decimalField(bodyObject(taker.placed.exchange), "executedQty");
  const maker = resting[0] as OwnOrder;
  if (ok(taker.placed.exchange) && executed !== undefined && executed === total) {
    for (const order of resting) ctx.ledger.closed(order.clientOrderId);
    return { maker, taker };
  }
  let stillResting = 0;
  for (const order of resting)
    if (await cancelIfOpen(ctx, order, `${purpose}: cancel what was not taken`)) stillResting += 1;
  const untaken = untakenProblem(
    bodyObject(taker.placed.exchange)?.status,
    executed,
    total,
    price,
    stillResting,
  );
  return { maker, taker, ...(untaken ? { untaken } : {}) };
}

/**
 * What an IOC BUY at `price` of the makers' `total` shows wrong when it ended EXPIRED having
 * executed `executed` while `stillResting` of the run's SELLs at that price, resting before it,
 * were still open after it (cancelled then): it stopped short of orders its price reached. An
 * order stopped by self-trade prevention ends EXPIRED_IN_MATCH and is not judged. Pure.
 */
export function untakenProblem(
  status: unknown,
  executed: Dec | undefined,
  total: Dec,
  price: string,
  stillResting: number,
): string | undefined {
  if (status !== "EXPIRED" || stillResting === 0 || executed === undefined || executed >= total)
    return undefined;
  return `the LIMIT IOC BUY at ${price} of ${formatDec(total)} expired having executed ${formatDec(executed)}, while ${stillResting} of the run's SELLs at ${price}, resting before it, were still open after it: an IOC takes every order its price reaches before the rest expires`;
}
