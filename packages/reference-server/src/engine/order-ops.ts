import {
  type ApiError,
  cancelRejected,
  clientOrderIdMismatch,
  illegalChars,
  invalidCancelRestrictions,
  noSuchOrder,
  oneOfMissing,
  REJECT,
} from "../errors.js";
import type { Account } from "./accounts.js";
import type { EngineContext } from "./context.js";
import type { History } from "./history.js";
import type { Market } from "./market.js";
import { checkWindow, clampLimit, DAY_MS, type PageQuery } from "./paging.js";
import { CLIENT_ORDER_ID_PATTERN } from "./params.js";
import { finishOrder } from "./settlement.js";
import { type CancelRestrictions, isOpen, type Order, type Trade } from "./types.js";
import { type CancelReport, cancelReport, type OrderResponse, orderResponse } from "./views.js";

/** Identifies one order of a symbol: by orderId, by client id, or both (which must agree). */
export interface OrderLookup {
  symbol: string;
  orderId?: number | undefined;
  origClientOrderId?: string | undefined;
}

export interface CancelOrderParams extends OrderLookup {
  newClientOrderId?: string | undefined;
  cancelRestrictions?: CancelRestrictions | undefined;
}

export interface AllOrdersQuery {
  symbol: string;
  orderId?: number | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit?: number | undefined;
}

export interface MyTradesQuery extends PageQuery {
  symbol: string;
  orderId?: number | undefined;
}

export interface MyTradeResponse {
  symbol: string;
  id: number;
  orderId: number;
  orderListId: number;
  price: string;
  qty: string;
  quoteQty: string;
  commission: string;
  commissionAsset: string;
  time: number;
  isBuyer: boolean;
  isMaker: boolean;
  isBestMatch: boolean;
}

export const ALL_ORDERS_LIMIT = { default: 500, max: 1000 } as const;
const CLIENT_ORDER_ID = new RegExp(CLIENT_ORDER_ID_PATTERN);
const CANCEL_RESTRICTIONS: readonly string[] = ["ONLY_NEW", "ONLY_PARTIALLY_FILLED"];

function findOrder(
  history: History,
  account: Account,
  market: Market,
  lookup: OrderLookup,
  notFound: () => ApiError,
): Order {
  const { orderId, origClientOrderId } = lookup;
  if (orderId === undefined && origClientOrderId === undefined)
    throw oneOfMissing("origClientOrderId", "orderId");
  if (orderId === undefined)
    return byClientOrderId(history, account, market, origClientOrderId ?? "") ?? throwError(notFound());
  const order = market.openOrders.get(orderId) ?? history.order(market.config.symbol, orderId);
  if (!order || order.accountId !== account.id) throw notFound();
  if (origClientOrderId !== undefined && order.clientOrderId !== origClientOrderId)
    throw clientOrderIdMismatch();
  return order;
}

// Client ids are reusable once an order closes, so the open one wins, then the newest.
function byClientOrderId(
  history: History,
  account: Account,
  market: Market,
  clientOrderId: string,
): Order | undefined {
  const open = account.openOrders.get(clientOrderId);
  if (open && open.symbol === market.config.symbol) return open;
  return history.latestByClientOrderId(account.id, market.config.symbol, clientOrderId);
}

function throwError(error: ApiError): never {
  throw error;
}

export function queryOrder(
  history: History,
  account: Account,
  market: Market,
  lookup: OrderLookup,
): OrderResponse {
  return orderResponse(findOrder(history, account, market, lookup, noSuchOrder), market.formats);
}

export function cancelOrder(
  ctx: EngineContext,
  account: Account,
  market: Market,
  params: CancelOrderParams,
  time: number,
): CancelReport {
  const unknown = () => cancelRejected(REJECT.unknownOrder);
  const order = findOrder(ctx.history, account, market, params, unknown);
  if (!isOpen(order)) throw unknown();
  checkCancelRestrictions(order, params.cancelRestrictions);
  const cancelId = cancelClientOrderId(ctx, params.newClientOrderId);
  finishOrder(ctx, market, order, "CANCELED", time);
  return cancelReport(order, cancelId, time, market.formats);
}

function checkCancelRestrictions(order: Order, restrictions: CancelRestrictions | undefined): void {
  if (restrictions === undefined) return;
  if (!CANCEL_RESTRICTIONS.includes(restrictions)) {
    throw invalidCancelRestrictions();
  }
  const required = restrictions === "ONLY_NEW" ? "NEW" : "PARTIALLY_FILLED";
  if (order.status !== required) throw cancelRejected(REJECT.cancelRestricted);
}

