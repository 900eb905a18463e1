import { OrderBook } from "./book.js";
import type { Decimal } from "./decimal.js";
import { TradeStats } from "./stats.js";
import { compileRules, type SymbolConfig, type SymbolRules } from "./symbols.js";
import type { AggTrade, Order, Trade } from "./types.js";
import { type Formats, formatsFor } from "./views.js";

/** Everything the exchange keeps live for one symbol (its history lives in the exchange's History). */
export interface Market {
  readonly config: SymbolConfig;
  readonly rules: SymbolRules;
  readonly formats: Formats;
  readonly book: OrderBook;
  /** Open orders (resting, or stops waiting for their trigger) by orderId. */
  readonly openOrders: Map<number, Order>;
  /** Stop orders waiting for their trigger, oldest first. */
  pendingStops: Order[];
  /** Stops that fired during the current operation and still have to run. */
  readonly triggered: Order[];
  lastTrade: Trade | undefined;
  /** The newest aggregate trade (consecutive fills of one taker at one price extend it). */
  lastAggTrade: AggTrade | undefined;
  /** Rolling 5-minute and 24-hour statistics. */
  readonly stats: TradeStats;
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
    openOrders: new Map(),
    pendingStops: [],
    triggered: [],
    lastTrade: undefined,
    lastAggTrade: undefined,
    stats: new TradeStats(),
    nextOrderId: 1,
    nextTradeId: 1,
    nextAggTradeId: 1,
    nextBookSeq: 1,
    lastUpdateId: 1,
  };
}

export function lastPrice(market: Market): Decimal | undefined {
  return market.lastTrade?.price;
}
