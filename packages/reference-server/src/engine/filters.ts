import { filterFailure, newOrderRejected, REJECT } from "../errors.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { OrderRequest } from "./params.js";
import type { SymbolRules } from "./symbols.js";
import { isMarketLike, isPricedType, isStopType, triggersOnRise } from "./types.js";

interface Bounds {
  min: Decimal;
  max: Decimal;
  step: Decimal;
}

/** Binance filter rule: min ≤ v ≤ max and (v − min) is a whole number of steps; zeros disable parts. */
export function withinBounds(bounds: Bounds, value: Decimal): boolean {
  if (bounds.min > 0n && value < bounds.min) return false;
  if (bounds.max > 0n && value > bounds.max) return false;
  return dec.isOnStep(value, bounds.min, bounds.step);
}

export function checkPriceFilter(rules: SymbolRules, price: Decimal): void {
  if (price <= 0n || (rules.price && !withinBounds(rules.price, price))) throw filterFailure("PRICE_FILTER");
}

export function checkLotSize(rules: SymbolRules, qty: Decimal, market: boolean): void {
  if (qty <= 0n || (rules.lot && !withinBounds(rules.lot, qty))) throw filterFailure("LOT_SIZE");
  if (market && rules.marketLot && !withinBounds(rules.marketLot, qty))
    throw filterFailure("MARKET_LOT_SIZE");
}

/**
 * NOTIONAL: limit-priced orders use price × qty. Market-like orders use quoteOrderQty, or
 * qty × the average price (undefined when the symbol has never traded, which skips the check).
 */
export function checkNotional(
  rules: SymbolRules,
  request: OrderRequest,
  averagePrice: Decimal | undefined,
): void {
  const rule = rules.notional;
  if (!rule) return;
  const market = isMarketLike(request.type);
  const notional = notionalOf(request, averagePrice);
  if (notional === undefined) return;
  if ((!market || rule.applyMinToMarket) && notional < rule.min) throw filterFailure("NOTIONAL");
  if ((!market || rule.applyMaxToMarket) && rule.max > 0n && notional > rule.max)
    throw filterFailure("NOTIONAL");
}

function notionalOf(request: OrderRequest, averagePrice: Decimal | undefined): Decimal | undefined {
  if (request.quoteOrderQty !== undefined) return request.quoteOrderQty;
  const qty = request.quantity ?? 0n;
  if (isPricedType(request.type)) return dec.mul(request.price ?? 0n, qty);
  return averagePrice === undefined ? undefined : dec.mul(averagePrice, qty);
}

export function checkIceberg(rules: SymbolRules, qty: Decimal, icebergQty: Decimal): void {
  if (icebergQty <= 0n || (rules.lot && !withinBounds(rules.lot, icebergQty)))
    throw filterFailure("LOT_SIZE");
  if (icebergQty >= qty) throw newOrderRejected(REJECT.icebergExceedsQty);
  const parts = (qty + icebergQty - 1n) / icebergQty;
  if (rules.icebergParts !== undefined && parts > BigInt(rules.icebergParts)) {
    throw filterFailure("ICEBERG_PARTS");
  }
}

export function checkTrailingDelta(rules: SymbolRules, request: OrderRequest): void {
  const delta = request.trailingDelta;
  const rule = rules.trailing;
  if (delta === undefined || !rule) return;
  const above = triggersOnRise(request.type, request.side);
  const low = above ? rule.minTrailingAboveDelta : rule.minTrailingBelowDelta;
  const high = above ? rule.maxTrailingAboveDelta : rule.maxTrailingBelowDelta;
  if (delta < low || delta > high) throw filterFailure("TRAILING_DELTA");
}

/** Every price, quantity and notional filter of a new order, in Binance's usual order. */
export function checkOrderFilters(
  rules: SymbolRules,
  request: OrderRequest,
  averagePrice: Decimal | undefined,
): void {
  if (request.price !== undefined) checkPriceFilter(rules, request.price);
  if (request.stopPrice !== undefined) checkPriceFilter(rules, request.stopPrice);
  if (request.quantity !== undefined) checkLotSize(rules, request.quantity, isMarketLike(request.type));
  if (request.quoteOrderQty !== undefined && request.quoteOrderQty <= 0n) throw filterFailure("NOTIONAL");
  if (request.icebergQty !== undefined) checkIceberg(rules, request.quantity ?? 0n, request.icebergQty);
  checkNotional(rules, request, averagePrice);
  if (isStopType(request.type)) checkTrailingDelta(rules, request);
}

export interface OpenOrderCounts {
  onSymbol: number;
  algoOnSymbol: number;
  onAccount: number;
}

/** MAX_NUM_ORDERS, MAX_NUM_ALGO_ORDERS and the account-wide cap (EXCHANGE_MAX_NUM_ORDERS). */
export function checkOrderCounts(
  rules: SymbolRules,
  request: OrderRequest,
  counts: OpenOrderCounts,
  accountCap: number,
): void {
  if (rules.maxNumOrders !== undefined && counts.onSymbol >= rules.maxNumOrders) {
    throw filterFailure("MAX_NUM_ORDERS");
  }
  const algoCap = rules.maxNumAlgoOrders;
  if (isStopType(request.type) && algoCap !== undefined && counts.algoOnSymbol >= algoCap) {
    throw filterFailure("MAX_NUM_ALGO_ORDERS");
  }
  if (counts.onAccount >= accountCap) throw filterFailure("EXCHANGE_MAX_NUM_ORDERS");
}