function cancelClientOrderId(ctx: EngineContext, requested: string | undefined): string {
  if (requested === undefined || requested === "") return ctx.newClientOrderId();
  if (!CLIENT_ORDER_ID.test(requested)) throw illegalChars("newClientOrderId", CLIENT_ORDER_ID_PATTERN);
  return requested;
}

/** Open orders of the account on one market, oldest first. */
export function openOrdersOn(account: Account, market: Market): Order[] {
  return [...account.openOrders.values()]
    .filter((order) => order.symbol === market.config.symbol)
    .sort((a, b) => a.orderId - b.orderId);
}

export function cancelAllOrders(
  ctx: EngineContext,
  account: Account,
  market: Market,
  time: number,
): CancelReport[] {
  const open = openOrdersOn(account, market);
  if (open.length === 0) throw cancelRejected(REJECT.unknownOrder);
  return open.map((order) => {
    finishOrder(ctx, market, order, "CANCELED", time);
    return cancelReport(order, ctx.newClientOrderId(), time, market.formats);
  });
}

/** Open orders across markets, ordered by time (then symbol and orderId, for stability). */
export function openOrders(account: Account, markets: readonly Market[]): OrderResponse[] {
  const formatsBySymbol = new Map(markets.map((m) => [m.config.symbol, m.formats]));
  return [...account.openOrders.values()]
    .filter((order) => formatsBySymbol.has(order.symbol))
    .sort((a, b) => a.time - b.time || a.symbol.localeCompare(b.symbol) || a.orderId - b.orderId)
    .map((order) => orderResponse(order, formatsBySymbol.get(order.symbol) ?? throwMissing(order.symbol)));
}

function throwMissing(symbol: string): never {
  throw new Error(`No market for ${symbol}`);
}

/** GET /api/v3/allOrders: -1127 for windows over 24 h, then the §1.6 paging rule. */
export function allOrders(
  history: History,
  account: Account,
  market: Market,
  query: AllOrdersQuery,
): OrderResponse[] {
  checkWindow(query, DAY_MS);
  const limit = clampLimit(query.limit, ALL_ORDERS_LIMIT.default, ALL_ORDERS_LIMIT.max);
  const page = history.orders(account.id, market.config.symbol, { ...query, fromId: query.orderId }, limit);
  // An open order's live state is newer than the history's copy of it.
  return page.map((order) => orderResponse(market.openOrders.get(order.orderId) ?? order, market.formats));
}

/** The account's trades on a market (both sides of a self-trade), oldest first. */
export function myTrades(
  history: History,
  account: Account,
  market: Market,
  query: MyTradesQuery,
): MyTradeResponse[] {
  checkWindow(query, DAY_MS);
  const limit = clampLimit(query.limit, ALL_ORDERS_LIMIT.default, ALL_ORDERS_LIMIT.max);
  let within: { from: number; to: number } | undefined;
  if (query.orderId !== undefined) {
    // An order's trades happen between its placement and its last update.
    const order = market.openOrders.get(query.orderId) ?? history.order(market.config.symbol, query.orderId);
    if (!order || order.accountId !== account.id) return [];
    within = { from: order.time, to: order.updateTime };
  }
  const trades = history.accountTrades(account.id, market.config.symbol, { ...query, within }, limit);
  const views = trades
    .flatMap((trade) => tradeViews(account, market, trade))
    .filter((view) => query.orderId === undefined || view.orderId === query.orderId);
  const anchoredAtStart = query.fromId !== undefined || query.startTime !== undefined;
  // A self-trade gives two views; the page holds `limit` views, not trades.
  return anchoredAtStart ? views.slice(0, limit) : views.slice(-limit);
}

function tradeViews(account: Account, market: Market, trade: Trade): MyTradeResponse[] {
  const f = market.formats;
  const views: MyTradeResponse[] = [];
  for (const [party, isBuyer] of [
    [trade.buyer, true],
    [trade.seller, false],
  ] as const) {
    if (party.accountId !== account.id) continue;
    views.push({
      symbol: market.config.symbol,
      id: trade.id,
      orderId: party.orderId,
      orderListId: -1,
      price: f.price(trade.price),
      qty: f.qty(trade.qty),
      quoteQty: f.quote(trade.quoteQty),
      commission: f.commission(party.commission),
      commissionAsset: party.commissionAsset,
      time: trade.time,
      isBuyer,
      isMaker: trade.isBuyerMaker === isBuyer,
      isBestMatch: true,
    });
  }
  return views;
}
