import { OrderBook } from "./book.js";
import type { Decimal } from "./decimal.js";
import { compileRules, type SymbolConfig, type SymbolRules } from "./symbols.js";
import type { AggTrade, Order, Trade } from "./types.js";
import { type Formats, formatsFor } from "./views.js";

/** Everything the exchange keeps for one symbol. */
export interface Market {
  readonly config: SymbolConfig;
  readonly rules: SymbolRules;
  readonly formats: Formats;
  readonly book: OrderBook;
  /** Every order ever accepted on the symbol, by orderId. */
  readonly orders: Map<number, Order>;
  /** Stop orders waiting for their trigger, oldest first. */
  pendingStops: Order[];
  /** Stops that fired during the current operation and still have to run. */
  readonly triggered: Order[];
  readonly trades: Trade[];
  readonly aggTrades: AggTrade[];
  nextOrderId: number;
  nextTradeId: number;
  nextAggTradeId: number;
  nextBookSeq: number;
  lastUpdateId: number;
}

export function createMarket(config: SymbolConfig): Market {
  return {
    config: structuredClone(config),
    rules: compileRules(config),
    formats: formatsFor(config),
    book: new OrderBook(),
    orders: new Map(),
    pendingStops: [],
    triggered: [],
    trades: [],
    aggTrades: [],
    nextOrderId: 1,
    nextTradeId: 1,
    nextAggTradeId: 1,
    nextBookSeq: 1,
    lastUpdateId: 1,
  };
}

export function lastPrice(market: Market): Decimal | undefined {
  return market.trades.at(-1)?.price;
}

/** Index of the first item whose key is ≥ `target`, for arrays sorted by that key. */
export function lowerBound<T>(items: readonly T[], key: (item: T) => number, target: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const item = items[middle];
    if (item !== undefined && key(item) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}
