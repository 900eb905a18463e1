import { newOrderRejected, REJECT } from "../errors.js";
import type { Account } from "./accounts.js";
import type { EngineContext } from "./context.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import { checkOrderCounts, checkOrderFilters, type OpenOrderCounts } from "./filters.js";
import { lastPrice, type Market } from "./market.js";
import { averagePrice } from "./market-data.js";
import { type PlannedFill, planFills, plannedQty, plannedQuote, type TakerLimits } from "./matching.js";
import { checkSymbolAllows, type NewOrderParams, type OrderRequest, parseOrderRequest } from "./params.js";
import {
  executeFill,
  finishOrder,
  lockFor,
  releaseLock,
  restInBook,
  spendAsset,
  touch,
} from "./settlement.js";
import { initialTrailing, wouldTriggerImmediately } from "./stops.js";
import { isMarketLike, isPricedType, isStopType, type Order, remainingQty, type Trade } from "./types.js";
import { type FullResponse, fillResponse, fullResponse } from "./views.js";

/**
 * POST /api/v3/order. Validation, then either a pending stop or an order that matches at once.
 * Every check that can reject runs before any state changes, so a rejection leaves no trace.
 */
export function placeOrder(
  ctx: EngineContext,
  market: Market,
  account: Account,
  params: NewOrderParams,
  time: number,
): FullResponse {
  const request = parseOrderRequest(params, market.config);
  checkSymbolAllows(market.config, request, params.selfTradePreventionMode);
  // Only a market-like order sized by quantity is valued at the average price (NOTIONAL).
  const valuedAtAverage = request.quoteOrderQty === undefined && !isPricedType(request.type);
  checkOrderFilters(market.rules, request, valuedAtAverage ? averagePrice(market, time) : undefined);
  if (!account.exemptFromOrderLimits) {
    checkOrderCounts(market.rules, request, openOrderCounts(account, market), ctx.maxOpenOrdersPerAccount);
  }
  checkClientOrderIdFree(account, request.newClientOrderId);
  const order = buildOrder(market, account, request, time);
  const response = isStopType(order.type)
    ? placeStop(ctx, market, account, order, time)
    : placeWorking(ctx, market, account, order, time);
  runTriggeredStops(ctx, market, time);
  return response;
}

function openOrderCounts(account: Account, market: Market): OpenOrderCounts {
  const counts = { onSymbol: 0, algoOnSymbol: 0, onAccount: account.openOrders.size };
  for (const order of account.openOrders.values()) {
    if (order.symbol !== market.config.symbol) continue;
    counts.onSymbol += 1;
    if (isStopType(order.type)) counts.algoOnSymbol += 1;
  }
  return counts;
}

/** A client id must be unique among the account's open orders. */
function checkClientOrderIdFree(account: Account, requested: string | undefined): void {
  if (requested !== undefined && account.openOrders.has(requested))
    throw newOrderRejected(REJECT.duplicateOrder);
}

// Drawn only once the order is accepted, so rejected orders do not advance the generator.
function generatedClientOrderId(ctx: EngineContext, account: Account, orderId: number): string {
  let generated = ctx.clientOrderIdFor(orderId);
  while (account.openOrders.has(generated)) generated = ctx.clientOrderIdFor(orderId);
  return generated;
}

/** The order as requested; orderId (and a missing clientOrderId) are filled in on acceptance. */
function buildOrder(market: Market, account: Account, r: OrderRequest, time: number): Order {
  const stop = isStopType(r.type);
  return {
    accountId: account.id,
    symbol: market.config.symbol,
    orderId: 0,
    clientOrderId: r.newClientOrderId ?? "",
    side: r.side,
    type: r.type,
    timeInForce: r.timeInForce ?? "GTC",
    price: r.price ?? 0n,
    origQty: r.quantity ?? 0n,
    origQuoteOrderQty: r.quoteOrderQty ?? 0n,
    executedQty: 0n,
    cummulativeQuoteQty: 0n,
    stopPrice: r.stopPrice ?? 0n,
    icebergQty: r.icebergQty ?? 0n,
    trailing: initialTrailing(r.trailingDelta, r.stopPrice ?? 0n, lastPrice(market), time),
    status: "NEW",
    isWorking: !stop,
    time,
    updateTime: time,
    workingTime: stop ? -1 : time,
    strategyId: r.strategyId,
    strategyType: r.strategyType,
    locked: 0n,
    bookSeq: 0,
  };
}

/** Assigns the next orderId and registers the order with its market and account. */
function acceptOrder(ctx: EngineContext, market: Market, account: Account, order: Order): void {
  order.orderId = market.nextOrderId;
  market.nextOrderId += 1;
  if (order.clientOrderId === "") order.clientOrderId = generatedClientOrderId(ctx, account, order.orderId);
  market.openOrders.set(order.orderId, order);
  account.openOrders.set(order.clientOrderId, order);
  touch(ctx, market, order);
}

