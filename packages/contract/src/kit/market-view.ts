/**
 * What the exploration knows of the symbol it trades: the rules exchangeInfo announces (types,
 * filters, flags), the sizes and prices its orders use, and, at the start of each sequence, the
 * foreign liquidity on the book and the last trade id (the bracket that tells a quiet market).
 */

import {
  ceilToStep,
  type Dec,
  floorToStep,
  fromRatio,
  maxDec,
  mul,
  tryParseDec,
  ZERO,
} from "../core/decimal.js";
import type { Json, SymbolRules } from "./market.js";
import type { Level, Side } from "./matching-model.js";
import { smallestQuantity } from "./order-placing.js";

export interface ExplorationView {
  symbol: string;
  rules: SymbolRules;
  /** The market's price when the exploration started (the middle of the best bid and ask). */
  reference: Dec;
  tick: Dec;
  step: Dec;
  /** Order types exchangeInfo lists for the symbol (all the spec knows when it lists none). */
  types: string[];
  /** A LIMIT price far below the market (BUY) and far above it (SELL), within the price filters. */
  far: Record<Side, Dec | undefined>;
  quoteOrderQtyAllowed: boolean;
  icebergAllowed: boolean;
  /** ICEBERG_PARTS limit, MAX_NUM_ALGO_ORDERS, MAX_NUM_ORDERS, when announced. */
  icebergParts: number | undefined;
  maxAlgoOrders: number | undefined;
  maxOrders: number | undefined;
  /** Orders of the account may trade with each other (no self-trade prevention by default). */
  selfTradeAllowed: boolean;
}

export function filterOf(info: Json, type: string): Json | undefined {
  const filters = Array.isArray(info.filters) ? (info.filters as Json[]) : [];
  return filters.find((f) => typeof f === "object" && f !== null && f.filterType === type);
}

function integerField(filter: Json | undefined, field: string): number | undefined {
  const value = filter?.[field];
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The view of a symbol from its rules and a reference price; undefined without a tick or step. */
export function explorationView(
  rules: SymbolRules,
  reference: Dec,
  specTypes: readonly string[],
): ExplorationView | undefined {
  if (rules.tick <= ZERO || rules.step <= ZERO || reference <= ZERO) return undefined;
  const info = rules.info;
  const stp = info.defaultSelfTradePreventionMode;
  return {
    symbol: rules.symbol,
    rules,
    reference,
    tick: rules.tick,
    step: rules.step,
    types:
      rules.orderTypes.length > 0 ? rules.orderTypes.filter((t) => specTypes.includes(t)) : [...specTypes],
    far: { BUY: farPrice(rules, reference, "BUY"), SELL: farPrice(rules, reference, "SELL") },
    quoteOrderQtyAllowed: info.quoteOrderQtyMarketAllowed !== false,
    icebergAllowed: info.icebergAllowed !== false,
    icebergParts: integerField(filterOf(info, "ICEBERG_PARTS"), "limit"),
    maxAlgoOrders: integerField(filterOf(info, "MAX_NUM_ALGO_ORDERS"), "maxNumAlgoOrders"),
    maxOrders: integerField(filterOf(info, "MAX_NUM_ORDERS"), "maxNumOrders"),
    selfTradeAllowed: stp === undefined || stp === "NONE",
  };
}

/**
 * A price a fifth (BUY) or five times (SELL) the market, kept inside PRICE_FILTER and the
 * percent-price filters with a margin; undefined when the filters leave no price that far away.
 */
export function farPrice(rules: SymbolRules, reference: Dec, side: Side): Dec | undefined {
  const info = rules.info;
  const bySide = filterOf(info, "PERCENT_PRICE_BY_SIDE");
  const percent = filterOf(info, "PERCENT_PRICE");
  if (side === "BUY") {
    const down = tryParseDec(bySide?.bidMultiplierDown) ?? tryParseDec(percent?.multiplierDown);
    const lowest = maxDec(
      mul(reference, fromRatio(1, 5)),
      rules.minPrice,
      rules.tick,
      down !== undefined ? mul(mul(reference, down), fromRatio(11, 10)) : ZERO,
    );
    const price = ceilToStep(lowest, rules.tick);
    return price < mul(reference, fromRatio(9, 10)) ? price : undefined;
  }
  const up = tryParseDec(bySide?.askMultiplierUp) ?? tryParseDec(percent?.multiplierUp);
  let highest = mul(reference, fromRatio(5, 1));
  if (rules.maxPrice > ZERO && rules.maxPrice < highest) highest = rules.maxPrice;
  if (up !== undefined) {
    const allowed = mul(mul(reference, up), fromRatio(9, 10));
    if (allowed < highest) highest = allowed;
  }
  const price = floorToStep(highest, rules.tick);
  return price > mul(reference, fromRatio(11, 10)) ? price : undefined;
}

/** The smallest quantity every filter accepts at `price` (LOT_SIZE, and NOTIONAL with a margin). */
export function unitAt(view: ExplorationView, price: Dec): Dec {
  return smallestQuantity(view.rules, price);
}

/** A quote budget worth `units` of the smallest quantity at `price`, on the quote asset's precision. */
export function quoteBudget(view: ExplorationView, units: number, price: Dec): Dec {
  const precision =
    typeof view.rules.info.quoteAssetPrecision === "number" ? view.rules.info.quoteAssetPrecision : 8;
  const unit = 10n ** BigInt(Math.max(0, 20 - precision));
  return floorToStep(mul(unitAt(view, price) * BigInt(units), price), unit > 0n ? unit : 1n);
}

/** Prices strictly inside the spread, `count` ticks from the own side's best (1 = one tick better). */
export function insidePrice(
  view: ExplorationView,
  side: Side,
  bestBid: Dec,
  bestAsk: Dec,
  ticks: number,
): Dec | undefined {
  const price = side === "BUY" ? bestBid + view.tick * BigInt(ticks) : bestAsk - view.tick * BigInt(ticks);
  return price > bestBid && price < bestAsk ? price : undefined;
}

/** The book's levels as read from an order_book answer (price, quantity), best first. */
export function levelsOf(side: unknown): Level[] {
  if (!Array.isArray(side)) return [];
  const out: Level[] = [];
  for (const level of side) {
    if (!Array.isArray(level)) continue;
    const price = tryParseDec(level[0]);
    const qty = tryParseDec(level[1]);
    if (price !== undefined && qty !== undefined) out.push({ price, qty });
  }
  return out;
}