function placeStop(
  ctx: EngineContext,
  market: Market,
  account: Account,
  order: Order,
  time: number,
): FullResponse {
  const last = lastPrice(market);
  if (wouldTriggerImmediately(order, last)) throw newOrderRejected(REJECT.wouldTrigger);
  // A trailing stop without stopPrice trails from the last price, so it needs one.
  if (order.trailing && order.stopPrice === 0n && last === undefined) {
    throw newOrderRejected(REJECT.unsupportedCombination);
  }
  lockFor(ctx, market, order, stopReserve(order, last ?? 0n));
  acceptOrder(ctx, market, account, order);
  market.pendingStops.push(order);
  return fullResponse(order, [], time, market.formats);
}

/**
 * What a stop reserves while it waits: the base quantity for SELL, price × qty for a BUY
 * limit, and qty × stopPrice (or × last price when trailing) for a BUY stop-market.
 */
function stopReserve(order: Order, last: Decimal): Decimal {
  if (order.side === "SELL") return order.origQty;
  if (isPricedType(order.type)) return dec.mul(order.price, order.origQty);
  return dec.mul(order.stopPrice > 0n ? order.stopPrice : last, order.origQty);
}

function placeWorking(
  ctx: EngineContext,
  market: Market,
  account: Account,
  order: Order,
  time: number,
): FullResponse {
  const plan = planFills(market.book, takerLimits(market, order));
  if (order.type === "LIMIT_MAKER" && plan.length > 0) throw newOrderRejected(REJECT.wouldTake);
  if (order.origQuoteOrderQty > 0n) order.origQty = plannedQty(plan);
  lockFor(ctx, market, order, workingReserve(order, plan));
  acceptOrder(ctx, market, account, order);
  const trades = execute(ctx, market, order, plan, time);
  const fills = trades.map((trade) => fillResponse(trade, order.orderId, market.formats));
  return fullResponse(order, fills, time, market.formats);
}

/**
 * What a working order reserves before it matches: the base quantity for SELL, price × qty
 * for a BUY limit, and for a BUY market order exactly what the planned fills cost.
 */
function workingReserve(order: Order, plan: readonly PlannedFill[]): Decimal {
  if (order.side === "SELL") return remainingQty(order);
  if (isPricedType(order.type)) return dec.mul(order.price, remainingQty(order));
  return plannedQuote(plan);
}

function takerLimits(market: Market, order: Order): TakerLimits {
  const byQuote = order.origQuoteOrderQty > 0n;
  const marketMax = market.rules.marketLot?.max;
  return {
    side: order.side,
    limitPrice: isPricedType(order.type) ? order.price : undefined,
    maxQty: byQuote ? (marketMax && marketMax > 0n ? marketMax : undefined) : remainingQty(order),
    maxQuote: byQuote ? order.origQuoteOrderQty : undefined,
    stepSize: market.rules.stepSize,
  };
}

/** Runs the plan (or expires a FOK that cannot fill completely), then rests or ends the rest. */
function execute(
  ctx: EngineContext,
  market: Market,
  order: Order,
  plan: PlannedFill[],
  time: number,
): Trade[] {
  if (order.timeInForce === "FOK" && plannedQty(plan) < remainingQty(order)) {
    finishOrder(ctx, market, order, "EXPIRED", time);
    return [];
  }
  const trades = plan.map((fill) => executeFill(ctx, market, order, fill, time));
  settleRemainder(ctx, market, order, time);
  return trades;
}

function settleRemainder(ctx: EngineContext, market: Market, order: Order, time: number): void {
  if (order.executedQty === 0n && order.origQty === 0n) finishOrder(ctx, market, order, "EXPIRED", time);
  else if (remainingQty(order) === 0n) finishOrder(ctx, market, order, "FILLED", time);
  else if (isPricedType(order.type) && order.timeInForce === "GTC") restInBook(ctx, market, order);
  else finishOrder(ctx, market, order, "EXPIRED", time);
}

/** Runs stops fired by trades, including stops fired by those stops' own trades. */
export function runTriggeredStops(ctx: EngineContext, market: Market, time: number): void {
  for (let stop = market.triggered.shift(); stop; stop = market.triggered.shift()) {
    activateStop(ctx, market, stop, time);
  }
}

/**
 * A fired stop becomes a working order. Its reservation is recomputed: a BUY stop-market may
 * then use the account's whole free quote balance and expires whatever that cannot pay for.
 */
function activateStop(ctx: EngineContext, market: Market, order: Order, time: number): void {
  touch(ctx, market, order);
  order.isWorking = true;
  order.workingTime = time;
  order.updateTime = time;
  releaseLock(ctx, market, order);
  const limits = takerLimits(market, order);
  if (isMarketLike(order.type) && order.side === "BUY") {
    limits.maxQuote = ctx.account(order.accountId).free(spendAsset(market, order));
  }
  const plan = planFills(market.book, limits);
  lockFor(ctx, market, order, workingReserve(order, plan));
  execute(ctx, market, order, plan, time);
}
